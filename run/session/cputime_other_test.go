//go:build !unix

package session

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }

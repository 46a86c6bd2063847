//go:build !unix

package run

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }

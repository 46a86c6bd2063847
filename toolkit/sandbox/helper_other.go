//go:build !linux

package sandbox

import "errors"

// Linux reports whether this platform has the helper.
const Linux = false

// ProbeABI returns 0: Landlock exists on Linux only.
func ProbeABI() int { return 0 }

func confineAndExec(Rules, string, []string, []string) error {
	return errors.New("the sandbox helper runs on Linux only")
}

//go:build unix && !linux

package toolkit

import "errors"

// fdDir lists the process's open descriptors.
const fdDir = "/dev/fd"

// closeRangeCloexec is Linux's; elsewhere each descriptor is marked.
func closeRangeCloexec() error { return errors.New("no close_range") }

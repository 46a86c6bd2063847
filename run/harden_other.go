//go:build !linux

package run

// HardenProcess does nothing outside Linux, where there is no
// /proc/PID/environ to protect in the same way.
func HardenProcess([]string) error { return nil }

//go:build !linux

package sandbox

// TrimResident does nothing outside Linux.
func TrimResident() {}

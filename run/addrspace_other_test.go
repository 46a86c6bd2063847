//go:build !linux

package run

// sameAddressSpace cannot compare address spaces outside Linux.
func sameAddressSpace(a, b int) (same, ok bool) { return false, false }

//go:build !unix

package toolkit

// CloseInherited does nothing on this platform, whose child processes
// inherit only the handles they are given.
func CloseInherited() error { return nil }

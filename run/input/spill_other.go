//go:build !unix

package input

// freeSpace is not known here; only --stdin-max bounds a spill.
func freeSpace(string) (int64, bool) { return 0, false }

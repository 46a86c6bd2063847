//go:build unix

package toolkit

import (
	"errors"
	"os"
	"syscall"
)

// readFlags open a file for reading without following a final symlink (a
// resolved path has none, unless it was swapped since) and without blocking
// on a FIFO swapped in after resolution; the opened file is checked to be
// regular before it is read.
const readFlags = syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// isNotDir reports whether err says a path element is not a directory.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// hardLinks returns the number of hard links of a file, 0 when unknown.
func hardLinks(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 0
}

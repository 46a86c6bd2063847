//go:build !unix

package toolkit

import (
	"errors"
	"os"
	"syscall"
)

// readFlags open a file for reading; the opened file is checked to be
// regular before it is read.
const readFlags = os.O_RDONLY

// isNotDir reports whether err says a path element is not a directory.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// hardLinks cannot tell hard links on this platform.
func hardLinks(os.FileInfo) int { return 0 }

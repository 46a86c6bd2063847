//go:build unix

package patch

import (
	"io/fs"
	"syscall"
)

// hardLinks returns the number of hard links of a file, 0 when unknown.
func hardLinks(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 0
}

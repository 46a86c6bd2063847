//go:build unix

package harness

import (
	"os"
	"syscall"
)

// LinkCount returns the number of hard links of the file at abs after
// symlinks, 0 when it cannot be told.
func LinkCount(abs string) int {
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 0
}

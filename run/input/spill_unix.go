//go:build unix

package input

import "golang.org/x/sys/unix"

// freeSpace returns the bytes an unprivileged user may still write on the
// file system of dir.
func freeSpace(dir string) (int64, bool) {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}

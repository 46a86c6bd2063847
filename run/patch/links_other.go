//go:build !unix

package patch

import "io/fs"

// hardLinks cannot tell hard links on this platform.
func hardLinks(fs.FileInfo) int { return 0 }

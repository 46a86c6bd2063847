//go:build !linux

package toolkit

import "os"

// outputPipe returns the pipe a command's output goes through: r for the
// tool, w for the command (see the Linux version).
func outputPipe() (r, w *os.File, err error) { return os.Pipe() }

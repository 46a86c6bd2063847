//go:build !linux

package linemode

// keyMode is single-key input, on Linux only: elsewhere an answer is a
// line (see the Linux keyMode).
func keyMode(int) (restore func(), ok bool) { return nil, false }

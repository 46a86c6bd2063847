package linemode

import "golang.org/x/sys/unix"

// keyMode puts the terminal at fd into single-key input: no line
// buffering and no echo, but Ctrl-C still a signal (the run's interrupt,
// as at a line prompt) and output unchanged. It returns how to restore the
// terminal, which also drops keys typed past the answer ("yes" after the
// "y"); ok is false when fd is not a terminal (a line is read then).
func keyMode(fd int) (restore func(), ok bool) {
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, false
	}
	t := *old
	t.Lflag &^= unix.ICANON | unix.ECHO
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &t); err != nil {
		return nil, false
	}
	return func() { _ = unix.IoctlSetTermios(fd, unix.TCSETSF, old) }, true
}

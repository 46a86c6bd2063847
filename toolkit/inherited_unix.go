//go:build unix

package toolkit

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseInherited marks every descriptor of the process from 3 up
// close-on-exec, so that the programs rubichan starts get only stdin,
// stdout, stderr and the files their command passes on purpose
// ([exec.Cmd.ExtraFiles], which the child gets whatever the flag). Go
// opens its own descriptors close-on-exec already: what this changes is
// the descriptors rubichan inherited (a CI runner's, a shell's
// redirections), which every program it started would otherwise inherit
// too. It is cheap and idempotent; the sandbox's spawner does the same
// for itself.
func CloseInherited() error {
	if closeRangeCloexec() == nil {
		return nil
	}
	return cloexecEach()
}

// cloexecEach marks each open descriptor from 3 up close-on-exec, as
// listed in fdDir.
func cloexecEach() error {
	d, err := os.Open(fdDir)
	if err != nil {
		return err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
	return nil
}

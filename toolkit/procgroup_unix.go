//go:build unix

package toolkit

import (
	"errors"
	"os/exec"
	"syscall"
)

// setGroupAttr makes cmd start in a new session, which also makes it the
// leader of a new process group. A new session has no controlling
// terminal, so nothing the command runs (ssh, sudo, a pager) can open
// /dev/tty and wait for a person, nor be stopped by SIGTTIN for trying.
// Other attributes already set (the sandbox's namespaces) are kept.
func setGroupAttr(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

// terminateGroup sends SIGTERM to the process group pgid, then SIGCONT so
// that stopped members receive it. An empty group is not an error.
func terminateGroup(pgid int) error {
	if err := signalGroup(pgid, syscall.SIGTERM); err != nil {
		return err
	}
	return signalGroup(pgid, syscall.SIGCONT)
}

// killGroup sends SIGKILL to the process group pgid. An empty group is not
// an error.
func killGroup(pgid int) error {
	return signalGroup(pgid, syscall.SIGKILL)
}

func signalGroup(pgid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

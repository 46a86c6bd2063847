//go:build !unix

package toolkit

import (
	"os"
	"os/exec"
)

// setGroupAttr does nothing: without Unix process groups only the shell
// itself can be stopped.
func setGroupAttr(*exec.Cmd) {}

// terminateGroup kills the process pid; there is no gentler signal here.
func terminateGroup(pid int) error { return killGroup(pid) }

// killGroup kills the process pid.
func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

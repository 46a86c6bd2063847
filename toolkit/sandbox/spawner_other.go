//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
)

var errNotLinux = errors.New("sandbox: the spawner runs on Linux only")

// Spawner is the Linux sandbox spawner; elsewhere none can be started.
type Spawner struct{}

// StartSpawner fails: there is no sandbox here.
func StartSpawner(string, Rules, func(*exec.Cmd) error) (*Spawner, error) { return nil, errNotLinux }

// Pid is 0.
func (*Spawner) Pid() int { return 0 }

// Close does nothing.
func (*Spawner) Close() error { return nil }

// Spawn fails.
func (*Spawner) Spawn(SpawnRequest) (*Process, error) { return nil, errNotLinux }

// Process is a command a [Spawner] started.
type Process struct{ Pid int }

// Signal fails.
func (*Process) Signal(syscall.Signal) error { return errNotLinux }

// Terminate fails.
func (*Process) Terminate() error { return errNotLinux }

// Kill fails.
func (*Process) Kill() error { return errNotLinux }

// Wait fails.
func (*Process) Wait() (Status, error) { return Status{}, errNotLinux }

// Status fails.
func (*Process) Status() (Status, error) { return Status{}, errNotLinux }

// Settled fails.
func (*Process) Settled() error { return errNotLinux }

// Serve fails: the spawner runs on Linux only.
func Serve(_ []string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "rubichan sandbox: %v\n", errNotLinux)
	return 126
}

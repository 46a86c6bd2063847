package sandbox

import (
	"errors"
	"os"
	"strconv"
)

// ServeCommand is the hidden first argument that makes rubichan the
// sandbox's spawner: `rubichan __sandbox-serve [--abi N] [--write DIR]...
// [--network]`, with the control socket as descriptor 3. It confines
// itself once, the way [HelperCommand] confines one command, and then
// starts every command it is asked for (see [Spawner]).
const ServeCommand = "__sandbox-serve"

// SpawnRequest is one command for a [Spawner] to start.
type SpawnRequest struct {
	// Path is the program, absolute; Args its arguments, Args[0] included.
	Path string   `json:"path"`
	Args []string `json:"args"`
	// Env is the whole environment ("NAME=value"); Dir the working
	// directory.
	Env []string `json:"env"`
	Dir string   `json:"dir"`
	// Stdin, Stdout and Stderr become the command's descriptors 0, 1 and
	// 2; all three are required (open /dev/null for none). The spawner
	// gets copies; the caller keeps and closes its own.
	Stdin  *os.File `json:"-"`
	Stdout *os.File `json:"-"`
	Stderr *os.File `json:"-"`
}

// Status is how a spawned command ended.
type Status struct {
	// Code is the exit status when the command exited, -1 when a signal
	// ended it.
	Code int `json:"code"`
	// Signal names the signal that ended it ("killed"); empty when it
	// exited.
	Signal string `json:"signal,omitempty"`
}

// Exited reports whether the command exited (rather than being ended
// by a signal).
func (s Status) Exited() bool { return s.Signal == "" }

// ExitCode is the exit status, or -1 when a signal ended the command.
func (s Status) ExitCode() int {
	if !s.Exited() {
		return -1
	}
	return s.Code
}

// String reads like [os.ProcessState.String]: "exit status 2",
// "signal: killed".
func (s Status) String() string {
	if !s.Exited() {
		return "signal: " + s.Signal
	}
	return "exit status " + strconv.Itoa(s.Code)
}

// ErrSpawnerClosed is returned by [Spawner.Spawn] after [Spawner.Close],
// and by [Process.Wait] when the spawner went away before the command
// ended.
var ErrSpawnerClosed = errors.New("sandbox: the spawner is gone")

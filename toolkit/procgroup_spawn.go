package toolkit

import (
	"os"
	"os/exec"

	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// spawnGroup starts cmd through the sandbox's spawner, in its own
// session. ok is false, and nothing started, when cmd's standard files
// are not all files (nil stdin is /dev/null): the caller then starts it
// another way.
func spawnGroup(sp *sandbox.Spawner, cmd *exec.Cmd, r *Reaper) (g *procGroup, ok bool, err error) {
	stdout, ok1 := cmd.Stdout.(*os.File)
	stderr, ok2 := cmd.Stderr.(*os.File)
	stdin, ok3 := cmd.Stdin.(*os.File)
	if !ok1 || !ok2 || (cmd.Stdin != nil && !ok3) {
		return nil, false, nil
	}
	if cmd.Stdin == nil {
		if stdin, err = os.Open(os.DevNull); err != nil {
			return nil, true, err
		}
		defer stdin.Close()
	}
	p, err := sp.Spawn(sandbox.SpawnRequest{
		Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir,
		Stdin: stdin, Stdout: stdout, Stderr: stderr,
	})
	if err != nil {
		return nil, true, err
	}
	return &procGroup{cmd: cmd, sp: p, pid: p.Pid, reaper: r}, true, nil
}

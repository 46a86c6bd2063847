package toolkit

import "os/exec"

// Group is a started command that leads its own process group (its own
// session, on Unix), for tools that keep a process running beyond one call,
// such as an MCP server started over stdio. It is safe for concurrent use.
type Group struct{ g *procGroup }

// StartGroup starts cmd as the leader of a new process group, as the bash
// tool starts its commands; r (may be nil) learns that the leader is
// waited for by [Group.Wait], so its sweeps leave it alone.
func StartGroup(cmd *exec.Cmd, r *Reaper) (*Group, error) {
	g, err := startGroup(cmd, r)
	if err != nil {
		return nil, err
	}
	return &Group{g: g}, nil
}

// Pid returns the leader's process id, which is also the group's id.
func (g *Group) Pid() int { return g.g.cmd.Process.Pid }

// Terminate sends SIGTERM (and SIGCONT) to every process in the group; it
// does nothing once the leader has been reaped.
func (g *Group) Terminate() { g.g.terminate() }

// Kill sends SIGKILL to every process in the group; it does nothing once
// the leader has been reaped.
func (g *Group) Kill() { g.g.kill() }

// Wait waits for the leader to exit, kills what it left in its group,
// reaps it and returns [exec.Cmd.Wait]'s error. Call it once.
func (g *Group) Wait() error { return g.g.finish() }

// CommandEnv builds the environment of a command the tools start from
// base ("NAME=value" entries) the way the bash tool does: secrets and the
// names in drop removed (allow keeps a secret-looking name), git
// hardened, nothing prompting, PWD=dir and PATH cleaned of the workspace
// with pathAdd appended.
func CommandEnv(base, allow, drop []string, dir string, pathAdd []string) []string {
	return commandEnv(base, allow, drop, dir, pathAdd)
}

// LookupEnv returns the value of name in env ("NAME=value" entries), the
// last entry winning as it does for a started command; "" when unset.
func LookupEnv(env []string, name string) string { return lookupEnv(env, name) }

// CapOutput keeps at most the first and last bytes of s, max in all, as
// the bash tool keeps a command's output, with a marker where it cut;
// truncated reports whether it did. max <= 0 is the bash tool's cap.
func CapOutput(s string, max int) (out string, truncated bool) {
	if max <= 0 {
		max = bashOutputMax
	}
	ht := newHeadTail(max)
	ht.Write([]byte(s))
	return ht.String(), ht.Truncated()
}

// CleanPath returns the PATH value as the commands the tools start get
// it: without empty, relative and workspace (dir) entries, with the
// directories of add (the user's configuration; relative ones taken from
// dir) appended.
func CleanPath(value, dir string, add []string) string { return cleanPath(value, dir, add) }

package run

import (
	"errors"

	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/sandbox"
	"golang.org/x/sys/unix"
)

// HardenProcess makes the process non-dumpable: other processes of the same
// user — the commands the bash tool runs among them — can no longer read
// its /proc files (/proc/PID/environ holds the API key the process started
// with, and Go cannot erase that copy), attach to it with ptrace, or get a
// core dump of it. Root is not stopped by this.
//
// First it takes API keys and other secret-looking variables out of the
// process's initial environment block, which even root can read from
// /proc/PID/environ, by re-executing the program with args (os.Args) and
// the secrets passed through a pipe (see hideSecrets).
//
// It also makes the process a child subreaper ([toolkit.BecomeSubreaper]):
// descendants of the commands the agent runs that detach with setsid
// become its children, which the run kills when their command ends and
// when the run ends. main calls it first; a failure is returned for main
// to ignore, since the run works without it.
//
// Then it marks the descriptors it inherited close-on-exec
// ([toolkit.CloseInherited]): every program a run starts — the bash tool's
// commands, hooks, --verify, MCP servers, git — gets stdin, stdout and
// stderr only.
//
// The sandbox helper ([sandbox.IsHelper]) is left alone: it holds no key,
// and a subreaper setting would survive its exec into the command.
func HardenProcess(args []string) error {
	if sandbox.IsHelper(args) {
		return nil
	}
	return errors.Join(hideSecrets(args), toolkit.CloseInherited(), unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0), toolkit.BecomeSubreaper())
}

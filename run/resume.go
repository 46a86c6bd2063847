package run

import (
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/session"
)

// sessionFlags are the exec flags that choose the run's session.
type sessionFlags struct {
	SessionDir  string // --session-dir; "": the XDG state directory
	NoSession   bool
	SessionID   string   // --session-id: name the new session
	SessionFile string   // --session-file: write the session to this file
	Resume      string   // --resume ID|PATH
	Continue    bool     // --continue: resume the newest session of the workspace
	Fork        bool     // --fork: resume into a copy
	Approve     []string // --approve CALL_ID|all
	DenyPending bool
}

// settings are the session flags as the harness takes them.
func (f sessionFlags) settings() harness.SessionSettings {
	return harness.SessionSettings{Dir: f.SessionDir, Off: f.NoSession, ID: f.SessionID, File: f.SessionFile,
		Resume: f.Resume, Continue: f.Continue, Fork: f.Fork, Approve: f.Approve, DenyPending: f.DenyPending}
}

// resuming reports whether the run continues an earlier session.
func (f sessionFlags) resuming() bool { return f.settings().Resuming() }

// answering reports whether the run answers deferred calls, which makes
// its own prompt optional.
func (f sessionFlags) answering() bool { return f.settings().Answering() }

// sessionDir is [harness.SessionSettings.SessionDir].
func (f sessionFlags) sessionDir(env environment) string { return f.settings().SessionDir(env.Env) }

// validate checks the session flags against each other (exit 2).
func (f sessionFlags) validate(onAsk string) error {
	switch {
	case f.NoSession && (f.resuming() || f.SessionID != "" || f.SessionFile != ""):
		return exit.Usagef("--no-session cannot be used with --resume, --continue, --session-id or --session-file")
	case f.NoSession && onAsk == "defer":
		return exit.Usagef("--on-ask defer needs a session to resume; it cannot be used with --no-session")
	case f.Resume != "" && f.Continue:
		return exit.Usagef("--resume and --continue cannot be used together")
	case f.Fork && !f.resuming():
		return exit.Usagef("--fork needs --resume or --continue")
	case (f.SessionID != "" || f.SessionFile != "") && f.resuming() && !f.Fork:
		return exit.Usagef("--session-id and --session-file name a new session; to add to an existing one use --resume alone (or --fork to copy it)")
	case f.SessionID != "" && f.SessionFile != "":
		return exit.Usagef("--session-id and --session-file cannot be used together")
	case f.answering() && !f.resuming():
		return exit.Usagef("--approve and --deny-pending need --resume or --continue")
	case len(f.Approve) > 0 && f.DenyPending:
		return exit.Usagef("--approve and --deny-pending cannot be used together")
	}
	if f.SessionID != "" {
		if err := session.CheckID(f.SessionID); err != nil {
			return exit.Usagef("--session-id: %v", err)
		}
	}
	return nil
}

package learnlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/policy/learn"
	"github.com/rubichan/rubichan/run/session"
)

// Calls returns the judged tool calls of one session log, in the order
// they were made. A call is judged once its "decision" line is written:
// "allow" is [learn.Ran], "deny" [learn.Denied], "pending"
// [learn.Deferred]; a call with no decision (the run ended first) and a
// tool the policy does not judge are skipped. A torn last line is
// ignored. name names the log in errors; a log that does not start with
// a session line is refused.
func Calls(name string, data []byte) ([]learn.Call, error) {
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	var (
		id, workspace string
		calls         []learn.Call
		pending       = map[string]*learn.Call{}
	)
	for n, raw := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(raw) == 0 {
			continue
		}
		var l session.Line
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("learnlog: %s:%d: %w", name, n+1, err)
		}
		if n == 0 {
			if l.Type != session.TypeHeader || l.ID == "" {
				return nil, fmt.Errorf("learnlog: %s: not a session log (its first line is not a session line)", name)
			}
			id, workspace = l.ID, l.Workspace
			continue
		}
		switch l.Type {
		case session.TypeToolCall:
			if c, ok := toCall(l, workspace); ok {
				c.Session = id
				pending[l.ID] = &c
			}
		case session.TypeDecision:
			c := pending[l.ID]
			if c == nil {
				continue
			}
			delete(pending, l.ID)
			switch l.Decision {
			case "allow":
				c.Outcome = learn.Ran
			case "pending":
				c.Outcome = learn.Deferred
			default:
				c.Outcome = learn.Denied
			}
			if name, ok := strings.CutPrefix(l.Fact, "mcp: "); ok && c.Class == policy.ClassMCP {
				c.Name = name
			}
			calls = append(calls, *c)
		}
	}
	if id == "" {
		return nil, errors.New("learnlog: " + name + ": empty session log")
	}
	return calls, nil
}

// toolInput is the part of a tool call's arguments the policy judges.
type toolInput struct {
	Command string `json:"command"`
	Path    string `json:"path"`
}

// toCall turns a tool_call line into a call without its outcome.
func toCall(l session.Line, workspace string) (learn.Call, bool) {
	var in toolInput
	if b, err := json.Marshal(l.Input); err == nil {
		_ = json.Unmarshal(b, &in) // a cut input is a string: no fields
	}
	c := learn.Call{ID: l.ID}
	switch l.Name {
	case "bash":
		c.Class, c.Command = policy.ClassShell, in.Command
		return c, in.Command != ""
	case "read", "grep", "glob", "ls":
		c.Class, c.Path = policy.ClassRead, relative(in.Path, workspace)
		return c, true
	case "write", "edit":
		c.Class, c.Path = policy.ClassWrite, relative(in.Path, workspace)
		return c, in.Path != ""
	}
	if rest, ok := strings.CutPrefix(l.Name, "mcp__"); ok {
		// The decision's fact names it exactly; the tool name, whose
		// characters were sanitised, is the fallback.
		server, tool, ok := strings.Cut(rest, "__")
		c.Class, c.Name = policy.ClassMCP, server+"/"+tool
		return c, ok
	}
	return c, false
}

// relative makes an absolute path inside the workspace relative to it,
// as the policy judges it.
func relative(p, workspace string) string {
	if p == "" {
		return "."
	}
	if workspace != "" && path.IsAbs(p) {
		if rel, ok := strings.CutPrefix(path.Clean(p), path.Clean(workspace)+"/"); ok {
			return rel
		}
	}
	return path.Clean(p)
}

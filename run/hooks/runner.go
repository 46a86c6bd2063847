package hooks

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/toolkit"
)

// Hook events, as the configuration names them.
const (
	eventBeforeTool = "before_tool"
	eventAfterTool  = "after_tool"
	eventStop       = "stop"
)

// claudeEventName returns Claude Code's hook_event_name of a hook event.
func claudeEventName(event string) string {
	switch event {
	case eventBeforeTool:
		return "PreToolUse"
	case eventAfterTool:
		return "PostToolUse"
	case eventStop:
		return "Stop"
	}
	return ""
}

// hookInput is the JSON object on a hook's stdin, in the shape of Claude
// Code's hook input so that existing hook scripts work.
type hookInput struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path,omitempty"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	ToolResponse   *hookResponse   `json:"tool_response,omitempty"`
	StopHookActive *bool           `json:"stop_hook_active,omitempty"`
}

// hookResponse is a finished call's result, for after_tool.
type hookResponse struct {
	Content  string `json:"content"`
	IsError  bool   `json:"is_error"`
	ExitCode *int   `json:"exit_code"`
}

// hookOutput is what a hook may print on stdout when it exits 0. Both
// rubichan's short form and Claude Code's hookSpecificOutput are read.
type hookOutput struct {
	Decision     string          `json:"decision"` // "deny" (Claude Code: "block")
	Reason       string          `json:"reason"`
	UpdatedInput json.RawMessage `json:"updated_input"`
	Specific     *struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
	} `json:"hookSpecificOutput"`
}

// Runner runs the configured hooks for one run; it implements
// [agent.Hooks]. A nil *Runner runs none. It is not safe for concurrent
// use; the engine calls it from one goroutine.
type Runner struct {
	cfg        config.Hooks
	sh         *toolkit.ScriptRunner
	sessionID  string
	transcript string
	cwd        string
	emit       func(agent.Event)
	stopActive bool // a stop hook has sent the model back in this run
}

// Options build a [Runner].
type Options struct {
	Hooks      config.Hooks
	Workspace  string
	SessionID  string // "": a random one
	Transcript string // the session file, if any
	Env        []string
	EnvAllow   []string
	DropEnv    []string
	PathAdd    []string
	Grace      time.Duration    // zero: toolkit's default
	Reaper     *toolkit.Reaper  // ends what a hook leaves behind outside its group
	TempDir    string           // the hooks' TMPDIR: the run's, as for the bash tool
	Sandbox    *toolkit.Sandbox // confines the hooks as the bash tool's commands; nil: none
	// CallEnv adds a hook's variables from its context: the TRACEPARENT
	// of the tool call's span (see [toolkit.ScriptConfig]).
	CallEnv func(ctx context.Context) []string
	// Emit receives the hook events (one per hook run) and the warnings
	// of failed hooks; nil drops them.
	Emit func(agent.Event)
}

// New returns the runner of opt.Hooks, or nil when there are none. A
// caller that keeps it in an [agent.Hooks] must store an untyped nil
// then: a nil *Runner in the interface is not a nil interface.
func New(opt Options) *Runner {
	if opt.Hooks.Empty() {
		return nil
	}
	id := opt.SessionID
	if id == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	sh := toolkit.NewScriptRunner(toolkit.ScriptConfig{
		Dir: opt.Workspace, Env: opt.Env, EnvAllow: opt.EnvAllow, DropEnv: opt.DropEnv, PathAdd: opt.PathAdd,
		Set: []string{
			"RUBICHAN_SESSION_ID=" + id, "RUBICHAN_WORKSPACE=" + opt.Workspace,
			"CLAUDE_PROJECT_DIR=" + opt.Workspace, // for hook scripts written for Claude Code
		},
		GracePeriod: opt.Grace,
		Reaper:      opt.Reaper,
		TempDir:     opt.TempDir,
		CallEnv:     opt.CallEnv,
		Sandbox:     opt.Sandbox,
	})
	emit := opt.Emit
	if emit == nil {
		emit = func(agent.Event) {}
	}
	return &Runner{cfg: opt.Hooks, sh: sh, sessionID: id, transcript: opt.Transcript, cwd: opt.Workspace, emit: emit}
}

// hookRun is one finished hook command.
type hookRun struct {
	res    toolkit.ScriptResult
	failed string // non-empty: why the hook failed (could not start, timed out, exit not 0 or 2)
}

// exec runs hook h with input on its stdin.
func (r *Runner) exec(ctx context.Context, h config.Hook, in hookInput) hookRun {
	in.SessionID, in.TranscriptPath, in.Cwd = r.sessionID, r.transcript, r.cwd
	// No HTML escapes (\u003c for <): a hook reads "<" as the tool does.
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		return hookRun{res: toolkit.ScriptResult{ExitCode: -1}, failed: "its input could not be encoded: " + err.Error()}
	}
	res, err := r.sh.Run(ctx, h.Command, data.Bytes(), h.Timeout)
	switch {
	case err != nil:
		return hookRun{res: res, failed: "it could not be started: " + err.Error()}
	case res.TimedOut && ctx.Err() == nil:
		return hookRun{res: res, failed: "it timed out after " + h.Timeout.String()}
	case res.TimedOut:
		return hookRun{res: res, failed: "the run was stopped while it ran"}
	case res.ExitCode == 0 || res.ExitCode == 2:
		return hookRun{res: res}
	case res.ExitCode == 127 || res.ExitCode == 126:
		return hookRun{res: res, failed: fmt.Sprintf("it could not be started (exit %d): %s", res.ExitCode, agent.Clip(res.Stderr, 200))}
	case res.ExitCode < 0:
		return hookRun{res: res, failed: "a signal ended it"}
	}
	msg := fmt.Sprintf("it exited %d", res.ExitCode)
	if s := strings.TrimSpace(res.Stderr); s != "" {
		msg += ": " + agent.Clip(s, 200)
	}
	return hookRun{res: res, failed: msg}
}

// report emits the hook event of one run, and a warning when it failed.
func (r *Runner) report(turn int, h config.Hook, event, tool, id string, run hookRun, decision agent.HookDecision, reason string) {
	info := &agent.HookInfo{Name: h.Label(), Event: event, Tool: tool, ID: id, Duration: run.res.Duration, Decision: string(decision), Reason: reason}
	if run.res.ExitCode >= 0 {
		info.ExitCode = ptr(run.res.ExitCode)
	}
	if run.failed != "" {
		info.Reason = run.failed
	}
	r.emit(agent.Event{Kind: agent.EventHook, Turn: turn, Hook: info})
	if run.failed != "" {
		r.emit(agent.Event{Kind: agent.EventNotice, Turn: turn, Text: fmt.Sprintf("warning: %s hook %s failed: %s", event, h.Label(), run.failed)})
	}
}

// BeforeTool runs the before_tool hooks that match call, from index from
// on, until one denies, fails or rewrites the arguments. call.Input is
// the tool_input the hooks get: the caller makes it with [ToolInput].
func (r *Runner) BeforeTool(ctx context.Context, turn int, call agent.ToolCall, from int) agent.HookOutcome {
	if r == nil {
		return agent.HookOutcome{Decision: agent.HookAllow}
	}
	tool, id := call.Name, call.ID
	for i := from; i < len(r.cfg.BeforeTool); i++ {
		h := r.cfg.BeforeTool[i]
		if !h.Matches(tool) {
			continue
		}
		run := r.exec(ctx, h, hookInput{HookEventName: claudeEventName(eventBeforeTool), ToolName: tool, ToolInput: call.Input, ToolUseID: id})
		if run.failed != "" {
			r.report(turn, h, eventBeforeTool, tool, id, run, agent.HookFailed, "")
			return agent.HookOutcome{Decision: agent.HookFailed, Hook: h.Label(), Reason: run.failed}
		}
		if run.res.ExitCode == 2 {
			reason := strings.TrimSpace(run.res.Stderr)
			if reason == "" {
				reason = "(the hook gave no reason)"
			}
			r.report(turn, h, eventBeforeTool, tool, id, run, agent.HookDeny, reason)
			return agent.HookOutcome{Decision: agent.HookDeny, Hook: h.Label(), Reason: reason}
		}
		out, err := parseHookOutput(run.res.Stdout)
		if err != nil {
			run.failed = err.Error()
			r.report(turn, h, eventBeforeTool, tool, id, run, agent.HookFailed, "")
			return agent.HookOutcome{Decision: agent.HookFailed, Hook: h.Label(), Reason: run.failed}
		}
		switch {
		case out.denies():
			reason := out.reason()
			r.report(turn, h, eventBeforeTool, tool, id, run, agent.HookDeny, reason)
			return agent.HookOutcome{Decision: agent.HookDeny, Hook: h.Label(), Reason: reason}
		case out.updated() != nil:
			r.report(turn, h, eventBeforeTool, tool, id, run, agent.HookRewrite, string(agent.CompactJSON(out.updated())))
			return agent.HookOutcome{Decision: agent.HookRewrite, Hook: h.Label(), Input: out.updated(), Next: i + 1}
		}
		r.report(turn, h, eventBeforeTool, tool, id, run, agent.HookAllow, "")
	}
	return agent.HookOutcome{Decision: agent.HookAllow}
}

// parseHookOutput reads a before_tool hook's stdout: empty, or one JSON
// object. Anything else fails the hook (fail closed).
func parseHookOutput(stdout string) (hookOutput, error) {
	var out hookOutput
	s := strings.TrimSpace(stdout)
	if s == "" || s[0] != '{' {
		return out, nil // plain text on stdout is a log line, not a decision
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return out, fmt.Errorf("its stdout is not a valid JSON object: %v", err)
	}
	if u := out.updated(); u != nil && agent.CheckArgs(u) != nil {
		return out, fmt.Errorf("its updated_input is not a JSON object")
	}
	return out, nil
}

func (o hookOutput) denies() bool {
	d := strings.ToLower(o.Decision)
	return d == "deny" || d == "block" || o.Specific != nil && strings.EqualFold(o.Specific.PermissionDecision, "deny")
}

func (o hookOutput) reason() string {
	r := o.Reason
	if r == "" && o.Specific != nil {
		r = o.Specific.PermissionDecisionReason
	}
	if r = strings.TrimSpace(r); r == "" {
		return "(the hook gave no reason)"
	}
	return r
}

func (o hookOutput) updated() json.RawMessage {
	u := o.UpdatedInput
	if len(u) == 0 && o.Specific != nil {
		u = o.Specific.UpdatedInput
	}
	if len(bytes.TrimSpace(u)) == 0 || string(bytes.TrimSpace(u)) == "null" {
		return nil
	}
	return u
}

// AfterTool runs the after_tool hooks that match call and returns the
// result with what hooks exiting 2 wrote on stderr appended. call.Input
// is the tool_input the hooks get, as for [Runner.BeforeTool].
func (r *Runner) AfterTool(ctx context.Context, turn int, call agent.ToolCall, res toolkit.Result) toolkit.Result {
	if r == nil {
		return res
	}
	tool, id := call.Name, call.ID
	for _, h := range r.cfg.AfterTool {
		if !h.Matches(tool) {
			continue
		}
		run := r.exec(ctx, h, hookInput{
			HookEventName: claudeEventName(eventAfterTool), ToolName: tool, ToolInput: call.Input, ToolUseID: id,
			ToolResponse: &hookResponse{Content: res.Content, IsError: res.IsError, ExitCode: res.Meta.ExitCode},
		})
		switch {
		case run.failed != "":
			r.report(turn, h, eventAfterTool, tool, id, run, agent.HookFailed, "")
		case run.res.ExitCode == 2 && strings.TrimSpace(run.res.Stderr) != "":
			note := strings.TrimSpace(run.res.Stderr)
			r.report(turn, h, eventAfterTool, tool, id, run, agent.HookAppend, note)
			if res.Content != "" && !strings.HasSuffix(res.Content, "\n") {
				res.Content += "\n"
			}
			res.Content += "[hook " + h.Label() + "] " + note
		default:
			r.report(turn, h, eventAfterTool, tool, id, run, agent.HookNone, "")
		}
	}
	return res
}

// Stop runs the stop hooks when the model has given its final answer. It
// returns the message that sends the model back to work, or "" when the
// run may end. A failing stop hook is a warning: the run ends.
func (r *Runner) Stop(ctx context.Context, turn int) string {
	if r == nil {
		return ""
	}
	for _, h := range r.cfg.Stop {
		active := r.stopActive
		run := r.exec(ctx, h, hookInput{HookEventName: claudeEventName(eventStop), StopHookActive: &active})
		if run.failed != "" {
			r.report(turn, h, eventStop, "", "", run, agent.HookFailed, "")
			continue
		}
		msg := ""
		if run.res.ExitCode == 2 {
			msg = strings.TrimSpace(run.res.Stderr)
			if msg == "" {
				msg = "(the hook gave no reason)"
			}
		} else if out, err := parseHookOutput(run.res.Stdout); err == nil && out.denies() {
			msg = out.reason()
		}
		if msg == "" {
			r.report(turn, h, eventStop, "", "", run, agent.HookFinish, "")
			continue
		}
		r.report(turn, h, eventStop, "", "", run, agent.HookContinue, msg)
		r.stopActive = true
		return "The stop hook " + h.Label() + " does not let the run end yet:\n" + msg
	}
	return ""
}

func ptr[T any](v T) *T { return &v }

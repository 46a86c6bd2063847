package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/doctor"
	"github.com/rubichan/rubichan/run/internal/ptytest"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/mcp"
)

// TestTerminalOutputShowsControls: every place that writes model, file,
// tool or server text for a person writes its control characters
// visibly (see [shown]), whatever field the text comes in.
func TestTerminalOutputShowsControls(t *testing.T) {
	t.Parallel()
	h := ptytest.Hostile
	one := 1
	activity := func(verbose bool, evs ...Event) func(*testing.T) string {
		return func(*testing.T) string {
			var b bytes.Buffer
			s := sink.NewActivity(&b, sink.ActivityOptions{Quiet: false, Verbose: verbose, Colors: false})
			for _, ev := range evs {
				s.Handle(ev)
			}
			return b.String()
		}
	}
	tests := map[string]func(*testing.T) string{
		"activity: tool call":     activity(false, Event{Kind: EventToolCall, Tool: &ToolCallInfo{Name: h, Summary: h}}),
		"activity: denial":        activity(false, Event{Kind: EventToolDenied, Denial: &DenialInfo{Rule: h, Fact: h, Reason: h, Allow: []string{h}}}),
		"activity: denial rule":   activity(false, Event{Kind: EventToolDenied, Denial: &DenialInfo{Rule: h, Fact: "f"}}),
		"activity: pending rule":  activity(false, Event{Kind: EventToolDenied, Denial: &DenialInfo{Rule: h, Fact: "f", Pending: true}}),
		"activity: pending fact":  activity(false, Event{Kind: EventToolDenied, Denial: &DenialInfo{Rule: "r", Fact: h, Pending: true}}),
		"activity: error":         activity(false, Event{Kind: EventError, Err: errors.New(h)}),
		"activity: limit":         activity(false, Event{Kind: EventLimit, Text: h}),
		"activity: notice":        activity(false, Event{Kind: EventNotice, Text: h}),
		"activity: retry":         activity(false, Event{Kind: EventRetry, Retry: &RetryInfo{Attempt: 1, Reason: h}}),
		"activity: error result":  activity(false, Event{Kind: EventToolResult, Tool: &ToolCallInfo{Name: "bash"}, Result: &ToolResultInfo{IsError: true, Content: h}}),
		"activity: changed":       activity(false, Event{Kind: EventToolResult, Tool: &ToolCallInfo{Name: "write"}, Result: &ToolResultInfo{Changed: []string{h}}}),
		"activity: output":        activity(true, Event{Kind: EventToolResult, Tool: &ToolCallInfo{Name: h, Summary: h}, Result: &ToolResultInfo{ExitCode: &one, Content: h}}),
		"activity: hook continue": activity(false, Event{Kind: EventHook, Hook: &HookInfo{Name: h, Decision: hookContinue, Reason: h}}),
		"activity: hook rewrite":  activity(false, Event{Kind: EventHook, Hook: &HookInfo{Name: h, Decision: hookRewrite, Reason: h}}),
		"activity: hook append":   activity(false, Event{Kind: EventHook, Hook: &HookInfo{Name: h, Decision: hookAppend, Reason: h}}),
		"activity: hook verbose":  activity(true, Event{Kind: EventHook, Hook: &HookInfo{Name: h, Event: "stop", Decision: "none"}}),
		"activity: verify":        activity(true, Event{Kind: EventVerifyStart, Verify: &VerifyInfo{Command: h}}, Event{Kind: EventVerify, Verify: &VerifyInfo{Command: h, ExitCode: &one, Output: h}}),
		"activity: verify stop":   activity(false, Event{Kind: EventVerify, Verify: &VerifyInfo{Command: "c", Output: h}}),
		"activity: sub-query":     activity(true, Event{Kind: EventSubquery, Subquery: &SubqueryInfo{Status: "error", Error: h}}, Event{Kind: EventSubquery, Subquery: &SubqueryInfo{Status: subqueryOK, Model: h}}),
		"deferred run: pending list": func(*testing.T) string {
			var b bytes.Buffer
			reportPending(&b, []session.Pending{{ID: h, Tool: h, Fact: h, Rule: h, Diff: h + "\n+" + h}}, filepath.Join("dir", "x"+session.Ext), "dir", []string{"--model", h})
			return b.String()
		},
		"deferred run: pending facts": func(*testing.T) string {
			var b bytes.Buffer
			facts := []session.PendingFact{{Fact: "write: " + h, Rule: h}, {Fact: "command: " + h, Rule: h}}
			reportPending(&b, []session.Pending{{ID: h, Tool: h, Fact: h, Rule: h, Facts: facts}}, "", "", nil)
			return b.String()
		},
		"line mode: approval": func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "new.txt")
			in, _ := json.Marshal(map[string]string{"path": path, "content": h + "\n"})
			eff := toolkit.Effects{Kind: toolkit.EffectWrite, Paths: []toolkit.PathRef{{Requested: path}}, Summary: h}
			return askedOnce(t, llm.Block{Name: "write", Input: in}, eff, verdict{Kind: verdictAsk, Rule: h, Fact: h, Reason: h})
		},
		"line mode: tool name": func(t *testing.T) string {
			return askedOnce(t, llm.Block{Name: h}, toolkit.Effects{Summary: "s"}, verdict{Kind: verdictAsk, Rule: "r", Fact: "f"})
		},
		"line mode: note": func(*testing.T) string {
			var b bytes.Buffer
			(&chat{stderr: &b}).note("tools: %s", h)
			return b.String()
		},
		"line mode: /diff": func(*testing.T) string {
			var b bytes.Buffer
			(&chat{stderr: &b, edits: []fileEdit{{files: []string{h}, diff: "+" + h + "\n"}}}).diff()
			return b.String()
		},
		"sessions show": func(t *testing.T) string {
			var data []byte
			one, yes, text := 1, true, h
			for _, l := range []session.Line{
				{Type: session.TypeHeader, ID: h, Workspace: h, Provider: h, Model: h, Policy: h, ForkedFrom: h, Approve: []string{h}, Prompt: &text},
				{Type: session.TypeMessage, Text: &text},
				{Type: session.TypeToolCall, Name: h, ID: h, Input: map[string]string{"c": h}},
				{Type: session.TypeDecision, Decision: h, Rule: h, Fact: h},
				{Type: session.TypeToolResult, IsError: &yes, ExitCode: &one, Output: &text},
				{Type: session.TypeRetry, Attempt: 1, Reason: h},
				{Type: session.TypeLimit, Text: &text},
				{Type: session.TypeError, Error: h},
				{Type: session.TypeEnd, Status: h, ExitCode: &one, Pending: []session.Pending{{ID: h, Tool: h, Fact: h, Rule: h, Diff: h}}},
			} {
				b, err := json.Marshal(l)
				if err != nil {
					t.Fatal(err)
				}
				data = append(append(data, b...), '\n')
			}
			var b bytes.Buffer
			if err := writeTranscript(&b, "s.jsonl", data); err != nil {
				t.Fatal(err)
			}
			return b.String()
		},
		"sessions list": func(t *testing.T) string {
			var b bytes.Buffer
			if err := writeSessionList(&b, []session.Info{{ID: h, Workspace: h, Prompt: h, Status: h}}); err != nil {
				t.Fatal(err)
			}
			return b.String()
		},
		"mcp list": func(t *testing.T) string {
			var b bytes.Buffer
			out := mcpListJSON{Servers: []mcpServerJSON{{
				Status: mcp.Status{Name: h, Transport: h, State: mcp.State(h), Reason: h, Notes: []string{h}},
				Tools:  []mcpToolJSON{{ToolInfo: mcp.ToolInfo{Name: h, Policy: h}, Decision: h, Rule: h}},
			}}}
			if err := writeMCPList(&b, out, false); err != nil {
				t.Fatal(err)
			}
			return b.String()
		},
		"mcp and config notes": func(*testing.T) string {
			var b bytes.Buffer
			noteTo(&b, "rubichan: note: ")(h)
			return b.String()
		},
		"doctor": func(t *testing.T) string {
			var b bytes.Buffer
			if err := (doctor.Report{Checks: []doctor.Check{{Name: h, Status: doctor.StatusProblem, Detail: h, Fix: h}}}).WriteText(&b); err != nil {
				t.Fatal(err)
			}
			return b.String()
		},
		"policy check": func(t *testing.T) string {
			var b bytes.Buffer
			pol := policy.Default()
			r := pol.Decide(policy.Action{Class: policy.ClassShell, Command: "echo " + h})
			if err := writeCheckText(&b, pol, policy.ClassShell, h, r, []string{h}); err != nil {
				t.Fatal(err)
			}
			return b.String()
		},
		"policy warnings": func(t *testing.T) string {
			dir := t.TempDir()
			file := filepath.Join(dir, "p.toml")
			text := "version = 1\n[[rule]]\nid = " + ptytest.JSONQuote(h) + "\ntool = \"shell\"\ndecision = \"allow\"\ncommands = [\"rm x\"]\n" +
				"[[rule]]\ntool = \"shell\"\ndecision = \"deny\"\ncommands = [\"rm *\"]\n"
			if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if _, err := loadPolicy(policySource{Dir: dir, File: file}, &b); err != nil {
				t.Fatal(err)
			}
			return b.String()
		},
		"config show": func(t *testing.T) string {
			var b bytes.Buffer
			s := config.Show{Files: []string{h}, ProviderError: h, Values: []config.ShownValue{{Key: h, Value: h, Origin: h}}}
			if err := s.WriteText(&b, shown); err != nil {
				t.Fatal(err)
			}
			return b.String()
		},
		"github failure annotation": func(*testing.T) string {
			var b bytes.Buffer
			g := sink.NewGitHub(&b, "")
			g.Finish(errors.New(h), exitFailure)
			return b.String()
		},
		"github annotation": func(*testing.T) string {
			var b bytes.Buffer
			g := sink.NewGitHub(&b, "")
			g.Handle(Event{Kind: EventToolDenied, Tool: &ToolCallInfo{ID: "1", Name: h}, Denial: &DenialInfo{Rule: h, Fact: h, Reason: h, Allow: []string{h}}})
			return b.String()
		},
	}
	for name, render := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := render(t)
			if problem := ptytest.EscapedOK(out); problem != "" {
				t.Errorf("output %s:\n%s", problem, ptytest.JSONQuote(out))
			}
		})
	}
}

// TestErrorLineShowsControls: the error a command ends with (it may name
// a file or quote a server) is written with its controls shown.
func TestErrorLineShowsControls(t *testing.T) {
	dir := t.TempDir()
	env := fakeEnv(map[string]string{"ANTHROPIC_API_KEY": "sk-test-secret", "XDG_STATE_HOME": dir})
	code, _, stderr := runCLI(t, env, "", "exec", "--no-session", "--cwd", dir, "--policy", filepath.Join(dir, ptytest.Hostile), "hi")
	if code != exitUsage {
		t.Errorf("exit code %d, want %d", code, exitUsage)
	}
	if problem := ptytest.EscapedOK(stderr); problem != "" {
		t.Errorf("stderr %s:\n%s", problem, ptytest.JSONQuote(stderr))
	}
}

// TestJSONOutputShowsControls: JSON printed for a program may still land
// on a terminal. encoding/json leaves C1 controls, DEL and bidirectional
// overrides raw; every JSON output writes them as \u escapes, which
// decode to the same text, and a session file shown with --json gets
// the same even where it holds raw controls.
func TestJSONOutputShowsControls(t *testing.T) {
	t.Parallel()
	h := ptytest.Hostile + "\u202e\x7f"
	tests := map[string]func(*testing.T, io.Writer) error{
		"sessions list": func(_ *testing.T, w io.Writer) error {
			return writeSessionsJSON(w, []session.Info{{ID: h, Workspace: h, Prompt: h, Status: h}})
		},
		"sessions show": func(_ *testing.T, w io.Writer) error {
			return writeSessionJSON(w, []byte(`{"type":"message","text":"`+h+`"}`+"\n"))
		},
		"mcp list": func(_ *testing.T, w io.Writer) error {
			return writeMCPList(w, mcpListJSON{Servers: []mcpServerJSON{{Status: mcp.Status{Name: h, Reason: h}}}}, true)
		},
		"doctor": func(_ *testing.T, w io.Writer) error {
			return doctor.Report{Checks: []doctor.Check{{Name: h, Detail: h, Fix: h}}}.WriteJSON(w)
		},
		"policy check": func(_ *testing.T, w io.Writer) error {
			return writeCheckJSON(w, policy.Result{Rule: h, Fact: h, Reason: h}, []string{h})
		},
		"config show": func(_ *testing.T, w io.Writer) error {
			return config.Show{Files: []string{h}, Values: []config.ShownValue{{Key: h, Value: h, Origin: h}}}.WriteJSON(newJSONShown(w))
		},
	}
	for name, write := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := write(t, &b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, r := range out {
				if r == utf8.RuneError || r != '\n' && r != '\t' && (r < 0x20 || actsOnTerminal(r)) {
					t.Fatalf("output holds %U raw:\n%s", r, ptytest.JSONQuote(out))
				}
			}
			if !strings.Contains(out, `\u009b`) || !strings.Contains(out, `\u202e`) {
				t.Errorf("output does not escape U+009B and U+202E:\n%s", ptytest.JSONQuote(out))
			}
		})
	}
}

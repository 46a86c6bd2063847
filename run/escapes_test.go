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

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/doctor"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/internal/ptytest"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/toolkit/mcp"
)

// TestTerminalOutputShowsControls: every place that writes model, file,
// tool or server text for a person writes its control characters
// visibly (see [agent.Shown]), whatever field the text comes in.
func TestTerminalOutputShowsControls(t *testing.T) {
	t.Parallel()
	h := ptytest.Hostile
	one := 1
	activity := func(verbose bool, evs ...agent.Event) func(*testing.T) string {
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
		"activity: tool call":     activity(false, agent.Event{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: h, Summary: h}}),
		"activity: denial":        activity(false, agent.Event{Kind: agent.EventToolDenied, Denial: &agent.DenialInfo{Rule: h, Fact: h, Reason: h, Allow: []string{h}}}),
		"activity: denial rule":   activity(false, agent.Event{Kind: agent.EventToolDenied, Denial: &agent.DenialInfo{Rule: h, Fact: "f"}}),
		"activity: pending rule":  activity(false, agent.Event{Kind: agent.EventToolDenied, Denial: &agent.DenialInfo{Rule: h, Fact: "f", Pending: true}}),
		"activity: pending fact":  activity(false, agent.Event{Kind: agent.EventToolDenied, Denial: &agent.DenialInfo{Rule: "r", Fact: h, Pending: true}}),
		"activity: error":         activity(false, agent.Event{Kind: agent.EventError, Err: errors.New(h)}),
		"activity: limit":         activity(false, agent.Event{Kind: agent.EventLimit, Text: h}),
		"activity: notice":        activity(false, agent.Event{Kind: agent.EventNotice, Text: h}),
		"activity: retry":         activity(false, agent.Event{Kind: agent.EventRetry, Retry: &agent.RetryInfo{Attempt: 1, Reason: h}}),
		"activity: error result":  activity(false, agent.Event{Kind: agent.EventToolResult, Tool: &agent.ToolCallInfo{Name: "bash"}, Result: &agent.ToolResultInfo{IsError: true, Content: h}}),
		"activity: changed":       activity(false, agent.Event{Kind: agent.EventToolResult, Tool: &agent.ToolCallInfo{Name: "write"}, Result: &agent.ToolResultInfo{Changed: []string{h}}}),
		"activity: output":        activity(true, agent.Event{Kind: agent.EventToolResult, Tool: &agent.ToolCallInfo{Name: h, Summary: h}, Result: &agent.ToolResultInfo{ExitCode: &one, Content: h}}),
		"activity: hook continue": activity(false, agent.Event{Kind: agent.EventHook, Hook: &agent.HookInfo{Name: h, Decision: string(agent.HookContinue), Reason: h}}),
		"activity: hook rewrite":  activity(false, agent.Event{Kind: agent.EventHook, Hook: &agent.HookInfo{Name: h, Decision: string(agent.HookRewrite), Reason: h}}),
		"activity: hook append":   activity(false, agent.Event{Kind: agent.EventHook, Hook: &agent.HookInfo{Name: h, Decision: string(agent.HookAppend), Reason: h}}),
		"activity: hook verbose":  activity(true, agent.Event{Kind: agent.EventHook, Hook: &agent.HookInfo{Name: h, Event: "stop", Decision: "none"}}),
		"activity: verify":        activity(true, agent.Event{Kind: agent.EventVerifyStart, Verify: &agent.VerifyInfo{Command: h}}, agent.Event{Kind: agent.EventVerify, Verify: &agent.VerifyInfo{Command: h, ExitCode: &one, Output: h}}),
		"activity: verify stop":   activity(false, agent.Event{Kind: agent.EventVerify, Verify: &agent.VerifyInfo{Command: "c", Output: h}}),
		"activity: sub-query":     activity(true, agent.Event{Kind: agent.EventSubquery, Subquery: &agent.SubqueryInfo{Status: "error", Error: h}}, agent.Event{Kind: agent.EventSubquery, Subquery: &agent.SubqueryInfo{Status: agent.SubqueryOK, Model: h}}),
		"deferred run: pending list": func(*testing.T) string {
			var b bytes.Buffer
			sink.ReportPending(&b, []session.Pending{{ID: h, Tool: h, Fact: h, Rule: h, Diff: h + "\n+" + h}}, filepath.Join("dir", "x"+session.Ext), "dir", []string{"--model", h})
			return b.String()
		},
		"deferred run: pending facts": func(*testing.T) string {
			var b bytes.Buffer
			facts := []session.PendingFact{{Fact: "write: " + h, Rule: h}, {Fact: "command: " + h, Rule: h}}
			sink.ReportPending(&b, []session.Pending{{ID: h, Tool: h, Fact: h, Rule: h, Facts: facts}}, "", "", nil)
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
			if _, err := harness.LoadPolicy(harness.PolicySource{Dir: dir, File: file}, &b); err != nil {
				t.Fatal(err)
			}
			return b.String()
		},
		"config show": func(t *testing.T) string {
			var b bytes.Buffer
			s := config.Show{Files: []string{h}, ProviderError: h, Values: []config.ShownValue{{Key: h, Value: h, Origin: h}}}
			if err := s.WriteText(&b, agent.Shown); err != nil {
				t.Fatal(err)
			}
			return b.String()
		},
		"github failure annotation": func(*testing.T) string {
			var b bytes.Buffer
			g := sink.NewGitHub(&b, "")
			g.Finish(errors.New(h), exit.Failure)
			return b.String()
		},
		"github annotation": func(*testing.T) string {
			var b bytes.Buffer
			g := sink.NewGitHub(&b, "")
			g.Handle(agent.Event{Kind: agent.EventToolDenied, Tool: &agent.ToolCallInfo{ID: "1", Name: h}, Denial: &agent.DenialInfo{Rule: h, Fact: h, Reason: h, Allow: []string{h}}})
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
	if code != exit.Usage {
		t.Errorf("exit code %d, want %d", code, exit.Usage)
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
			return config.Show{Files: []string{h}, Values: []config.ShownValue{{Key: h, Value: h, Origin: h}}}.WriteJSON(sink.NewJSONShown(w))
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
				if r == utf8.RuneError || r != '\n' && r != '\t' && (r < 0x20 || agent.ActsOnTerminal(r)) {
					t.Fatalf("output holds %U raw:\n%s", r, ptytest.JSONQuote(out))
				}
			}
			if !strings.Contains(out, `\u009b`) || !strings.Contains(out, `\u202e`) {
				t.Errorf("output does not escape U+009B and U+202E:\n%s", ptytest.JSONQuote(out))
			}
		})
	}
}

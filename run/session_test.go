package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/run/sink/sinktest"
)

func TestSessionHeaderAndFile(t *testing.T) {
	t.Parallel()
	s, dir, _, notes := sinktest.NewSessionWith(t, openSession, nil, "fix the <bug> & go")
	lines := sinktest.ReadSession(t, s)
	want := `{"type":"session","time":"2026-11-21T12:50:01.234Z","format":2,"id":"` + session.IDOf(s.Path()) + `","run":1,"pid":` + strconv.Itoa(os.Getpid()) + `,"version":"` + version + `","go":"` + runtime.Version() +
		`","workspace":"/w","provider":"anthropic","model":"m","policy":"built-in default policy","prompt_bytes":18,"prompt":"fix the <bug> & go"}`
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("header:\n got %q\nwant %s", lines, want)
	}
	if name := filepath.Base(s.Path()); !strings.HasPrefix(name, "20261121T125001.234Z-") || !sessionNameRE.MatchString(name) {
		t.Errorf("file name %q: want the UTC start time and a random suffix", name)
	}
	if _, err := checkSessionDir(dir, true, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "want end") {
		t.Errorf("a log without its end line passed the check: %v", err)
	}
	if notes.Len() > 0 {
		t.Errorf("the path was shown before the end: %s", notes)
	}
	s.Handle(agent.Event{Kind: agent.EventTurnDone, Summary: &agent.Summary{ExitCode: 0}})
	s.Handle(agent.Event{Kind: agent.EventNotice, Text: "after the end"})
	if _, err := checkSessionDir(dir, true, func(string) string { return "" }); err != nil {
		t.Error(err)
	}
	if want := "session saved to " + s.Path() + "\n"; notes.String() != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestExecOpenSession(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	pol, err := harness.LoadPolicy(harness.PolicySource{Dir: ws, Headless: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	vars := map[string]string{
		"XDG_STATE_HOME":     state,
		"HOME":               "/nonexistent-home",
		"OPENAI_API_KEY":     "sk-openai-other-provider-key",
		"OPENROUTER_API_KEY": "short",
	}
	env := environment{Env: harness.Env{LookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}}
	cfg := execConfig{Quiet: true,
		Resolved: config.ResolvedProvider{Name: "gw", Model: "m"}.WithAPIKey("gateway-key-0123456789")} // as loadSettings sets it
	cfg.Resolved.Headers = map[string]string{"Authorization": "Bearer header-token-abcdef", "X-Team": "ci-team-name"}
	prompt := "a gateway-key-0123456789 b sk-openai-other-provider-key c Bearer header-token-abcdef d ci-team-name e short f header-token-abcdef"

	var stderr bytes.Buffer
	s := testExecSession(t, cfg, env, ws, pol, prompt, &stderr)
	if s == nil {
		t.Fatalf("no session: %s", stderr.String())
	}
	defer s.Close()
	if want := filepath.Join(state, "rubichan", "sessions"); filepath.Dir(s.Path()) != want {
		t.Errorf("session in %s, want %s", filepath.Dir(s.Path()), want)
	}
	s.Handle(agent.Event{Kind: agent.EventTurnDone, Summary: &agent.Summary{}})
	if stderr.Len() > 0 {
		t.Errorf("--quiet, yet stderr got %q", stderr.String())
	}
	var h session.Line
	if err := json.Unmarshal([]byte(sinktest.ReadSession(t, s)[0]), &h); err != nil {
		t.Fatal(err)
	}
	if want := "a [REDACTED] b [REDACTED] c [REDACTED] d ci-team-name e short f [REDACTED]"; h.Prompt == nil || *h.Prompt != want {
		t.Errorf("prompt %q, want %q", deref(h.Prompt), want)
	}
	if h.Workspace != ws || h.Provider != "gw" || h.Model != "m" || h.Policy != "built-in default policy" {
		t.Errorf("header %+v", h)
	}

	t.Run("no-session", func(t *testing.T) {
		c := cfg
		c.NoSession = true
		if s := testExecSession(t, c, env, ws, pol, prompt, io.Discard); s != nil {
			t.Errorf("--no-session opened %s", s.Path())
		}
	})
	t.Run("session-dir wins and is made absolute", func(t *testing.T) {
		c := cfg
		dir := t.TempDir()
		c.SessionDir = filepath.Join(dir, "a", "..", "sess")
		s := testExecSession(t, c, env, ws, pol, prompt, io.Discard)
		if s == nil {
			t.Fatal("no session")
		}
		defer s.Close()
		if got := filepath.Dir(s.Path()); got != filepath.Join(dir, "sess") {
			t.Errorf("session in %s, want %s", got, filepath.Join(dir, "sess"))
		}
	})
}

// openSession is [sink.OpenSession] with this binary's build, as a run
// opens its log.
func openSession(opt sink.SessionOptions, h sink.SessionHeader) *sink.SessionLog {
	opt.Build = sinkBuild()
	return sink.OpenSession(opt, h)
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// testExecSession opens the session of an exec run as runExec does.
func testExecSession(t *testing.T, cfg execConfig, env environment, ws string, pol *policy.Policy, prompt string, stderr io.Writer) *sink.SessionLog {
	t.Helper()
	secrets := cfg.settings().Secrets(env.Env, cfg.Dir)
	plan, err := harness.PlanSession(cfg.sessionFlags.settings(), cfg.sessionDir(env), secrets, ws, stderr)
	if err != nil {
		t.Fatal(err)
	}
	notes := stderr
	if cfg.Quiet {
		notes = io.Discard
	}
	return plan.Open(cfg.sessionFlags.settings(), sink.SessionOptions{Secrets: secrets, Warn: stderr, Notes: notes, Build: sinkBuild()}, sink.SessionHeader{
		Start: sinktest.SessionStart(), Workspace: ws, Provider: cfg.Resolved.Name, Model: cfg.Resolved.Model, Policy: pol.Name(), PolicyFile: pol.File(), Prompt: prompt,
	})
}

// BenchmarkSessionRoundTrip is what the session log adds to one tool round
// trip: the events of a model answer with one bash call and its 20 KB
// result, through the log ("session") and through a nil log as with
// --no-session. Target: the difference ≤ 0.2 ms.
func BenchmarkSessionRoundTrip(b *testing.B) {
	var content strings.Builder
	for i := range 400 {
		fmt.Fprintf(&content, "%05d ok   github.com/rubichan/rubichan/run  0.123s\n", i)
	}
	exit := 0
	input := json.RawMessage(`{"command":"go test ./..."}`)
	tool := &agent.ToolCallInfo{ID: "call_1_0", Name: "bash", Summary: "go test ./...", Input: input}
	assistant := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.ThinkingBlock("The tests again.", "sig"), llm.TextBlock("Running the tests."), llm.ToolUseBlock("call_1_0", "bash", input)}}
	results := llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock("call_1_0", content.String(), false)}}
	events := []agent.Event{
		{Kind: agent.EventTurnStart, Turn: 1},
		{Kind: agent.EventTextDelta, Turn: 1, Text: "Running the tests."},
		{Kind: agent.EventHistory, Turn: 1, Message: &assistant},
		{Kind: agent.EventMessageDone, Turn: 1, Text: "Running the tests.", Usage: &llm.Usage{InputTokens: 1000, OutputTokens: 40}},
		{Kind: agent.EventToolCall, Turn: 1, Tool: tool},
		{Kind: agent.EventToolAllowed, Turn: 1, Tool: tool, Allow: &agent.AllowInfo{Rule: "--allow shell:go test *", Fact: "go test ./..."}},
		{Kind: agent.EventToolResult, Turn: 1, Tool: tool, Result: &agent.ToolResultInfo{ExitCode: &exit, Duration: time.Second, Content: content.String()}},
		{Kind: agent.EventHistory, Turn: 1, Message: &results},
	}
	for _, name := range []string{"session", "no-session"} {
		b.Run(name, func(b *testing.B) {
			var s *sink.SessionLog
			if name == "session" {
				s = openSession(sink.SessionOptions{Dir: b.TempDir(), Secrets: []string{testSecret, "sk-other-9876543210"}}, sink.SessionHeader{Start: sinktest.SessionStart()})
				if s == nil {
					b.Fatal("openSession failed")
				}
				defer s.Close()
			}
			cpu := cpuTime()
			for b.Loop() {
				for _, ev := range events {
					s.Handle(ev)
				}
			}
			// The wall time on a shared machine includes waiting for a
			// core; the CPU time says what the log costs.
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

const testSecret = "sk-test-secret-0123456789"

package run

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rubichan/rubichan/policy"
)

// sessionSchema is the version of the session line format; it changes
// when a field changes meaning or goes away, not when one is added.
const sessionSchema = 1

// Caps on what one session line keeps of a tool's output. The model saw
// all of it; the log keeps the start and says how much there was.
const (
	sessionContentMax = 32 << 10
	sessionDiffMax    = 64 << 10
)

// Caps on the other fields of a line, so that no line grows with what the
// model sends (a 20 MB tool call was one 20 MB line): a tool call's input,
// a message's text, a rule's fact and reason, an error, the prompt. A cut
// field keeps its start, and the line's "truncated" object gives its full
// size in bytes: {"truncated": {"input": 20971520}}. A cut input is
// recorded as a string, since its start is no longer valid JSON.
const (
	sessionInputMax  = 64 << 10
	sessionTextMax   = 256 << 10
	sessionPromptMax = 1 << 20
	sessionFieldMax  = 4 << 10
)

// defaultSessionDir returns the directory session logs go to by default:
// $XDG_STATE_HOME/rubichan/sessions, else home/.local/state/rubichan/sessions.
// A relative $XDG_STATE_HOME is ignored, as the XDG specification says.
// It returns "" when neither is known.
func defaultSessionDir(lookupEnv func(string) (string, bool), home string) string {
	if dir, ok := lookupEnv("XDG_STATE_HOME"); ok && filepath.IsAbs(dir) {
		return filepath.Join(dir, "rubichan", "sessions")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "rubichan", "sessions")
}

// sessionHeader is what the first line of a session records about the run.
type sessionHeader struct {
	Start      time.Time
	Workspace  string
	Provider   string
	Model      string
	Policy     string // the policy's name: a file or the built-in default
	PolicyFile string
	Prompt     string // the first user message
}

// sessionLog writes a run's session: one JSON object per line, a header,
// then one line per event except text deltas, then a closing line with
// the summary. Each line goes to the file in one write, so a crash loses
// at most the line being written; after a failed write the file is cut
// back to its last whole line and logging stops with a warning.
//
// Every string it writes passes through its redactor: the values of the
// provider key variables never reach the file.
//
// A nil *sessionLog is valid and records nothing. It is not safe for
// concurrent use; the runner calls it from one goroutine.
type sessionLog struct {
	f       *os.File
	path    string
	warn    io.Writer // warnings: the log could not be written
	notes   io.Writer // the path, in the closing summary area; io.Discard when quiet
	now     func() time.Time
	secrets []string

	size   int64 // bytes of whole lines written
	failed bool
	ended  bool
}

// sessionOptions say where a session goes and what it must hide.
type sessionOptions struct {
	Dir     string // the directory; "" when none is known
	Secrets []string
	Warn    io.Writer
	Notes   io.Writer
	Now     func() time.Time // nil: time.Now
	ID      string           // the run's id, naming the file; "": a new one
}

// openSession creates the session file and writes its header. A failure is
// a warning on opt.Warn and a nil log: the run goes on without a session.
func openSession(opt sessionOptions, h sessionHeader) *sessionLog {
	warn := opt.Warn
	if warn == nil {
		warn = io.Discard
	}
	if opt.Dir == "" {
		fmt.Fprintln(warn, "rubichan: warning: no session log: neither $XDG_STATE_HOME nor $HOME is set (use --session-dir or --no-session)")
		return nil
	}
	f, err := createSessionFile(opt.Dir, opt.ID, h.Start)
	if err != nil {
		fmt.Fprintf(warn, "rubichan: warning: no session log: %v\n", err)
		return nil
	}
	s := &sessionLog{f: f, path: f.Name(), warn: warn, notes: opt.Notes, now: opt.Now}
	if s.notes == nil {
		s.notes = io.Discard
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.secrets = newRedactor(opt.Secrets).secrets
	s.write(s.header(h))
	return s
}

// newSessionID returns a run's id: its UTC start time and a random
// suffix, so that ids sort by time and never collide. The session file is
// named by it.
func newSessionID(start time.Time) string {
	var b [4]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return start.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:])
}

// createSessionFile creates a new, empty session file in dir (made 0700 if
// it does not exist), named by the run's id, or when that name is taken
// (it never is in practice) by a fresh id.
func createSessionFile(dir string, id string, start time.Time) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if id == "" {
		id = newSessionID(start)
	}
	for range 5 {
		name := filepath.Join(dir, id+".jsonl")
		id = newSessionID(start)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("session: %w", err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("session: no free file name in %s", dir)
}

// Path returns the session file's path, or "" for a nil log.
func (s *sessionLog) Path() string {
	if s == nil {
		return ""
	}
	return s.path
}

// handle records one event. The closing event writes the last line and
// names the file on the notes writer.
func (s *sessionLog) handle(ev Event) {
	if s == nil || s.ended {
		return
	}
	rec := s.record(ev)
	if rec == nil {
		return
	}
	s.write(rec)
	if ev.Kind == EventTurnDone {
		s.ended = true
		s.finish()
	}
}

// Close ends the log: it syncs and closes the file. A log that never got
// its closing line stays as it is, every line in it whole.
func (s *sessionLog) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	f := s.f
	s.f = nil
	serr := f.Sync()
	if err := f.Close(); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if serr != nil {
		return fmt.Errorf("session: %w", serr)
	}
	return nil
}

// finish syncs the file and says where it is.
func (s *sessionLog) finish() {
	if s.failed {
		return
	}
	if err := s.f.Sync(); err != nil {
		s.fail(err)
		return
	}
	fmt.Fprintf(s.notes, "session saved to %s\n", s.path)
}

// sessionLine is one line of a session. Which fields are set depends on
// Type: "session" (the header), "notice", "turn", "message", "stream_cut",
// "retry", "tool_call", "decision", "tool_result", "hook", "limit", "error" and
// "end" (the closing line). Fields are in the order they are written.
type sessionLine struct {
	Type string `json:"type"`
	Time string `json:"time"`
	Turn int    `json:"turn,omitempty"`

	// header
	Schema      int     `json:"schema,omitempty"`
	Version     string  `json:"version,omitempty"`
	Commit      string  `json:"commit,omitempty"`
	Modified    bool    `json:"modified,omitempty"`
	GoVersion   string  `json:"go,omitempty"`
	Workspace   string  `json:"workspace,omitempty"`
	Provider    string  `json:"provider,omitempty"`
	Model       string  `json:"model,omitempty"`
	Policy      string  `json:"policy,omitempty"`
	PolicyFile  string  `json:"policy_file,omitempty"`
	PromptBytes *int    `json:"prompt_bytes,omitempty"`
	Prompt      *string `json:"prompt,omitempty"`

	// tool_call, decision, tool_result
	ID       string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
	Event    string `json:"event,omitempty"` // hook: before_tool, after_tool, stop
	Tool     string `json:"tool,omitempty"`  // hook: the call's tool
	Input    any    `json:"input,omitempty"`
	Decision string `json:"decision,omitempty"`
	Rule     string `json:"rule,omitempty"`
	Fact     string `json:"fact,omitempty"`
	Reason   string `json:"reason,omitempty"` // also retry, hook

	IsError          *bool    `json:"is_error,omitempty"`
	ExitCode         *int     `json:"exit_code,omitempty"` // also end
	DurationMS       *int64   `json:"duration_ms,omitempty"`
	Content          *string  `json:"content,omitempty"`
	ContentBytes     int      `json:"content_bytes,omitempty"`
	ContentTruncated bool     `json:"content_truncated,omitempty"`
	Diff             string   `json:"diff,omitempty"`
	DiffTruncated    bool     `json:"diff_truncated,omitempty"`
	Changed          []string `json:"changed,omitempty"`

	// notice, message, limit, error, retry
	Text    *string    `json:"text,omitempty"`
	Usage   *usageLine `json:"usage,omitempty"`
	Error   string     `json:"error,omitempty"`
	Attempt int        `json:"attempt,omitempty"`
	WaitMS  *int64     `json:"wait_ms,omitempty"`

	// compaction (also text: the summary; usage; reason)
	TokensBefore       *int `json:"tokens_before,omitempty"`
	TokensAfter        *int `json:"tokens_after,omitempty"`
	TurnsSummarised    *int `json:"turns_summarised,omitempty"`
	MessagesSummarised *int `json:"messages_summarised,omitempty"`

	// end
	Turns        *int     `json:"turns,omitempty"`
	ToolCalls    *int     `json:"tool_calls,omitempty"`
	Denials      int      `json:"denials,omitempty"` // calls the policy refused
	InputTokens  *int64   `json:"input_tokens,omitempty"`
	OutputTokens *int64   `json:"output_tokens,omitempty"`
	ElapsedMS    *int64   `json:"elapsed_ms,omitempty"`
	CostUSD      *float64 `json:"cost_usd,omitempty"`

	// Truncated gives the full size in bytes of each field cut to its cap.
	Truncated map[string]int `json:"truncated,omitempty"`

	// Redacted replaces a line that held a secret it could not cut out.
	Redacted string `json:"redacted,omitempty"`
}

// cutField cuts *s to max bytes, noting the cut in l.
func (l *sessionLine) cutField(field string, s *string, max int) {
	if s == nil {
		return
	}
	if c, ok := capUTF8(*s, max); ok {
		if l.Truncated == nil {
			l.Truncated = map[string]int{}
		}
		l.Truncated[field] = len(*s)
		*s = c
	}
}

// capInput cuts a tool call's input over its cap, after removing the
// secrets from it as text (a secret across the cut would otherwise leave
// its start in the line).
func (s *sessionLog) capInput(l *sessionLine) {
	if raw, ok := l.Input.(json.RawMessage); ok && len(raw) > sessionInputMax {
		str := s.redact(string(raw))
		l.cutField("input", &str, sessionInputMax)
		if l.Truncated != nil {
			l.Truncated["input"] = len(raw) // as the model sent it
		}
		l.Input = str
	}
}

// capLine cuts the text fields of l that exceed their caps (after
// redaction), noting each cut.
func capLine(l *sessionLine) {
	cut := l.cutField
	max := sessionFieldMax
	if l.Type == "message" {
		max = sessionTextMax
	}
	cut("text", l.Text, max)
	cut("prompt", l.Prompt, sessionPromptMax)
	cut("fact", &l.Fact, sessionFieldMax)
	cut("reason", &l.Reason, sessionFieldMax)
	cut("error", &l.Error, sessionFieldMax)
}

// usageLine is the tokens of one model request.
type usageLine struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// write appends one line. A failed write cuts the file back to its last
// whole line, so that nothing after it can glue onto a partial line, and
// stops the log.
func (s *sessionLog) write(l *sessionLine) {
	if s.failed || s.f == nil {
		return
	}
	line, err := s.encode(l)
	if err != nil {
		s.fail(err)
		return
	}
	n, err := s.f.Write(line)
	if err != nil {
		if n > 0 {
			s.f.Truncate(s.size)
		}
		s.fail(err)
		return
	}
	s.size += int64(n)
}

func (s *sessionLog) fail(err error) {
	s.failed = true
	fmt.Fprintf(s.warn, "rubichan: warning: session log %s is incomplete: %v\n", s.path, err)
}

// encode renders one line as JSON with its secrets replaced. If a secret
// still shows in the encoded line (in an escaped form the value-level
// redaction could not see), the line is replaced by a note saying so.
func (s *sessionLog) encode(l *sessionLine) ([]byte, error) {
	s.capInput(l)
	s.redactLine(l)
	capLine(l)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		return nil, fmt.Errorf("session: encode %s line: %w", l.Type, err)
	}
	for _, sec := range s.secrets {
		if bytes.Contains(b.Bytes(), []byte(sec)) {
			b.Reset()
			enc.Encode(sessionLine{Type: l.Type, Time: l.Time, Turn: l.Turn, Redacted: "the line held a secret in a form that could not be cut out"})
			break
		}
	}
	return b.Bytes(), nil
}

// redactLine replaces the secrets in every string of l.
func (s *sessionLog) redactLine(l *sessionLine) {
	if l.Input != nil {
		// Decoded even with no secrets: malformed raw JSON becomes a string.
		l.Input = s.redactValue(l.Input)
	}
	if len(s.secrets) == 0 {
		return
	}
	for _, p := range []*string{&l.Workspace, &l.Policy, &l.PolicyFile, &l.ID, &l.Name, &l.Event, &l.Tool, &l.Decision, &l.Rule, &l.Fact, &l.Reason, &l.Diff, &l.Error} {
		*p = s.redact(*p)
	}
	for _, p := range []*string{l.Prompt, l.Content, l.Text} {
		if p != nil {
			*p = s.redact(*p)
		}
	}
	for i, c := range l.Changed {
		l.Changed[i] = s.redact(c)
	}
}

func (s *sessionLog) redact(str string) string {
	return (&redactor{secrets: s.secrets}).redact(str)
}

// redactValue returns a decoded JSON value with every secret in its
// strings and keys replaced. Raw JSON is decoded first; raw bytes that are
// not JSON (a malformed tool call) become a string.
func (s *sessionLog) redactValue(v any) any {
	switch v := v.(type) {
	case string:
		return s.redact(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = s.redactValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[s.redact(k)] = s.redactValue(e)
		}
		return out
	case json.RawMessage:
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		var dv any
		if err := d.Decode(&dv); err != nil || d.More() {
			return s.redact(string(v))
		}
		return s.redactValue(dv)
	default:
		return v
	}
}

// header is the first line: the run's identity, without its key.
func (s *sessionLog) header(h sessionHeader) *sessionLine {
	bi := readBuildInfo()
	return &sessionLine{
		Type: "session", Time: stamp(h.Start),
		Schema: sessionSchema, Version: bi.Version, Commit: bi.Commit, Modified: bi.Modified, GoVersion: bi.Go,
		Workspace: h.Workspace, Provider: h.Provider, Model: h.Model,
		Policy: h.Policy, PolicyFile: h.PolicyFile,
		PromptBytes: ptr(len(h.Prompt)), Prompt: ptr(h.Prompt),
	}
}

// record is the line for one event, or nil for events the log skips: text
// deltas (each finished message is recorded whole).
func (s *sessionLog) record(ev Event) *sessionLine {
	l := &sessionLine{Time: stamp(s.now()), Turn: ev.Turn}
	switch ev.Kind {
	case EventTextDelta, EventThinkingDelta:
		return nil
	case EventToolResult:
		if ev.Result != nil && ev.Result.NotRun { // the decision line says it
			return nil
		}
		l.Type = "tool_result"
		addTool(l, ev.Tool)
		addResult(l, ev.Result)
	case EventNotice:
		l.Type, l.Text = "notice", ptr(ev.Text)
	case EventTurnStart:
		l.Type = "turn"
	case EventMessageDone:
		l.Type, l.Text = "message", ptr(ev.Text)
		if u := ev.Usage; u != nil {
			l.Usage = &usageLine{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
				CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheCreationTokens}
		}
	case EventStreamCut:
		l.Type = "stream_cut"
	case EventRetry:
		l.Type = "retry"
		if r := ev.Retry; r != nil {
			l.Attempt, l.WaitMS, l.Reason = r.Attempt, ptr(r.Wait.Milliseconds()), r.Reason
		}
	case EventToolCall:
		l.Type = "tool_call"
		addTool(l, ev.Tool)
		if ev.Tool != nil && len(ev.Tool.Input) > 0 {
			l.Input = ev.Tool.Input
		}
	case EventToolAllowed:
		l.Type, l.Decision = "decision", "allow"
		addTool(l, ev.Tool)
		if a := ev.Allow; a != nil {
			l.Rule, l.Fact, l.Reason = a.Rule, a.Fact, a.Reason
		}
	case EventToolDenied:
		l.Type, l.Decision = "decision", "deny"
		addTool(l, ev.Tool)
		if d := ev.Denial; d != nil {
			l.Rule, l.Fact, l.Reason = d.Rule, d.Fact, d.Reason
		}
	case EventHook:
		l.Type = "hook"
		if h := ev.Hook; h != nil {
			l.Name, l.Event, l.Tool, l.Decision, l.Reason = h.Name, h.Event, h.Tool, h.Decision, h.Reason
			l.ExitCode, l.DurationMS = h.ExitCode, ptr(h.Duration.Milliseconds())
		}
	case EventCompaction:
		compactionLine(l, ev.Compaction)
	case EventLimit:
		l.Type, l.Text = "limit", ptr(ev.Text)
	case EventError:
		l.Type = "error"
		if ev.Err != nil {
			l.Error = ev.Err.Error()
		}
	case EventTurnDone:
		l.Type = "end"
		addSummary(l, ev.Summary)
	default:
		l.Type = strings.ToLower(ev.Kind.String())
	}
	return l
}

func addTool(l *sessionLine, t *ToolCallInfo) {
	if t != nil {
		l.ID, l.Name = t.ID, t.Name
	}
}

func addResult(l *sessionLine, res *ToolResultInfo) {
	if res == nil {
		return
	}
	l.IsError, l.ExitCode = ptr(res.IsError), res.ExitCode
	l.DurationMS = ptr(res.Duration.Milliseconds())
	content, cut := capUTF8(res.Content, sessionContentMax)
	l.Content = ptr(content)
	if cut {
		l.ContentBytes, l.ContentTruncated = len(res.Content), true
	}
	l.Diff, l.DiffTruncated = capUTF8(res.Diff, sessionDiffMax)
	l.Changed = append([]string(nil), res.Changed...)
}

func addSummary(l *sessionLine, sum *Summary) {
	if sum == nil {
		return
	}
	l.ExitCode = ptr(sum.ExitCode)
	l.Turns, l.ToolCalls, l.Denials = ptr(sum.Turns), ptr(sum.ToolCalls), sum.Denials
	l.InputTokens, l.OutputTokens = ptr(sum.InputTokens), ptr(sum.OutputTokens)
	l.ElapsedMS = ptr(sum.Elapsed.Milliseconds())
	if sum.CostKnown && !math.IsNaN(sum.CostUSD) && !math.IsInf(sum.CostUSD, 0) {
		l.CostUSD = ptr(sum.CostUSD)
	}
}

// capUTF8 returns at most max bytes of s, cut at a rune boundary, and
// whether it cut.
func capUTF8(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

// stamp is a line's time: UTC, milliseconds.
func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// openSession starts the session log of an exec run, or returns nil with
// --no-session. The directory is --session-dir, else [defaultSessionDir]; what it
// hides is [execConfig.secrets].
func (cfg execConfig) openSession(env environment, id string, start time.Time, root string, pol *policy.Policy, prompt string, stderr io.Writer) *sessionLog {
	if cfg.NoSession {
		return nil
	}
	dir := cfg.SessionDir
	if dir == "" {
		home, _ := env.lookupEnv("HOME")
		dir = defaultSessionDir(env.lookupEnv, home)
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	notes := stderr
	if cfg.Quiet {
		notes = io.Discard
	}
	return openSession(sessionOptions{Dir: dir, ID: id, Secrets: cfg.secrets(env), Warn: stderr, Notes: notes}, sessionHeader{
		Start: start, Workspace: root, Provider: cfg.Provider, Model: cfg.Model,
		Policy: pol.Name(), PolicyFile: pol.File(), Prompt: prompt,
	})
}

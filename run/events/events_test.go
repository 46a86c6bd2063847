package events_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/events/eventstest"
)

var update = flag.Bool("update", false, "rewrite testdata/shape.vN.golden (only for added fields)")

var testTime = time.Date(2026, 11, 23, 20, 30, 0, 123_456_789, time.UTC)

func ptr[T any](v T) *T { return &v }

// samples has one event of every type with every field set, and the
// variants the schema treats differently.
func samples() map[string]events.Event {
	usage := events.Usage{InputTokens: 10, OutputTokens: 3, CacheReadTokens: 2, CacheWriteTokens: 1}
	return map[string]events.Event{
		"init": events.Init{Version: "dev", Provider: "anthropic", Model: "m", Workspace: "/w", Tools: []string{"read", "bash"},
			Policy:  events.Policy{Source: "built-in default policy", SHA256: strings.Repeat("ab", 32)},
			Limits:  events.Limits{MaxTurns: 50, TimeoutMS: 1800000, MaxCostUSD: 1.5},
			Sandbox: events.Sandbox{Mode: "auto", LandlockABI: 7, Filesystem: true, Network: "blocked"}},
		"init with skills": events.Init{Version: "dev", Provider: "anthropic", Model: "m", Workspace: "/w", Tools: []string{"read"},
			Policy:  events.Policy{Source: "built-in default policy", SHA256: strings.Repeat("ab", 32)},
			Sandbox: events.Sandbox{Mode: "auto", Network: "blocked"},
			Skills:  []events.Skill{{Name: "release-notes", SHA256: strings.Repeat("cd", 32)}}},
		"turn_start":       events.TurnStart{Turn: 1},
		"text":             events.Text{Turn: 1, Delta: "Hel<lo> \"\x1b\n"},
		"thinking":         events.Thinking{Turn: 1, Delta: "hmm"},
		"message":          events.Message{Turn: 1, Text: "Hello", StopReason: "end_turn", Usage: usage, CostUSD: ptr(0.0012)},
		"message unpriced": events.Message{Turn: 2, Text: "", StopReason: "tool_use", Usage: usage},
		"tool_call":        events.ToolCall{ID: "c1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)},
		"tool_call raw":    events.ToolCall{ID: "c1", Name: "bash", Input: json.RawMessage(`"{\"command\":"`)},
		"policy_decision":  events.PolicyDecision{ID: "c1", Decision: "allow", Rule: "r", Fact: "ls", Reason: ""},
		"policy_decision ask": events.PolicyDecision{ID: "c1", Decision: "ask", Rule: "default", Fact: "write: a", Reason: "needs approval",
			ResolvedAs: "deny"},
		"tool_result": events.ToolResult{ID: "c1", IsError: true, ExitCode: ptr(1), DurationMS: 5, Content: "boom",
			FilesChanged: []string{}},
		"tool_result write": events.ToolResult{ID: "c2", DurationMS: 1, Content: "ok", FilesChanged: []string{"a.go"}, Diff: ptr("--- a\n+++ b\n")},
		"hook": events.Hook{Name: "gen-guard", Event: "before_tool", ID: ptr("c1"), Tool: ptr("edit"), ExitCode: ptr(2), DurationMS: 3,
			Decision: "deny", Reason: "generated"},
		"hook stop timeout": events.Hook{Name: "lint", Event: "stop", DurationMS: 30000, Decision: "fail", Reason: "it timed out after 30s"},
		"retry":             events.Retry{Attempt: 1, WaitMS: 1000, Error: events.RetryError{Type: events.ErrRateLimit, Status: ptr(429), Message: "slow down"}},
		"retry cut":         events.Retry{Attempt: 2, WaitMS: 500, Error: events.RetryError{Type: events.ErrNetwork, Message: "stream cut"}},
		"stream_cut":        events.StreamCut{Turn: 1},
		"notice":            events.Notice{Message: "stdin spilled"},
		"compaction": events.Compaction{Reason: events.CompactThreshold, TokensBefore: 5800, TokensAfter: 2100, TurnsSummarised: 12,
			MessagesSummarised: 24, Usage: usage, CostUSD: ptr(0.002)},
		"compaction unpriced": events.Compaction{Reason: events.CompactContextLength, Usage: usage},
		"subquery":            events.Subquery{Model: "claude-haiku-5-5", Status: "ok", Usage: usage, CostUSD: ptr(0.0101), DurationMS: 812, InputBytes: 2 << 20},
		"subquery refused":    events.Subquery{Model: "claude-haiku-5-5", Status: "refused", InputBytes: 300, Error: "reached --max-cost $0.05"},
		"verify": events.Verify{Command: "go test ./...", Attempt: 1, MaxAttempts: 3, ExitCode: ptr(1), DurationMS: 4200,
			Output: "FAIL\n[exit code 1]"},
		"result patch": events.Result{Status: events.StatusError, ExitCode: 6,
			Error:        &events.ResultError{Type: events.ErrVerifyFailed, Message: "verification failed"},
			FilesChanged: []string{}, Verified: ptr(false),
			Patch: &events.Patch{Path: "fix.patch", SHA256: strings.Repeat("0f", 32), BaseCommit: ptr(strings.Repeat("a", 40)), Files: 2}},
		"result": events.Result{Status: events.StatusSuccess, FinalText: "Hello", NumTurns: 1, Usage: usage, CostUSD: ptr(0.01),
			DurationMS: 12, FilesChanged: []string{}, SessionPath: ptr("/s/x.jsonl")},
		"result error": events.Result{Status: events.StatusLimit, ExitCode: 4,
			Error: &events.ResultError{Type: events.ErrMaxTurns, Message: "reached --max-turns 1"}, FilesChanged: []string{}},
	}
}

func validator(t testing.TB) *eventstest.Validator {
	t.Helper()
	v, err := eventstest.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestEncodeValid encodes every sample and validates it against the
// schema; the samples cover every type of the schema.
func TestEncodeValid(t *testing.T) {
	t.Parallel()
	v := validator(t)
	var buf bytes.Buffer
	enc := events.NewEncoder(&buf, "sess-1", func() time.Time { return testTime })
	seen := map[string]bool{}
	for name, ev := range samples() {
		buf.Reset()
		if err := enc.Encode(ev); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		line := buf.Bytes()
		if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
			t.Errorf("%s: not one line: %q", name, line)
		}
		if err := v.Validate(line); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		want := fmt.Sprintf(`{"schema_version":1,"type":%q,"ts":"2026-11-23T20:30:00.123Z","session_id":"sess-1"`, ev.EventType())
		if !bytes.HasPrefix(line, []byte(want)) {
			t.Errorf("%s: header %q, want prefix %q", name, line, want)
		}
		seen[ev.EventType()] = true
	}
	for _, typ := range events.Types() {
		if !seen[typ] {
			t.Errorf("no sample of %s", typ)
		}
	}
}

// TestSchemaRejects shows the schema is strict: an unknown field, a
// missing one, a wrong version or an unknown error type is invalid.
func TestSchemaRejects(t *testing.T) {
	t.Parallel()
	v := validator(t)
	const head = `"schema_version":1,"ts":"2026-11-23T20:30:00.123Z","session_id":"s"`
	for name, line := range map[string]string{
		"extra field":      `{` + head + `,"type":"turn_start","turn":1,"extra":true}`,
		"missing field":    `{` + head + `,"type":"text","turn":1}`,
		"version 2":        `{"schema_version":2,"ts":"2026-11-23T20:30:00.123Z","session_id":"s","type":"turn_start","turn":1}`,
		"unknown type":     `{` + head + `,"type":"progress"}`,
		"bad ts":           `{"schema_version":1,"ts":"2026-11-23 20:30:00","session_id":"s","type":"turn_start","turn":1}`,
		"bad error type":   `{` + head + `,"type":"retry","attempt":1,"wait_ms":0,"error":{"type":"teapot","status":null,"message":""}}`,
		"success w/ error": `{` + head + `,"type":"result","status":"success","exit_code":0,"error":{"type":"internal","message":"x","retryable":false},"final_text":"","num_turns":0,"num_tool_calls":0,"denials":0,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0},"cost_usd":null,"duration_ms":0,"files_changed":[],"session_path":null}`,
		"error w/o error":  `{` + head + `,"type":"result","status":"error","exit_code":1,"final_text":"","num_turns":0,"num_tool_calls":0,"denials":0,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0},"cost_usd":null,"duration_ms":0,"files_changed":[],"session_path":null}`,
		"ask unresolved":   `{` + head + `,"type":"policy_decision","id":"c","decision":"ask","rule":"r","fact":"f","reason":""}`,
	} {
		if err := v.Validate([]byte(line)); err == nil {
			t.Errorf("%s: valid, want invalid: %s", name, line)
		}
	}
}

// TestSchemaCopy keeps docs/events.schema.json, the published copy,
// byte-identical to the schema the binary embeds.
func TestSchemaCopy(t *testing.T) {
	t.Parallel()
	docs, err := os.ReadFile(filepath.Join("..", "..", "docs", "events.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(docs, events.Schema()) {
		t.Fatal("docs/events.schema.json differs from run/events/events.schema.json: copy the embedded one over it")
	}
}

// TestSchemaErrorTypes keeps the schema's error types and ErrorTypes equal.
func TestSchemaErrorTypes(t *testing.T) {
	t.Parallel()
	var s struct {
		Defs struct {
			ErrorType struct {
				Enum []string `json:"enum"`
			} `json:"error_type"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(events.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Defs.ErrorType.Enum, events.ErrorTypes()) {
		t.Fatalf("schema error types %q, ErrorTypes %q", s.Defs.ErrorType.Enum, events.ErrorTypes())
	}
}

// shape describes the fields of each event type, one line per field
// path with its JSON type: "tool_result.exit_code integer|null".
func shape() []string {
	lines := []string{}
	for _, ev := range samples() {
		typ := ev.EventType()
		for _, h := range []string{"schema_version integer", "type string", "ts string", "session_id string"} {
			lines = append(lines, typ+"."+h)
		}
		lines = appendShape(lines, typ, reflect.TypeOf(ev))
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

func appendShape(lines []string, prefix string, t reflect.Type) []string {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		path := prefix + "." + name
		if opts == "omitempty" {
			path += "?"
		}
		ft, null := f.Type, ""
		if ft.Kind() == reflect.Pointer {
			ft, null = ft.Elem(), "|null"
			if opts == "omitempty" {
				null = ""
			}
		}
		switch {
		case ft == reflect.TypeOf(json.RawMessage(nil)):
			lines = append(lines, path+" any")
		case ft.Kind() == reflect.Struct:
			lines = append(lines, path+" object"+null)
			lines = appendShape(lines, path, ft)
		case ft.Kind() == reflect.Slice:
			lines = append(lines, path+" array of "+jsonKind(ft.Elem())+null)
		default:
			lines = append(lines, path+" "+jsonKind(ft)+null)
		}
	}
	return lines
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64:
		return "integer"
	case reflect.Float64:
		return "number"
	}
	return t.String()
}

// TestShapeGolden fails when an event's shape changes while SchemaVersion
// does not. A field added is a deliberate change: accept it with -update.
// A field removed, renamed or retyped needs a new SchemaVersion (and a new
// golden file); -update refuses to hide it.
func TestShapeGolden(t *testing.T) {
	t.Parallel()
	golden := filepath.Join("testdata", fmt.Sprintf("shape.v%d.golden", events.SchemaVersion))
	got := shape()
	data, err := os.ReadFile(golden)
	if os.IsNotExist(err) && *update {
		data = nil
	} else if err != nil {
		t.Fatal(err)
	}
	var want []string
	for l := range strings.Lines(string(data)) {
		if l = strings.TrimSpace(l); l != "" {
			want = append(want, l)
		}
	}
	var gone, added []string
	for _, l := range want {
		if !slices.Contains(got, l) {
			gone = append(gone, l)
		}
	}
	for _, l := range got {
		if !slices.Contains(want, l) {
			added = append(added, l)
		}
	}
	if len(gone) > 0 {
		t.Errorf("schema_version is still %d, but these fields were removed, renamed or retyped; consumers of version %d rely on them, so bump events.SchemaVersion (and the schema's const):\n  %s",
			events.SchemaVersion, events.SchemaVersion, strings.Join(gone, "\n  "))
	}
	if len(added) > 0 && !*update {
		t.Errorf("new fields within schema_version %d (allowed: fields may be added); add them to the schema and accept with go test -update:\n  %s",
			events.SchemaVersion, strings.Join(added, "\n  "))
	}
	if *update && len(gone) == 0 && len(added) > 0 {
		if err := os.WriteFile(golden, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzEncodeText checks that any delta, valid UTF-8 or not, makes one
// schema-valid line that decodes to the same text (invalid bytes become
// U+FFFD, as encoding/json does).
func FuzzEncodeText(f *testing.F) {
	for _, s := range []string{"", "hello", "\x00\x1b[31m", "\u2028", "a\xffb", "<&>", strings.Repeat("é", 100)} {
		f.Add(s)
	}
	v := validator(f)
	f.Fuzz(func(t *testing.T, delta string) {
		var buf bytes.Buffer
		enc := events.NewEncoder(&buf, "s", func() time.Time { return testTime })
		if err := enc.Encode(events.Text{Turn: 1, Delta: delta}); err != nil {
			t.Fatal(err)
		}
		if bytes.Count(buf.Bytes(), []byte("\n")) != 1 {
			t.Fatalf("not one line: %q", buf.Bytes())
		}
		if err := v.Validate(buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		var back struct{ Delta string }
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		if want := strings.ToValidUTF8(delta, "\uFFFD"); back.Delta != want && !strings.Contains(delta, "\uFFFD") {
			t.Fatalf("delta %q came back as %q", delta, back.Delta)
		}
	})
}

// TestSchemaDefinitions checks the schema's form: draft 2020-12, one
// definition per event type open to added fields, whose
// schema_version is SchemaVersion and whose type is its name, and a top
// level that accepts exactly those definitions.
func TestSchemaDefinitions(t *testing.T) {
	t.Parallel()
	var s struct {
		Schema string `json:"$schema"`
		OneOf  []struct {
			Ref string `json:"$ref"`
		} `json:"oneOf"`
		Defs map[string]struct {
			AdditionalProperties *bool `json:"additionalProperties"`
			Properties           map[string]struct {
				Const any `json:"const"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(events.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema %q", s.Schema)
	}
	var refs []string
	for _, r := range s.OneOf {
		refs = append(refs, strings.TrimPrefix(r.Ref, "#/$defs/"))
	}
	if !slices.Equal(refs, events.Types()) {
		t.Errorf("oneOf %q, want %q", refs, events.Types())
	}
	for _, typ := range events.Types() {
		d, ok := s.Defs[typ]
		switch {
		case !ok:
			t.Errorf("no definition of %s", typ)
		case d.AdditionalProperties != nil && !*d.AdditionalProperties:
			t.Errorf("%s: additionalProperties false rejects the fields added within schema_version %d", typ, events.SchemaVersion)
		case d.Properties["schema_version"].Const != float64(events.SchemaVersion):
			t.Errorf("%s: schema_version const %v, want %d", typ, d.Properties["schema_version"].Const, events.SchemaVersion)
		case d.Properties["type"].Const != typ:
			t.Errorf("%s: type const %v", typ, d.Properties["type"].Const)
		}
	}
}

// TestReadmeExample keeps the example stream in README.md valid: every
// line an event of this schema, init first, the result last.
func TestReadmeExample(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "```jsonl\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("README.md has no ```jsonl block")
	}
	evs, err := validator(t).Stream([]byte(block))
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Type() != "init" {
		t.Errorf("the example starts with %s, not init", evs[0].Type())
	}
}

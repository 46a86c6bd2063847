package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm"
)

const header = `{"type":"session","time":"t","format":2,"id":"s","run":1}` + "\n"

func TestParseErrorsAndTornLines(t *testing.T) {
	t.Parallel()
	user := `{"type":"user","time":"t","blocks":[{"type":"text","text":"hi"}]}` + "\n"
	tests := map[string]struct {
		data     string
		err      string // "" when it loads
		torn     bool
		messages int
	}{
		"whole":                 {data: header + user, messages: 1},
		"torn, no newline":      {data: header + user + `{"type":"user","time":"t","blocks":[{"ty`, torn: true, messages: 1},
		"torn, cut at newline":  {data: header + user + `{"type":"user","ti` + "\n", torn: true, messages: 1},
		"bad line in the midst": {data: header + `{"type":"user",` + "\n" + user, err: "line 2"},
		"empty":                 {data: "", err: "empty"},
		"format 1":              {data: `{"type":"session","time":"t","schema":1}` + "\n", err: "format 1"},
		"newer format":          {data: `{"type":"session","time":"t","format":99}` + "\n", err: "format 99 is newer"},
		"not a header":          {data: user, err: "not a session header"},
		"unknown types skipped": {data: header + `{"type":"future","time":"t","x":[1]}` + "\n" + user, messages: 1},
		"clear starts anew": {data: header + user + `{"type":"assistant","time":"t","blocks":[{"type":"text","text":"a"}]}` + "\n" +
			`{"type":"clear","time":"t"}` + "\n" + user, messages: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := Parse([]byte(tc.data))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Torn != tc.torn || len(s.Messages) != tc.messages {
				t.Errorf("torn %v, %d messages; want %v, %d", s.Torn, len(s.Messages), tc.torn, tc.messages)
			}
		})
	}
}

// conversation writes lines with a Writer and loads them back.
func conversation(t *testing.T, lines ...*Line) *Session {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&Line{Type: TypeHeader, Time: "t", Format: Format, ID: "s", Run: 1})
	for _, l := range lines {
		w.Write(l)
	}
	w.Close()
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func userLine(bs ...llm.Block) *Line { return &Line{Type: TypeUser, Time: "t", Content: Blocks(bs)} }
func assistantLine(api string, bs ...llm.Block) *Line {
	return &Line{Type: TypeAssistant, Time: "t", API: api, Model: "m", Content: Blocks(bs)}
}

// render is a compact form of messages: role, then one token per block.
func render(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "%s:", m.Role)
		for _, bl := range m.Content {
			switch bl.Kind {
			case llm.BlockText:
				fmt.Fprintf(&b, " text(%s)", bl.Text)
			case llm.BlockThinking:
				fmt.Fprintf(&b, " thinking(%s)", bl.Signature)
			case llm.BlockToolUse:
				fmt.Fprintf(&b, " use(%s %s)", bl.ID, bl.Input)
			case llm.BlockToolResult:
				fmt.Fprintf(&b, " result(%s %v %q)", bl.ToolUseID, bl.IsError, bl.Content[:min(len(bl.Content), 12)])
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestConversation(t *testing.T) {
	t.Parallel()
	in := []byte(`{"command":"go test"}`)
	think := llm.ThinkingBlock("hmm", "sig")
	deferredEnd := &Line{Type: TypeEnd, Time: "t", Status: StatusDeferred, Pending: []Pending{{ID: "c2", Tool: "bash"}}}
	tests := map[string]struct {
		lines    []*Line
		api      string
		keepOpen bool
		want     string
		open     int
	}{
		"as written, thinking kept for its api": {
			lines: []*Line{userLine(llm.TextBlock("do")), assistantLine("anthropic", think, llm.ToolUseBlock("c1", "bash", in)),
				userLine(llm.ToolResultBlock("c1", "ok\n", false)), assistantLine("anthropic", llm.TextBlock("done"))},
			api:  "anthropic",
			want: "user: text(do)\nassistant: thinking(sig) use(c1 {\"command\":\"go test\"})\nuser: result(c1 false \"ok\\n\")\nassistant: text(done)\n",
		},
		"another api drops thinking": {
			lines: []*Line{userLine(llm.TextBlock("do")), assistantLine("anthropic", think, llm.TextBlock("a"))},
			api:   "openai",
			want:  "user: text(do)\nassistant: text(a)\n",
		},
		"killed mid-call: an error result": {
			lines: []*Line{userLine(llm.TextBlock("do")), assistantLine("anthropic", llm.ToolUseBlock("c1", "bash", in), llm.ToolUseBlock("c2", "bash", in)),
				userLine(llm.ToolResultBlock("c1", "ok", false))},
			api:  "anthropic",
			want: "user: text(do)\nassistant: use(c1 {\"command\":\"go test\"}) use(c2 {\"command\":\"go test\"})\nuser: result(c1 false \"ok\") result(c2 true \"Not run: the\")\n",
		},
		"deferred: open calls returned": {
			lines: []*Line{userLine(llm.TextBlock("do")), assistantLine("anthropic", llm.ToolUseBlock("c1", "bash", in), llm.ToolUseBlock("c2", "bash", in)),
				userLine(llm.ToolResultBlock("c1", "ok", false)), deferredEnd},
			api: "anthropic", keepOpen: true, open: 1,
			want: "user: text(do)\nassistant: use(c1 {\"command\":\"go test\"}) use(c2 {\"command\":\"go test\"})\nuser: result(c1 false \"ok\")\n",
		},
		"user lines merge; stray results dropped": {
			lines: []*Line{userLine(llm.TextBlock("a")), userLine(llm.ToolResultBlock("zz", "x", false), llm.TextBlock("b")),
				assistantLine("openai", llm.TextBlock("c"))},
			api:  "openai",
			want: "user: text(a) text(b)\nassistant: text(c)\n",
		},
		"a redacted message stays in its place": {
			lines: []*Line{userLine(llm.TextBlock("a")), {Type: TypeAssistant, Time: "t", Redacted: "secret"}},
			api:   "anthropic",
			want:  "user: text(a)\nassistant: text([[REDACTED]: this message held a secret and was not recorded])\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := conversation(t, tc.lines...)
			keep := tc.keepOpen && s.Deferred() != nil
			msgs, open := s.Conversation(tc.api, keep)
			if got := render(msgs); got != tc.want {
				t.Errorf("conversation:\n%s\nwant:\n%s", got, tc.want)
			}
			if len(open) != tc.open {
				t.Errorf("%d open calls, want %d", len(open), tc.open)
			}
		})
	}
}

func TestAppendCutsATornLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(header+`{"type":"user","ti`), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Append(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&Line{Type: TypeRun, Time: "t", Run: 2})
	w.Close()
	data, _ := os.ReadFile(path)
	if want := header + `{"type":"run","time":"t","run":2}` + "\n"; string(data) != want {
		t.Errorf("file:\n%s\nwant:\n%s", data, want)
	}
	if _, err := Append(filepath.Join(t.TempDir(), "none.jsonl"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Append of a missing file: %v", err)
	}
}

func TestWriterKeepsBlocksExactAndHidesSecrets(t *testing.T) {
	t.Parallel()
	const secret = "sk-ant-secret-0123456789"
	in := []byte(`{"b": 1,  "a":"x"}`) // not compact, keys unsorted
	s := func() *Session {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		w, err := Create(path, Options{Secrets: []string{secret}})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(&Line{Type: TypeHeader, Time: "t", Format: Format, ID: "s"})
		w.Write(assistantLine("anthropic", llm.ToolUseBlock("c1", "bash", in), llm.ToolUseBlock("c2", "bash", []byte(`{"k":"`+secret+`"}`))))
		w.Write(userLine(llm.ToolResultBlock("c1", "key "+secret, false), llm.ToolResultBlock("c2", "tab\there \"q\"", false)))
		w.Close()
		data, _ := os.ReadFile(path)
		if strings.Contains(string(data), secret) {
			t.Fatalf("the secret was written:\n%s", data)
		}
		s, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}()
	a, u := s.Messages[0].Content, s.Messages[1].Content
	if string(a[0].Input) != `{"b":1,"a":"x"}` {
		t.Errorf("input %s: want the model's bytes, compacted as the request sends them", a[0].Input)
	}
	if string(a[1].Input) != `{"k":"[REDACTED]"}` || u[0].Content != "key [REDACTED]" || u[1].Content != "tab\there \"q\"" {
		t.Errorf("blocks %q %q %q", a[1].Input, u[0].Content, u[1].Content)
	}
}

package ghactions

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode"
)

func TestWriterNeutralises(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ in, want string }{
		"plain":                {"hello\nworld\n", "hello\nworld\n"},
		"add-mask":             {"::add-mask::x\n", `\::add-mask::x` + "\n"},
		"set-env":              {"text\n::set-env name=A::b\n", "text\n" + `\::set-env name=A::b` + "\n"},
		"stop-commands":        {"::stop-commands::t\nmore", `\::stop-commands::t` + "\nmore"},
		"indented":             {"  \t::error file=a::x\n", "  \t" + `\::error file=a::x` + "\n"},
		"unicode space":        {"\u00a0\u2003::warning::w\n", "\u00a0\u2003" + `\::warning::w` + "\n"},
		"legacy":               {"##[set-env name=A;]b\n", `\##\[set-env name=A;]b` + "\n"},
		"legacy mid-line":      {"bash: echo x ##[set-output name=p]/x\n", `bash: echo x ##\[set-output name=p]/x` + "\n"},
		"legacy after a colon": {":##[x\n###[y\n", `:##\[x` + "\n" + `###\[y` + "\n"},
		"hashes end a line":    {"a##\n[x\n", "a##\n[x\n"},
		"carriage":             {"ok\r::add-mask::y\r\n", "ok\r" + `\::add-mask::y` + "\r\n"},
		"mid-line":             {"see ::add-mask::x\n", "see ::add-mask::x\n"},
		"one colon":            {":x\n#[y\n##z\n", ":x\n#[y\n##z\n"},
		"blank lines":          {"\n\n::x\n", "\n\n" + `\::x` + "\n"},
		"unfinished":           {"a\n:", "a\n:"},
		"only space":           {"   ", "   "},
		"colon space":          {": :x\n", ": :x\n"},
		"no final break":       {"::x", `\::x`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Whole, and cut at every point: a line start that falls
			// across two writes is still seen.
			for cut := 0; cut <= len(c.in); cut++ {
				var b bytes.Buffer
				w := NewWriter(&b)
				w.Write([]byte(c.in[:cut]))
				w.Write([]byte(c.in[cut:]))
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				if b.String() != c.want {
					t.Fatalf("cut at %d: got %q, want %q", cut, b.String(), c.want)
				}
			}
			var b bytes.Buffer
			w := NewWriter(&b)
			for i := range len(c.in) {
				w.Write([]byte{c.in[i]})
			}
			w.Flush()
			if b.String() != c.want {
				t.Fatalf("byte by byte: got %q, want %q", b.String(), c.want)
			}
		})
	}
}

// TestWriterFlushThenMore checks that a start held back and flushed in
// the middle of a line cannot become a command with what is written after
// the flush (the run flushes before its own notices).
func TestWriterFlushThenMore(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ before, after, want string }{
		{"  :", ":add-mask::x\n", "  :" + `\:add-mask::x` + "\n"},
		{"##", "[set-output name=a]b\n", "##" + `\[set-output name=a]b` + "\n"},
		{"#", "#[x]\n", "#" + `#\[x]` + "\n"},
		{"   ", "::x\n", "   " + `\::x` + "\n"},
	} {
		var b bytes.Buffer
		w := NewWriter(&b)
		w.Write([]byte(c.before))
		w.Flush()
		w.Write([]byte(c.after))
		w.Flush()
		if b.String() != c.want {
			t.Errorf("%q, flush, %q: got %q, want %q", c.before, c.after, b.String(), c.want)
		}
	}
}

func TestWriterCommands(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Write([]byte("partial :"))
	w.Command("warning", "denied: rm -rf /\n::add-mask::x 100%", "title", "rubichan: denied, twice")
	w.Write([]byte(":"))
	resume, err := w.StopCommands()
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("::set-output name=a::b\n"))
	resume()
	got := b.String()
	lines := strings.Split(got, "\n")
	if lines[0] != "partial :" {
		t.Errorf("the open line is not ended before the command: %q", lines[0])
	}
	if want := "::warning title=rubichan%3A denied%2C twice::denied: rm -rf /%0A::add-mask::x 100%25"; lines[1] != want {
		t.Errorf("command:\n got %s\nwant %s", lines[1], want)
	}
	if lines[2] != ":" {
		t.Errorf("the line after a command: %q", lines[2])
	}
	token, ok := strings.CutPrefix(lines[3], "::stop-commands::")
	if !ok || len(token) != 32 {
		t.Fatalf("stop-commands line: %q", lines[3])
	}
	if lines[4] != `\::set-output name=a::b` {
		t.Errorf("inside stop-commands: %q", lines[4])
	}
	if lines[5] != "::"+token+"::" {
		t.Errorf("resume line %q, want the token %s", lines[5], token)
	}
	resume2, _ := w.StopCommands()
	defer resume2()
	if strings.Contains(b.String()[len(got):], token) {
		t.Error("the token is reused")
	}
}

// FuzzWriter checks the property: whatever is written, and however it is
// cut into writes, no line of the output is a workflow command, and text
// with no "::" or "##[" passes unchanged.
func FuzzWriter(f *testing.F) {
	for _, s := range []string{"::add-mask::x", " \n::set-env name=A::b", "##[x]", "\r :", "a\u2028::b", "::"} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, s string, cut uint8) {
		var b bytes.Buffer
		w := NewWriter(&b)
		k := int(cut) % (len(s) + 1)
		w.Write([]byte(s[:k]))
		w.Write([]byte(s[k:]))
		w.Flush()
		out := b.String()
		for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
			l := strings.TrimLeftFunc(line, unicode.IsSpace)
			if strings.HasPrefix(l, "::") || strings.Contains(l, "##[") {
				t.Fatalf("command line %q in %q", line, out)
			}
		}
		if !strings.Contains(s, "::") && !strings.Contains(s, "##[") && out != s {
			t.Fatalf("changed %q to %q", s, out)
		}
	})
}

// BenchmarkWriter measures the cost of neutralising streamed text: a
// model's answer of short lines, some indented, in 40-byte deltas.
func BenchmarkWriter(b *testing.B) {
	line := "  the quick brown fox: jumps over the lazy dog ::not-a-command\n"
	text := []byte(strings.Repeat(line, 1<<14))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		w := NewWriter(io.Discard)
		for i := 0; i < len(text); i += 40 {
			w.Write(text[i:min(i+40, len(text))])
		}
		w.Flush()
	}
}

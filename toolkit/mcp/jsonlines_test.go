package mcp

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// filterLines is what jsonLines should pass on of in, and how many lines
// it should skip: the model the fuzz target checks it against.
func filterLines(in string) (string, int) {
	var out strings.Builder
	skipped := 0
	for _, line := range strings.SplitAfter(in, "\n") {
		t := strings.TrimLeft(line, " \t\r")
		switch {
		case t != "" && (t[0] == '{' || t[0] == '['):
			out.WriteString(line)
		case strings.TrimSpace(line) != "":
			skipped++
		}
	}
	return out.String(), skipped
}

func TestJSONLines(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		in, want string
		skipped  int
		first    string
	}{
		"banner":      {"Server starting on stdio\n{\"jsonrpc\":\"2.0\"}\n", "{\"jsonrpc\":\"2.0\"}\n", 1, "Server starting on stdio"},
		"between":     {"{\"a\":1}\nnote\n  [1]\n", "{\"a\":1}\n  [1]\n", 1, "note"},
		"blank lines": {"\n\r\n{\"a\":1}\n", "{\"a\":1}\n", 0, ""},
		"no newline":  {"{\"a\":1}", "{\"a\":1}", 0, ""},
		"all skipped": {"a\nb\nc", "", 3, "a"},
		"json only":   {"{}\n{}\n", "{}\n{}\n", 0, ""},
		"long banner": {strings.Repeat("x", 300) + "\n{}\n", "{}\n", 1, strings.Repeat("x", skippedKeep) + "…"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := newJSONLines(io.NopCloser(iotest.OneByteReader(strings.NewReader(c.in))))
			got, err := io.ReadAll(j)
			if err != nil || string(got) != c.want {
				t.Errorf("read %q (%v), want %q", got, err, c.want)
			}
			if n, first := j.Skipped(); n != c.skipped || first != c.first {
				t.Errorf("skipped %d %q, want %d %q", n, first, c.skipped, c.first)
			}
		})
	}
}

// FuzzJSONLines: whatever a server prints, jsonLines passes on exactly
// its lines that start (after blanks) with '{' or '[', in order and
// byte for byte, and counts the other non-blank lines.
func FuzzJSONLines(f *testing.F) {
	for _, s := range []string{"banner\n{}\n", "{\"a\":1}\n x\n[2]", "", "\n\n", "  {\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		j := newJSONLines(io.NopCloser(strings.NewReader(in)))
		got, err := io.ReadAll(j)
		if err != nil {
			t.Fatal(err)
		}
		want, skipped := filterLines(in)
		if !bytes.Equal(got, []byte(want)) {
			t.Errorf("passed %q, want %q", got, want)
		}
		if n, _ := j.Skipped(); n != skipped {
			t.Errorf("skipped %d, want %d", n, skipped)
		}
	})
}

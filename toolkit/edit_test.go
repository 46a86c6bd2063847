package toolkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// editCase is one case of TestEdit.
type editCase struct {
	name    string
	file    string // content of f.txt before
	args    obj    // path defaults to f.txt
	isErr   bool
	has     []string
	want    string // content of f.txt after; "" means unchanged
	diffHas string
}

// editCases returns the cases of TestEdit.
func editCases() []editCase {
	return []editCase{
		{name: "single replacement", file: "a\nb\nc\n", args: obj{"old_string": "b", "new_string": "B"},
			has: []string{"Edited f.txt: 1 replacement\n", "-b\n+B\n"}, want: "a\nB\nc\n", diffHas: "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{name: "multi-line replacement", file: "func a() {\n\treturn 1\n}\n", args: obj{"old_string": "\treturn 1\n}", "new_string": "\treturn 2\n}"},
			want: "func a() {\n\treturn 2\n}\n"},
		{name: "crlf preserved with lf arguments", file: "one\r\ntwo\r\nthree\r\n", args: obj{"old_string": "one\ntwo\n", "new_string": "one\nzwei\n"},
			want: "one\r\nzwei\r\nthree\r\n"},
		{name: "crlf preserved with exact crlf arguments", file: "one\r\ntwo\r\n", args: obj{"old_string": "two\r\n", "new_string": "2\r\n"},
			want: "one\r\n2\r\n"},
		{name: "crlf file gets crlf in new lines", file: "a\r\nb\r\n", args: obj{"old_string": "b", "new_string": "b\nc"},
			want: "a\r\nb\r\nc\r\n"},
		{name: "lf file keeps lf", file: "a\nb\n", args: obj{"old_string": "b", "new_string": "b\nc"},
			want: "a\nb\nc\n"},
		{name: "crlf single line", file: "x = 1\r\ny = 2\r\n", args: obj{"old_string": "y = 2", "new_string": "y = 3"},
			want: "x = 1\r\ny = 3\r\n"},
		{name: "missing final newline preserved", file: "first\nlast", args: obj{"old_string": "first", "new_string": "1st"},
			want: "1st\nlast", diffHas: " last\n\\ No newline at end of file\n"},
		{name: "edit of the last line keeps it unterminated", file: "a\nlast", args: obj{"old_string": "last", "new_string": "final"},
			want: "a\nfinal"},
		{name: "several matches refused", file: "x\ny\nx\nz\nx\n", args: obj{"old_string": "x", "new_string": "X"},
			isErr: true, has: []string{"occurs 3 times in f.txt (at lines 1, 3, 5)", "replace_all"}},
		{name: "two matches refused", file: "x\ny\nx\n", args: obj{"old_string": "x", "new_string": "X"},
			isErr: true, has: []string{"occurs 2 times in f.txt (at lines 1, 3)"}},
		{name: "replace all", file: "x\ny\nx\n", args: obj{"old_string": "x", "new_string": "X", "replace_all": true},
			has: []string{"2 replacements"}, want: "X\ny\nX\n"},
		{name: "no match shows closest lines", file: "func main() {\n\tfmt.Println(\"hello\")\n}\n", args: obj{"old_string": "fmt.Printf(\"hello\")", "new_string": "x"},
			isErr: true, has: []string{"old_string not found in f.txt", "closest lines", "     2\t\tfmt.Println(\"hello\")"}},
		{name: "no match points at whitespace", file: "if x {\n\treturn\n}\n", args: obj{"old_string": "if x {\n    return\n}", "new_string": "y"},
			isErr: true, has: []string{"matches lines 1-3 if whitespace is ignored", "     2\t\treturn"}},
		{name: "no match with crlf in old_string", file: "a\nb\n", args: obj{"old_string": "a\r\nc", "new_string": "y"},
			isErr: true, has: []string{"CRLF"}},
		{name: "no match nothing similar", file: "abc\n", args: obj{"old_string": "zzzzzzzz", "new_string": "y"},
			isErr: true, has: []string{"No line resembles"}},
		{name: "empty old_string", file: "a", args: obj{"old_string": "", "new_string": "b"}, isErr: true, has: []string{"old_string is empty"}},
		{name: "identical strings", file: "a", args: obj{"old_string": "a", "new_string": "a"}, isErr: true, has: []string{"identical"}},
		{name: "missing file", args: obj{"path": "nope.txt", "old_string": "a", "new_string": "b"}, isErr: true, has: []string{"file not found: nope.txt"}},
		{name: "binary refused", file: "a\x00b", args: obj{"old_string": "a", "new_string": "b"}, isErr: true, has: []string{"binary"}},
	}
}

func TestEdit(t *testing.T) {
	t.Parallel()
	tests := editCases()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := newWS(t, map[string]string{"f.txt": tc.file})
			args := obj{"path": "f.txt"}
			for k, v := range tc.args {
				args[k] = v
			}
			res := call(t, NewEdit(ws, NewReadTracker()), args)
			if res.IsError != tc.isErr {
				t.Fatalf("IsError = %v, want %v: %q", res.IsError, tc.isErr, res.Content)
			}
			for _, s := range tc.has {
				if !strings.Contains(res.Content, s) {
					t.Errorf("content lacks %q:\n%s", s, res.Content)
				}
			}
			want := tc.want
			if want == "" {
				want = tc.file
			}
			if got := readFileT(t, ws, "f.txt"); got != want && tc.args["path"] == nil {
				t.Errorf("f.txt = %q, want %q", got, want)
			}
			if !tc.isErr {
				if res.Meta.Diff == "" || !strings.Contains(res.Content, res.Meta.Diff) {
					t.Errorf("result does not carry its diff: %+v", res)
				}
				if len(res.Meta.Changed) != 1 || res.Meta.Changed[0] != "f.txt" {
					t.Errorf("Changed = %v", res.Meta.Changed)
				}
			}
			if !strings.Contains(res.Meta.Diff, tc.diffHas) {
				t.Errorf("diff %q lacks %q", res.Meta.Diff, tc.diffHas)
			}
			assertNoTempFiles(t, ws.Root())
		})
	}
}

func TestEditStale(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{"f.txt": "a\nb\n"})
	rt := NewReadTracker()
	read, edit := NewRead(ws, rt), NewEdit(ws, rt)

	call(t, read, obj{"path": "f.txt"})
	if res := call(t, edit, obj{"path": "f.txt", "old_string": "a", "new_string": "A"}); res.IsError {
		t.Fatalf("edit after read refused: %q", res.Content)
	}
	// Our own edit is not someone else's change.
	if res := call(t, edit, obj{"path": "f.txt", "old_string": "b", "new_string": "B"}); res.IsError {
		t.Fatalf("second edit refused: %q", res.Content)
	}
	if err := os.WriteFile(filepath.Join(ws.Root(), "f.txt"), []byte("A\nB\nC added by a person\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := call(t, edit, obj{"path": "f.txt", "old_string": "A", "new_string": "1"})
	if !res.IsError || !strings.Contains(res.Content, "changed on disk since you last read it; read it again") {
		t.Fatalf("stale edit not refused: %+v", res)
	}
	if got := readFileT(t, ws, "f.txt"); got != "A\nB\nC added by a person\n" {
		t.Errorf("stale edit changed the file: %q", got)
	}
	call(t, read, obj{"path": "f.txt"})
	if res := call(t, edit, obj{"path": "f.txt", "old_string": "A", "new_string": "1"}); res.IsError {
		t.Errorf("edit after reading again refused: %q", res.Content)
	}
	// A file the agent never read is judged by the exact match alone.
	mkTree(t, ws.Root(), map[string]string{"other.txt": "q\n"})
	if res := call(t, edit, obj{"path": "other.txt", "old_string": "q", "new_string": "Q"}); res.IsError {
		t.Errorf("edit of an unread file refused: %q", res.Content)
	}
}

func TestEditThroughSymlink(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{"real.go": "package a\n", "alias.go": "->real.go"})
	res := call(t, NewEdit(ws, NewReadTracker()), obj{"path": "alias.go", "old_string": "package a", "new_string": "package b"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if got := readFileT(t, ws, "real.go"); got != "package b\n" {
		t.Errorf("real.go = %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(ws.Root(), "alias.go")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("alias.go is no longer a symlink")
	}
	if res.Meta.Changed[0] != "real.go" {
		t.Errorf("Changed = %v, want the target", res.Meta.Changed)
	}
}

func TestEditConfinement(t *testing.T) {
	t.Parallel()
	testConfinement(t, func(ws *Workspace) Tool { return NewEdit(ws, NewReadTracker()) },
		func(p string) map[string]any { return obj{"path": p, "old_string": "TOPSECRET", "new_string": "x"} })
}

func TestEditArgs(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{"a": "a"})
	testArgErrors(t, NewEdit(ws, NewReadTracker()), map[string]struct{ args, errHas string }{
		"missing new_string": {`{"path":"a","old_string":"a"}`, `missing required argument "new_string"`},
		"replace_all type":   {`{"path":"a","old_string":"a","new_string":"b","replace_all":"yes"}`, `argument "replace_all" must be of type boolean, got string`},
		"unknown":            {`{"path":"a","old":"a","new_string":"b"}`, `unknown argument "old"`},
	})
}

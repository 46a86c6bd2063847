package toolkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLs(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{
		"b.txt":      "12345",
		"a/":         "",
		".hidden":    "h",
		"link":       "->b.txt",
		"pipe":       fifoMark,
		"sub/x.go":   "x",
		"sub/deep/y": "y",
		"emptydir/":  "",
	})
	tool := NewLs(ws)
	tests := []struct {
		name  string
		args  obj
		isErr bool
		want  string
	}{
		{"root sorted with dotfiles", obj{}, false,
			"Directory: . (7 entries)\n.hidden\t1\na/\nb.txt\t5\nemptydir/\nlink -> b.txt\npipe\t(named pipe (FIFO))\nsub/\n"},
		{"subdirectory", obj{"path": "sub"}, false, "Directory: sub (2 entries)\ndeep/\nx.go\t1\n"},
		{"absolute inside", obj{"path": filepath.Join(ws.Root(), "sub", "deep")}, false, "Directory: sub/deep (1 entry)\ny\t1\n"},
		{"empty", obj{"path": "emptydir"}, false, "Directory: emptydir (0 entries)\n(empty)\n"},
		{"a file", obj{"path": "b.txt"}, false, "b.txt is a file: b.txt\t5\n"},
		{"missing", obj{"path": "nope"}, true, "ls: no such directory: nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, tool, tc.args)
			if res.IsError != tc.isErr || res.Content != tc.want {
				t.Errorf("got %v %q\nwant %v %q", res.IsError, res.Content, tc.isErr, tc.want)
			}
		})
	}
}

func TestLsCap(t *testing.T) {
	t.Parallel()
	ws := newWS(t, nil)
	for i := range lsMaxEntries + 20 {
		if err := os.WriteFile(filepath.Join(ws.Root(), fmt.Sprintf("f%04d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := call(t, NewLs(ws), obj{})
	if !res.Meta.Truncated {
		t.Error("Truncated not set")
	}
	lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
	if got := len(lines) - 2; got != lsMaxEntries { // header and notice
		t.Errorf("listed %d entries, want %d", got, lsMaxEntries)
	}
	if want := fmt.Sprintf("[showing the first %d of %d entries", lsMaxEntries, lsMaxEntries+20); !strings.HasPrefix(lines[len(lines)-1], want) {
		t.Errorf("notice %q, want prefix %q", lines[len(lines)-1], want)
	}
	if lines[len(lines)-2] != fmt.Sprintf("f%04d\t0", lsMaxEntries-1) {
		t.Errorf("last entry %q is not the %dth by name", lines[len(lines)-2], lsMaxEntries)
	}
}

func TestLsConfinement(t *testing.T) {
	t.Parallel()
	testConfinement(t, func(ws *Workspace) Tool { return NewLs(ws) },
		func(p string) map[string]any { return obj{"path": p} })
}

func TestLsArgs(t *testing.T) {
	t.Parallel()
	testArgErrors(t, NewLs(newWS(t, nil)), map[string]struct{ args, errHas string }{
		"path type": {`{"path":true}`, `argument "path" must be of type string, got bool`},
		"unknown":   {`{"dir":"."}`, `unknown argument "dir"`},
	})
}

package toolkit

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		tree     map[string]string
		args     obj
		isErr    bool
		has      string            // substring of the content
		files    map[string]string // workspace files and their content afterwards
		changed  []string
		diffHas  string
		linkKept string // a path that must still be a symlink
		resolved string // the path Effects must name as resolved
	}{
		{name: "create", args: obj{"path": "new.txt", "content": "hello\n"},
			has: "Created new.txt (1 lines, 6 bytes)", files: map[string]string{"new.txt": "hello\n"},
			changed: []string{"new.txt"}, diffHas: "--- /dev/null\n+++ new.txt\n@@ -0,0 +1 @@\n+hello\n"},
		{name: "create with parents", args: obj{"path": "a/b/c.txt", "content": "x"},
			files: map[string]string{"a/b/c.txt": "x"}, changed: []string{"a/b/c.txt"}},
		{name: "overwrite shows diff", tree: map[string]string{"f.txt": "one\ntwo\n"}, args: obj{"path": "f.txt", "content": "one\n2\n"},
			has: "Wrote f.txt (2 lines, 6 bytes)\n--- f.txt\n+++ f.txt\n", files: map[string]string{"f.txt": "one\n2\n"},
			changed: []string{"f.txt"}, diffHas: "-two\n+2\n"},
		{name: "empty content", tree: map[string]string{"f.txt": "x\n"}, args: obj{"path": "f.txt", "content": ""},
			files: map[string]string{"f.txt": ""}, changed: []string{"f.txt"}},
		{name: "unchanged", tree: map[string]string{"f.txt": "same"}, args: obj{"path": "f.txt", "content": "same"},
			has: "f.txt unchanged", files: map[string]string{"f.txt": "same"}},
		{name: "through in-root symlink writes the target", tree: map[string]string{"real.txt": "old\n", "link.txt": "->real.txt"},
			args: obj{"path": "link.txt", "content": "new\n"}, has: "Wrote real.txt through the symlink link.txt",
			files: map[string]string{"real.txt": "new\n"}, changed: []string{"real.txt"}, linkKept: "link.txt", resolved: "real.txt"},
		{name: "through symlinked dir", tree: map[string]string{"src/a.go": "a", "s": "->src"},
			args: obj{"path": "s/b.go", "content": "b"}, files: map[string]string{"src/b.go": "b"}, changed: []string{"src/b.go"}, linkKept: "s", resolved: "src/b.go"},
		{name: "dangling in-root link creates target", tree: map[string]string{"d": "->gen/out.txt"},
			args: obj{"path": "d", "content": "z"}, files: map[string]string{"gen/out.txt": "z"}, changed: []string{"gen/out.txt"}, linkKept: "d"},
		{name: "directory refused", tree: map[string]string{"dir/x": "x"}, args: obj{"path": "dir", "content": "x"},
			isErr: true, has: "dir is a directory"},
		{name: "parent is a file", tree: map[string]string{"f": "x"}, args: obj{"path": "f/g", "content": "x"},
			isErr: true, has: "f is not a directory", files: map[string]string{"f": "x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := newWS(t, tc.tree)
			tool := NewWrite(ws, NewReadTracker())
			if tc.resolved != "" {
				raw, _ := json.Marshal(tc.args)
				eff, err := tool.Effects(raw)
				want := PathRef{Requested: tc.args["path"].(string), Resolved: tc.resolved}
				if err != nil || eff.Kind != EffectWrite || len(eff.Paths) != 1 || eff.Paths[0] != want {
					t.Errorf("Effects = %+v, %v; want a write of %+v", eff, err, want)
				}
			}
			res := call(t, tool, tc.args)
			if res.IsError != tc.isErr {
				t.Fatalf("IsError = %v, want %v: %q", res.IsError, tc.isErr, res.Content)
			}
			if !strings.Contains(res.Content, tc.has) {
				t.Errorf("content %q lacks %q", res.Content, tc.has)
			}
			for name, want := range tc.files {
				if got := readFileT(t, ws, name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if strings.Join(res.Meta.Changed, ",") != strings.Join(tc.changed, ",") {
				t.Errorf("Changed = %q, want %q", res.Meta.Changed, tc.changed)
			}
			if !strings.Contains(res.Meta.Diff, tc.diffHas) {
				t.Errorf("Diff %q lacks %q", res.Meta.Diff, tc.diffHas)
			}
			if tc.linkKept != "" {
				fi, err := os.Lstat(filepath.Join(ws.Root(), tc.linkKept))
				if err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("%s is no longer a symlink: %v, %v", tc.linkKept, fi, err)
				}
			}
			assertNoTempFiles(t, ws.Root())
		})
	}
}

// assertNoTempFiles fails if an atomic-write temporary file was left.
func assertNoTempFiles(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".rubichan-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestWriteEffectsNameSymlinkTarget(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{".git/config": "[core]\n", "src/cfg": "->../.git/config"})
	eff, err := NewWrite(ws, NewReadTracker()).Effects([]byte(`{"path":"src/cfg","content":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Effects{Kind: EffectWrite, Paths: []PathRef{{Requested: "src/cfg", Resolved: ".git/config"}}}
	if eff.Kind != want.Kind || len(eff.Paths) != 1 || eff.Paths[0] != want.Paths[0] {
		t.Errorf("Effects = %+v, want %+v", eff, want)
	}
}

func TestWriteKeepsMode(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{"run.sh": "#!/bin/sh\n"})
	p := filepath.Join(ws.Root(), "run.sh")
	if err := os.Chmod(p, 0o751); err != nil {
		t.Fatal(err)
	}
	if res := call(t, NewWrite(ws, NewReadTracker()), obj{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}); res.IsError {
		t.Fatal(res.Content)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o751 {
		t.Errorf("mode = %v, want 0751", fi.Mode().Perm())
	}
	call(t, NewWrite(ws, NewReadTracker()), obj{"path": "fresh.txt", "content": "x"})
	if fi, _ := os.Stat(filepath.Join(ws.Root(), "fresh.txt")); fi.Mode().Perm() != newFileMode {
		t.Errorf("new file mode = %v, want %v", fi.Mode().Perm(), newFileMode)
	}
}

// TestWriteFailureKeepsOriginal makes the write fail after the new content
// reached the temporary file: the original must be intact and no temporary
// file left.
func TestWriteFailureKeepsOriginal(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"write", "edit"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws := newWS(t, map[string]string{"f.txt": "original\n"})
			failing := atomicWriter{sync: func(*os.File) error { return errors.New("disk on fire") }}
			var res Result
			if name == "write" {
				w := NewWrite(ws, NewReadTracker())
				w.aw = failing
				res = call(t, w, obj{"path": "f.txt", "content": "replacement\n"})
			} else {
				e := NewEdit(ws, NewReadTracker())
				e.aw = failing
				res = call(t, e, obj{"path": "f.txt", "old_string": "original", "new_string": "replacement"})
			}
			if !res.IsError || !strings.Contains(res.Content, "disk on fire") {
				t.Errorf("result %+v, want an error result with the cause", res)
			}
			if got := readFileT(t, ws, "f.txt"); got != "original\n" {
				t.Errorf("f.txt = %q after a failed %s", got, name)
			}
			if len(res.Meta.Changed) != 0 {
				t.Errorf("Changed = %v after a failure", res.Meta.Changed)
			}
			assertNoTempFiles(t, ws.Root())
		})
	}
}

func TestWriteReadOnlyRoot(t *testing.T) {
	t.Parallel()
	extra := t.TempDir()
	mkTree(t, extra, map[string]string{"stdin.txt": "spilled"})
	ws := newWS(t, nil)
	if err := ws.AddRoot(extra, false); err != nil {
		t.Fatal(err)
	}
	res := call(t, NewWrite(ws, NewReadTracker()), obj{"path": filepath.Join(extra, "stdin.txt"), "content": "x"})
	if !res.IsError || !strings.Contains(res.Content, "read-only") {
		t.Errorf("write into a read-only root: %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(extra, "stdin.txt")); string(b) != "spilled" {
		t.Errorf("read-only file changed to %q", b)
	}
	if err := ws.AddRoot(extra, true); err != nil {
		t.Fatal(err)
	}
	if res := call(t, NewWrite(ws, NewReadTracker()), obj{"path": filepath.Join(extra, "out.txt"), "content": "x"}); res.IsError {
		t.Errorf("write into a writable root: %+v", res)
	}
}

func TestWriteStale(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{"f.txt": "v1\n"})
	rt := NewReadTracker()
	call(t, NewRead(ws, rt), obj{"path": "f.txt"})
	if err := os.WriteFile(filepath.Join(ws.Root(), "f.txt"), []byte("someone else's v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := call(t, NewWrite(ws, rt), obj{"path": "f.txt", "content": "mine\n"})
	if !res.IsError || !strings.Contains(res.Content, "changed on disk since you last read it") {
		t.Fatalf("stale write not refused: %+v", res)
	}
	if got := readFileT(t, ws, "f.txt"); got != "someone else's v2\n" {
		t.Errorf("the other change was overwritten: %q", got)
	}
	call(t, NewRead(ws, rt), obj{"path": "f.txt"})
	if res := call(t, NewWrite(ws, rt), obj{"path": "f.txt", "content": "mine\n"}); res.IsError {
		t.Errorf("write after reading again refused: %q", res.Content)
	}
}

func TestWriteConfinement(t *testing.T) {
	t.Parallel()
	testConfinement(t, func(ws *Workspace) Tool { return NewWrite(ws, NewReadTracker()) },
		func(p string) map[string]any { return obj{"path": p, "content": "pwned"} })
}

func TestWriteArgs(t *testing.T) {
	t.Parallel()
	ws := newWS(t, nil)
	testArgErrors(t, NewWrite(ws, NewReadTracker()), map[string]struct{ args, errHas string }{
		"missing content": {`{"path":"a"}`, `missing required argument "content"`},
		"null content":    {`{"path":"a","content":null}`, `missing required argument "content"`},
		"missing path":    {`{"content":"x"}`, `missing required argument "path"`},
		"content type":    {`{"path":"a","content":["x"]}`, `argument "content" must be of type string, got array`},
		"unknown":         {`{"path":"a","content":"x","mode":"0777"}`, `unknown argument "mode"`},
	})
}

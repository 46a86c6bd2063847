package toolkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resolveCase is one case of TestResolve.
type resolveCase struct {
	name, path          string
	requested, resolved string
	errHas              string // non-empty: Resolve must fail with this in the message
}

// resolveCases returns the cases of TestResolve.
func resolveCases(root string) []resolveCase {
	return []resolveCase{
		{"relative file", "a.txt", "a.txt", "a.txt", ""},
		{"dot", ".", ".", ".", ""},
		{"cleaned", "src/../a.txt", "a.txt", "a.txt", ""},
		{"trailing slash dir", "src/", "src", "src", ""},
		{"absolute inside", filepath.Join(root, "src", "main.go"), "src/main.go", "src/main.go", ""},
		{"absolute root", root, ".", ".", ""},
		{"dotdot escape", "../x", "", "", "leaves the workspace"},
		{"dotdot deep escape", "src/../../x", "", "", "leaves the workspace"},
		{"etc passwd", "/etc/passwd", "", "", "outside the workspace"},
		{"symlink to etc passwd", "passwd", "", "", "outside the workspace through the symlink passwd -> /etc/passwd"},
		{"symlinked dir leading outside", "out/secret.txt", "", "", "outside the workspace through the symlink out"},
		{"symlinked dir outside, missing file", "out/nope", "", "", "outside the workspace"},
		{"symlink to git config", "src/cfg", "src/cfg", ".git/config", ""},
		{"symlinked dir", "srclink/main.go", "srclink/main.go", "src/main.go", ""},
		{"chain of links", "chain", "chain", ".git/config", ""},
		{"absolute link inside root", "abs_in", "abs_in", "src/main.go", ""},
		{"relative link up", "sub/up", "sub/up", "a.txt", ""},
		{"relative link escaping", "sub/escape", "", "", "outside the workspace through the symlink sub/escape -> ../../x"},
		{"missing file", "src/new/file.go", "src/new/file.go", "src/new/file.go", ""},
		{"missing under symlinked dir", "srclink/x/y.go", "srclink/x/y.go", "src/x/y.go", ""},
		{"dangling link", "dangling", "dangling", "src/new.go", ""},
		{"loop", "loop1", "", "", "too many levels of symbolic links"},
		{"NUL byte", "a.txt\x00.png", "", "", "NUL byte"},
		{"control char", "a\nb", "", "", "control character"},
		{"escape char", "a\x1b[31m", "", "", "control character"},
		{"invalid utf8", "a\xffb", "", "", "not valid UTF-8"},
		{"empty", "", "", "", "path is empty"},
		{"fifo", "pipe", "", "", "named pipe"},
		{"file as directory", "a.txt/x", "", "", "a.txt is not a directory"},
		{"empty dir", "empty", "empty", "empty", ""},
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	mkTree(t, outside, map[string]string{"secret.txt": "s", "d/f": "x"})
	ws := newWS(t, map[string]string{
		"a.txt":       "a",
		"src/main.go": "package main",
		".git/config": "[core]",
		"src/cfg":     "->../.git/config",
		"abs_in":      "", // replaced below by an absolute link into the root
		"passwd":      "->/etc/passwd",
		"out":         "->" + outside,
		"srclink":     "->src",
		"loop1":       "->loop2",
		"loop2":       "->loop1",
		"dangling":    "->src/new.go",
		"pipe":        fifoMark,
		"empty/":      "",
		"chain":       "->srclink/cfg",
		"sub/up":      "->../a.txt",
		"sub/escape":  "->../../x",
	})
	root := ws.Root()
	if err := os.Remove(filepath.Join(root, "abs_in")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "src", "main.go"), filepath.Join(root, "abs_in")); err != nil {
		t.Fatal(err)
	}

	tests := resolveCases(root)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ref, err := ws.Resolve(tc.path)
			if tc.errHas != "" {
				if err == nil {
					t.Fatalf("Resolve(%q) = %+v, want error containing %q", tc.path, ref, tc.errHas)
				}
				if !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("Resolve(%q) error %q, want it to contain %q", tc.path, err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.path, err)
			}
			want := PathRef{Requested: tc.requested, Resolved: tc.resolved}
			if ref != want {
				t.Fatalf("Resolve(%q) = %+v, want %+v", tc.path, ref, want)
			}
		})
	}
}

func TestAddRoot(t *testing.T) {
	t.Parallel()
	extra := t.TempDir()
	mkTree(t, extra, map[string]string{"stdin.txt": "big", "link": "->stdin.txt"})
	ws := newWS(t, map[string]string{"a": "a", "toextra": "->" + filepath.Join(extra, "stdin.txt")})

	if _, err := ws.Resolve(filepath.Join(extra, "stdin.txt")); err == nil {
		t.Fatal("extra directory reachable before AddRoot")
	}
	if err := ws.AddRoot(extra, false); err != nil {
		t.Fatal(err)
	}
	realExtra, err := filepath.EvalSymlinks(extra)
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.ToSlash(filepath.Join(realExtra, "stdin.txt"))
	tests := []struct {
		path string
		want PathRef
	}{
		{filepath.Join(extra, "stdin.txt"), PathRef{abs, abs}},
		{filepath.Join(extra, "link"), PathRef{filepath.ToSlash(filepath.Join(realExtra, "link")), abs}},
		{"toextra", PathRef{"toextra", abs}},
	}
	for _, tc := range tests {
		got, err := ws.Resolve(tc.path)
		if err != nil {
			t.Fatalf("Resolve(%q): %v", tc.path, err)
		}
		if got != tc.want {
			t.Errorf("Resolve(%q) = %+v, want %+v", tc.path, got, tc.want)
		}
	}
	loc, err := ws.resolve(filepath.Join(extra, "stdin.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if loc.writable {
		t.Error("read-only extra root reported writable")
	}
	if err := ws.AddRoot(extra, true); err != nil {
		t.Fatal(err)
	}
	if loc, _ := ws.resolve(filepath.Join(extra, "stdin.txt")); !loc.writable {
		t.Error("adding the root again as writable did not make it writable")
	}
	if err := ws.AddRoot(filepath.Join(extra, "stdin.txt"), false); err == nil {
		t.Error("AddRoot of a file succeeded")
	}
	if err := ws.AddRoot(filepath.Join(extra, "missing"), false); err == nil {
		t.Error("AddRoot of a missing directory succeeded")
	}
}

func TestOpenWorkspaceErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkTree(t, dir, map[string]string{"f": "x"})
	for _, p := range []string{"", filepath.Join(dir, "f"), filepath.Join(dir, "missing"), "a\x00b"} {
		if ws, err := OpenWorkspace(p); err == nil {
			ws.Close()
			t.Errorf("OpenWorkspace(%q) succeeded", p)
		} else if !strings.HasPrefix(err.Error(), "toolkit: ") {
			t.Errorf("OpenWorkspace(%q) error %q lacks the package prefix", p, err)
		}
	}
}

// TestWorkspaceConcurrent runs tool calls while roots are added, for the
// race detector, and checks every result: calls into the first root and a
// writable extra root succeed while other roots come and the extra root is
// added again read-only (it stays writable), and every root added is there
// at the end.
func TestWorkspaceConcurrent(t *testing.T) {
	t.Parallel()
	const n = 50
	extra := t.TempDir()
	mkTree(t, extra, map[string]string{"x.txt": "x\n"})
	more := t.TempDir()
	for i := range n {
		mkTree(t, more, map[string]string{fmt.Sprintf("d%d/f.txt", i): fmt.Sprintf("more %d\n", i)})
	}
	ws := newWS(t, map[string]string{"a.txt": "needle\n"})
	if err := ws.AddRoot(extra, true); err != nil {
		t.Fatal(err)
	}
	tools := Tools(ws, Options{})
	read, write, grep := tools[0], tools[1], tools[4]
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			if err := ws.AddRoot(extra, false); err != nil {
				t.Error(err)
				return
			}
			if err := ws.AddRoot(filepath.Join(more, fmt.Sprintf("d%d", i)), i%2 == 0); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	// Errors, not Fatal, in this loop: the goroutine must end before the
	// temporary directories go.
	for i := range n {
		if res := call(t, read, obj{"path": "a.txt"}); res.IsError || !strings.Contains(res.Content, "needle") {
			t.Errorf("read a.txt: %+v", res)
			break
		}
		if res := call(t, read, obj{"path": filepath.Join(extra, "x.txt")}); res.IsError || !strings.Contains(res.Content, "x") {
			t.Errorf("read extra x.txt: %+v", res)
			break
		}
		y := filepath.Join(extra, fmt.Sprintf("y%d.txt", i))
		if res := call(t, write, obj{"path": y, "content": strings.Repeat("y", i)}); res.IsError {
			t.Errorf("write %s: %+v", y, res)
			break
		}
		if got, err := os.ReadFile(y); err != nil || string(got) != strings.Repeat("y", i) {
			t.Errorf("%s holds %q, %v", y, got, err)
			break
		}
		if res := call(t, grep, obj{"pattern": "needle"}); res.IsError || !strings.Contains(res.Content, "a.txt") {
			t.Errorf("grep: %+v", res)
			break
		}
	}
	<-done
	for i := range n {
		p := filepath.Join(more, fmt.Sprintf("d%d", i), "f.txt")
		if res := call(t, read, obj{"path": p}); res.IsError || !strings.Contains(res.Content, fmt.Sprintf("more %d", i)) {
			t.Errorf("read %s after AddRoot: %+v", p, res)
		}
	}
}

// FuzzResolve checks that whatever path the model sends, a path Resolve
// accepts stays inside the workspace: relative, without "..", and its
// existing part really lies under the root once the OS follows the links.
func FuzzResolve(f *testing.F) {
	outside := f.TempDir()
	dir := f.TempDir()
	mkTree(f, dir, map[string]string{
		"a/b.txt": "x", "up": "->..", "out": "->" + outside, "in": "->a", "loop": "->loop",
		"a/back": "->../a/../in/b.txt", "a/abs": "->" + filepath.Join(dir, "a"),
	})
	ws, err := OpenWorkspace(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ws.Close() })
	for _, s := range []string{"a/b.txt", "up/x", "out/y", "in/b.txt", "a/back", "a/abs/b.txt", "../x", "a/../../x", "/etc", dir + "/in/../up"} {
		f.Add(s)
	}
	root := ws.Root()
	f.Fuzz(func(t *testing.T, p string) {
		ref, err := ws.Resolve(p)
		if err != nil {
			return
		}
		for _, r := range []string{ref.Requested, ref.Resolved} {
			if filepath.IsAbs(r) || r == ".." || strings.HasPrefix(r, "../") {
				t.Fatalf("Resolve(%q) = %+v: leaves the root", p, ref)
			}
		}
		// The deepest existing ancestor of the resolved path must really
		// be under the root.
		cur := filepath.Join(root, filepath.FromSlash(ref.Resolved))
		for {
			if _, err := os.Lstat(cur); err == nil {
				break
			}
			cur = filepath.Dir(cur)
		}
		real, err := filepath.EvalSymlinks(cur)
		if err != nil {
			return // a loop or a race with the fuzzer's own tree: nothing resolved through it
		}
		if rel, ok := within(root, real); !ok || strings.HasPrefix(rel, "..") {
			t.Fatalf("Resolve(%q) = %+v, but it is really %s", p, ref, real)
		}
	})
}

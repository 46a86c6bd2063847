package toolkit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// linkPrefix marks a tree entry as a symlink to the rest of the value.
const linkPrefix = "->"

// fifoMark marks a tree entry as a named pipe.
const fifoMark = "<fifo>"

// mkTree creates files under dir: a key ending in "/" is a directory, a
// value starting with "->" a symlink, the value "<fifo>" a named pipe, any
// other value a file with that content.
func mkTree(t testing.TB, dir string, tree map[string]string) {
	t.Helper()
	for name, content := range tree {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasPrefix(content, linkPrefix):
			err = os.Symlink(strings.TrimPrefix(content, linkPrefix), p)
		case content == fifoMark:
			err = syscall.Mkfifo(p, 0o644)
		default:
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// newWS creates a temporary workspace holding tree and opens it.
func newWS(t testing.TB, tree map[string]string) *Workspace {
	t.Helper()
	dir := t.TempDir()
	mkTree(t, dir, tree)
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// readFileT returns the content of the file at rel inside the workspace.
func readFileT(t testing.TB, ws *Workspace, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws.Root(), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// call runs tool with args given as a Go value and fails on a Go error.
func call(t testing.TB, tool Tool, args any) Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Run(context.Background(), raw)
	if err != nil {
		t.Fatalf("%s: Run returned a Go error: %v", tool.Spec().Name, err)
	}
	return res
}

// obj is shorthand for tool arguments.
type obj = map[string]any

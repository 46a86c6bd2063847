//go:build unix

package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandPath checks where a server's command is found: never in the
// workspace, a relative PATH entry or a node_modules directory of the
// run's PATH, whichever comes first; in a PathAdd directory and by path
// when the configuration says so.
func TestCommandPath(t *testing.T) {
	t.Parallel()
	ws, out := t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "ws-link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	plant := func(dir string) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "srvx")
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := plant(filepath.Join(out, "tools"))
	added := plant(filepath.Join(out, "added"))
	for _, d := range []string{ws, filepath.Join(ws, "bin"), filepath.Join(ws, "node_modules", ".bin"), filepath.Join(out, "node_modules", ".bin")} {
		plant(d)
	}
	for _, tc := range []struct {
		name, path, cmd string
		add             []string
		want            string // "" for not found
	}{
		{"workspace dir", ws + ":" + out + "/tools", "srvx", nil, good},
		{"workspace subdir", ws + "/bin:" + out + "/tools", "srvx", nil, good},
		{"workspace through a symlink", link + "/bin:" + out + "/tools", "srvx", nil, good},
		{"workspace node_modules", ws + "/node_modules/.bin:" + out + "/tools", "srvx", nil, good},
		{"node_modules outside", out + "/node_modules/.bin:" + out + "/tools", "srvx", nil, good},
		{"dot, empty, relative", ".::bin:node_modules/.bin:" + out + "/tools", "srvx", nil, good},
		{"nowhere else", ws + ":" + ws + "/bin:.", "srvx", nil, ""},
		{"path_add", ws, "srvx", []string{out + "/added"}, added},
		{"path_add after the system", out + "/tools", "srvx", []string{out + "/added"}, good},
		{"path_add into the workspace", "", "srvx", []string{"bin"}, filepath.Join(ws, "bin", "srvx")},
		{"by path", out + "/tools", "./bin/srvx", nil, "./bin/srvx"},
		{"absolute", "", good, nil, good},
		{"empty", out + "/tools", "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := &Options{Environ: []string{"PATH=/nonexistent", "PATH=" + tc.path}, Dir: ws, PathAdd: tc.add}
			got, err := commandPath(tc.cmd, opts)
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), "executable file not found") {
					t.Errorf("commandPath(%q) = %q, %v; want not found", tc.cmd, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("commandPath(%q) with PATH %s = %q, %v; want %q", tc.cmd, tc.path, got, err, tc.want)
			}
		})
	}
}

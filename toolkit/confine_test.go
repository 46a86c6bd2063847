package toolkit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outsideSecret is the content of a file outside the workspace; no tool
// result may ever contain it.
const outsideSecret = "TOPSECRET outside the workspace"

// confinedWS builds a workspace with every kind of escape the file tools
// must refuse, and returns it with the directory outside it.
func confinedWS(t *testing.T) (*Workspace, string) {
	t.Helper()
	outside := t.TempDir()
	mkTree(t, outside, map[string]string{"secret.txt": outsideSecret})
	ws := newWS(t, map[string]string{
		"inside.txt":  "inside\n",
		".git/config": "[core]\n",
		"src/cfg":     "->../.git/config",
		"passwd":      "->/etc/passwd",
		"out":         "->" + outside,
		"pipe":        fifoMark,
		"pipelink":    "->pipe",
	})
	return ws, outside
}

// confinementCase is one path a tool must refuse, and why.
type confinementCase struct {
	name, path, errHas string
}

func confinementCases(outside string) []confinementCase {
	return []confinementCase{
		{"dotdot", "../x", "leaves the workspace"},
		{"dotdot to outside file", "../" + filepath.Base(outside) + "/secret.txt", "leaves the workspace"},
		{"etc passwd", "/etc/passwd", "outside the workspace"},
		{"absolute outside", filepath.Join(outside, "secret.txt"), "outside the workspace"},
		{"symlink to etc passwd", "passwd", "outside the workspace through the symlink passwd -> /etc/passwd"},
		{"symlinked dir leading outside", "out/secret.txt", "outside the workspace through the symlink out"},
		{"symlinked dir itself", "out", "outside the workspace through the symlink out"},
		{"NUL byte", "inside.txt\x00", "NUL byte"},
		{"control character", "inside\r.txt", "control character"},
		{"fifo", "pipe", "named pipe"},
		{"symlink to a fifo", "pipelink", "named pipe"},
	}
}

// testConfinement runs every escape case through tool's Effects and Run:
// both must refuse with the reason, Run as an error result that leaks
// nothing, and nothing outside the workspace may change.
func testConfinement(t *testing.T, newTool func(*Workspace) Tool, args func(path string) map[string]any) {
	t.Helper()
	ws, outside := confinedWS(t)
	tool := newTool(ws)
	for _, tc := range confinementCases(outside) {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(args(tc.path))
			if err != nil {
				t.Fatal(err)
			}
			if eff, err := tool.Effects(raw); err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("Effects(%q) = %+v, %v; want error containing %q", tc.path, eff, err, tc.errHas)
			}
			res, err := SafeRun(context.Background(), tool, raw)
			if err != nil {
				t.Fatalf("Run(%q): Go error %v", tc.path, err)
			}
			if !res.IsError || !strings.Contains(res.Content, tc.errHas) {
				t.Errorf("Run(%q) = %+v; want an error result containing %q", tc.path, res, tc.errHas)
			}
			if strings.Contains(res.Content, "TOPSECRET") || strings.Contains(res.Content, "root:") {
				t.Errorf("Run(%q) leaked content: %q", tc.path, res.Content)
			}
		})
	}
	got, err := os.ReadFile(filepath.Join(outside, "secret.txt"))
	if err != nil || string(got) != outsideSecret {
		t.Errorf("file outside the workspace changed: %q, %v", got, err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("files appeared outside the workspace: %v", ents)
	}
	// In-root symlink to .git/config: allowed, effects name the target.
	raw, _ := json.Marshal(args("src/cfg"))
	eff, err := tool.Effects(raw)
	if err != nil {
		t.Fatalf("Effects(src/cfg): %v", err)
	}
	want := PathRef{Requested: "src/cfg", Resolved: ".git/config"}
	if len(eff.Paths) != 1 || eff.Paths[0] != want {
		t.Errorf("Effects(src/cfg).Paths = %+v, want [%+v]", eff.Paths, want)
	}
	// An absolute path inside the root is accepted and reported relative.
	raw, _ = json.Marshal(args(filepath.Join(ws.Root(), "inside.txt")))
	eff, err = tool.Effects(raw)
	if err != nil {
		t.Fatalf("Effects(absolute inside): %v", err)
	}
	if want := (PathRef{"inside.txt", "inside.txt"}); len(eff.Paths) != 1 || eff.Paths[0] != want {
		t.Errorf("Effects(absolute inside).Paths = %+v, want [%+v]", eff.Paths, want)
	}
}

// testArgErrors checks that bad arguments are error results naming the
// argument, and Effects errors.
func testArgErrors(t *testing.T, tool Tool, cases map[string]struct{ args, errHas string }) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := tool.Run(context.Background(), json.RawMessage(tc.args))
			if err != nil {
				t.Fatalf("Go error %v", err)
			}
			if !res.IsError || !strings.Contains(res.Content, tc.errHas) {
				t.Errorf("Run(%s) = %+v; want an error result containing %q", tc.args, res, tc.errHas)
			}
			if _, err := tool.Effects(json.RawMessage(tc.args)); err == nil {
				t.Errorf("Effects(%s) accepted bad arguments", tc.args)
			}
		})
	}
}

package run

import (
	"github.com/rubichan/rubichan/run/harness"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPConfigFlagTrust checks the workspace trust rule for
// --mcp-config: a file inside the workspace — named there, or reached
// through a symlink either way — is ignored with a note unless the
// workspace is trusted (--trust-workspace, or a person in line mode); a
// file outside it is the user's and is used.
func TestMCPConfigFlagTrust(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(ws, "sub"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const servers = `{"mcpServers": {"srv": {"command": "some-server"}}}`
	for _, f := range []string{filepath.Join(ws, "mcp.json"), filepath.Join(ws, "sub", "mcp.json"), filepath.Join(out, "mcp.json")} {
		if err := os.WriteFile(f, []byte(servers), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(out, "to-ws.json"): filepath.Join(ws, "mcp.json"),  // outside, leads in
		filepath.Join(ws, "to-out.json"): filepath.Join(out, "mcp.json"), // inside, leads out: the checkout chose it
		filepath.Join(base, "ws-link"):   ws,                             // the workspace through a symlink
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, file, root string
		trusted, used    bool
	}{
		{"inside", filepath.Join(ws, "mcp.json"), ws, false, false},
		{"inside, trusted", filepath.Join(ws, "mcp.json"), ws, true, true},
		{"in a subdirectory", filepath.Join(ws, "sub", "mcp.json"), ws, false, false},
		{"outside", filepath.Join(out, "mcp.json"), ws, false, true},
		{"a symlink outside leading in", filepath.Join(out, "to-ws.json"), ws, false, false},
		{"a symlink inside leading out", filepath.Join(ws, "to-out.json"), ws, false, false},
		{"the workspace named through a symlink", filepath.Join(ws, "mcp.json"), filepath.Join(base, "ws-link"), false, false},
		{"the file named through the workspace's symlink", filepath.Join(base, "ws-link", "mcp.json"), ws, false, false},
		{"a symlink inside leading out, named through the workspace's symlink", filepath.Join(base, "ws-link", "to-out.json"), ws, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var notes []string
			got, err := harness.MCPServers(harness.MCPChoice{ConfigFile: tc.file}, nil, tc.root, tc.trusted, func(s string) { notes = append(notes, s) })
			if err != nil {
				t.Fatal(err)
			}
			if used := len(got) == 1; used != tc.used {
				t.Errorf("servers %+v, want used %v", got, tc.used)
			}
			note := strings.Join(notes, "\n")
			wantNote := !tc.used
			if hasNote := strings.Contains(note, "ignoring --mcp-config") && strings.Contains(note, "pass --trust-workspace to use it"); hasNote != wantNote {
				t.Errorf("notes %q, want a note: %v", notes, wantNote)
			}
		})
	}
}

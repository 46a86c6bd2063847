package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/toolkit/mcp"
)

// TestCheckMCPProbe: the mcp step hands the configured servers and the
// absolute workspace to Options.ProbeMCP and reports each status, or the
// probe's failure to start the run's tools, as `rubichan doctor` does.
func TestCheckMCPProbe(t *testing.T) {
	t.Parallel()
	ready := mcp.Status{Name: "s", Transport: "stdio", State: mcp.StateReady, Tools: []mcp.ToolInfo{{Name: "a"}, {Name: "b"}}}
	failed := mcp.Status{Name: "s", State: mcp.StateFailed, Reason: "exit 1"}
	required := failed
	required.Required = true
	tests := map[string]struct {
		servers  string
		statuses []mcp.Status
		err      error
		want     []Check
	}{
		"no servers": {servers: "", want: nil},
		"tools did not start": {servers: "[mcp.servers.s]\ncommand = \"x\"\n", err: errors.New("sandbox: no Landlock"),
			want: []Check{{Status: StatusProblem, Detail: "sandbox: no Landlock", Fix: "see the sandbox step above"}}},
		"ready": {servers: "[mcp.servers.s]\ncommand = \"x\"\n", statuses: []mcp.Status{ready},
			want: []Check{{Status: StatusOK, Detail: "s: ready (stdio), 2 tools"}}},
		"optional failed": {servers: "[mcp.servers.s]\ncommand = \"x\"\n", statuses: []mcp.Status{failed},
			want: []Check{{Status: StatusWarning, Detail: "s: failed: exit 1; a run goes on without its tools",
				Fix: "check the command or url of [mcp.servers.s] (`rubichan mcp list` shows each server), or raise its startup_timeout"}}},
		"required failed": {servers: "[mcp.servers.s]\ncommand = \"x\"\nrequired = true\n", statuses: []mcp.Status{required},
			want: []Check{{Status: StatusProblem, Detail: "s (required): failed: exit 1; a run would end with exit 2",
				Fix: "check the command or url of [mcp.servers.s] (`rubichan mcp list` shows each server), or raise its startup_timeout"}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := filepath.Join(dir, "c.toml")
			if err := os.WriteFile(file, []byte(tc.servers), 0o600); err != nil {
				t.Fatal(err)
			}
			lc, err := config.Load(config.Options{ConfigFile: file})
			if err != nil {
				t.Fatal(err)
			}
			var probed []string
			probe := func(_ context.Context, servers []mcp.ServerConfig, d string) ([]mcp.Status, error) {
				if d != dir {
					t.Errorf("probed in %q, want %q", d, dir)
				}
				for _, s := range servers {
					probed = append(probed, s.Name)
				}
				return tc.statuses, tc.err
			}
			got := checkMCP(context.Background(), &state{opts: Options{Dir: dir, ProbeMCP: probe}, lc: lc})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tc.want)
			}
			if want := len(tc.want) > 0; want != (len(probed) == 1 && probed[0] == "s") {
				t.Errorf("probed servers %q", probed)
			}
		})
	}
}

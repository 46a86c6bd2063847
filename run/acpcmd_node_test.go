package run

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rubichan/rubichan/run/acp/acptest"
)

// TestACPScript runs testdata/script/acp/*.txtar: `rubichan acp` driven by
// a real ACP client from outside the project, the TypeScript SDK of
// testdata/acp (`npm ci --prefix testdata/acp`; make test does it), its
// script in $ACP_CLIENT, node in $NODE. A missing SDK or node fails.
func TestACPScript(t *testing.T) {
	t.Parallel()
	mods := acptest.Modules(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed for the ACP client: %v", err)
	}
	servers := &serverSet{m: map[*testscript.TestScript]*scriptServer{}}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "testdata", "script", "acp"),
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NODE", node)
			env.Setenv("ACP_CLIENT", filepath.Join(filepath.Dir(mods), "client.mjs"))
			return scriptSetup(env)
		},
		Cmds:      servers.cmds(),
		Condition: scriptCondition,
	})
}

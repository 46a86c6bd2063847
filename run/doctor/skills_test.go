package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/harness"
)

// TestCheckSkills: the skills step names every invalid skill's folder
// with its problems and the fix, says how many skills a run offers, and
// says the workspace's were ignored without --trust-workspace.
func TestCheckSkills(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(ws, rel, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".agents/skills/good", "---\nname: good\ndescription: Fine.\n---\n")
	write(".agents/skills/Bad", "---\nname: Bad\ndescription: Not fine.\n---\n")
	env := harness.Env{LookupEnv: func(string) (string, bool) { return "", false }}
	got := checkSkills(context.Background(), &state{opts: Options{Dir: ws, Env: env, TrustWorkspace: true}})
	if len(got) != 2 || got[0].Status != StatusOK || got[0].Detail != "1 skill offered: good" {
		t.Fatalf("checks = %+v", got)
	}
	if c := got[1]; c.Status != StatusWarning || !strings.Contains(c.Detail, filepath.Join(ws, ".agents/skills/Bad")) ||
		!strings.Contains(c.Detail, `SKILL.md:2: name "Bad"`) || !strings.Contains(c.Fix, "rubichan skills list") {
		t.Errorf("invalid skill check = %+v", c)
	}
	got = checkSkills(context.Background(), &state{opts: Options{Dir: ws, Env: env}})
	if len(got) != 3 || got[0].Detail != "no skill offered" || got[1].Status != StatusWarning || !strings.Contains(got[1].Fix, "--trust-workspace") || !strings.Contains(got[2].Detail, "Bad") {
		t.Errorf("untrusted: checks = %+v", got)
	}
	if got := checkSkills(context.Background(), &state{opts: Options{Dir: ws, Env: env, Skills: harness.SkillSettings{Off: true}}}); len(got) != 0 {
		t.Errorf("--no-skills: checks = %+v", got)
	}
}

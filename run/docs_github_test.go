package run

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// docWorkflow is a workflow of docs/github-actions.md, as much as the
// test reads.
type docWorkflow struct {
	On   map[string]any `yaml:"on"`
	Jobs map[string]struct {
		Needs       string            `yaml:"needs"`
		Permissions map[string]string `yaml:"permissions"`
		Strategy    struct {
			Matrix map[string]any `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestGitHubActionsDoc checks the three workflows of
// docs/github-actions.md: propose and apply (two jobs, the model key only
// in the read-only one), a pull-request review comment, and a matrix
// fan-out with one artifact per task; every use of the action passes only
// inputs action.yml declares, keys only through env:, and no script
// expands ${{ }}.
func TestGitHubActionsDoc(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "github-actions.md"))
	if err != nil {
		t.Fatal(err)
	}
	action := readAction(t)
	found := map[string]bool{}
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1) {
		var wf docWorkflow
		if yaml.Unmarshal(m[1], &wf) != nil || wf.Jobs == nil {
			continue // a step shown alone
		}
		for name, job := range wf.Jobs {
			for _, s := range job.Steps {
				if strings.Contains(s.Run, "${{") {
					t.Errorf("job %s: a script expands ${{ }}", name)
				}
				if !strings.HasPrefix(s.Uses, "rubichan/rubichan@") {
					continue
				}
				for in := range s.With {
					if _, ok := action.Inputs[in]; !ok {
						t.Errorf("job %s: input %s is not in action.yml", name, in)
					}
				}
				if s.Env["ANTHROPIC_API_KEY"] != "${{ secrets.ANTHROPIC_API_KEY }}" {
					t.Errorf("job %s: the key is not given through env: from a secret", name)
				}
			}
		}
		propose, apply := wf.Jobs["propose"], wf.Jobs["apply"]
		switch {
		case apply.Needs == "propose":
			found["propose/apply"] = propose.Permissions["contents"] == "read" && apply.Permissions["contents"] == "write" && !strings.Contains(yamlText(t, apply), "API_KEY")
		case wf.On["pull_request"] != nil || hasKey(wf.On, "pull_request"):
			found["review"] = strings.Contains(string(m[1]), "gh pr comment") && strings.Contains(string(m[1]), "fromJSON(steps.agent.outputs.result-json).final_text")
		default:
			for _, job := range wf.Jobs {
				if job.Strategy.Matrix != nil {
					found["matrix"] = strings.Contains(string(m[1]), "artifact-name: rubichan-${{ matrix.name }}") && strings.Contains(string(m[1]), "max-cost: ${{ matrix.cost }}")
				}
			}
		}
	}
	for _, w := range []string{"propose/apply", "review", "matrix"} {
		if !found[w] {
			t.Errorf("docs/github-actions.md lacks a correct %s workflow", w)
		}
	}
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

func yamlText(t *testing.T, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docStep is one use of a step in docs/github-actions.md: a step of a
// workflow's job, or a step shown alone (a YAML list of steps).
type docStep struct {
	where string
	Uses  string            `yaml:"uses"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

// docSteps returns every step of the doc's YAML blocks, those of whole
// workflows and those shown alone.
func docSteps(t *testing.T) []docStep {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "github-actions.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []docStep
	for i, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1) {
		var wf struct {
			Jobs map[string]struct {
				Steps []docStep `yaml:"steps"`
			} `yaml:"jobs"`
		}
		var alone []docStep
		switch {
		case yaml.Unmarshal(m[1], &wf) == nil && wf.Jobs != nil:
			for name, job := range wf.Jobs {
				for _, s := range job.Steps {
					s.where = fmt.Sprintf("block %d, job %s", i+1, name)
					out = append(out, s)
				}
			}
		case yaml.Unmarshal(m[1], &alone) == nil:
			for _, s := range alone {
				s.where = fmt.Sprintf("block %d (steps alone)", i+1)
				out = append(out, s)
			}
		default:
			t.Errorf("yaml block %d of docs/github-actions.md is neither a workflow nor a list of steps", i+1)
		}
	}
	return out
}

// TestGitHubActionsDocSteps: every use of the action in
// docs/github-actions.md, in a workflow or shown alone as a step, passes
// only inputs action.yml declares and the key only through env:.
func TestGitHubActionsDocSteps(t *testing.T) {
	t.Parallel()
	action := readAction(t)
	uses := 0
	for _, s := range docSteps(t) {
		if !strings.HasPrefix(s.Uses, "rubichan/rubichan@") {
			continue
		}
		uses++
		for in := range s.With {
			if _, ok := action.Inputs[in]; !ok {
				t.Errorf("%s: input %s is not in action.yml", s.where, in)
			}
		}
		if s.Env["ANTHROPIC_API_KEY"] != "${{ secrets.ANTHROPIC_API_KEY }}" {
			t.Errorf("%s: the key is not given through env: from a secret", s.where)
		}
	}
	if uses < 7 {
		t.Errorf("%d uses of the action found in docs/github-actions.md, want its 7", uses)
	}
}

// TestGitHubActionsDocLetsTestsRun: each use of the action in
// docs/github-actions.md (in a workflow or a step shown alone) that
// verifies with go test gives rules (allow: lines, RUBICHAN_ALLOW lines)
// that let the model run go test and write the code, as `rubichan policy
// check` judges with the built-in policy; and no rule there looks like
// several joined by a comma. Not parallel: runApp.
func TestGitHubActionsDocLetsTestsRun(t *testing.T) {
	checked := 0
	for _, s := range docSteps(t) {
		if !strings.HasPrefix(s.Uses, "rubichan/rubichan@") || !strings.Contains(s.With["verify"], "go test") || s.With["policy"] != "" {
			continue
		}
		checked++
		var args []string
		for _, r := range splitRules([]string{s.With["allow"], s.Env["RUBICHAN_ALLOW"]}) {
			args = append(args, "--allow", r)
		}
		for _, call := range [][]string{{"--tool", "shell", "--", "go test ./..."}, {"--tool", "write", "pkg/x.go"}} {
			stdout, stderr, code := runApp(t, append(append([]string{"policy", "check"}, args...), call...)...)
			if code != 0 || !strings.Contains(stdout, "\ndecision: allow\n") || strings.Contains(stderr, "joined by a comma") {
				t.Errorf("%s: %v is not allowed by its rules %q (exit %d)\n%s%s", s.where, call, args, code, stdout, stderr)
			}
		}
	}
	if checked < 3 {
		t.Errorf("%d uses of the action verify with go test; want the first example, the propose and the matrix jobs", checked)
	}
}

package run

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestPatchWorkflowDoc checks the GitHub Actions workflow in
// docs/patch-mode.md: it parses as YAML, its propose job has the model key
// and only read permission, its apply job has write permission and no
// model key, and the rubichan flags it uses exist.
func TestPatchWorkflowDoc(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "patch-mode.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("no yaml block in docs/patch-mode.md")
	}
	var wf struct {
		Jobs map[string]struct {
			Needs       string            `yaml:"needs"`
			Permissions map[string]string `yaml:"permissions"`
			Steps       []workflowStep    `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(m[1], &wf); err != nil {
		t.Fatalf("the workflow is not valid YAML: %v", err)
	}
	propose, apply := wf.Jobs["propose"], wf.Jobs["apply"]
	if propose.Permissions["contents"] != "read" || len(propose.Permissions) != 1 {
		t.Errorf("propose permissions = %v, want contents: read only", propose.Permissions)
	}
	if apply.Needs != "propose" || apply.Permissions["contents"] != "write" || apply.Permissions["pull-requests"] != "write" {
		t.Errorf("apply: needs %q, permissions %v", apply.Needs, apply.Permissions)
	}
	var proposeRun, applyRun, keys string
	for _, s := range propose.Steps {
		proposeRun += s.Run + "\n"
		for k, v := range s.Env {
			keys += k + "=" + v + "\n"
		}
	}
	for _, s := range apply.Steps {
		applyRun += s.Run + "\n"
		for k := range s.Env {
			if strings.Contains(k, "API_KEY") {
				t.Errorf("apply has a model key: %s", k)
			}
		}
	}
	if !strings.Contains(keys, "ANTHROPIC_API_KEY=${{ secrets.ANTHROPIC_API_KEY }}") {
		t.Error("propose has no model key")
	}
	for _, want := range []string{"rubichan exec --patch", "--verify 'go test ./...'", "upload"} {
		if !strings.Contains(proposeRun+stepUses(propose.Steps), want) {
			t.Errorf("propose lacks %q", want)
		}
	}
	for _, want := range []string{"git apply --check", "git apply --index", "commit", "gh pr create"} {
		if !strings.Contains(applyRun, want) {
			t.Errorf("apply lacks %q", want)
		}
	}
	// Every flag the exec command line names is a flag of rubichan exec.
	var names []string
	for _, f := range execFlags() {
		names = append(names, f.Names()...)
	}
	cmd := proposeRun[strings.Index(proposeRun, "rubichan exec"):]
	for _, flag := range regexp.MustCompile(`\s--([a-z-]+)`).FindAllStringSubmatch(cmd, -1) {
		if !slices.Contains(names, flag[1]) {
			t.Errorf("rubichan exec has no flag --%s", flag[1])
		}
	}
}

// workflowStep is one step of a GitHub Actions job.
type workflowStep struct {
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
}

// stepUses lists the actions the steps use, one a line.
func stepUses(steps []workflowStep) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.Uses + "\n")
	}
	return b.String()
}

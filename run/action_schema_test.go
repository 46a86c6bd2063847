package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm/llmtest"
)

// TestActionStructuredOutput: the action's json-schema input (inline or
// a file in the workspace) becomes --json-schema, and its
// structured-output output is the answer's JSON — or, for a big answer,
// the path of a file that holds it.
func TestActionStructuredOutput(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("no jq (the runners have it)")
	}
	a := readAction(t)
	var run actionStep
	for _, s := range a.Runs.Steps {
		if s.ID == "run" {
			run = s
		}
	}
	big := strings.Repeat("x", 70_000)
	tests := map[string]struct {
		schema string // the input; "@file" writes triage.json in the workspace
		answer string
		want   string // the output; "FILE:" + its content for a path
	}{
		"inline": {schema: `{"type":"object","properties":{"label":{"type":"string"}},"required":["label"],"additionalProperties":false}`,
			answer: `{"label": "flaky"}`, want: `{"label":"flaky"}`},
		"file in the workspace": {schema: "@file", answer: `{"label":"bug"}`, want: `{"label":"bug"}`},
		"big answer as a file":  {schema: "@file", answer: `{"label":"` + big + `"}`, want: `FILE:{"label":"` + big + `"}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{{Text: []string{tc.answer}}}})
			defer srv.Close()
			env := newActionEnv(t, srv.URL())
			schema := tc.schema
			if schema == "@file" {
				os.WriteFile(filepath.Join(env.workspace, "triage.json"), []byte(`{"type":"object","properties":{"label":{"type":"string"}},"required":["label"],"additionalProperties":false}`), 0o644)
				schema = "triage.json"
			}
			code, log := env.runStep(t, run, a, map[string]string{"prompt": "classify", "json-schema": schema})
			if code != 0 {
				t.Fatalf("step exit %d\n%s", code, log)
			}
			got := env.outputs(t)["structured-output"]
			if path, ok := strings.CutPrefix(tc.want, "FILE:"); ok {
				data, err := os.ReadFile(got)
				if err != nil || strings.TrimSpace(string(data)) != path {
					t.Errorf("structured-output %q: %v, %d bytes", got, err, len(data))
				}
				return
			}
			if got != tc.want {
				t.Errorf("structured-output = %q, want %q", got, tc.want)
			}
		})
	}
}

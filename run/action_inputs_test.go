package run

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm/llmtest"
)

// runStepOf returns the action's step with id.
func runStepOf(t *testing.T, a actionFile, id string) actionStep {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("action.yml has no step %s", id)
	return actionStep{}
}

// TestActionPolicyInputs: allow: lines are rules, one a line, so a model
// that edits a file and then runs `go test` succeeds; args: passes extra
// flags (quoted ones kept whole); input-file: is the run's standard input.
func TestActionPolicyInputs(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	a := readAction(t)
	srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{{Name: "write", Args: []string{`{"path":"src/add.go","content":"package src\n\nfunc Add(a, b int) int { return a + b }\n"}`}}}},
		{ToolCalls: []llmtest.ToolCall{{Name: "bash", Args: []string{`{"command":"go test ./src/"}`}}}},
		{Text: []string{"Fixed; the tests pass."}},
	}})
	defer srv.Close()
	env := newActionEnv(t, srv.URL())
	cache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	env.vars = append(env.vars, "GOCACHE="+strings.TrimSpace(string(cache)), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	for name, body := range map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.21\n",
		"src/add_test.go": "package src\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"Add\")\n\t}\n}\n",
		"build.log":       "FAIL example.com/m/src: undefined: Add\n",
	} {
		p := filepath.Join(env.workspace, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	code, log := env.runStep(t, runStepOf(t, a, "run"), a, map[string]string{
		"prompt":     "make the tests pass",
		"allow":      "write:src/**\nshell:go test *\n",
		"deny":       "  shell:go vet *\n",
		"args":       `--max-tool-calls 5 --sandbox off --append-system-prompt "be brief, and careful"`,
		"input-file": "build.log",
	})
	if code != 0 {
		t.Fatalf("step exit %d\n%s", code, log)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if tested := string(reqs[2].Body); !strings.Contains(tested, `ok  \texample.com/m/src`) {
		t.Errorf("go test did not run or failed; step log:\n%s", log)
	}
	first := string(reqs[0].Body)
	if !strings.Contains(first, "undefined: Add") {
		t.Errorf("input-file did not reach the model")
	}
	if !strings.Contains(first, "be brief, and careful") {
		t.Errorf("args: the quoted system prompt did not reach the model")
	}
}

// TestActionTwoSteps: two steps of the action in one job each write
// their own session (outputs naming this step's files), and resume:
// takes an earlier step's session to go on with its conversation, with a
// new prompt or without one.
func TestActionTwoSteps(t *testing.T) {
	a := readAction(t)
	srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{
		{Text: []string{"first answer"}},
		{Text: []string{"second answer"}},
		{Text: []string{"third answer"}},
		{Text: []string{"fourth answer"}},
	}})
	defer srv.Close()
	env := newActionEnv(t, srv.URL())
	run := runStepOf(t, a, "run")
	var sessions, results []string
	for i, in := range []map[string]string{
		{"prompt": "first task"},
		{"prompt": "second task"},
	} {
		code, log := env.runStep(t, run, a, in)
		if code != 0 {
			t.Fatalf("step %d: exit %d\n%s", i+1, code, log)
		}
		out := env.outputs(t)
		sessions = append(sessions, out["session-path"])
		results = append(results, out["result-json"])
	}
	if sessions[0] == sessions[1] || sessions[0] == "" {
		t.Fatalf("the steps share a session: %q", sessions)
	}
	for i, s := range sessions {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatalf("step %d: session-path %q: %v", i+1, s, err)
		}
		if want := []string{"first task", "second task"}[i]; !strings.Contains(string(data), want) {
			t.Errorf("step %d: session %s does not hold %q", i+1, s, want)
		}
	}
	if !strings.Contains(results[1], "second answer") {
		t.Errorf("step 2 result-json %s", results[1])
	}

	// resume: the first step's session, and a new prompt.
	code, log := env.runStep(t, run, a, map[string]string{"resume": sessions[0], "prompt": "and then?"})
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, log)
	}
	out := env.outputs(t)
	if out["session-path"] != sessions[0] {
		t.Errorf("resume: session-path %q, want %q", out["session-path"], sessions[0])
	}
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "first task") || !strings.Contains(last, "first answer") || !strings.Contains(last, "and then?") {
		t.Errorf("resumed request lacks the first conversation:\n%s", last)
	}
	var res struct {
		FinalText string `json:"final_text"`
	}
	if err := json.Unmarshal([]byte(out["result-json"]), &res); err != nil || res.FinalText != "third answer" {
		t.Errorf("resume result-json %q: %v", out["result-json"], err)
	}
}

// TestActionOnAskAndMCP: on-ask: defer pauses a call needing approval
// (exit 3), printing an approve line that carries the step's rules;
// mcp-config: reaches the run (a missing file is a configuration error).
func TestActionOnAskAndMCP(t *testing.T) {
	a := readAction(t)
	srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{{Name: "write", Args: []string{`{"path":"out.txt","content":"x\n"}`}}}},
	}})
	defer srv.Close()
	env := newActionEnv(t, srv.URL())
	run := runStepOf(t, a, "run")
	code, log := env.runStep(t, run, a, map[string]string{"prompt": "write it", "on-ask": "defer", "allow": "shell:go test *"})
	if code != 3 || !regexp.MustCompile(`(?m)^approve: rubichan exec --allow 'shell:go test \*' --on-ask defer .*--resume \S+ --approve call_1_0`).MatchString(log) {
		t.Errorf("on-ask defer: exit %d\n%s", code, log)
	}
	missing := filepath.Join(env.temp, "no-such-mcp.json") // outside the workspace: the user's file
	code, log = env.runStep(t, run, a, map[string]string{"prompt": "hi", "mcp-config": missing})
	if code != 2 || !strings.Contains(log, missing) {
		t.Errorf("mcp-config: exit %d\n%s", code, log)
	}
}

package run

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/exit"
	"gopkg.in/yaml.v3"
)

// actionFile is action.yml, as much of it as the test reads.
type actionFile struct {
	Inputs  map[string]struct{ Default string } `yaml:"inputs"`
	Outputs map[string]struct{ Value string }   `yaml:"outputs"`
	Runs    struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	ID    string            `yaml:"id"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	Env   map[string]string `yaml:"env"`
	If    string            `yaml:"if"`
}

func readAction(t *testing.T) actionFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// TestActionShape checks the action's contract: its inputs and outputs,
// a composite action whose run steps read inputs only through env:
// (never ${{ }} inside a script, which an input could inject code into)
// and take no key as an input.
func TestActionShape(t *testing.T) {
	t.Parallel()
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using %q", a.Runs.Using)
	}
	for _, in := range []string{"prompt", "prompt-file", "policy", "provider", "model", "patch", "verify", "json-schema", "max-cost", "max-turns", "timeout", "version",
		"allow", "deny", "args", "on-ask", "mcp-config", "resume", "session-file", "input-file"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("no input %s", in)
		}
	}
	for name := range a.Inputs {
		if strings.Contains(name, "key") || strings.Contains(name, "token") {
			t.Errorf("input %s: keys go through env:, never inputs", name)
		}
	}
	for _, out := range []string{"exit-code", "result-json", "structured-output", "patch-path", "session-path"} {
		if v := a.Outputs[out].Value; v != "${{ steps.run.outputs."+out+" }}" {
			t.Errorf("output %s = %q", out, v)
		}
	}
	var uses []string
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %s expands an expression inside its script", s.ID)
		}
		if s.Run != "" && s.Shell != "bash" {
			t.Errorf("step %s: shell %q", s.ID, s.Shell)
		}
		if s.Uses != "" {
			uses = append(uses, s.Uses)
		}
	}
	if !slices.Contains(uses, "actions/setup-go@v5") || !slices.Contains(uses, "actions/cache@v4") || !slices.Contains(uses, "actions/upload-artifact@v4") {
		t.Errorf("uses %v", uses)
	}
}

// TestActionRuns runs the action's run steps with bash as the runner
// would, in a simulated Actions environment: GITHUB_* variables, a
// temporary workspace, output and summary files, the scripted model
// server. The install step is simulated (the test's own rubichan is on
// PATH; building one would take minutes); it is only checked for syntax.
func TestActionRuns(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	a := readAction(t)
	srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{
		{Text: []string{"::add-mask::x\n"}, ToolCalls: []llmtest.ToolCall{{Name: "write", Args: []string{`{"path":"NOTES.md","content":"hello\n"}`}}}},
		{Text: []string{"Wrote NOTES.md."}},
	}})
	defer srv.Close()
	env := newActionEnv(t, srv.URL())
	inputs := map[string]string{"prompt": "write the notes", "patch": "true", "policy": "ci.toml", "max-turns": "5"}
	os.WriteFile(filepath.Join(env.workspace, "ci.toml"), []byte("version = 1\n[[rule]]\nid = \"notes\"\ntool = \"write\"\ndecision = \"allow\"\npaths = [\"NOTES.md\"]\n"), 0o644)
	for _, s := range a.Runs.Steps {
		switch {
		case s.ID == "install":
			if out, err := exec.Command("bash", "-n", "-c", s.Run).CombinedOutput(); err != nil {
				t.Errorf("install step: %v\n%s", err, out)
			}
		case s.Run != "":
			if code, log := env.runStep(t, s, a, inputs); code != 0 {
				t.Fatalf("step %s: exit %d\n%s", s.ID, code, log)
			} else if strings.Contains(log, "\n::add-mask::") || strings.HasPrefix(log, "::add-mask::") {
				t.Errorf("the model's workflow command reached the log:\n%s", log)
			}
		}
	}
	out := env.outputs(t)
	if out["exit-code"] != "0" {
		t.Errorf("exit-code %q", out["exit-code"])
	}
	var res struct {
		Status    string `json:"status"`
		FinalText string `json:"final_text"`
	}
	if err := json.Unmarshal([]byte(out["result-json"]), &res); err != nil || res.Status != "success" || res.FinalText != "Wrote NOTES.md." {
		t.Errorf("result-json %q: %v", out["result-json"], err)
	}
	patch, err := os.ReadFile(out["patch-path"])
	if err != nil || !strings.Contains(string(patch), "+hello") {
		t.Errorf("patch-path %q: %v %q", out["patch-path"], err, patch)
	}
	if _, err := os.Stat(filepath.Join(env.workspace, "NOTES.md")); err == nil {
		t.Error("patch mode changed the checkout")
	}
	if _, err := os.Stat(out["session-path"]); err != nil {
		t.Errorf("session-path %q: %v", out["session-path"], err)
	}
	summary, _ := os.ReadFile(env.summary)
	if !strings.Contains(string(summary), "## rubichan: ✅ succeeded") || !strings.Contains(string(summary), "### Patch") {
		t.Errorf("job summary:\n%s", summary)
	}
}

// TestActionFails: a run that fails fails the step with its exit code,
// and the outputs are set all the same.
func TestActionFails(t *testing.T) {
	a := readAction(t)
	srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{{Name: "ls", Args: []string{`{}`}}}},
		{ToolCalls: []llmtest.ToolCall{{Name: "ls", Args: []string{`{}`}}}},
	}})
	defer srv.Close()
	env := newActionEnv(t, srv.URL())
	var run actionStep
	for _, s := range a.Runs.Steps {
		if s.ID == "run" {
			run = s
		}
	}
	code, log := env.runStep(t, run, a, map[string]string{"prompt": "look around", "max-turns": "1"})
	if code != exit.Limit {
		t.Fatalf("step exit %d, want %d\n%s", code, exit.Limit, log)
	}
	if !strings.Contains(log, "::error title=rubichan failed (exit 4%3A a limit was reached)::") {
		t.Errorf("no error annotation:\n%s", log)
	}
	out := env.outputs(t)
	if out["exit-code"] != "4" || !strings.Contains(out["result-json"], `"status":"limit"`) || out["patch-path"] != "" {
		t.Errorf("outputs %v", out)
	}
	code, log = env.runStep(t, run, a, map[string]string{})
	if code != 2 || !strings.Contains(log, "::error title=rubichan::give the action a prompt") {
		t.Errorf("no prompt: exit %d\n%s", code, log)
	}
}

// actionEnv is a simulated runner: its variables and files.
type actionEnv struct {
	workspace, temp, output, summary string
	vars                             []string
}

func newActionEnv(t *testing.T, modelURL string) *actionEnv {
	t.Helper()
	root := t.TempDir()
	e := &actionEnv{workspace: filepath.Join(root, "workspace"), temp: filepath.Join(root, "runner-temp"),
		output: filepath.Join(root, "output"), summary: filepath.Join(root, "summary.md")}
	for _, d := range []string{e.workspace, e.temp} {
		os.MkdirAll(d, 0o755)
	}
	abs, _ := filepath.Abs("..")
	e.vars = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + root, "XDG_STATE_HOME=" + filepath.Join(root, "state"),
		"GITHUB_ACTIONS=true", "CI=true", "GITHUB_WORKSPACE=" + e.workspace, "RUNNER_TEMP=" + e.temp,
		"GITHUB_OUTPUT=" + e.output, "GITHUB_STEP_SUMMARY=" + e.summary, "GITHUB_ENV=" + filepath.Join(root, "env"),
		"GITHUB_PATH=" + filepath.Join(root, "path"), "GITHUB_ACTION_PATH=" + abs, "GITHUB_JOB=agent",
		"ANTHROPIC_API_KEY=" + testAPIKey, "ANTHROPIC_BASE_URL=" + modelURL, "GORACE=atexit_sleep_ms=0",
	}
	return e
}

var inputExpr = regexp.MustCompile(`\$\{\{\s*inputs\.([a-z-]+)\s*\}\}`)

// runStep runs one run step as the runner does: its env: with the
// inputs' expressions evaluated (defaults for those not given), its
// script by `bash -e {0}` in the workspace; it returns the exit code and
// the step's log (stdout and stderr).
func (e *actionEnv) runStep(t *testing.T, s actionStep, a actionFile, inputs map[string]string) (int, string) {
	t.Helper()
	os.Remove(e.output)
	vars := slices.Clone(e.vars)
	for k, v := range s.Env {
		v = inputExpr.ReplaceAllStringFunc(v, func(m string) string {
			name := inputExpr.FindStringSubmatch(m)[1]
			if in, ok := inputs[name]; ok {
				return in
			}
			if _, ok := a.Inputs[name]; !ok {
				t.Errorf("step %s reads an undeclared input %s", s.ID, name)
			}
			return a.Inputs[name].Default
		})
		if strings.Contains(v, "${{") {
			t.Fatalf("step %s: env %s=%s is not simulated", s.ID, k, v)
		}
		vars = append(vars, k+"="+v)
	}
	script := filepath.Join(e.temp, s.ID+".sh")
	os.WriteFile(script, []byte(s.Run), 0o644)
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir, cmd.Env = e.workspace, vars
	log, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(log)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(log)
	}
	t.Fatalf("step %s: %v", s.ID, err)
	return -1, ""
}

// outputs reads $GITHUB_OUTPUT: name=value lines and name<<DELIM blocks.
func (e *actionEnv) outputs(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(e.output)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var body []string
			for sc.Scan() && sc.Text() != delim {
				body = append(body, sc.Text())
			}
			out[name] = strings.Join(body, "\n")
			continue
		}
		name, value, _ := strings.Cut(line, "=")
		out[name] = value
	}
	return out
}

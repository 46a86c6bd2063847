package scaleout

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/rubichan/rubichan/run/exit"
	"gopkg.in/yaml.v3"
)

// GitLab's documented CI/CD YAML keywords, from the keyword reference
// https://docs.gitlab.com/ci/yaml/ (GitLab 18) and, for the header, CI/CD
// inputs https://docs.gitlab.com/ci/inputs/. No schema file is copied: the
// lists are written from those pages, as far as the template uses them
// deeper down.
var (
	gitlabGlobal = []string{"default", "include", "stages", "variables", "workflow"}
	gitlabJob    = []string{"after_script", "allow_failure", "artifacts", "before_script", "cache", "coverage",
		"dast_configuration", "dependencies", "environment", "extends", "hooks", "identity", "id_tokens", "image",
		"inherit", "interruptible", "manual_confirmation", "needs", "pages", "parallel", "release", "resource_group",
		"retry", "rules", "run", "script", "secrets", "services", "stage", "tags", "timeout", "trigger", "variables", "when"}
	gitlabInput        = []string{"default", "description", "options", "regex", "rules", "type"}
	gitlabInputTypes   = []string{"string", "number", "boolean", "array"}
	gitlabArtifacts    = []string{"access", "exclude", "expire_in", "expose_as", "name", "paths", "public", "reports", "untracked", "when"}
	gitlabArtifactWhen = []string{"on_success", "on_failure", "always"}
	gitlabReports      = []string{"accessibility", "annotations", "api_fuzzing", "browser_performance", "codequality",
		"container_scanning", "coverage_fuzzing", "coverage_report", "cyclonedx", "dast", "dependency_scanning", "dotenv",
		"junit", "load_performance", "metrics", "requirements", "sast", "secret_detection", "terraform"}
	gitlabImage     = []string{"docker", "entrypoint", "kubernetes", "name", "pull_policy"}
	gitlabRetry     = []string{"exit_codes", "max", "when"}
	gitlabRetryWhen = []string{"always", "unknown_failure", "script_failure", "api_failure", "stuck_or_timeout_failure",
		"runner_system_failure", "runner_unsupported", "stale_schedule", "job_execution_timeout", "archived_failure",
		"unmet_prerequisites", "scheduler_failure", "data_integrity_failure"}
	gitlabAllowFailure = []string{"exit_codes"}
	gitlabParallel     = []string{"matrix"}
	gitlabNeeds        = []string{"artifacts", "job", "optional", "parallel", "pipeline", "project", "ref"}
	gitlabWhen         = []string{"on_success", "on_failure", "never", "always", "manual", "delayed"}
)

// gitlabTemplate reads the template's two documents: the spec header and
// the jobs.
func gitlabTemplate(t *testing.T, data []byte) (header, jobs map[string]any, err error) {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&header); err != nil {
		return nil, nil, err
	}
	if err := dec.Decode(&jobs); errors.Is(err, io.EOF) {
		return nil, nil, errors.New("want two YAML documents: the spec:inputs header, ---, the jobs")
	} else if err != nil {
		return nil, nil, err
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, nil, errors.New("more than two YAML documents")
	}
	return header, jobs, nil
}

// checkGitlab returns the template's problems against GitLab's keywords.
func checkGitlab(t *testing.T, data []byte) []string {
	header, jobs, err := gitlabTemplate(t, data)
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	keys := func(where string, v any, allowed []string) map[string]any {
		m, ok := v.(map[string]any)
		if !ok {
			bad = append(bad, where+": not a mapping")
			return nil
		}
		for k := range m {
			if !slices.Contains(allowed, k) {
				bad = append(bad, where+": unknown keyword "+strconv.Quote(k))
			}
		}
		return m
	}
	oneOf := func(where string, v any, allowed []string) {
		vs, ok := v.([]any)
		if !ok {
			vs = []any{v}
		}
		for _, x := range vs {
			if s, _ := x.(string); !slices.Contains(allowed, s) {
				bad = append(bad, where+": "+strconv.Quote(s)+" is not one of GitLab's values")
			}
		}
	}
	spec := keys("header", header, []string{"spec"})
	inputs := keys("spec", spec["spec"], []string{"inputs"})
	declared := map[string]bool{}
	ins, _ := inputs["inputs"].(map[string]any)
	for name, in := range ins {
		declared[name] = true
		m := keys("spec:inputs:"+name, in, gitlabInput)
		if typ, ok := m["type"]; ok {
			oneOf("spec:inputs:"+name+":type", typ, gitlabInputTypes)
		}
	}
	for name, job := range jobs {
		if slices.Contains(gitlabGlobal, name) {
			continue
		}
		j := keys(name, job, gitlabJob)
		if j == nil {
			continue
		}
		if a, ok := j["artifacts"]; ok {
			am := keys(name+":artifacts", a, gitlabArtifacts)
			if r, ok := am["reports"]; ok {
				keys(name+":artifacts:reports", r, gitlabReports)
			}
			if w, ok := am["when"]; ok {
				oneOf(name+":artifacts:when", w, gitlabArtifactWhen)
			}
		}
		if im, ok := j["image"].(map[string]any); ok {
			keys(name+":image", im, gitlabImage)
		}
		if r, ok := j["retry"]; ok {
			rm := keys(name+":retry", r, gitlabRetry)
			if w, ok := rm["when"]; ok {
				oneOf(name+":retry:when", w, gitlabRetryWhen)
			}
		}
		if af, ok := j["allow_failure"].(map[string]any); ok {
			keys(name+":allow_failure", af, gitlabAllowFailure)
		}
		if p, ok := j["parallel"].(map[string]any); ok {
			keys(name+":parallel", p, gitlabParallel)
		}
		if ns, ok := j["needs"].([]any); ok {
			for _, n := range ns {
				if nm, ok := n.(map[string]any); ok {
					keys(name+":needs", nm, gitlabNeeds)
				}
			}
		}
		if w, ok := j["when"]; ok {
			oneOf(name+":when", w, gitlabWhen)
		}
	}
	// Every $[[ inputs.NAME ]] names a declared input.
	for _, m := range regexp.MustCompile(`\$\[\[\s*inputs\.([A-Za-z0-9_-]+)`).FindAllSubmatch(data, -1) {
		if !declared[string(m[1])] {
			bad = append(bad, "$[[ inputs."+string(m[1])+" ]] is not declared in spec:inputs")
		}
	}
	slices.Sort(bad)
	return bad
}

func readGitlab(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "docs", "gitlab-ci", "rubichan.gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestGitlabKeywords(t *testing.T) {
	if bad := checkGitlab(t, readGitlab(t)); len(bad) > 0 {
		t.Errorf("docs/gitlab-ci/rubichan.gitlab-ci.yml:\n%s", bytes.Join(toBytes(bad), []byte("\n")))
	}
}

// TestGitlabChecker: the check finds what it is for.
func TestGitlabChecker(t *testing.T) {
	head := "spec:\n  inputs:\n    a:\n      type: string\n---\n"
	tests := map[string]struct{ doc, want string }{
		"misspelt job keyword": {head + "j:\n  scirpt: [x]\n", `j: unknown keyword "scirpt"`},
		"unknown report":       {head + "j:\n  script: [x]\n  artifacts:\n    reports:\n      junitt: x\n", `j:artifacts:reports: unknown keyword "junitt"`},
		"bad retry when":       {head + "j:\n  script: [x]\n  retry:\n    when: [flaky]\n", `j:retry:when: "flaky"`},
		"bad input type":       {"spec:\n  inputs:\n    a:\n      type: list\n---\nj:\n  script: [x]\n", `spec:inputs:a:type: "list"`},
		"undeclared input":     {head + "j:\n  script: [\"$[[ inputs.b ]]\"]\n", `$[[ inputs.b ]] is not declared`},
		"no header":            {"j:\n  script: [x]\n", `want two YAML documents`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			bad := checkGitlab(t, []byte(tt.doc))
			if !slices.ContainsFunc(bad, func(s string) bool { return bytes.Contains([]byte(s), []byte(tt.want)) }) {
				t.Errorf("problems %q, want one with %q", bad, tt.want)
			}
		})
	}
}

// TestGitlabExitCodes: the job's allow_failure and retry follow rubichan's
// exit-code contract (run/exit): retried once are a runtime failure, a
// provider failure and SIGTERM; allowed failures are only the policy's stop
// and a limit; usage, verify and schema failures fail the job unretried.
func TestGitlabExitCodes(t *testing.T) {
	_, jobs, err := gitlabTemplate(t, readGitlab(t))
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		AllowFailure struct {
			ExitCodes []int `yaml:"exit_codes"`
		} `yaml:"allow_failure"`
		Retry struct {
			Max       int   `yaml:"max"`
			ExitCodes []int `yaml:"exit_codes"`
		} `yaml:"retry"`
		Parallel struct {
			Matrix []map[string]any `yaml:"matrix"`
		} `yaml:"parallel"`
	}
	b, _ := yaml.Marshal(jobs["rubichan"])
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	retry := slices.Sorted(slices.Values(job.Retry.ExitCodes))
	if want := []int{exit.Failure, exit.Provider, 143}; !slices.Equal(retry, want) || job.Retry.Max != 1 {
		t.Errorf("retry max %d exit_codes %v, want max 1 exit_codes %v", job.Retry.Max, retry, want)
	}
	allowed := slices.Sorted(slices.Values(job.AllowFailure.ExitCodes))
	if want := []int{exit.Policy, exit.Limit}; !slices.Equal(allowed, want) {
		t.Errorf("allow_failure exit_codes %v, want %v", allowed, want)
	}
	if len(job.Parallel.Matrix) != 1 || job.Parallel.Matrix[0]["RUBICHAN_TASK_INDEX"] == nil {
		t.Errorf("parallel:matrix %v: want one entry setting RUBICHAN_TASK_INDEX", job.Parallel.Matrix)
	}
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

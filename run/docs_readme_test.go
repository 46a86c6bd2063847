package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readDoc returns a file of the repository, from run/.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fences returns the bodies of the doc's code blocks of language lang.
func fences(doc, lang string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(doc, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestDocPolicyExamples: the policy files README.md, docs/mcp.md and the
// review workflow of docs/github-actions.md show load with `rubichan
// policy check`, their self-tests passing and no warning, and decide the
// calls their text says they allow or refuse. Not parallel: runApp.
func TestDocPolicyExamples(t *testing.T) {
	review := regexp.MustCompile(`(?s)cat > "\$RUNNER_TEMP/review.toml" <<'EOF'\n(.*?)\n\s*EOF`).FindStringSubmatch(readDoc(t, "docs/github-actions.md"))
	if review == nil {
		t.Fatal("docs/github-actions.md: no review.toml heredoc")
	}
	mcpPolicies := fences(readDoc(t, "docs/mcp.md"), "toml")
	if len(mcpPolicies) < 2 {
		t.Fatal("docs/mcp.md: want the configuration and the policy blocks")
	}
	readme := fences(readDoc(t, "README.md"), "toml")
	if len(readme) == 0 || !strings.HasPrefix(readme[0], "# ci.toml") {
		t.Fatal("README.md: the first toml block is not ci.toml")
	}
	type call struct{ args, decision string }
	tests := []struct {
		name, text string
		calls      []call
	}{
		{"README ci.toml", readme[0], []call{
			{"shell\x00go test -run X ./pkg/...", "allow"},
			{"shell\x00go test -exec x ./...", "ask"},
			{"shell\x00git diff HEAD~1", "allow"},
			{"shell\x00curl https://example.com", "deny"},
			{"write\x00src/a.go", "allow"},
			{"write\x00main.go", "deny"},
			{"read\x00.env", "deny"},
		}},
		{"docs/mcp.md policy", mcpPolicies[1], []call{
			{"mcp\x00github/get_issue", "allow"},
			{"mcp\x00github/delete_repo", "deny"},
			{"mcp\x00github/create_issue", "ask"},
		}},
		{"review.toml of docs/github-actions.md", dedent(review[1]), []call{
			{"shell\x00git diff origin/main...HEAD", "allow"},
			{"shell\x00git log --oneline origin/main..HEAD", "allow"},
			{"shell\x00go test ./...", "allow"},
			{"shell\x00go vet ./...", "allow"},
			{"write\x00main.go", "deny"},
			{"read\x00main.go", "allow"},
		}},
	}
	for _, tc := range tests {
		file := filepath.Join(t.TempDir(), "policy.toml")
		if err := os.WriteFile(file, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runApp(t, "policy", "check", "--policy", file)
		if code != 0 || !strings.Contains(stdout, ": valid; ") || stderr != "" {
			t.Errorf("%s: policy check exit %d\n%s%s", tc.name, code, stdout, stderr)
		}
		for _, c := range tc.calls {
			tool, arg, _ := strings.Cut(c.args, "\x00")
			args := []string{"policy", "check", "--policy", file, "--tool", tool, "--", arg}
			stdout, stderr, _ := runApp(t, args...)
			if !strings.Contains(stdout, "\ndecision: "+c.decision+"\n") {
				t.Errorf("%s: %s %q: want %s\n%s%s", tc.name, tool, arg, c.decision, stdout, stderr)
			}
		}
	}
}

// dedent removes the indentation of a heredoc written inside a YAML block.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	indent := len(lines[0]) - len(strings.TrimLeft(lines[0], " "))
	for i, l := range lines {
		if len(l) >= indent {
			lines[i] = l[indent:]
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestReadmeSkillExample: the skill README.md shows is valid where it says
// it lives, and the --allow rule of README's skills command line draws no
// policy warning (a rule like `sh *` would let the model run any command
// through sh, which the section says a skill never does). Not parallel:
// runApp.
func TestReadmeSkillExample(t *testing.T) {
	readme := readDoc(t, "README.md")
	var skill string
	for _, b := range fences(readme, "markdown") {
		if strings.HasPrefix(b, ".agents/skills/") {
			skill = b
		}
	}
	if skill == "" {
		t.Fatal("README.md: no SKILL.md example")
	}
	path, body, _ := strings.Cut(skill, "\n")
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(path)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, path), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runApp(t, "skills", "list", "--json", "--no-skills=false", "-C", ws)
	var list []struct {
		Name     string   `json:"name"`
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil || code != 0 {
		t.Fatalf("skills list: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	want := filepath.Base(filepath.Dir(path))
	found := false
	for _, s := range list {
		if s.Name == want {
			found = true
			if len(s.Problems) > 0 {
				t.Errorf("README's skill %s has problems: %v", want, s.Problems)
			}
		}
	}
	if !found {
		t.Errorf("README's skill %s is not listed: %s", want, stdout)
	}
	line := regexp.MustCompile(`(?m)^rubichan exec --skills .*$`).FindString(readme)
	rules := regexp.MustCompile(`--allow (?:'([^']*)'|"([^"]*)")`).FindAllStringSubmatch(line, -1)
	if len(rules) == 0 {
		t.Fatalf("README.md: no `rubichan exec --skills … --allow …` line: %q", line)
	}
	for _, r := range rules {
		rule := strings.ReplaceAll(r[1]+r[2], "$HOME", "/home/u")
		_, stderr, code := runApp(t, "policy", "check", "--allow", rule, "--tool", "read", "--", "x")
		if code != 0 || strings.Contains(stderr, "warning") {
			t.Errorf("README's skills rule %q: exit %d, %s", rule, code, stderr)
		}
	}
}

// TestReadmeLineModeCommands: README's Line mode section names every
// command of docs/line-mode.md's table (the new /schema FILE included).
func TestReadmeLineModeCommands(t *testing.T) {
	t.Parallel()
	readme := readDoc(t, "README.md")
	start := strings.Index(readme, "\n## Line mode\n")
	end := strings.Index(readme[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("README.md: no Line mode section")
	}
	section := readme[start : start+1+end]
	rows := regexp.MustCompile("(?m)^\\| (`/[^|]*`) \\|").FindAllStringSubmatch(readDoc(t, "docs/line-mode.md"), -1)
	if len(rows) < 10 {
		t.Fatalf("docs/line-mode.md: %d commands in its table", len(rows))
	}
	for _, r := range rows {
		for _, m := range regexp.MustCompile("`(/[a-z]+)").FindAllStringSubmatch(r[1], -1) {
			if cmd := m[1]; !regexp.MustCompile("`" + cmd + "[ `]").MatchString(section) {
				t.Errorf("README's Line mode section does not name %s (docs/line-mode.md does)", cmd)
			}
		}
	}
}

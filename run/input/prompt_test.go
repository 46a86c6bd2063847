package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSystemPrompt(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{
		".git/HEAD":        "ref: refs/heads/main\n",
		"AGENTS.md":        "root rules",
		"svc/AGENTS.md":    "service rules\n",
		"svc/api/AGENT.md": "api rules",
		"svc/api/x.go":     "package x",
	})
	// CLAUDE.md linked to AGENTS.md is the same file: included once.
	if err := os.Symlink("AGENTS.md", filepath.Join(repo, "svc", "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(repo, "svc", "api")
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

	got, err := SystemPrompt(PromptOptions{Root: ws, Now: now, Append: "Always run go vet."})
	if err != nil {
		t.Fatal(err)
	}
	wantInOrder := []string{
		"You are rubichan", ws, "2026-03-04",
		"No human will reply",
		"Always run go vet.",
		`<context-file path="../../AGENTS.md">` + "\nroot rules\n</context-file>",
		`<context-file path="../AGENTS.md">` + "\nservice rules\n</context-file>",
		`<context-file path="AGENT.md">` + "\napi rules\n</context-file>",
	}
	rest := got
	for _, w := range wantInOrder {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("system prompt lacks %q (in order):\n%s", w, got)
		}
		rest = rest[i+len(w):]
	}
	if strings.Count(got, "service rules") != 1 {
		t.Errorf("a linked context file was included twice:\n%s", got)
	}

	replaced, err := SystemPrompt(PromptOptions{Root: ws, Now: now, Replace: "You review Go code.", NoContextFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(replaced, "You review Go code.\n\nNo human will reply") ||
		strings.Contains(replaced, "You are rubichan") || strings.Contains(replaced, "context-file") {
		t.Errorf("--system-prompt with --no-context-files:\n%s", replaced)
	}
}

func TestContextFilesOutsideRepo(t *testing.T) {
	t.Parallel()
	// Without a repository only the workspace itself is searched, so files
	// in unrelated parent directories stay out.
	parent := t.TempDir()
	writeFiles(t, parent, map[string]string{"AGENTS.md": "parent", "ws/CLAUDE.md": "mine"})
	files, err := findContextFiles(filepath.Join(parent, "ws"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].display != "CLAUDE.md" || files[0].text != "mine" {
		t.Fatalf("files = %+v", files)
	}
}

func TestContextFileCap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".git/HEAD": "x", "AGENTS.md": strings.Repeat("a", contextFileMax+10)})
	files, err := findContextFiles(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || !strings.HasSuffix(files[0].text, "[cut at 32768 bytes]\n") || len(files[0].text) > contextFileMax+40 {
		t.Fatalf("capped file: %d bytes, ends %q", len(files[0].text), files[0].text[len(files[0].text)-30:])
	}
}

func TestBasePromptIsSmall(t *testing.T) {
	t.Parallel()
	got, err := SystemPrompt(PromptOptions{Root: "/home/user/project", Now: time.Now(), NoContextFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 1500 {
		t.Errorf("base system prompt is %d bytes; keep it under 1.5 KB so the tools fit in 6 KB", len(got))
	}
}

// TestContextFileLinks checks that a context file a pull request commits
// as a symlink cannot pull into the prompt what the tools may not read:
// the process's environment (its API key), a file outside the repository,
// or a file the read rules deny.
func TestContextFileLinks(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret": "outside-secret"})
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{
		".git/HEAD":     "x",
		"AGENTS.md":     "root rules",
		".env":          "env-secret",
		"docs/rules.md": "linked rules",
		"a/.gitkeep":    "",
		"b/.gitkeep":    "",
		"c/.gitkeep":    "",
		"d/.gitkeep":    "",
	})
	links := map[string]string{
		"a/AGENTS.md": "/proc/self/environ",
		"a/AGENT.md":  filepath.Join(outside, "secret"),
		"a/CLAUDE.md": "../.env",
		"b/AGENTS.md": "../docs/rules.md", // in the workspace b? no: above it, not a context file
		"c/AGENTS.md": "../AGENTS.md",     // above the workspace, a context file
		"d/AGENTS.md": "rules.md",
	}
	writeFiles(t, repo, map[string]string{"d/rules.md": "d rules"})
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(repo, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	readable := func(p string) bool { return p != ".env" && !strings.HasSuffix(p, "/.env") }
	tests := []struct {
		ws   string
		want []string // the texts included, in order
	}{
		{"a", []string{"root rules"}},
		{"b", []string{"root rules"}},
		{"c", []string{"root rules"}},
		{"d", []string{"root rules", "d rules"}},
		{".", []string{"root rules"}},
	}
	for _, tc := range tests {
		t.Run(tc.ws, func(t *testing.T) {
			t.Parallel()
			files, err := findContextFiles(filepath.Join(repo, tc.ws), readable)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range files {
				got = append(got, f.text)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("context files = %q, want %q", got, tc.want)
			}
		})
	}
	// With the workspace at the repository root, a link to a readable file
	// in it is followed, one to a denied file is not.
	files, err := findContextFiles(filepath.Join(repo, "a"), func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.Contains(f.text, "outside-secret") || strings.Contains(f.text, "=") {
			t.Errorf("context file %s holds %q", f.display, f.text)
		}
	}
}

func TestSubqueryPromptOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		sys, err := SystemPrompt(PromptOptions{Root: "/w", NoContextFiles: true, Subqueries: on})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(sys, "rubichan query --split"); got != on {
			t.Errorf("Subqueries %v: the prompt tells of sub-queries: %v", on, got)
		}
	}
	if n := len(subqueryPrompt); n > 700 {
		t.Errorf("the sub-query lines take %d bytes; keep them under 700", n)
	}
}

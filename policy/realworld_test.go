package policy

import (
	"bufio"
	"encoding/json"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
)

// realCommand is one line of testdata/policy/realworld/commands.jsonl.
type realCommand struct {
	ID      string `json:"id"`
	Command string `json:"command"`
	Root    string `json:"workspace_root"`
}

// realLabel is what a careful user wants for one command.
type realLabel struct {
	allow    bool
	category string // for a denial: unnamed, secret, outside, write
	reason   string
}

func readRealWorld(t *testing.T) ([]realCommand, map[string]realLabel) {
	t.Helper()
	f, err := os.Open("../testdata/policy/realworld/commands.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []realCommand
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c realCommand
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	data, err := os.ReadFile("../testdata/policy/realworld-labels.txt")
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]realLabel{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.SplitN(line, " ", 4)
		switch {
		case len(fields) == 2 && fields[1] == "allow":
			labels[fields[0]] = realLabel{allow: true}
		case len(fields) == 4 && fields[1] == "deny":
			labels[fields[0]] = realLabel{category: fields[2], reason: fields[3]}
		default:
			t.Fatalf("bad label line %q", line)
		}
	}
	if len(cmds) != 391 || len(labels) != len(cmds) {
		t.Fatalf("%d commands, %d labels; want 391 of each", len(cmds), len(labels))
	}
	return cmds, labels
}

// fakeTree lists a typical repository as the runner would when the call
// is judged: the root holds .env, .git/config and a private key beside
// the code; every other directory holds only source files.
func fakeTree(root string) func(string) ([]string, bool) {
	return func(dir string) ([]string, bool) {
		rel := dir
		if path.IsAbs(dir) {
			r, ok := strings.CutPrefix(dir, strings.TrimSuffix(root, "/")+"/")
			if dir == root {
				r, ok = ".", true
			}
			if !ok {
				return nil, false // outside: unknown
			}
			rel = r
		}
		var names []string
		if path.Clean(rel) == "." {
			names = []string{".env", ".git/config", ".git/HEAD", "deploy/server.key", "README.md", "setup.py",
				"src/app.py", "src/app.go", "docs/index.rst", "tests/test_app.py"}
		} else {
			names = []string{"a.py", "a.go", "README.md", "sub/b.py", "sub/notes.txt"}
		}
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = path.Join(dir, n)
		}
		return out, true
	}
}

// shapeOf names the everyday shape a command line has, for the report of
// disagreements.
func shapeOf(cmd string) string {
	switch {
	case strings.Contains(cmd, "-exec"):
		return "find -exec"
	case strings.Contains(cmd, "xargs"):
		return "xargs"
	case strings.Contains(cmd, "<<"):
		return "here-document"
	case strings.HasPrefix(cmd, "cd "):
		return "cd DIR &&"
	case strings.Contains(cmd, "$("), strings.Contains(cmd, "$"):
		return "expansion"
	case strings.Contains(cmd, "|"):
		return "pipeline"
	}
	return "simple"
}

// TestRealWorld judges the 391 command lines coding-agent models ran
// (testdata/policy/realworld, from public trajectories) under a careful
// CI policy (testdata/policy/realworld-ci.toml), against the decision a
// careful user wants (testdata/policy/realworld-labels.txt). It fails
// below 95% agreement, and on any command allowed that the labels deny:
// one that reads a secret, runs a program no rule names, or reads or
// writes where the rules do not allow.
func TestRealWorld(t *testing.T) {
	t.Parallel()
	base, err := Load("../testdata/policy/realworld-ci.toml")
	if err != nil {
		t.Fatal(err)
	}
	cmds, labels := readRealWorld(t)
	agree, static := 0, 0
	byShape := map[string][]string{}
	for _, c := range cmds {
		root := c.Root
		if root == "" || !path.IsAbs(root) {
			root = "/ws"
		}
		p := base.InWorkspace(root)
		env := map[string]string{"HOME": "/home/runner", "PWD": root, "TMPDIR": "/tmp/rubichan-1", "USER": "runner"}
		r := p.Decide(Action{Class: ClassShell, Command: c.Command, Env: env, Files: fakeTree(root)})
		want := labels[c.ID]
		if r.Decision != Allow && r.Remedy == "" && p.AllowRules(Action{Class: ClassShell, Command: c.Command, Env: env, Files: fakeTree(root)}, r) == nil {
			t.Errorf("%s refused with neither an --allow that lifts it nor a remedy: %s", c.ID, r.Message())
		}
		// without a listing, searches and globs are judged on what a
		// rule could match: stricter, and as safe
		rs := p.Decide(Action{Class: ClassShell, Command: c.Command, Env: env})
		if (rs.Decision == Allow) == want.allow {
			static++
		} else if rs.Decision == Allow {
			t.Errorf("%s allowed without a listing, but a careful user denies it (%s: %s): %q", c.ID, want.category, want.reason, c.Command)
		}
		got := r.Decision == Allow
		if got == want.allow {
			agree++
			continue
		}
		if got {
			t.Errorf("%s allowed, but a careful user denies it (%s: %s): %q", c.ID, want.category, want.reason, c.Command)
			continue
		}
		shape := shapeOf(c.Command)
		byShape[shape] = append(byShape[shape], c.ID+" "+shorten(strings.ReplaceAll(c.Command, "\n", `\n`), 100)+
			" — "+r.Decision.String()+": "+shorten(r.Fact+": "+r.Reason, 200))
	}
	pct := float64(agree) * 100 / float64(len(cmds))
	t.Logf("agreement: %d of %d (%.1f%%); without a listing of the files: %d (%.1f%%)", agree, len(cmds), pct,
		static, float64(static)*100/float64(len(cmds)))
	for _, shape := range slices.Sorted(func(yield func(string) bool) {
		for k := range byShape {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Logf("refused, a careful user allows (%s): %d", shape, len(byShape[shape]))
		for _, line := range byShape[shape] {
			t.Logf("  %s", line)
		}
	}
	if pct < 95 {
		t.Errorf("agreement %.1f%%, want at least 95%%", pct)
	}
}

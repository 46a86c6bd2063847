package run

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// whoImports is how a package's doc.go says who may import it.
var whoImports = regexp.MustCompile(`(?i)\bimports? it\b|\bnothing imports\b|\bno package imports\b|\bonly tests import\b`)

// docMissing returns what a package's doc.go lacks: "" when it has a
// package comment that says who may import the package.
func docMissing(src string) string {
	pkg := strings.Index(src, "\npackage ")
	if pkg < 0 || !strings.HasPrefix(src, "//") {
		return "a package comment"
	}
	comment := strings.Join(strings.Fields(strings.ReplaceAll(src[:pkg], "//", " ")), " ")
	if !whoImports.MatchString(comment) {
		return "a sentence saying who may import it"
	}
	return ""
}

// TestArchDocGo: every package has a doc.go that says what it owns and
// who may import it.
func TestArchDocGo(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("go list over the module: not in -short")
	}
	for _, pkg := range listModule(t) {
		src, err := os.ReadFile(filepath.Join("..", pkg.path, "doc.go"))
		name := pkg.path
		if name == "" {
			name = "main"
		}
		switch {
		case err != nil:
			t.Errorf("%s: no doc.go: %v", name, err)
		case docMissing(string(src)) != "":
			t.Errorf("%s/doc.go lacks %s", name, docMissing(string(src)))
		}
	}
}

func TestDocMissing(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ src, want string }{
		"says who":        {"// Package a owns x.\n// Only the command layer imports\n// it.\npackage a\n", ""},
		"nothing imports": {"// Package a owns x. Nothing imports it.\npackage a\n", ""},
		"only tests":      {"// Package a helps tests. Only tests import it.\npackage a\n", ""},
		"silent on who":   {"// Package a owns x; it imports y.\npackage a\n", "a sentence saying who may import it"},
		"no comment":      {"package a\n", "a package comment"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := docMissing(tc.src); got != tc.want {
				t.Errorf("docMissing = %q, want %q", got, tc.want)
			}
		})
	}
}

// layoutNames returns the package-like names (under llm, policy, run,
// toolkit) the README's layout section shows in backticks, without a
// trailing slash; file names are left out.
func layoutNames(readme string) (map[string]bool, bool) {
	start := strings.Index(readme, "\nLayout:\n")
	if start < 0 {
		return nil, false
	}
	section := readme[start:]
	if end := strings.Index(section, "\n#"); end >= 0 {
		section = section[:end]
	}
	names := map[string]bool{}
	for _, m := range regexp.MustCompile("`((?:llm|policy|run|toolkit)(?:/[a-z0-9_]+)*)/?`").FindAllStringSubmatch(section, -1) {
		names[m[1]] = true
	}
	return names, true
}

// TestREADMELayout: the README's layout section names every package of
// the module and no package that is not there.
func TestREADMELayout(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("go list over the module: not in -short")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	names, ok := layoutNames(string(readme))
	if !ok {
		t.Fatal("README.md has no \"Layout:\" section")
	}
	pkgs := map[string]bool{}
	for _, pkg := range listModule(t) {
		pkgs[pkg.path] = true
		if pkg.path != "" && !names[pkg.path] {
			t.Errorf("README's layout section does not name `%s`", pkg.path)
		}
	}
	for name := range names {
		if !pkgs[name] {
			t.Errorf("README's layout section names `%s`, which is not a package", name)
		}
	}
}

func TestLayoutNames(t *testing.T) {
	t.Parallel()
	readme := "# x\n`run/stale`\n\nLayout:\n\n- `run/`: the commands; `run/agent/` and `run/agent/agenttest`\n" +
		"- `run/arch_test.go`, `testdata/script/`\n\n## Next\n`run/after`\n"
	got, ok := layoutNames(readme)
	want := []string{"run", "run/agent", "run/agent/agenttest"}
	if !ok || len(got) != len(want) {
		t.Fatalf("layoutNames = %v, %v; want %v", got, ok, want)
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("layoutNames lacks %q: %v", w, got)
		}
	}
}

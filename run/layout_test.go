package run

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
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
	for _, pkg := range moduleUnlessShort(t) {
		file, name := "doc.go", pkg.path
		if name == "" {
			// The top level holds main.go alone (DESIGN's layout): the
			// command's comment is there.
			file, name = "main.go", "main"
		}
		src, err := os.ReadFile(filepath.Join("..", pkg.path, file))
		switch {
		case err != nil:
			t.Errorf("%s: no %s: %v", name, file, err)
		case docMissing(string(src)) != "":
			t.Errorf("%s/%s lacks %s", name, file, docMissing(string(src)))
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
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	names, ok := layoutNames(string(readme))
	if !ok {
		t.Fatal("README.md has no \"Layout:\" section")
	}
	pkgs := map[string]bool{}
	for _, pkg := range moduleUnlessShort(t) {
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

// sizeLimits are issue 31's limits on the code of the module.
const (
	maxFileLines = 600 // a non-test file has at most this many lines
	maxFuncLines = 80  // a function, from func to its closing brace
)

// sizeViolations returns what breaks the limits in one non-test file:
// its length, functions that are too long, and init functions.
func sizeViolations(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
		out = append(out, fmt.Sprintf("%s: %d lines, more than %d", name, n, maxFileLines))
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if fd.Recv == nil && fd.Name.Name == "init" {
			out = append(out, fmt.Sprintf("%s: an init function", name))
		}
		if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
			out = append(out, fmt.Sprintf("%s: %s has %d lines, more than %d", name, fd.Name.Name, n, maxFuncLines))
		}
	}
	return out, nil
}

// TestArchSizes holds every non-test Go file of the module to the
// limits: files of at most 600 lines, functions of at most 80, no init.
func TestArchSizes(t *testing.T) {
	t.Parallel()
	for _, pkg := range moduleUnlessShort(t) {
		names, err := filepath.Glob(filepath.Join("..", pkg.path, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			bad, err := sizeViolations(name, src)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range bad {
				t.Error(b)
			}
		}
	}
}

func TestSizeViolations(t *testing.T) {
	t.Parallel()
	body := func(n int) string { return "func f() {\n" + strings.Repeat("\t_ = 1\n", n-2) + "}\n" }
	tests := map[string]struct {
		src  string
		want string // a part of the one violation; "" for none
	}{
		"80-line function": {"package a\n" + body(80), ""},
		"81-line function": {"package a\n" + body(81), "f has 81 lines"},
		"init":             {"package a\nfunc init() {}\n", "an init function"},
		"init method":      {"package a\ntype T int\nfunc (T) init() {}\n", ""},
		"601-line file":    {"package a\n" + strings.Repeat("// x\n", 600), "601 lines"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := sizeViolations("a.go", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" && len(got) != 0 || tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)) {
				t.Errorf("sizeViolations = %q, want one with %q", got, tc.want)
			}
		})
	}
}

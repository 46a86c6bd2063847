package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the import path every package of rubichan starts with.
const module = "github.com/rubichan/rubichan"

// archPkg is one package of the module as the architecture rules see it:
// its path relative to the module ("run/agent", "" for main) and what it
// imports of the module and outside the standard library.
type archPkg struct {
	path    string
	imports []string // module-relative for the module's own, full paths for the rest, std left out
	tests   []string // the same for its test files
}

// pkgWithin reports whether p is dir or beneath it.
func pkgWithin(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// pkgWithinAny reports whether p is within one of dirs.
func pkgWithinAny(p string, dirs ...string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return pkgWithin(p, d) })
}

// frontEnds are the packages that each serve a person or a program in
// their own way; they share the engine, never each other.
var frontEnds = []string{"run/linemode", "run/query", "run/doctor", "run/acp"}

// formatLeaves are the packages that only know a file or wire format
// (learnlog reads the session format as policy learn's calls).
var formatLeaves = []string{"run/config", "run/events", "run/session", "run/cassette", "run/patch", "run/ghactions", "run/subquery", "run/skills", "run/tasks", "run/results", "run/learnlog"}

// plugIns are the packages that give the engine one of its seams
// (structured output's Verifier, telemetry's Around): they may import
// the engine, and the harness wires them in, so like the sinks and the
// hooks they never import the harness.
var plugIns = []string{"run/structured", "run/telemetry"}

// runRoles are the roles of the packages under run/ the rules know; a
// package under run/ that has none is a rule's blind spot
// (TestArchEveryPackageHasARole).
func runRoles() [][]string {
	return [][]string{
		{"run"}, {"run/agent"}, {"run/harness"}, {"run/sink"}, {"run/hooks"}, {"run/exit"}, {"run/input"},
		frontEnds, formatLeaves, plugIns,
		{"run/internal"}, // test helpers and test-only packages; nothing of the binary imports them
	}
}

// roleOf returns the role of a package under run/: the run/ package or
// directory that gives it, "" for none.
func roleOf(p string) string {
	if p == "run" {
		return "run"
	}
	for _, role := range runRoles()[1:] {
		for _, d := range role {
			if pkgWithin(p, d) {
				return d
			}
		}
	}
	return ""
}

// archRule is one of DESIGN's arrows: check returns the offending import
// of pkg, if any.
type archRule struct {
	name  string
	check func(pkg archPkg) []string
}

// archRules are the four arrows of DESIGN's layout section, and the
// binary's one forbidden dependency.
func archRules() []archRule {
	cores := []string{"llm", "toolkit", "policy"}
	forbid := func(pkg archPkg, imps []string, bad func(string) bool) []string {
		var out []string
		for _, imp := range imps {
			if bad(imp) {
				out = append(out, fmt.Sprintf("%s imports %s", pkg.path, imp))
			}
		}
		return out
	}
	return []archRule{
		{"1: llm, toolkit and policy import neither each other nor run/", func(pkg archPkg) []string {
			var own string
			for _, c := range cores {
				if pkgWithin(pkg.path, c) {
					own = c
				}
			}
			if own == "" {
				// the one exception: run/config may read policy/tomlpos, no other part of policy
				if pkgWithin(pkg.path, "run/config") {
					return forbid(pkg, pkg.imports, func(imp string) bool { return pkgWithin(imp, "policy") && !pkgWithin(imp, "policy/tomlpos") })
				}
				return nil
			}
			all := append(slices.Clone(pkg.imports), pkg.tests...)
			return forbid(pkg, all, func(imp string) bool {
				return pkgWithin(imp, "run") || imp == "" || pkgWithinAny(imp, cores...) && !pkgWithin(imp, own)
			})
		}},
		{"2: run/agent imports only llm, toolkit and the standard library", func(pkg archPkg) []string {
			if !pkgWithin(pkg.path, "run/agent") {
				return nil
			}
			return forbid(pkg, pkg.imports, func(imp string) bool {
				return !pkgWithinAny(imp, "llm", "toolkit", "run/agent")
			})
		}},
		{"3: nothing under run/ imports run; front ends do not import each other; sink, hooks and the plug-ins never import harness; harness never imports a front end", func(pkg archPkg) []string {
			if !pkgWithin(pkg.path, "run") || pkg.path == "run" {
				return nil
			}
			return forbid(pkg, pkg.imports, func(imp string) bool {
				switch {
				case imp == "run":
					return true
				case pkgWithinAny(pkg.path, frontEnds...) && pkgWithinAny(imp, frontEnds...):
					return !pkgWithinAny(imp, frontEndOf(pkg.path))
				case pkgWithinAny(pkg.path, "run/sink", "run/hooks") || pkgWithinAny(pkg.path, plugIns...):
					return pkgWithin(imp, "run/harness")
				case pkgWithin(pkg.path, "run/harness"):
					return pkgWithinAny(imp, frontEnds...)
				}
				return false
			})
		}},
		{"4: the format leaves import none of agent, harness, sink, exit", func(pkg archPkg) []string {
			if !pkgWithinAny(pkg.path, formatLeaves...) {
				return nil
			}
			return forbid(pkg, pkg.imports, func(imp string) bool {
				return pkgWithinAny(imp, "run/agent", "run/harness", "run/sink", "run/exit")
			})
		}},
		{"5: santhosh-tekuri/jsonschema is for tests only (its init compiles every draft's meta-schema at each start); the binary validates with google/jsonschema-go", func(pkg archPkg) []string {
			if strings.HasSuffix(pkg.path, "test") {
				return nil // a test helper package (eventstest, acptest)
			}
			return forbid(pkg, pkg.imports, func(imp string) bool {
				return strings.HasPrefix(imp, "github.com/santhosh-tekuri/jsonschema")
			})
		}},
	}
}

// frontEndOf returns the front end p belongs to.
func frontEndOf(p string) string {
	for _, f := range frontEnds {
		if pkgWithin(p, f) {
			return f
		}
	}
	return p
}

// archViolations checks every rule over pkgs.
func archViolations(pkgs []archPkg) []string {
	var out []string
	for _, r := range archRules() {
		for _, pkg := range pkgs {
			for _, v := range r.check(pkg) {
				out = append(out, "rule "+r.name+": "+v)
			}
		}
	}
	return out
}

// listModule asks go list for the module's packages and what they import.
func listModule(t *testing.T) []archPkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	type listed struct {
		ImportPath   string
		Standard     bool
		Imports      []string
		TestImports  []string
		XTestImports []string
		Module       *struct{ Path string }
	}
	var all []listed
	std := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.Standard {
			std[p.ImportPath] = true
		}
		all = append(all, p)
	}
	rel := func(imps []string) []string {
		var out []string
		for _, imp := range imps {
			switch {
			case imp == module:
				out = append(out, "")
			case strings.HasPrefix(imp, module+"/"):
				out = append(out, strings.TrimPrefix(imp, module+"/"))
			case !std[imp] && imp != "C" && imp != "unsafe":
				out = append(out, imp)
			}
		}
		return out
	}
	var pkgs []archPkg
	for _, p := range all {
		if p.Module == nil || p.Module.Path != module {
			continue
		}
		path := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		pkgs = append(pkgs, archPkg{path: path, imports: rel(p.Imports), tests: rel(append(p.TestImports, p.XTestImports...))})
	}
	return pkgs
}

// moduleUnlessShort is listModule, skipped in -short (go list over the
// whole module takes seconds).
func moduleUnlessShort(t *testing.T) []archPkg {
	t.Helper()
	if testing.Short() {
		t.Skip("go list over the module: not in -short")
	}
	return listModule(t)
}

// TestArchArrows holds the module to DESIGN's arrows.
func TestArchArrows(t *testing.T) {
	t.Parallel()
	pkgs := moduleUnlessShort(t)
	if len(pkgs) < 10 || !slices.ContainsFunc(pkgs, func(p archPkg) bool { return p.path == "run" }) {
		t.Fatalf("go list found %d packages of the module, run among them? %v", len(pkgs), pkgs)
	}
	for _, v := range archViolations(pkgs) {
		t.Error(v)
	}
}

// TestArchRulesCatch shows each rule catching the import it forbids, and
// letting the allowed ones through.
func TestArchRulesCatch(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		pkg  archPkg
		want string // the rule number that must object; "" for none
	}{
		"llm imports toolkit":                {archPkg{path: "llm", imports: []string{"toolkit"}}, "1"},
		"toolkit/mcp imports policy":         {archPkg{path: "toolkit/mcp", imports: []string{"policy"}}, "1"},
		"policy imports run/config":          {archPkg{path: "policy", imports: []string{"run/config"}}, "1"},
		"policy test imports llm":            {archPkg{path: "policy", tests: []string{"llm/llmtest"}}, "1"},
		"llm imports main":                   {archPkg{path: "llm", imports: []string{""}}, "1"},
		"policy imports policy/tomlpos":      {archPkg{path: "policy", imports: []string{"policy/tomlpos"}}, ""},
		"toolkit/mcp imports toolkit":        {archPkg{path: "toolkit/mcp", imports: []string{"toolkit", "github.com/modelcontextprotocol/go-sdk/mcp"}}, ""},
		"run/config imports policy":          {archPkg{path: "run/config", imports: []string{"policy"}}, "1"},
		"run/config imports policy/tomlpos":  {archPkg{path: "run/config", imports: []string{"policy/tomlpos"}}, ""},
		"agent imports policy":               {archPkg{path: "run/agent", imports: []string{"llm", "policy"}}, "2"},
		"agent imports urfave":               {archPkg{path: "run/agent", imports: []string{"github.com/urfave/cli/v2"}}, "2"},
		"agenttest imports run/config":       {archPkg{path: "run/agent/agenttest", imports: []string{"run/config"}}, "2"},
		"agent imports llm and toolkit":      {archPkg{path: "run/agent", imports: []string{"llm", "toolkit", "run/agent/internal/x"}}, ""},
		"harness imports run":                {archPkg{path: "run/harness", imports: []string{"run"}}, "3"},
		"linemode imports query":             {archPkg{path: "run/linemode", imports: []string{"run/query"}}, "3"},
		"acp imports its own sub-package":    {archPkg{path: "run/acp", imports: []string{"run/acp/wire"}}, ""},
		"sink imports harness":               {archPkg{path: "run/sink", imports: []string{"run/harness"}}, "3"},
		"hooks imports harness":              {archPkg{path: "run/hooks", imports: []string{"run/harness"}}, "3"},
		"harness imports doctor":             {archPkg{path: "run/harness", imports: []string{"run/doctor"}}, "3"},
		"linemode imports harness":           {archPkg{path: "run/linemode", imports: []string{"run/harness", "run/sink"}}, ""},
		"session imports agent":              {archPkg{path: "run/session", imports: []string{"run/agent"}}, "4"},
		"cassette imports exit":              {archPkg{path: "run/cassette", imports: []string{"run/exit"}}, "4"},
		"patch imports sink":                 {archPkg{path: "run/patch", imports: []string{"run/sink"}}, "4"},
		"skills imports agent":               {archPkg{path: "run/skills", imports: []string{"run/agent"}}, "4"},
		"tasks imports harness":              {archPkg{path: "run/tasks", imports: []string{"run/harness"}}, "4"},
		"results imports exit":               {archPkg{path: "run/results", imports: []string{"run/events", "run/exit"}}, "4"},
		"learnlog imports sink":              {archPkg{path: "run/learnlog", imports: []string{"run/session", "policy", "run/sink"}}, "4"},
		"learnlog reads sessions for policy": {archPkg{path: "run/learnlog", imports: []string{"run/session", "policy", "policy/learn"}}, ""},
		"structured imports agent":           {archPkg{path: "run/structured", imports: []string{"run/agent", "llm", "toolkit"}}, ""},
		"structured imports harness":         {archPkg{path: "run/structured", imports: []string{"run/agent", "run/harness"}}, "3"},
		"telemetry imports harness":          {archPkg{path: "run/telemetry", imports: []string{"run/harness"}}, "3"},
		"acp imports linemode":               {archPkg{path: "run/acp", imports: []string{"run/linemode"}}, "3"},
		"harness imports acp":                {archPkg{path: "run/harness", imports: []string{"run/acp"}}, "3"},
		"run imports everything":             {archPkg{path: "run", imports: []string{"run/harness", "run/linemode", "run/query"}}, ""},
		"structured imports santhosh":        {archPkg{path: "run/structured", imports: []string{"github.com/santhosh-tekuri/jsonschema/v6"}}, "5"},
		"structured tests use santhosh":      {archPkg{path: "run/structured", tests: []string{"github.com/santhosh-tekuri/jsonschema/v6"}}, ""},
		"eventstest imports santhosh":        {archPkg{path: "run/events/eventstest", imports: []string{"github.com/santhosh-tekuri/jsonschema/v6"}}, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := archViolations([]archPkg{tc.pkg})
			if tc.want == "" {
				if len(got) > 0 {
					t.Errorf("want no violation, got %q", got)
				}
				return
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], "rule "+tc.want+":") {
				t.Errorf("want one violation of rule %s, got %q", tc.want, got)
			}
		})
	}
}

// TestArchEveryPackageHasARole: every package under run/ has a role the
// rules know (runRoles), so a new package is placed, not passed over.
func TestArchEveryPackageHasARole(t *testing.T) {
	t.Parallel()
	for _, pkg := range moduleUnlessShort(t) {
		if pkgWithin(pkg.path, "run") && roleOf(pkg.path) == "" {
			t.Errorf("%s has no role in run/arch_test.go: a format leaf, a plug-in, a front end or one of the engine's parts?", pkg.path)
		}
	}
}

// TestArchRoleOf pins the roles of some packages, a new one among them.
func TestArchRoleOf(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{
		"run": "run", "run/agent/agenttest": "run/agent", "run/learnlog": "run/learnlog",
		"run/telemetry/otlptest": "run/telemetry", "run/acp/acptest": "run/acp",
		"run/internal/ptytest": "run/internal", "run/newthing": "", "runner": "",
	} {
		if got := roleOf(p); got != want {
			t.Errorf("roleOf(%q) = %q, want %q", p, got, want)
		}
	}
}

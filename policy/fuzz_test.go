package policy

import (
	"errors"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shellSeeds are the seed commands of FuzzDecideShell.
func shellSeeds() []string {
	return []string{
		"git status", "git status; rm -rf ~", "go test ./... $(rm -rf /)", "env rm -rf /",
		"git status > .git/hooks/pre-commit", "FOO=$(id) git status", "bash -c 'git status'",
		"git status 2>&1 | go test ./...", "if true; then git status; fi", "cat <<EOF\n$x\nEOF",
		"git status &", "\\rm -rf /", `"git" 'status'`, "git status # x", "(git status) && { go test ./...; }",
		"git diff --output=/tmp/x", "go test -exec x ./...", "git -C d format-patch -ko/x", "git st\\\natus", "{git,rm} x", "$'git' status", "git status <(x)", "x=1; git status",
		`git "sta"tus`, `git ''status`, `git st''atus ''`, `go te'st' ./"..."`, `git "st\atus"`, `g\it 'sta\tus'`, `go "test" ./..."."`, "git status > src/x",
		"echo a > ../x", "git status < /etc/passwd",
		"sed -n '1e id' f", "sed -e 's/a/b/w x' -i f", "tar xvfC a.tar d", "tar -xf a --to-command=x",
		"find . -name f -exec rm {} +", "curl -F 'a=@.env;t=x' file:///x", "cp -t d a b", "ln x", "chmod -R -w d",
		"dd if=a of=b", "git bisect run rm x", "git submodule foreach 'rm x'", "git diff /dev/null .env",
		"xargs -0 rm", "awk '{print > \"x\"}'", "ln -s a b && echo x >> b", "unzip -d ../x a.zip", "patch -p1",
	}
}

// FuzzDecideShell checks that any command string is judged without a panic
// and is allowed only when every simple command in it, under both dialects,
// matches an allow rule, with no opaque construct and no redirect out of
// the workspace.
//
// The check is independent of the code under test: each command's argv is
// produced by mvdan.cc/sh's own expander (quote removal, brace expansion;
// no variables, no command substitution, no globbing), and compared with
// the allow patterns spelled out here as plain argv, not with the
// package's word reader or pattern matcher. A bug in either (quote
// removal, say) makes the two disagree and the target fail.
func FuzzDecideShell(f *testing.F) {
	for _, s := range shellSeeds() {
		f.Add(s)
	}
	p, err := Parse("fuzz.toml", []byte(`
[defaults]
decision = "deny"
[shell]
background = "allow"
plain_programs = false
[[rule]]
tool = "shell"
decision = "allow"
commands = ["git status", "go test ./...", "echo *"]
[[rule]]
tool = "shell"
decision = "deny"
commands = ["rm *", "git push *", "npm publish"]
[[rule]]
tool = "read"
decision = "allow"
paths = ["**"]
[[rule]]
tool = "write"
decision = "allow"
paths = ["**"]
`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		r := p.Decide(Action{Class: ClassShell, Command: cmd})
		if r.Decision != Allow {
			return
		}
		if len(cmd) > MaxCommandBytes || !utf8.ValidString(cmd) || strings.ContainsFunc(cmd, func(r rune) bool {
			return r != '\t' && r != '\n' && (unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zs) && r != ' ')
		}) {
			t.Fatalf("%q allowed despite unreadable text", cmd)
		}
		for _, v := range []syntax.LangVariant{syntax.LangBash, syntax.LangPOSIX} {
			file, err := syntax.NewParser(syntax.Variant(v)).Parse(strings.NewReader(cmd), "")
			if err != nil {
				t.Fatalf("%q allowed but does not parse as %s: %v", cmd, v, err)
			}
			syntax.Walk(file, func(n syntax.Node) bool {
				switch n := n.(type) {
				case *syntax.CallExpr:
					if len(n.Assigns) > 0 {
						t.Fatalf("%q allowed with an assignment", cmd)
					}
					if len(n.Args) == 0 {
						return true
					}
					argv := oracleFields(t, cmd, n.Args...)
					if !oracleAllowed(argv) {
						t.Fatalf("%q allowed, but %q (as the shell expands it) matches no allow rule", cmd, argv)
					}
				case *syntax.Redirect:
					oracleRedirect(t, cmd, n)
				case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp, *syntax.ArithmExp,
					*syntax.IfClause, *syntax.ForClause, *syntax.WhileClause, *syntax.CaseClause,
					*syntax.FuncDecl, *syntax.DeclClause, *syntax.ArithmCmd, *syntax.TestClause,
					*syntax.LetClause, *syntax.TimeClause, *syntax.CoprocClause:
					t.Fatalf("%q allowed with an opaque %T", cmd, n)
				case *syntax.SglQuoted:
					if n.Dollar {
						t.Fatalf("%q allowed with ANSI-C quoting", cmd)
					}
				}
				return true
			})
		}
	})
}

// oracleFields expands words as the shell would, with no variables, no
// command substitution and no globbing: an allowed command needs none.
func oracleFields(t *testing.T, cmd string, words ...*syntax.Word) []string {
	t.Helper()
	cfg := &expand.Config{Env: expand.ListEnviron("HOME=/nonexistent/home"), NoUnset: true}
	fields, err := expand.Fields(cfg, words...)
	if err != nil {
		t.Fatalf("%q allowed, but the shell cannot expand it without running something: %v", cmd, err)
	}
	return fields
}

// oracleAllowed reports whether argv matches one of the fuzz policy's
// allow patterns, written out as argv: "git status", "go test ./...",
// "echo *".
func oracleAllowed(argv []string) bool {
	switch {
	case len(argv) >= 1 && argv[0] == "echo":
		return true
	case slices.Equal(argv, []string{"git", "status"}), slices.Equal(argv, []string{"go", "test", "./..."}):
		return true
	}
	return false
}

// oracleRedirect fails the fuzz target when an allowed command redirects
// to or from a file outside the workspace (other than /dev/null and the
// standard streams).
func oracleRedirect(t *testing.T, cmd string, r *syntax.Redirect) {
	t.Helper()
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return
	case syntax.DplIn, syntax.DplOut:
		if f := oracleFields(t, cmd, r.Word); len(f) == 1 && strings.Trim(f[0], "0123456789") == "" {
			return // a descriptor, not a file
		}
	}
	f := oracleFields(t, cmd, r.Word)
	if len(f) != 1 {
		t.Fatalf("%q allowed with a redirect to %d words", cmd, len(f))
	}
	target := path.Clean(f[0])
	switch {
	case target == "/dev/null" || target == "/dev/stdout" || target == "/dev/stderr":
	case path.IsAbs(target), target == "..", strings.HasPrefix(target, "../"):
		t.Fatalf("%q allowed with a redirect outside the workspace: %q", cmd, f[0])
	}
}

// FuzzParse checks that any policy file either loads or fails with a
// *LoadError naming the file, and that a loaded policy decides without
// panicking, every decision one of allow, ask and deny.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"../testdata/policy/ci.toml", "../testdata/policy/strict.toml", "default.toml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("[[rule]]\ntool = \"shell\"\ndecision = \"allow\"\ncommands = [\"git *\"]\n"))
	f.Add([]byte("[[test]]\ntool = \"read\"\npath = \"a\"\nexpect = \"ask\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.toml", data)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || le.File != "f.toml" {
				t.Fatalf("error %v is not a LoadError naming the file", err)
			}
			return
		}
		for _, a := range []Action{
			{Class: ClassShell, Command: "git status; rm -rf /"},
			{Class: ClassWrite, Paths: []Path{{Requested: "src/a.go", Resolved: ".git/config"}}},
		} {
			if r := p.Decide(a); r.Decision != Allow && r.Decision != Ask && r.Decision != Deny {
				t.Fatalf("Decide(%+v) = decision %d, not allow, ask or deny", a, r.Decision)
			}
		}
		_ = p.ExtraRoots()
	})
}

package policy

import (
	"errors"
	"os"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzDecideShell checks that any command string is judged without a panic
// and is allowed only when every simple command in it, under both dialects,
// is exactly readable and matches an allow rule, with no opaque construct.
func FuzzDecideShell(f *testing.F) {
	for _, s := range []string{
		"git status", "git status; rm -rf ~", "go test ./... $(rm -rf /)", "env rm -rf /",
		"git status > .git/hooks/pre-commit", "FOO=$(id) git status", "bash -c 'git status'",
		"git status 2>&1 | go test ./...", "if true; then git status; fi", "cat <<EOF\n$x\nEOF",
		"git status &", "\\rm -rf /", `"git" 'status'`, "git status # x", "(git status) && { go test ./...; }",
		"git st\\\natus", "{git,rm} x", "$'git' status", "git status <(x)", "x=1; git status",
	} {
		f.Add(s)
	}
	p, err := Parse("fuzz.toml", []byte(`
[defaults]
decision = "deny"
[shell]
background = "allow"
[[rule]]
tool = "shell"
decision = "allow"
commands = ["git status", "go test ./...", "echo *"]
[[rule]]
tool = "shell"
decision = "deny"
commands = ["rm *"]
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
		if checkText(cmd) != nil || len(cmd) > MaxCommandBytes {
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
					name := readWord(n.Args[0])
					if !name.exact || (name.value != "git" && name.value != "go" && name.value != "echo") {
						t.Fatalf("%q allowed, but runs %q", cmd, name.value)
					}
					argv := make([]word, len(n.Args))
					for i, w := range n.Args {
						info := readWord(w)
						argv[i] = word{value: info.value, exact: info.exact}
					}
					matched := false
					for _, r := range p.rules {
						if r.decision != Allow {
							continue
						}
						for _, cp := range r.commands {
							matched = matched || cp.matchCommand(argv, Allow)
						}
					}
					if !matched {
						t.Fatalf("%q allowed, but %q matches no allow rule", cmd, renderArgv(argv))
					}
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

// FuzzParse checks that any policy file either loads or fails with a
// *LoadError naming the file, and that a loaded policy decides without
// panicking.
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
		p.Decide(Action{Class: ClassShell, Command: "git status; rm -rf /"})
		p.Decide(Action{Class: ClassWrite, Paths: []Path{{Requested: "src/a.go", Resolved: ".git/config"}}})
		_ = p.ExtraRoots()
	})
}

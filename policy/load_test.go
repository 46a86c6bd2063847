package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadSample(t *testing.T) {
	t.Parallel()
	p, err := Load("../testdata/policy/ci.toml")
	if err != nil {
		t.Fatal(err)
	}
	if p.HeadlessAsk() != AskDeny || p.MaxDenials() != 20 || p.Shell().Background != Ask || p.Shell().Redirects != RedirectCheck {
		t.Errorf("settings: headless %s, max %d, shell %+v", p.HeadlessAsk(), p.MaxDenials(), p.Shell())
	}
	if !filepath.IsAbs(p.File()) {
		t.Errorf("File() = %q, want absolute", p.File())
	}
	if w := p.Warnings(); len(w) != 0 {
		t.Errorf("warnings: %v", w)
	}
	tests := []struct {
		a    Action
		want Decision
		rule string
	}{
		{Action{Class: ClassShell, Command: "git diff HEAD~1 -- a.go"}, Allow, "ci-checks"},
		{Action{Class: ClassShell, Command: "git push origin main"}, Deny, "../testdata/policy/ci.toml rule 2"},
		{Action{Class: ClassShell, Command: "make"}, Ask, "tools.shell"},
		{Action{Class: ClassShell, Command: "make &"}, Ask, "shell.background"},
		{Action{Class: ClassRead, Paths: []Path{{Requested: "a/b/.env"}}}, Deny, "../testdata/policy/ci.toml rule 3"},
		{Action{Class: ClassRead, Paths: []Path{{Requested: "main.go"}}}, Allow, "tools.read"},
		{Action{Class: ClassWrite, Paths: []Path{{Requested: "run/app.go"}}}, Allow, "../testdata/policy/ci.toml rule 4"},
		{Action{Class: ClassWrite, Paths: []Path{{Requested: ".git/x.go"}}}, Deny, "../testdata/policy/ci.toml rule 5"},
		{Action{Class: ClassWrite, Paths: []Path{{Requested: "Makefile"}}}, Ask, "tools.write"},
	}
	for _, tc := range tests {
		r := p.Decide(tc.a)
		if r.Decision != tc.want || r.Rule != tc.rule {
			t.Errorf("%+v: got %s by %q (%s), want %s by %q", tc.a, r.Decision, r.Rule, r.Fact, tc.want, tc.rule)
		}
	}
}

func TestDefaultPolicy(t *testing.T) {
	t.Parallel()
	p := Default()
	if p.Name() != DefaultName || p.File() != "" || p.HeadlessAsk() != AskDeny || p.MaxDenials() != 0 {
		t.Errorf("default: %q %q %s %d", p.Name(), p.File(), p.HeadlessAsk(), p.MaxDenials())
	}
	for _, tc := range []struct {
		class Class
		path  string
		want  Decision
	}{
		{ClassRead, "main.go", Allow}, {ClassRead, ".env", Deny}, {ClassRead, "a/.env", Deny},
		{ClassRead, "certs/x.pem", Deny}, {ClassRead, "x/tls.key", Deny}, {ClassRead, "home/.ssh/id_rsa", Deny},
		{ClassRead, "id_rsa.pub", Deny}, {ClassRead, ".netrc", Deny}, {ClassRead, "web/.npmrc", Deny},
		{ClassRead, ".pypirc", Deny}, {ClassWrite, "main.go", Ask}, {ClassWrite, ".rubichan/policy.toml", Deny},
		// actions/checkout keeps the job's token in .git/config
		{ClassRead, ".git/config", Deny}, {ClassRead, "vendor/x/.git/config", Deny}, {ClassRead, ".git/HEAD", Allow},
	} {
		if r := p.Decide(Action{Class: tc.class, Paths: []Path{{Requested: tc.path}}}); r.Decision != tc.want {
			t.Errorf("%s %s: got %s, want %s", tc.class, tc.path, r.Decision, tc.want)
		}
	}
	if r := p.Decide(Action{Class: ClassShell, Command: "make"}); r.Decision != Ask {
		t.Errorf("shell: got %s, want ask", r.Decision)
	}
	// a plain program is judged by its effects: ls reads the directory
	if r := p.Decide(Action{Class: ClassShell, Command: "ls"}); r.Decision != Allow || r.Rule != RulePlain {
		t.Errorf("shell ls: got %s by %s, want allow by %s", r.Decision, r.Rule, RulePlain)
	}
}

func TestParseDefaultsWhenOmitted(t *testing.T) {
	t.Parallel()
	p, err := Parse("t.toml", []byte("[tools]\nread = \"allow\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Fallback(ClassRead) != Allow || p.Fallback(ClassWrite) != Ask || p.Fallback(ClassShell) != Ask || p.HeadlessAsk() != AskDeny {
		t.Errorf("fallbacks %s %s %s, headless %s", p.Fallback(ClassRead), p.Fallback(ClassWrite), p.Fallback(ClassShell), p.HeadlessAsk())
	}
	p, err = Parse("t.toml", []byte("[defaults]\ndecision = \"deny\"\nheadless_ask = \"abort\"\n[shell]\nredirects = \"deny\"\nbackground = \"deny\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Fallback(ClassWrite) != Deny || p.HeadlessAsk() != AskAbort || p.Shell().Redirects != RedirectDeny || p.Shell().Background != Deny {
		t.Errorf("got %s %s %+v", p.Fallback(ClassWrite), p.HeadlessAsk(), p.Shell())
	}
	if d, err := Parse("t.toml", []byte("[defaults]\nheadless_ask = \"defer\"\n")); err != nil || d.HeadlessAsk() != AskDefer || d.HeadlessAsk().String() != "defer" {
		t.Errorf("headless_ask defer: %v %v", d, err)
	}
	if r := p.Decide(Action{Class: ClassShell, Command: "ls < src/a"}); r.Decision != Deny || r.Rule != "shell.redirects" {
		t.Errorf("redirects deny: got %s by %s", r.Decision, r.Rule)
	}
	if r := p.Decide(Action{Class: ClassShell, Command: "ls 2>/dev/null"}); r.Rule == "shell.redirects" {
		t.Errorf("/dev/null denied as a file redirect")
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		key       string
		line      int
		msg       string
	}{
		{"unknown top key", "version = 1\ncolour = 1\n", "colour", 2, "unknown key"},
		{"unknown rule key", "[[rule]]\ntool = \"read\"\ndecision = \"allow\"\npath = [\"a\"]\n", "rule.path", 4, "unknown key"},
		{"unknown class", "[[rule]]\ntool = \"net\"\ndecision = \"allow\"\n", "rule[0].tool", 2, "unknown tool class"},
		{"unknown decision", "\n[[rule]]\ntool = \"read\"\ndecision = \"maybe\"\npaths = [\"a\"]\n", "rule[0].decision", 4, "unknown decision"},
		{"missing tool", "[[rule]]\ndecision = \"allow\"\n", "rule[0].tool", 1, "missing"},
		{"bad glob", "[[rule]]\ntool = \"read\"\ndecision = \"deny\"\npaths = [\"[a\"]\n", "rule[0].paths", 4, "not a valid glob"},
		{"unclean glob", "[[rule]]\ntool = \"read\"\ndecision = \"deny\"\npaths = [\"a//b\"]\n", "rule[0].paths", 4, "not clean"},
		{"dotdot glob", "[[rule]]\ntool = \"read\"\ndecision = \"deny\"\npaths = [\"../x\"]\n", "rule[0].paths", 4, "leaves the workspace"},
		{"bad command", "[[rule]]\ntool = \"shell\"\ndecision = \"deny\"\ncommands = [\"rm 'x\"]\n", "rule[0].commands", 4, "does not parse"},
		{"two commands", "[[rule]]\ntool = \"shell\"\ndecision = \"deny\"\ncommands = [\"rm x; ls\"]\n", "rule[0].commands", 4, "exactly one"},
		{"inner star", "[[rule]]\ntool = \"shell\"\ndecision = \"allow\"\ncommands = [\"git * x\"]\n", "rule[0].commands", 4, "last word"},
		{"star only", "[[rule]]\ntool = \"shell\"\ndecision = \"allow\"\ncommands = [\"*\"]\n", "rule[0].commands", 4, "name a command"},
		{"expansion", "[[rule]]\ntool = \"shell\"\ndecision = \"allow\"\ncommands = [\"echo $HOME\"]\n", "rule[0].commands", 4, "plain word"},
		{"glob word", "[[rule]]\ntool = \"shell\"\ndecision = \"allow\"\ncommands = [\"ls *.go\"]\n", "rule[0].commands", 4, "plain word"},
		{"paths on shell", "[[rule]]\ntool = \"shell\"\ndecision = \"allow\"\npaths = [\"x\"]\n", "rule[0].paths", 4, "takes commands"},
		{"commands on read", "[[rule]]\ntool = \"read\"\ndecision = \"allow\"\ncommands = [\"x\"]\n", "rule[0].commands", 4, "takes paths"},
		{"empty rule", "[[rule]]\ntool = \"write\"\ndecision = \"allow\"\n", "rule[0].paths", 1, "at least one"},
		{"duplicate id", "[[rule]]\nid = \"a\"\ntool = \"read\"\ndecision = \"allow\"\npaths = [\"x\"]\n[[rule]]\nid = \"a\"\ntool = \"read\"\ndecision = \"allow\"\npaths = [\"y\"]\n", "rule[1].id", 7, "duplicate"},
		{"reserved id", "[[rule]]\nid = \"guard\"\ntool = \"read\"\ndecision = \"allow\"\npaths = [\"x\"]\n", "rule[0].id", 2, "reserved"},
		{"bad version", "version = 2\n", "version", 1, "unsupported version"},
		{"bad headless", "[defaults]\nheadless_ask = \"ask\"\n", "defaults.headless_ask", 2, "want deny, abort or defer"},
		{"bad max", "[defaults]\nmax_denials = -1\n", "defaults.max_denials", 2, "negative"},
		{"bad tools", "[tools]\nread = \"yes\"\n", "tools.read", 2, "unknown decision"},
		{"unknown tools class", "[tools]\nnet = \"allow\"\n", "tools.net", 2, "unknown key"},
		{"bad redirects", "[shell]\nredirects = \"maybe\"\n", "shell.redirects", 2, "want check or deny"},
		{"bad background", "[shell]\nredirects = \"check\"\nbackground = \"later\"\n", "shell.background", 3, "unknown decision"},
		{"wrong type", "[defaults]\ndecision = 5\n", "defaults.decision", 2, ""},
		{"not toml", "[[rule]\n", "", 1, ""},
		{"control char in pattern", "[[rule]]\ntool = \"shell\"\ndecision = \"deny\"\ncommands = [\"rm\\u200b *\"]\n", "rule[0].commands", 4, "invisible"},
		{"test without expect", "[[test]]\ntool = \"read\"\npath = \"a\"\n", "test[0].expect", 1, "unknown decision"},
		{"test with both", "[[test]]\ntool = \"shell\"\ncommand = \"ls\"\npath = \"a\"\nexpect = \"deny\"\n", "test[0]", 1, "takes command"},
		{"failing self-test", "[defaults]\ndecision = \"deny\"\n\n[[test]]\ntool = \"shell\"\ncommand = \"make\"\nexpect = \"allow\"\n", "test[0]", 4, "self-test failed: shell \"make\": want allow, got deny"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("p.toml", []byte(tc.doc))
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Parse: %v, want a *LoadError", err)
			}
			if le.File != "p.toml" || le.Key != tc.key || le.Line != tc.line || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("got %q (file %q key %q line %d), want key %q line %d containing %q", err, le.File, le.Key, le.Line, tc.key, tc.line, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "policy: p.toml") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	_, err := Load(filepath.Join(t.TempDir(), "none.toml"))
	var le *LoadError
	if !errors.As(err, &le) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("got %v, want a LoadError wrapping ErrNotExist", err)
	}
}

func TestWarnings(t *testing.T) {
	t.Parallel()
	p, err := Parse("w.toml", []byte(`
[[rule]]
id = "allow"
tool = "shell"
decision = "allow"
commands = ["git push origin main", "git status", "rm"]
[[rule]]
id = "deny"
tool = "shell"
decision = "deny"
commands = ["git push *", "/bin/rm *"]
[[rule]]
id = "w"
tool = "write"
decision = "allow"
paths = ["secrets/a.txt", "secrets/**/*.go", "src/**"]
[[rule]]
id = "wd"
tool = "write"
decision = "deny"
paths = ["secrets/**"]
`))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p.Warnings(), "\n")
	for _, want := range []string{`allow "git push origin main"`, `allow "rm"`, `allow "secrets/a.txt"`, `allow "secrets/**/*.go"`} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %s:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{`"git status"`, `"src/**"`} {
		if strings.Contains(got, unwanted) {
			t.Errorf("warnings wrongly name %s:\n%s", unwanted, got)
		}
	}
}

func TestLintWarnings(t *testing.T) {
	t.Parallel()
	p, err := Parse("lint.toml", []byte(`
[[rule]]
id = "abs-deny"
tool = "read"
decision = "deny"
paths = ["/secrets/**"]
[[rule]]
id = "spaced"
tool = "shell"
decision = "deny"
commands = ["'git push' *"]
[[rule]]
id = "any-env"
tool = "shell"
decision = "allow"
commands = ["env *", "bash *", "git diff *", "python3 *", "git *", "go run *"]
[[rule]]
id = "all-writes"
tool = "write"
decision = "allow"
paths = ["**"]
[[rule]]
id = "git-writes"
tool = "write"
decision = "allow"
paths = ["**/.git/**"]
`))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p.Warnings(), "\n")
	for _, want := range []string{
		`rule abs-deny: "/secrets/**" is absolute`, `rule spaced: the command name "git push" holds a space`,
		`rule any-env: allow "env *" lets the model run any command through env`, `allow "bash *"`,
		`rule git-writes: "**/.git/**" lets the model write .git/`, `allow "python3 *" lets the model run any program in python3`,
		`rule any-env: allow "git *" can change git's configuration`, `allow "go run *" builds and runs any program, so it lets the model run any program`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, `"**" lets`) {
		t.Errorf("** does not cover .git, yet it warns:\n%s", got)
	}
	if strings.Contains(got, `"git diff *"`) || strings.Contains(got, `through git`) {
		t.Errorf("git diff * is not a wrapper and runs no program:\n%s", got)
	}
	q, err := p.WithRules(nil, []string{"write:.git/**", "read:/etc/**"})
	if err != nil {
		t.Fatal(err)
	}
	got = strings.Join(q.Warnings(), "\n")
	if strings.Contains(got, "lets the model write .git/") {
		t.Errorf("a .git deny still warns:\n%s", got)
	}
}

func TestWithRules(t *testing.T) {
	t.Parallel()
	base := Default()
	p, err := base.WithRules([]string{"shell:go test ./...", "write:src/**", "shell:'git' status"}, []string{"read:docs/private/**", "write:src/gen/**"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		a    Action
		want Decision
		rule string
	}{
		{Action{Class: ClassShell, Command: "go test ./..."}, Allow, "--allow shell:go test ./..."},
		{Action{Class: ClassShell, Command: "git status"}, Allow, "--allow shell:'git' status"},
		{Action{Class: ClassWrite, Paths: []Path{{Requested: "src/a.go"}}}, Allow, "--allow write:src/**"},
		{Action{Class: ClassWrite, Paths: []Path{{Requested: "src/gen/a.go"}}}, Deny, "--deny write:src/gen/**"},
		{Action{Class: ClassRead, Paths: []Path{{Requested: "docs/private/a"}}}, Deny, "--deny read:docs/private/**"},
		{Action{Class: ClassRead, Paths: []Path{{Requested: "src/.env"}}}, Deny, "default-secrets"},
	}
	for _, tc := range tests {
		r := p.Decide(tc.a)
		if r.Decision != tc.want || r.Rule != tc.rule {
			t.Errorf("%+v: got %s by %q, want %s by %q", tc.a, r.Decision, r.Rule, tc.want, tc.rule)
		}
	}
	if r := base.Decide(Action{Class: ClassShell, Command: "go test ./..."}); r.Decision != Ask {
		t.Errorf("WithRules changed the original policy: %s", r.Decision)
	}
	if _, err := base.WithRules([]string{"write:**"}, []string{"write:**"}); err != nil {
		t.Fatal(err)
	} else if w, _ := base.WithRules([]string{"write:**"}, []string{"write:**"}); len(w.Warnings()) != 1 {
		t.Errorf("warnings = %v, want one", w.Warnings())
	}
	for _, bad := range []string{"go test", "net:x", "shell:", "shell:a; b", "write:../x", "read:[", "shell:ls $X"} {
		_, err := base.WithRules([]string{bad}, nil)
		var le *LoadError
		if !errors.As(err, &le) || le.File != CommandLine || le.Key != "--allow" {
			t.Errorf("WithRules(%q) = %v, want a command-line LoadError", bad, err)
		}
	}
}

// Default does not run its [[test]] entries at each start; here they run.
func TestDefaultSelfTest(t *testing.T) {
	t.Parallel()
	p := Default()
	if len(p.tests) < 7 {
		t.Fatalf("the built-in policy has %d tests, want its 7 or more", len(p.tests))
	}
	if err := p.selfTest(); err != nil {
		t.Fatal(err)
	}
}

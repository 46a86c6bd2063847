package policy

import (
	"strings"
	"testing"
)

// optionsPolicy allows prefix patterns of git and go, and writes to out/
// only.
const optionsPolicy = `
[defaults]
decision = "deny"
[[rule]]
id = "prefix"
tool = "shell"
decision = "allow"
commands = ["git diff *", "git log *", "git format-patch *", "git grep *", "git *", "go test *", "go build *", "go vet *", "go env *"]
[[rule]]
id = "named"
tool = "shell"
decision = "allow"
commands = ["go test -exec ./wrap ./..."]
[[rule]]
id = "secrets"
tool = "read"
decision = "deny"
paths = [".env"]
[[rule]]
id = "src"
tool = "read"
decision = "allow"
paths = ["src/**"]
[[rule]]
id = "out"
tool = "write"
decision = "allow"
paths = ["out/**"]
`

// decideOptionsCase is one case of TestDecideOptions.
type decideOptionsCase struct {
	cmd  string
	want Decision
	rule string
	fact string // the deciding fact, when it matters
}

// decideOptionsCases returns the cases of TestDecideOptions.
func decideOptionsCases() []decideOptionsCase {
	return append(optionWriteCases(), optionRunCases()...)
}

// optionWriteCases are the cases of TestDecideOptions without an option
// that runs a program.
func optionWriteCases() []decideOptionsCase {
	return []decideOptionsCase{
		// nothing extra: still allowed
		{"git diff HEAD -- a.go", Allow, "prefix", ""},
		{"git diff --stat -p --output-indicator-new=+", Allow, "prefix", ""},
		{"git diff -- --output=x", Allow, "prefix", ""}, // a pathspec after --
		{"git log -c --grep=output", Allow, "prefix", ""},
		{"git status --porcelain", Allow, "prefix", ""},
		{"git --exec-path", Allow, "prefix", ""}, // bare: prints the path
		{"go test -run TestX -count=1 ./...", Allow, "prefix", ""},
		{"go build -o /dev/null ./...", Allow, "prefix", ""},
		{"go build -ldflags='-s -w -X main.v=1' .", Allow, "prefix", ""},
		{"go env GOPATH", Allow, "prefix", ""},
		{"go build -overlay=overlay.json -work -o=/dev/null .", Allow, "prefix", ""}, // not -o verlay=…, not -w ork
		{"go env -json GOPATH", Allow, "prefix", ""},
		{"go test -exec ./wrap ./...", Allow, "named", ""}, // the option is named by a rule
		// a file an option writes is judged by the write rules
		{"git diff --output=/etc/cron.d/x", Deny, RuleGuard, "write: /etc/cron.d/x"},
		{"git diff --output /tmp/x HEAD", Deny, RuleGuard, "write: /tmp/x"},
		{"git log -p --output=src/x.go", Deny, RuleDefault, "write: src/x.go"},
		{"git diff --output=out/d.patch", Allow, "out", ""},
		{"git -C sub diff --output=../out/d.patch", Allow, "out", ""},
		{"git -C sub diff --output=x", Deny, RuleDefault, "write: sub/x"},
		{"git -C /tmp diff --output=x", Deny, RuleGuard, "write: /tmp/x"},
		{"git -C a -C /tmp -C b diff --output=x", Deny, RuleGuard, "write: /tmp/b/x"},
		{"git -C /ws -C out diff --output=x", Allow, "out", ""},
		{"git format-patch -o ../x HEAD~1", Deny, RuleGuard, "write: /x"},
		{"git format-patch -o/tmp/p HEAD~1", Deny, RuleGuard, "write: /tmp/p"},
		{"git format-patch -ko/tmp/p HEAD~1", Deny, RuleGuard, "write: /tmp/p"},
		{"git format-patch --output-directory=.git/hooks HEAD~1", Deny, RuleDefault, "write: .git/hooks"},
		{"git format-patch -o out/p HEAD~1", Allow, "out", ""},
		{"go test -coverprofile=/tmp/c.out ./...", Deny, RuleGuard, "write: /tmp/c.out"},
		{"go test --cpuprofile cpu.out ./...", Deny, RuleDefault, "write: cpu.out"},
		{"go test ./... -args -test.memprofile=/tmp/m", Deny, RuleGuard, "write: /tmp/m"},
		{"go build -o=bin/x .", Deny, RuleDefault, "write: bin/x"},
		{"go build -C sub -o ../out/x .", Allow, "out", ""},
		{"go test -coverprofile=out/c.out ./...", Allow, "out", ""},
		{"git diff --output=*.patch", Ask, RuleOpaque, ""},
	}
}

// optionRunCases are the cases of TestDecideOptions from the options that
// run a program on.
func optionRunCases() []decideOptionsCase {
	return []decideOptionsCase{
		// an option that runs a program: the prefix allow becomes ask
		{"go test ./... -exec 'sh -c id'", Ask, "prefix", "command: go test ./... -exec 'sh -c id'"},
		{"go test -exec=./evil ./...", Ask, "prefix", ""},
		{"go test --toolexec ./evil ./...", Ask, "prefix", ""},
		{"go vet -vettool=/tmp/x ./...", Ask, "prefix", ""},
		{"go build -test.toolexec=x .", Ask, "prefix", ""},
		{"go env -w GOFLAGS=-toolexec=./evil", Ask, "prefix", ""},
		{"go build -ldflags '-linkmode=external -extld=./evil' .", Ask, "prefix", ""},
		{"go build --ldflags=-extar=x .", Ask, "prefix", ""},
		{"git -c core.fsmonitor='sh -c id' status", Ask, "prefix", ""},
		{"git --config-env=core.pager=X log", Ask, "prefix", ""},
		{"git --exec-path=/tmp/evil status", Ask, "prefix", ""},
		{"git grep -O pattern", Ask, "prefix", ""},
		{"git grep -iOless pattern", Ask, "prefix", ""},
		{"git grep --open-files-in-pager=vi x", Ask, "prefix", ""},
		{"git rebase -x 'make' main", Ask, "prefix", ""},
		{"git ls-remote --upload-pack='sh -c id' .", Ask, "prefix", ""},
		{"git clone -u 'sh -c id' . x", Ask, "prefix", ""},
		{"git clone --template=t . x", Ask, "prefix", ""},
		{"git push --receive-pack=x origin", Ask, "prefix", ""},
		{"git d[i]ff --outp*", Ask, RuleOpaque, ""},
		// the external diff and textconv programs and the filters a
		// repository's configuration names (issue 30, item 19)
		{"git diff --ext-diff", Ask, "prefix", "command: git diff --ext-diff"},
		{"git log -p --ext-diff", Ask, "prefix", ""},
		{"git show --ext-diff HEAD", Ask, "prefix", ""},
		{"git show --ext HEAD", Ask, "prefix", ""},
		{"git diff-tree -p --ext-diff HEAD", Ask, "prefix", ""},
		{"git format-patch --ext-diff -1", Ask, "prefix", ""},
		{"git stash show -p --ext-diff", Ask, "prefix", ""},
		{"git log -p --textconv", Ask, "prefix", ""},
		{"git diff --textconv", Ask, "prefix", ""},
		{"git show --textc HEAD", Ask, "prefix", ""},
		{"git grep --textconv x", Ask, "prefix", ""},
		{"git blame --textconv a.go", Ask, "prefix", ""},
		{"git cat-file --textconv HEAD:a.go", Ask, "prefix", ""},
		{"git cat-file --filters HEAD:a.go", Ask, "prefix", ""},
		{"git cat-file --batch --filters", Ask, "prefix", ""},
		{"git log --show-signature", Ask, "prefix", ""},
		{"git show --show-signature HEAD", Ask, "prefix", ""},
		{"git diff --text", Allow, "prefix", ""},                      // an option of its own, not an abbreviation of --textconv
		{"git diff --no-ext-diff --no-textconv", Allow, "prefix", ""}, // the opposite
		{"git cat-file -p HEAD:a.go", Allow, "prefix", ""},
		// git's option parser takes any unique prefix of a long option
		{"git grep --open-files-in-p=touch x", Ask, "prefix", ""},
		{"git grep --open x", Ask, "prefix", ""},
		{"git rebase --exe=make main", Ask, "prefix", ""},
		{"git ls-remote --upload-p='sh -c id' .", Ask, "prefix", ""},
		{"git fetch --upload-pa x origin", Ask, "prefix", ""},
		{"git clone --temp=t . x", Ask, "prefix", ""},
		{"git format-patch --output-d=/x HEAD~1", Deny, RuleGuard, "write: /x"},
		{"git grep --or x", Allow, "prefix", ""},                   // not a prefix of a listed option
		{"git diff --output-indicator-new=+", Allow, "prefix", ""}, // longer than --output, not a prefix of it
		// git diff shows files outside the repository (and with --no-index
		// any file) as a read
		{"git diff HEAD~1 -- src/a.go", Allow, "prefix", ""},
		{"git diff /etc/passwd /dev/null", Deny, RuleGuard, "read: /etc/passwd"},
		{"git diff -- ../../x src/a", Deny, RuleGuard, "read: /x"},
		// a path that leaves the repository only once cleaned is still
		// outside it, and git implies --no-index for it
		{"git diff src/../../etc/passwd /dev/null", Deny, RuleGuard, "read: /etc/passwd"},
		{"git diff ./../x /dev/null", Deny, RuleGuard, "read: /x"},
		{"git diff /dev/null a/b/../../../x", Deny, RuleGuard, "read: /x"},
		{"git diff --no-index .env /dev/null", Deny, "secrets", "read: .env"},
		{"git diff --no-index src/a src/b", Allow, "src", ""},
		{"git diff -S ../needle --src-prefix /a/ HEAD", Allow, "prefix", ""},
		{"git diff --no-index src/* /dev/null", Ask, RuleOpaque, ""},
		{"git diff --stat /etc/passwd", Deny, RuleGuard, "read: /etc/passwd"},
		// options that read a file and show it, or put it in the history
		{"git blame --contents /etc/passwd a.go", Deny, RuleGuard, "read: /etc/passwd"},
		{"git blame --contents=.env a.go", Deny, "secrets", "read: .env"},
		{"git blame --ignore-revs-file ../x a.go", Deny, RuleGuard, "read: /x"},
		{"git blame -S/etc/passwd a.go", Deny, RuleGuard, "read: /etc/passwd"},
		{"git blame --contents src/a.go a.go", Allow, "src", ""},
		{"git commit -F /etc/passwd", Deny, RuleGuard, "read: /etc/passwd"},
		{"git commit -aF.env", Deny, "secrets", "read: .env"},
		{"git commit --template=/etc/passwd", Deny, RuleGuard, "read: /etc/passwd"},
		{"git tag -a v1 --file /etc/passwd", Deny, RuleGuard, "read: /etc/passwd"},
		{"git notes add -F /etc/passwd", Deny, RuleGuard, "read: /etc/passwd"},
		{"git merge -F /etc/passwd main", Deny, RuleGuard, "read: /etc/passwd"},
		{"git archive -o /tmp/x HEAD", Deny, RuleGuard, "write: /tmp/x"},
		{"git archive --output=out/a.tar HEAD", Allow, "out", ""},
		{"git diff" + strings.Repeat(" --output=out/a", maxOptionFindings+1), Ask, RuleOpaque, ""},
	}
}

// TestDecideOptions checks that a prefix allow does not allow what the
// well-known options of git and go do beyond the command: a file an option
// writes is a write fact, and an option that runs a program makes the
// allow an ask unless a rule names the option.
func TestDecideOptions(t *testing.T) {
	t.Parallel()
	p, err := Parse("opts.toml", []byte(optionsPolicy))
	if err != nil {
		t.Fatal(err)
	}
	p = p.InWorkspace("/ws")
	tests := decideOptionsCases()
	for _, tc := range tests {
		t.Run(shorten(tc.cmd, 60), func(t *testing.T) {
			t.Parallel()
			r := p.Decide(Action{Class: ClassShell, Command: tc.cmd})
			if r.Decision != tc.want || r.Rule != tc.rule || (tc.fact != "" && r.Fact != tc.fact) {
				t.Errorf("%s by %q (%s: %s), want %s by %q (%s)\nfacts: %v", r.Decision, r.Rule, r.Fact, r.Reason, tc.want, tc.rule, tc.fact, r.Facts)
			}
		})
	}
}

// TestDecideOptionsExplained checks the reason given for an option that
// runs a program, and that a session approval of the exact command can
// still cover it in line mode.
func TestDecideOptionsExplained(t *testing.T) {
	t.Parallel()
	p, err := Parse("opts.toml", []byte(optionsPolicy))
	if err != nil {
		t.Fatal(err)
	}
	a := Action{Class: ClassShell, Command: "go test -toolexec ./wrap ./..."}
	r := p.Decide(a)
	for _, want := range []string{`matches "go test *"`, "-toolexec", "runs the compiler and linker through a program", "names the option"} {
		if !strings.Contains(r.Reason, want) {
			t.Errorf("reason %q lacks %q", r.Reason, want)
		}
	}
	s := p.NewSession()
	if err := s.Approve(r); err != nil {
		t.Fatal(err)
	}
	if r := s.Decide(a); r.Decision != Allow {
		t.Errorf("after approval: %s", r.Decision)
	}
	if r := s.Decide(Action{Class: ClassShell, Command: "go test -toolexec ./other ./..."}); r.Decision != Ask {
		t.Errorf("another -toolexec after approval: %s", r.Decision)
	}
}

// TestRedirectDenyLeavesOptions checks that redirects = "deny" denies
// redirects only: a file an option writes is judged by the write rules.
func TestRedirectDenyLeavesOptions(t *testing.T) {
	t.Parallel()
	p, err := Parse("rd.toml", []byte(optionsPolicy+"[shell]\nredirects = \"deny\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Decide(Action{Class: ClassShell, Command: "git diff --output=out/x"}); r.Decision != Allow {
		t.Errorf("--output into out/: %s by %s (%s)", r.Decision, r.Rule, r.Reason)
	}
	if r := p.Decide(Action{Class: ClassShell, Command: "git diff > out/x"}); r.Decision != Deny || r.Rule != "shell.redirects" {
		t.Errorf("redirect: %s by %s", r.Decision, r.Rule)
	}
}

// TestOptionAfterCd checks that a relative file an option names after a
// change of directory outside the workspace is opaque, as a relative
// redirect is (a cd within it is followed: TestShapes).
func TestOptionAfterCd(t *testing.T) {
	t.Parallel()
	p, err := Parse("opts.toml", []byte(optionsPolicy))
	if err != nil {
		t.Fatal(err)
	}
	r := p.Decide(Action{Class: ClassShell, Command: "cd /tmp && git diff --output=y"})
	for _, f := range r.Facts {
		if f.Kind == FactOpaque && strings.Contains(f.Value, "--output") {
			return
		}
	}
	t.Errorf("no opaque fact for --output after cd: %v", r.Facts)
}

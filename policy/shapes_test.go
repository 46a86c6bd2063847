package policy

import (
	"path"
	"strings"
	"testing"
)

// shapesPolicy is a CI policy as the user writes it: Go checks,
// a `cat *` rule, edits under src/ and build/, nothing else.
const shapesPolicy = `
[defaults]
decision = "deny"
[tools]
read  = "allow"
write = "deny"
shell = "deny"
[[rule]]
id       = "go"
tool     = "shell"
decision = "allow"
commands = ["go test *", "go build *", "go vet *", "git status"]
[[rule]]
id       = "cat"
tool     = "shell"
decision = "allow"
commands = ["cat *"]
[[rule]]
id       = "edits"
tool     = "write"
decision = "allow"
paths    = ["src/**", "build/**", "vendored/**"]
`

// shapesFiles lists a workspace with secrets at the root, src/ holding Go
// files, build/ holding output, and vendored/ holding a repository of its
// own (vendored/.git/config).
func shapesFiles(dir string) ([]string, bool) {
	all := []string{".env", ".git/config", "README.md", "go.mod", "src/main.go", "src/util.go", "src/notes.txt",
		"build/out/app", "build/log.txt", "vendored/.git/config", "vendored/lib.go", "certs/server.key",
		"src/odd ../../certs/server.key.txt"}
	d := path.Clean(dir)
	var out []string
	for _, f := range all {
		if d == "." || strings.HasPrefix(f, d+"/") {
			out = append(out, f)
		}
	}
	return out, true
}

var shapesEnv = map[string]string{"HOME": "/home/runner", "PWD": "/ws", "TMPDIR": "/tmp/rubichan-1", "USER": "runner"}

// TestShapes judges the everyday shapes of issue 32, allowed and still
// refused, under a CI policy and a read-only one.
func TestShapes(t *testing.T) {
	t.Parallel()
	ci, err := Parse("ci.toml", []byte(shapesPolicy))
	if err != nil {
		t.Fatal(err)
	}
	ci = ci.InWorkspace("/ws")
	ro, err := Parse("ro.toml", []byte(strings.Replace(shapesPolicy, `paths    = ["src/**", "build/**", "vendored/**"]`, `paths = ["nothing/here"]`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	off, err := Parse("off.toml", []byte(shapesPolicy+"\n[shell]\nplain_programs = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	// a policy allowing the wrappers themselves, where only the analysis
	// of the cd they run keeps passwd from being judged as a workspace file
	allowAll, err := Parse("wrappers.toml", []byte(shapesPolicy+`
[[rule]]
id       = "wrappers"
tool     = "shell"
decision = "allow"
commands = ["builtin *", "command *", "eval *"]
`))
	if err != nil {
		t.Fatal(err)
	}
	nosec, err := Parse("nosec.toml", []byte(strings.Replace(shapesPolicy, "[tools]", "secret_denials = false\n[tools]", 1)))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pol    *Policy
		cmd    string
		listed bool   // the caller lists the files (Action.Files)
		allow  bool   // want allow; else want a refusal (ask or deny)
		fact   string // a fact the result must hold, "" for none
		reason string // a part of the deciding reason, "" for none
	}{
		// allowed by their effects, no shell rule of their own
		{ci, "cd src && go test .", false, true, "command: cd src", ""},
		{ci, "go test ./... 2>&1 | tail -20", false, true, "command: tail -20", ""},
		{ci, "echo $HOME", false, true, "command: echo /home/runner", ""},
		{ci, `echo "exit: $?"`, false, true, "", ""},
		{ci, "cat $PWD/README.md", false, true, "read: README.md", ""},
		{ci, "grep -n foo src/*.go | head", true, true, "read: src/*.go", ""},
		{ci, "mkdir -p build/out", false, true, "write: build/out", ""},
		{ci, "rm -rf build && go build ./...", true, true, "write: build/**", ""},
		{ci, "CGO_ENABLED=0 go build ./...", false, true, "command: go build ./...", ""},
		{ci, "timeout 60 go test ./...", false, true, "command: go test ./...", ""},
		{ci, "go vet ./... || true", false, true, "command: true", ""},
		{ci, "go test ./...; echo done", false, true, "", ""},
		{ci, "go test ./... > /dev/null 2>&1", false, true, "", ""},
		{ci, "cd src && cat main.go | head -5", false, true, "read: src/main.go", ""},
		{ci, "find . -name '*.go' -exec grep -l TODO {} \\;", true, true, "read: ./**", ""},
		{ci, "find src -name '*.go' | xargs grep -n TODO | head", true, true, "read: src/**", ""},
		{ci, "grep -rn TODO src --include='*.go'", true, true, "read: src/**", ""},
		{ci, "grep -rn TODO . --include='*.go' --exclude-dir=vendored", true, true, "", ""},
		{ci, "grep -rn TODO . --include='*.go'", true, true, "", ""},
		{ci, "sed -n '1,20p' src/main.go", false, true, "read: src/main.go", ""},
		{ci, "cp src/main.go build/main.go.bak", false, true, "write: build/main.go.bak", ""},
		{ci, "git status && cd src && go test ./...", false, true, "", ""},
		{ci, "cd src && sed -i 's/a/b/' main.go", false, true, "write: src/main.go", ""},
		// still refused
		{ci, "cd /etc && cat passwd", false, false, "", ""},
		{ro, "cd src && sed -i 's/a/b/' main.go", false, false, "write: src/main.go", ""},
		{ci, "LD_PRELOAD=x go test ./...", false, false, "", ""},
		{ci, "PATH=.:/usr/bin go test ./...", false, false, "", ""},
		{ci, "GIT_DIR=x git status", false, false, "", ""},
		{ci, "GOFLAGS=-toolexec=x go build ./...", false, false, "", ""},
		{ci, "BASH_ENV=x go test ./...", false, false, "", ""},
		{ci, "echo $SECRET_FROM_ENV", false, false, "", ""},
		{ci, "cat .env", false, false, "read: .env", "common secret files"},
		{ci, "cat src/../.env", false, false, "", ""},
		{ci, "cd src; cat ../.env", false, false, "read: .env", ""},
		{ci, "grep -r token .", false, false, "", "grep tool"},
		{ci, "grep -r token .", true, false, "", ".env"},
		{ci, "grep -rn TODO . --exclude-dir=.git", true, false, "", ".env"},
		{ci, "grep -rn TODO src vendored", true, false, "", "vendored/.git/config"},
		{ci, "find . -exec sh -c 'cat {}' \\;", false, false, "", ""},
		{ci, "find . | xargs cat", true, false, "", ""},
		{ci, "echo /etc/shadow | xargs cat", false, false, "", ""},
		{ci, "{ echo .env; find src; } | xargs cat", true, false, "", ""},
		{ci, "find src -name '*.go' | xargs rm", true, false, "", ""},
		{ci, "find src -name '*.go' < names.txt | xargs cat", true, true, "", ""},
		{ci, "xargs cat < names.txt", true, false, "", ""},
		{ci, "cat /ws/certs/server.crt /ws/certs/server.key > server.pem", false, false, "read: certs/server.key", ""},
		{ci, "cat $HOME/.ssh/id_rsa", false, false, "", ""},
		{ci, "rm -rf vendored", true, false, "", "vendored/.git/config"},
		{ci, "rm -rf build", false, false, "", ""},
		{ci, "timeout 5 rm -rf /", false, false, "", ""},
		{ci, "cd - && cat x", false, false, "", ""},
		{ci, "cd $D && cat x", false, false, "", ""},
		{ci, "cd .. && cat x", false, false, "", ""},
		{ci, "ls ~/.ssh", false, false, "", ""},
		{ci, "./cat README.md", false, false, "", ""},
		{ci, "grep -n foo certs/*", true, false, "", "certs/server.key"},
		// xargs splits names at blanks: "src/odd ../../certs/server.key.txt"
		// would reach cat as "src/odd" and "../../certs/server.key.txt"
		{ci, "find src -name '*.txt' | xargs cat", true, false, "", "split"},
		{ci, "find src -name '*.txt' | xargs cat", false, false, "", ""},
		{nosec, "find src -name '*.go' | xargs cat", false, false, "", "without a listing"},
		{nosec, "find src -name '*.go' -print0 | xargs -0 cat", false, true, "", ""},
		{ci, "find src -name '*.go' -print0 | xargs -0 cat", true, true, "", ""},
		{ci, "find src -name '*.txt' -exec cat {} +", true, true, "", ""},
		{ci, "find src -execdir cat notes.txt \\;", true, false, "", ""},
		{ci, `awk 'BEGIN{print ENVIRON["SECRET"]}'`, false, false, "", ""},
		{ci, `awk 'BEGIN{ARGV[1]="/etc/passwd";ARGC=2}{print}'`, false, false, "", ""},
		{ci, "sort --files0-from=list.txt", false, false, "", ""},
		{ci, "AWKPATH=. awk '{print}' src/notes.txt", false, false, "", ""},
		{ci, "GREP_OPTIONS='-f .env' grep x src/main.go", false, false, "", ""},
		// globs and searches named from elsewhere meet the listing's names
		{ci, "cat ./*", true, false, "", ".env"},
		{ci, "cat /ws/*", true, false, "", ".env"},
		{ci, "cat /ws/src/*.go", true, true, "", ""},
		{ci, "grep -r token /ws", true, false, "", ".env"},
		{ci, "cat src/../*", true, false, "", ""},
		{ci, "cd src && cat ../*", true, false, "", ""},
		{ci, "builtin cd /etc && cat passwd", false, false, "", ""},
		{allowAll, "builtin cd /etc && cat passwd", false, false, "", ""},
		{allowAll, "command cd /etc; cat passwd", false, false, "", ""},
		{allowAll, "eval 'cd /etc' && cat passwd", false, false, "", ""},
		{ci, "sed -i.bak 's/a/b/' src/main.go", false, true, "write: src/main.go.bak", ""},
		{ci, "sed -i'../*' 's/a/b/' src/main.go", false, false, "", ""},
		{ci, "sed -i.bak 's/a/b/' README.md", false, false, "", ""},
		{ci, "tree -o notes.txt src", false, false, "write: notes.txt", ""},
		{ci, "file -C -m src/magic", false, false, "", ""},
		{ci, "cp --parents vendored/.git/hooks/pre-commit src/", false, false, "", ""},
		{ci, "tree --fromfile=.env", false, false, "", ""},
		{ci, "tree --fromfile .env", false, false, "", ""},
		{ci, "tree -L 2 src", false, true, "read: src", ""},
		{off, "cat README.md", false, true, "", ""},
		{off, "head README.md", false, false, "", ""},
		{off, "cd src && go test .", false, false, "", ""},
	}
	for _, tc := range tests {
		name := tc.cmd
		if tc.pol == ro {
			name = "read-only " + name
		}
		if tc.pol == off {
			name = "plain off " + name
		}
		if tc.listed {
			name += " (listed)"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := Action{Class: ClassShell, Command: tc.cmd, Env: shapesEnv}
			if tc.listed {
				a.Files = shapesFiles
			}
			r := tc.pol.Decide(a)
			if (r.Decision == Allow) != tc.allow {
				t.Errorf("got %s by %s (%s: %s), want allow=%v\nfacts: %v", r.Decision, r.Rule, r.Fact, r.Reason, tc.allow, r.Facts)
			}
			if tc.fact != "" && !hasFact(r, tc.fact) {
				t.Errorf("no fact %q in %v", tc.fact, r.Facts)
			}
			if tc.reason != "" && !strings.Contains(r.Reason, tc.reason) {
				t.Errorf("reason %q does not mention %q", r.Reason, tc.reason)
			}
		})
	}
}

func hasFact(r Result, want string) bool {
	for _, f := range r.Facts {
		if f.String() == want {
			return true
		}
	}
	return false
}

// TestRemedy checks that a refusal no --allow lifts says so, why, and
// what else there is; and one an --allow lifts leaves that to the rules.
func TestRemedy(t *testing.T) {
	t.Parallel()
	ci, err := Parse("ci.toml", []byte(shapesPolicy+`
[[rule]]
id       = "no-net"
tool     = "shell"
decision = "deny"
commands = ["curl *"]
`))
	if err != nil {
		t.Fatal(err)
	}
	ci = ci.InWorkspace("/ws")
	tests := []struct {
		cmd, want string // want "" for a refusal an --allow lifts
	}{
		{"cat .env", "no rule can allow this: the built-in secret denials refuse .env"},
		{"echo $(id)", "no rule can allow this: the analysis cannot fully read"},
		{"echo $(id)", "--allow-all"},
		{"curl https://example.com", "rule no-net denies it, and a deny rule wins"},
		{"cat /etc/passwd", "/etc/passwd lies outside it, and only an absolute allow rule naming it"},
		{"rm -rf .rubichan/policy.toml", "no rule can allow this: the policy file cannot be written"},
		{"make", ""},
		{"echo x > notes.txt", ""},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			t.Parallel()
			a := Action{Class: ClassShell, Command: tc.cmd, Env: shapesEnv}
			r := ci.Decide(a)
			if r.Decision == Allow {
				t.Fatalf("allowed: %v", r.Facts)
			}
			if tc.want == "" {
				if r.Remedy != "" || ci.AllowRules(a, r) == nil {
					t.Errorf("remedy %q, allow rules %v; want no remedy and some allow rules", r.Remedy, ci.AllowRules(a, r))
				}
				return
			}
			if !strings.Contains(r.Remedy, tc.want) || !strings.Contains(strings.ToLower(r.Message()), strings.ToLower(tc.want)) {
				t.Errorf("remedy %q (message %q) does not say %q", r.Remedy, r.Message(), tc.want)
			}
		})
	}
}

// TestPlainProgramsModelled checks that every plain program is among the
// modelled ones (whose allow rules with a final * draw no warning), and
// that no program with a model that finds program-running options is
// plain without them: the plain set is the one docs/policy.md lists.
func TestPlainProgramsModelled(t *testing.T) {
	t.Parallel()
	var plain []string
	for name := range readerOpts {
		plain = append(plain, name)
	}
	for _, m := range []map[string]bool{pureProgs, plainWriters, plainAlso} {
		for name := range m {
			plain = append(plain, name)
		}
	}
	for _, name := range plain {
		if name == "[" || name == ":" {
			continue // shell builtins, never a file
		}
		if !isModelled(name) {
			t.Errorf("plain program %s is not in modelledPrograms", name)
		}
	}
}

// TestEveryReaderReads checks the whole class: every reader and modelled
// reading program, run as a plain program, reads its file operand under
// the read rules: `.env` is refused with a read fact for it, a source
// file is allowed.
func TestEveryReaderReads(t *testing.T) {
	t.Parallel()
	p, err := Parse("ci.toml", []byte(shapesPolicy))
	if err != nil {
		t.Fatal(err)
	}
	form := map[string]string{
		"grep": "grep x F", "egrep": "egrep x F", "fgrep": "fgrep x F", "sed": "sed -n p F", "gsed": "gsed -n p F",
		"awk": "awk {print} F", "gawk": "gawk {print} F", "mawk": "mawk {print} F", "nawk": "nawk {print} F",
		"diff": "diff F src/util.go", "cmp": "cmp F src/util.go", "comm": "comm F src/util.go", "find": "find F",
		"gfind": "gfind F",
	}
	var progs []string
	for name := range readerOpts {
		progs = append(progs, name)
	}
	for name := range plainAlso {
		progs = append(progs, name)
	}
	for _, prog := range progs {
		f := form[prog]
		if f == "" {
			f = prog + " F"
		}
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			secret := strings.ReplaceAll(f, "F", ".env")
			r := p.Decide(Action{Class: ClassShell, Command: secret})
			if r.Decision == Allow || !hasFact(r, "read: .env") {
				t.Errorf("%s: %s by %s, facts %v; want refused with read: .env", secret, r.Decision, r.Rule, r.Facts)
			}
			plain := strings.ReplaceAll(f, "F", "src/main.go")
			if r := p.Decide(Action{Class: ClassShell, Command: plain}); r.Decision != Allow {
				t.Errorf("%s: %s by %s (%s), want allow", plain, r.Decision, r.Rule, r.Reason)
			}
		})
	}
}

// TestEveryWriterWrites checks the class of plain writers: each one's
// target is a write fact judged by the write rules (src/** allowed,
// README.md not).
func TestEveryWriterWrites(t *testing.T) {
	t.Parallel()
	p, err := Parse("ci.toml", []byte(shapesPolicy))
	if err != nil {
		t.Fatal(err)
	}
	form := map[string]string{"cp": "cp src/main.go F", "mv": "mv src/main.go F", "tee": "tee F"}
	for prog := range plainWriters {
		f := form[prog]
		if f == "" {
			f = prog + " F"
		}
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			out := strings.ReplaceAll(f, "F", "README.md")
			if r := p.Decide(Action{Class: ClassShell, Command: out}); r.Decision == Allow || !hasFact(r, "write: README.md") {
				t.Errorf("%s: %s by %s, facts %v; want refused with write: README.md", out, r.Decision, r.Rule, r.Facts)
			}
			in := strings.ReplaceAll(f, "F", "src/new.go")
			if prog == "mv" {
				in = "mv src/util.go src/new.go"
			}
			// listed: mv's source is read whole, which for a file is itself
			if r := p.Decide(Action{Class: ClassShell, Command: in, Files: shapesFiles}); r.Decision != Allow {
				t.Errorf("%s: %s by %s (%s), want allow", in, r.Decision, r.Rule, r.Reason)
			}
		})
	}
}

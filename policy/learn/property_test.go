package learn

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/policy"
)

// checkProperty checks what every learned policy promises beyond loading
// and allowing the calls it kept (mustLearn): no generalised rule covers
// a command the policy marks as running a program through an option, or
// a write of a guarded path.
func checkProperty(t testing.TB, r *Result, p *policy.Policy) {
	t.Helper()
	for _, line := range strings.Split(string(r.Text), "\n") {
		pat, ok := strings.CutPrefix(line, `commands = ["`)
		if ok && strings.HasSuffix(pat, ` *"]`) {
			group := strings.TrimSuffix(pat, ` *"]`)
			words := strings.Fields(group)
			sub := ""
			if len(words) > 1 {
				sub = words[1]
			}
			for _, opt := range policy.RunOptions(path.Base(words[0]), sub) {
				cmd := group + " " + opt
				if strings.HasSuffix(opt, "=") {
					cmd += "sh"
				}
				cmd += " ./x"
				if d := p.Decide(policy.Action{Class: policy.ClassShell, Command: cmd}).Decision; d == policy.Allow {
					t.Errorf("generalised %q allows %q, which runs a program\n%s", group+" *", cmd, r.Text)
				}
			}
		}
	}
	for _, g := range []string{".git/config", ".git/hooks/pre-commit", ".rubichan/policy.toml", "sub/.git/config"} {
		if d := p.Decide(policy.Action{Class: policy.ClassWrite, Paths: []policy.Path{{Requested: g}}}).Decision; d == policy.Allow {
			t.Errorf("the learned policy allows writing %s\n%s", g, r.Text)
		}
	}
}

// TestLearnRealWorld learns one policy from the 391 real commands that
// agents ran (as a run that allowed them all) and from the same commands
// denied: each policy loads, its self-tests pass, it allows every command
// it did not leave out, and its generalised rules hold the property.
func TestLearnRealWorld(t *testing.T) {
	calls := realWorldCalls(t)
	if len(calls) != 391 {
		t.Fatalf("%d commands, want 391", len(calls))
	}
	for _, o := range []Outcome{Ran, Denied} {
		t.Run(fmt.Sprint(o), func(t *testing.T) {
			in := make([]Call, len(calls))
			for i, c := range calls {
				c.Outcome = o
				in[i] = c
			}
			r, p := mustLearn(t, in, Options{})
			checkProperty(t, r, p)
			for _, l := range r.Left {
				if l.Why == "" {
					t.Errorf("%s left out with no reason", l.Call.ID)
				}
			}
			if r.Rules == 0 || len(r.Left) == len(in) {
				t.Errorf("learned %d rules, left out %d of %d", r.Rules, len(r.Left), len(in))
			}
			t.Logf("outcome %d: %d rules, %d self-tests, %d of %d calls left out", o, r.Rules, r.Tests, len(r.Left), len(in))
		})
	}
}

// BenchmarkLearnRealWorld learns from the 391 real commands, as a run
// that ran them all.
func BenchmarkLearnRealWorld(b *testing.B) {
	calls := realWorldCalls(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Learn(calls, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// realWorldCalls are the real commands as calls that ran.
func realWorldCalls(t testing.TB) []Call {
	t.Helper()
	f, err := os.Open("../../testdata/policy/realworld/commands.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var calls []Call
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c struct{ ID, Command string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, Call{Session: "rw", ID: c.ID, Class: policy.ClassShell, Command: c.Command, Outcome: Ran})
	}
	return calls
}

// FuzzLearn: for any set of calls built from everyday command words,
// paths and outcomes, the learned policy loads with its self-tests
// passing, allows every call it kept, and no generalised rule covers a
// program-running option or a guarded write.
func FuzzLearn(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("go test ./... && git log -p; curl"))
	f.Add([]byte{20, 21, 22, 23, 200, 201, 202, 99, 98, 97, 13, 14})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64 {
			data = data[:64]
		}
		calls := fuzzCalls(data)
		r, err := Learn(calls, Options{Guarded: []string{"ci.toml"}})
		if err != nil {
			t.Fatalf("Learn: %v", err)
		}
		p, err := policy.Parse("learned.toml", r.Text)
		if err != nil {
			t.Fatalf("the learned policy does not load: %v\n%s", err, r.Text)
		}
		left := map[string]bool{}
		for _, l := range r.Left {
			left[l.Call.ID] = true
		}
		for _, c := range calls {
			if !left[c.ID] && p.Decide(c.Action()).Decision != policy.Allow {
				t.Fatalf("kept call %+v is not allowed\n%s", c, r.Text)
			}
		}
		checkProperty(t, r, p)
	})
}

var (
	fuzzPrograms = []string{"go test", "go vet", "go build", "go run", "go env -w", "git log", "git diff", "git status",
		"git push", "git -c core.pager=sh log", "sed -n", "sed -i", "make", "npm test", "curl", "cat", "grep -rn", "find . -name",
		"python3", "rm -rf", "go test -exec", "git diff --ext-diff", "tar -xf", "cp", "mv", "echo"}
	fuzzArgs = []string{"./...", "./pkg/a", "-run X", "-v", "main.go", "pkg/a/x.go", ".env", ".git/config", "ci.toml",
		"$(id)", "'s/a/b/'", "-o out", "--output=.git/hooks/x", ">", "x.txt", "&&", "|", "*.go", "../up", "/etc/passwd", "sh"}
	fuzzPaths = []string{"main.go", "pkg/a/x.go", "pkg/a/y.go", "pkg/b/z.go", ".env", ".git/config", ".git",
		".rubichan/policy.toml", "ci.toml", "README.md", "/etc/hosts", "../x", "docs/a.md", "docs/b.md"}
)

// fuzzCalls builds calls from bytes: each call takes a kind and outcome
// byte, then one or two choice bytes.
func fuzzCalls(data []byte) []Call {
	var calls []Call
	for i := 0; i+2 < len(data); i += 3 {
		kind, a, b := data[i], int(data[i+1]), int(data[i+2])
		c := Call{Session: "fz", ID: fmt.Sprintf("call_%d", i/3), Outcome: Outcome(kind%3) + 1}
		switch (kind / 3) % 4 {
		case 0, 1:
			c.Class = policy.ClassShell
			c.Command = fuzzPrograms[a%len(fuzzPrograms)] + " " + fuzzArgs[b%len(fuzzArgs)]
			if b/len(fuzzArgs)%2 == 1 {
				c.Command += " " + fuzzArgs[(b/2)%len(fuzzArgs)]
			}
		case 2:
			c.Class, c.Path = policy.ClassWrite, fuzzPaths[a%len(fuzzPaths)]
			if b%2 == 1 {
				c.Class = policy.ClassRead
			}
		default:
			c.Class, c.Name = policy.ClassMCP, []string{"github/get_issue", "fs/read", "github/create_issue"}[a%3]
		}
		calls = append(calls, c)
	}
	return calls
}

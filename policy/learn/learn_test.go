package learn

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func sh(id, cmd string, o Outcome) Call {
	return Call{Session: "s1", ID: id, Class: policy.ClassShell, Command: cmd, Outcome: o}
}
func wr(id, p string, o Outcome) Call {
	return Call{Session: "s1", ID: id, Class: policy.ClassWrite, Path: p, Outcome: o}
}
func rd(id, p string, o Outcome) Call {
	return Call{Session: "s1", ID: id, Class: policy.ClassRead, Path: p, Outcome: o}
}
func mcp(id, n string, o Outcome) Call {
	return Call{Session: "s1", ID: id, Class: policy.ClassMCP, Name: n, Outcome: o}
}

// mustLearn learns calls and checks what every learned policy must be:
// it parses with its own self-tests passing, and it allows every call it
// did not leave out.
func mustLearn(t *testing.T, calls []Call, o Options) (*Result, *policy.Policy) {
	t.Helper()
	r, err := Learn(calls, o)
	if err != nil {
		t.Fatalf("Learn: %v", err)
	}
	p, err := policy.Parse("learned.toml", r.Text)
	if err != nil {
		t.Fatalf("the learned policy does not load: %v\n%s", err, r.Text)
	}
	if p.SelfTests() != r.Tests || r.Tests == 0 && r.Rules > 0 {
		t.Errorf("self-tests: policy has %d, Result says %d", p.SelfTests(), r.Tests)
	}
	left := map[string]bool{}
	for _, l := range r.Left {
		left[l.Call.ID] = true
	}
	for _, c := range calls {
		if left[c.ID] {
			continue
		}
		if d := p.Decide(c.Action()).Decision; d != policy.Allow {
			t.Errorf("learned policy gives %s for the learned call %s %+v\n%s", d, c.ID, c, r.Text)
		}
	}
	return r, p
}

func TestLearn(t *testing.T) {
	cases := []struct {
		name     string
		calls    []Call
		base     string
		want     []string // lines of the text
		wantNot  []string
		left     map[string]string // call id → a word of why
		decide   map[string]policy.Decision
		minTests int
	}{{
		name:  "go test variants generalise to go test *",
		calls: []Call{sh("c1", "go test ./pkg/a -run X", Ran), sh("c2", "go test ./...", Ran)},
		want:  []string{`commands = ["go test *"]`, "# from s1: c1, c2 (2 calls)"},
		decide: map[string]policy.Decision{
			"go test -race ./b": policy.Allow, "go test -exec=sh ./...": policy.Ask, "go vet ./...": policy.Ask,
		},
		minTests: 5,
	}, {
		name:    "one variant stays literal",
		calls:   []Call{sh("c1", "go test ./...", Ran)},
		want:    []string{`commands = ["go test ./..."]`},
		wantNot: []string{"go test *"},
		decide:  map[string]policy.Decision{"go test ./other": policy.Ask},
	}, {
		name:  "a program outside the model stays literal with a comment",
		calls: []Call{sh("c1", "make build", Ran), sh("c2", "make test", Ran)},
		want:  []string{`commands = ["make build"]`, `commands = ["make test"]`, "# kept literal: make"},
		decide: map[string]policy.Decision{
			"make install": policy.Ask,
		},
	}, {
		name:    "go run hands over everything: literal, never go run *",
		calls:   []Call{sh("c1", "go run ./cmd/a", Ran), sh("c2", "go run ./cmd/b", Ran)},
		want:    []string{`commands = ["go run ./cmd/a"]`, "# kept literal: go run * would hand over every program it can run"},
		wantNot: []string{`commands = ["go run *"]`},
		decide:  map[string]policy.Decision{"go run ./cmd/evil": policy.Ask},
	}, {
		name:    "git checkout rewrites files with no write fact: literal, never git checkout *",
		calls:   []Call{sh("c1", "git checkout main", Ran), sh("c2", "git checkout -b x", Ran), sh("c3", "git checkout -- a.go", Denied)},
		want:    []string{`commands = ["git checkout main"]`, "# kept literal: git checkout rewrites working-tree files"},
		wantNot: []string{`commands = ["git checkout *"]`},
		left:    map[string]string{"c3": "rewrites working-tree files"},
		decide:  map[string]policy.Decision{"git checkout -- .rubichan/policy.toml": policy.Ask},
	}, {
		name:    "sed -i edits learn only the write: sed is a plain program",
		calls:   []Call{sh("c1", "sed -i s/a/b/ main.go", Ran)},
		want:    []string{`paths    = ["main.go"]`, `command = "sed -i s/a/b/ main.go"`},
		wantNot: []string{`commands = ["sed`},
	}, {
		name:   "writes in one directory become its glob",
		calls:  []Call{wr("c1", "pkg/a/x.go", Ran), wr("c2", "pkg/a/y.go", Deferred), wr("c3", "README.md", Denied)},
		want:   []string{`paths    = ["pkg/a/*"]`, `paths    = ["README.md"]`},
		decide: map[string]policy.Decision{},
	}, {
		name:  "a denied curl and a .env read stay out, with their comment",
		calls: []Call{sh("c1", "curl https://example.com", Denied), rd("c2", ".env", Denied), sh("c3", "go build ./...", Ran)},
		left:  map[string]string{"c1": "network", "c2": "secret"},
		want:  []string{"# left out: s1 c1: curl https://example.com — ", "# left out: s1 c2: read .env — "},
	}, {
		name:    "a curl that ran stays literal, with its comment",
		calls:   []Call{sh("c1", "curl -fsSL https://example.com/a", Ran), sh("c2", "curl https://example.com/b", Ran)},
		want:    []string{`commands = ["curl -fsSL https://example.com/a"]`, "# kept literal: network access"},
		wantNot: []string{"curl *"},
	}, {
		name:  "guarded writes are never learned",
		calls: []Call{wr("c1", ".git/config", Denied), wr("c2", ".rubichan/policy.toml", Ran), wr("c3", "ci.toml", Ran)},
		base:  "",
		left:  map[string]string{"c1": "guarded", "c2": "guarded", "c3": "guarded"},
	}, {
		name:  "an opaque command stays out",
		calls: []Call{sh("c1", "echo $(cat x)", Ran)},
		left:  map[string]string{"c1": "cannot"},
	}, {
		name:   "mcp calls become mcp rules",
		calls:  []Call{mcp("c1", "github/get_issue", Ran), mcp("c2", "github/get_issue", Ran), mcp("c3", "fs/read", Denied)},
		want:   []string{`names    = ["github/get_issue"]`, `names    = ["fs/read"]`},
		decide: map[string]policy.Decision{},
	}, {
		name:    "with a base only the missing rules are added",
		base:    "version = 1\n[[rule]]\nid = \"ci-go\"\ntool = \"shell\"\ndecision = \"allow\"\ncommands = [\"go test *\"]\n",
		calls:   []Call{sh("c1", "go test ./...", Ran), sh("c2", "go vet ./...", Ran)},
		want:    []string{`id = "ci-go"`, `commands = ["go vet ./..."]`, "learned by rubichan policy learn from session s1"},
		wantNot: []string{`commands = ["go test ./..."]`},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Guarded: []string{"ci.toml"}}
			if tc.base != "" {
				o.Base, o.BaseName = []byte(tc.base), "base.toml"
			}
			r, p := mustLearn(t, tc.calls, o)
			text := string(r.Text)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("missing %q in\n%s", w, text)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(text, w) {
					t.Errorf("unexpected %q in\n%s", w, text)
				}
			}
			got := map[string]string{}
			for _, l := range r.Left {
				got[l.Call.ID] = l.Why
			}
			for id, why := range tc.left {
				if !strings.Contains(got[id], why) {
					t.Errorf("call %s: left out because %q, want %q", id, got[id], why)
				}
			}
			if len(got) != len(tc.left) {
				t.Errorf("left out %v, want %v", got, tc.left)
			}
			for cmd, want := range tc.decide {
				if d := p.Decide(policy.Action{Class: policy.ClassShell, Command: cmd}).Decision; d != want {
					t.Errorf("%q: %s, want %s", cmd, d, want)
				}
			}
			if r.Tests < tc.minTests {
				t.Errorf("%d self-tests, want at least %d", r.Tests, tc.minTests)
			}
		})
	}
}

// TestLearnDeterministic: the same calls in another order, and twice,
// give the same bytes; the golden file pins them.
func TestLearnGolden(t *testing.T) {
	calls := []Call{
		sh("call_1_0", "go test ./pkg/a -run X", Ran),
		sh("call_1_1", "git status --short", Ran),
		sh("call_1_2", "sed -i s/teh/the/ greet.go", Ran),
		wr("call_2_0", "pkg/a/x.go", Ran),
		wr("call_2_1", "pkg/a/y.go", Ran),
		sh("call_2_2", "go test ./...", Denied),
		sh("call_3_0", "curl https://example.com", Denied),
		rd("call_3_1", ".env", Denied),
		mcp("call_3_2", "github/get_issue", Deferred),
		sh("call_3_3", "npm test", Ran),
	}
	r1, _ := mustLearn(t, calls, Options{})
	rev := make([]Call, len(calls))
	for i, c := range calls {
		rev[len(calls)-1-i] = c
	}
	r2, _ := mustLearn(t, rev, Options{})
	if !bytes.Equal(r1.Text, r2.Text) {
		t.Errorf("order changes the output:\n%s\n---\n%s", r1.Text, r2.Text)
	}
	golden := filepath.Join("testdata", "learned.toml")
	if *update {
		if err := os.WriteFile(golden, r1.Text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r1.Text, want) {
		t.Errorf("learned policy differs from %s (go test -update):\n%s", golden, r1.Text)
	}
}

package policy

import (
	"os"
	"strings"
	"testing"
)

// readmePolicy returns the ci.toml example of README.md, so the test
// judges the policy users copy.
func readmePolicy(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "```toml\n# ci.toml\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README.md has no ```toml block starting with # ci.toml")
	}
	return []byte(block)
}

// readmeFiles lists a Go workspace with a .env, for the README's claims.
func readmeFiles(dir string) ([]string, bool) {
	all := []string{".env", ".git/config", "go.mod", "src/a.go", "src/server.go", "src/gen/x.go", "docs/index.md"}
	var out []string
	for _, f := range all {
		if dir == "." || strings.HasPrefix(f, strings.TrimSuffix(dir, "/")+"/") {
			out = append(out, f)
		}
	}
	return out, true
}

// TestSecretBaseLayer checks that every policy inherits the built-in
// secret-file denials, and that a file that says nothing about reads gets
// the built-in read behaviour.
func TestSecretBaseLayer(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"README ci.toml": readmePolicy(t),
		"minimal":        []byte("version = 1\n[[rule]]\ntool = \"shell\"\ndecision = \"allow\"\ncommands = [\"go test ./...\"]\n"),
		"default deny":   []byte("version = 1\n[defaults]\ndecision = \"deny\"\n"),
		"allows secrets": []byte("version = 1\n[[rule]]\ntool = \"read\"\ndecision = \"allow\"\npaths = [\"**\", \".env\", \"**/id_rsa\"]\n"),
		"default.toml":   defaultPolicy,
	}
	want := map[string]Decision{".env": Deny, ".git/config": Deny, "id_rsa": Deny, "home/.ssh/id_rsa": Deny, "src/main.go": Allow}
	for name, data := range files {
		p, err := Parse(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for path, d := range want {
			r := p.Decide(Action{Class: ClassRead, Paths: []Path{{Requested: path}}})
			if r.Decision != d || d == Deny && r.Rule != RuleSecrets {
				t.Errorf("%s: read %s = %s by %s, want %s", name, path, r.Decision, r.Rule, d)
			}
		}
		if w := strings.Join(p.Warnings(), "\n"); strings.Contains(w, "secret_denials") {
			t.Errorf("%s: warns about secret_denials without the setting: %s", name, w)
		}
	}

	// README's ci.toml allows what a model runs, and not through -exec.
	readme, err := Parse("README ci.toml", readmePolicy(t))
	if err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]Decision{
		"go test ./...": Allow, "go test -run TestX -count=1 ./policy/...": Allow,
		"go test -exec sh ./...": Ask, "go test -toolexec ./x ./...": Ask, "go test -o /tmp/x ./...": Deny,
		// the shapes the README says it accepts, and refuses
		"cd src && go test ./... 2>&1 | tail -20": Allow, "timeout 300 go test ./...": Allow,
		"CGO_ENABLED=0 go build ./...": Allow, "go vet ./... || true": Allow,
		"git log --oneline -5 && cat go.mod": Allow, "sed -n '1,40p' src/server.go": Allow,
		"grep -rn TODO src --include='*.go' | head": Allow, "find . -name '*.go' -exec grep -l Deprecated {} \\;": Allow,
		"find src -name '*.go' | xargs grep -n TODO": Allow, "sed -i 's/old/new/' src/a.go": Allow,
		"mkdir -p src/gen": Allow, "rm -rf src/gen": Allow,
		"cat .env": Deny, "grep -r token .": Deny, "cd /etc && cat passwd": Deny, "LD_PRELOAD=x go test ./...": Ask,
		"echo $AWS_SECRET_ACCESS_KEY": Deny, "rm -rf build": Deny, "python script.py": Deny,
		// files a reader's options name are read facts too
		"grep -n x src/a.go --exclude-from=.env": Deny, "grep -f .env src/a.go": Deny, "grep -f src/p src/a.go": Allow,
	} {
		if r := readme.Decide(Action{Class: ClassShell, Command: cmd, Files: readmeFiles}); r.Decision != want {
			t.Errorf("README ci.toml: %s = %s by %s, want %s", cmd, r.Decision, r.Rule, want)
		}
	}

	// A file with its own read rules keeps its own fallback.
	p, err := Parse("own.toml", []byte("version = 1\n[defaults]\ndecision = \"deny\"\n[[rule]]\ntool = \"read\"\ndecision = \"allow\"\npaths = [\"src/**\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Decide(Action{Class: ClassRead, Paths: []Path{{Requested: "docs/a.md"}}}); r.Decision != Deny {
		t.Errorf("own read rules: docs/a.md = %s, want deny (the file's default)", r.Decision)
	}

	// Opting out takes an explicit setting, and the policy warns.
	p, err = Parse("off.toml", []byte("version = 1\n[defaults]\nsecret_denials = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Decide(Action{Class: ClassRead, Paths: []Path{{Requested: ".env"}}}); r.Decision != Allow {
		t.Errorf("secret_denials = false: .env = %s, want allow", r.Decision)
	}
	if w := strings.Join(p.Warnings(), "\n"); !strings.Contains(w, "secret_denials = false") {
		t.Errorf("secret_denials = false gives no warning: %q", w)
	}

	// The base rule's id cannot be taken by a file's rule.
	if _, err := Parse("x.toml", []byte("[[rule]]\nid = \"default-secrets\"\ntool = \"read\"\ndecision = \"allow\"\npaths = [\"a\"]\n")); err == nil {
		t.Error("a file's rule took the id default-secrets")
	}
}

package patch

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The hostile-configuration tests: a checkout (or sandboxed code in the
// copy) whose git configuration names programs for every way git can be
// made to run one in the commands patch mode runs (issue 30, item 1).

// evilScript is the program a hostile configuration names: it records that
// it ran, with its environment, and passes its input through (a filter).
const evilScript = "#!/bin/sh\n{ echo \"ran: $0 $*\"; env; } >> \"$(dirname \"$0\")/ran\"\ncat\n"

// hostileKey is the provider key of the tests' environment; dropKey is a
// key variable whose name does not look secret, dropped by name.
const (
	hostileKey = "sk-ant-hostile-test-key-0123456789"
	dropValue  = "gateway-credential-0123456789"
)

// evilDir makes the directory of the hostile programs: evil.sh, and a
// hooks directory where every hook git knows is evil.sh.
func evilDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "evil.sh"), []byte(evilScript), 0o755); err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(dir, "hooks")
	if err := os.Mkdir(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"reference-transaction", "post-checkout", "post-index-change", "pre-commit",
		"post-commit", "pre-auto-gc", "post-rewrite", "fsmonitor-watchman"} {
		if err := os.WriteFile(filepath.Join(hooks, h), []byte(evilScript), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// hostileConfig writes configuration naming evil programs into the git
// configuration file cfg, for attributes in .gitattributes that the
// caller writes (hostileAttributes), plus an included file.
func hostileConfig(t *testing.T, env []string, cfg, evil string) {
	t.Helper()
	prog := filepath.Join(evil, "evil.sh")
	inc := filepath.Join(evil, "included.config")
	if err := os.WriteFile(inc, []byte("[filter \"inc\"]\n\tclean = "+prog+" inc-clean\n\tsmudge = "+prog+" inc-smudge\n\trequired = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{
		{"filter.evil.clean", prog + " clean"}, {"filter.evil.smudge", prog + " smudge"}, {"filter.evil.required", "true"},
		{"filter.Proc.process", prog + " process"},
		{"filter.a.b.clean", prog + " dotted"},
		{"diff.evil.textconv", prog + " textconv"}, {"diff.evil.command", prog + " diff-command"},
		{"diff.external", prog + " external"},
		{"core.fsmonitor", prog + " fsmonitor"}, {"core.hooksPath", filepath.Join(evil, "hooks")},
		{"core.pager", prog + " pager"}, {"core.sshCommand", prog + " ssh"}, {"core.askPass", prog + " askpass"},
		{"core.editor", prog + " editor"}, {"sequence.editor", prog + " seq-editor"},
		{"credential.helper", "!" + prog + " credential"},
		{"commit.gpgSign", "true"}, {"gpg.program", prog + " gpg"},
		{"gc.auto", "1"}, {"maintenance.auto", "true"},
		{"include.path", inc},
	} {
		sh(t, env, "", "git", "config", "--file", cfg, kv[0], kv[1])
	}
}

// hostileAttributes gives every file the evil drivers, and some files
// the other filters.
const hostileAttributes = "* filter=evil diff=evil\nproc.txt filter=Proc\ninc.txt filter=inc\ndot.txt filter=a.b\n"

// noneRan fails the test when a hostile program ran.
func noneRan(t *testing.T, evil, when string) {
	t.Helper()
	if data, err := os.ReadFile(filepath.Join(evil, "ran")); err == nil {
		leak := ""
		if strings.Contains(string(data), hostileKey) || strings.Contains(string(data), dropValue) {
			leak = " (with the key in its environment)"
		}
		first, _, _ := strings.Cut(string(data), "\n")
		t.Errorf("%s: a program the configuration names ran%s: %s", when, leak, first)
	}
}

// hostileEnv is the tests' git environment with a provider key, a key
// variable of a name that does not look secret, and a git directory at
// the front of PATH that records every environment git runs with.
func hostileEnv(t *testing.T) (env []string, seen string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	bin := t.TempDir()
	seen = filepath.Join(bin, "seen")
	shim := "#!/bin/sh\nenv >> " + seen + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	env = testEnv(t)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + bin + string(filepath.ListSeparator) + kv[len("PATH="):]
		}
	}
	return append(env, "ANTHROPIC_API_KEY="+hostileKey, "GW_AUTH="+dropValue), seen
}

// TestHostileCheckoutRunsNothing checks that a checkout whose .git/config
// names filters (clean, smudge and process, one through include.path),
// textconv and external diff programs, an fsmonitor, hooks, a pager, an
// ssh command and a signing program runs none of them through the git
// commands of Prepare and Write, and that git never gets the key.
func TestHostileCheckoutRunsNothing(t *testing.T) {
	t.Parallel()
	dir, plain := newRepo(t)
	writeFiles(t, dir, map[string]string{".gitattributes": hostileAttributes, "proc.txt": "p\n", "inc.txt": "i\n", "dot.txt": "d\n"})
	sh(t, plain, dir, "git", "add", "-A")
	sh(t, plain, dir, "git", "commit", "-q", "-m", "attributes")
	evil := evilDir(t)
	hostileConfig(t, plain, filepath.Join(dir, ".git", "config"), evil)
	// dirty: a change and an untracked file, which git must hash (clean)
	writeFiles(t, dir, map[string]string{"a.txt": "one\nchanged\n", "proc.txt": "p2\n", "inc.txt": "i2\n", "dot.txt": "d2\n", "untracked.txt": "u\n"})

	// Unprotected, this checkout runs code: the test is only worth
	// something if it does.
	sh(t, plain, dir, "git", "-c", "filter.Proc.process=", "status", "--short")
	if _, err := os.Stat(filepath.Join(evil, "ran")); err != nil {
		t.Fatalf("plain git status ran nothing: %v", err)
	}
	os.Remove(filepath.Join(evil, "ran"))

	env, seen := hostileEnv(t)
	c, err := Prepare(context.Background(), dir, Options{Env: env, DropEnv: []string{"GW_AUTH"}, TempDir: t.TempDir()})
	noneRan(t, evil, "Prepare")
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer c.Close()
	if !c.Dirty {
		t.Error("the copy is not dirty")
	}
	writeFiles(t, c.Root, map[string]string{"a.txt": "one\nby the agent\n", "new.txt": "new\n"})
	var buf bytes.Buffer
	res, err := c.Write(context.Background(), &buf)
	noneRan(t, evil, "Write")
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if res.Files != 2 || !strings.Contains(buf.String(), "+by the agent") {
		t.Errorf("patch of %d files:\n%s", res.Files, buf.String())
	}
	checkSeen(t, seen)
}

// checkSeen fails when git ran with the key, or never ran through the
// PATH given.
func checkSeen(t *testing.T, seen string) {
	t.Helper()
	data, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("git never ran through the PATH given: %v", err)
	}
	if strings.Contains(string(data), hostileKey) || strings.Contains(string(data), dropValue) {
		t.Error("git ran with the provider key in its environment")
	}
}

// TestHostileCopyConfigRunsNothing checks that sandboxed code in the copy
// — which may write anything in the copy's work tree, its .git included —
// cannot make the git commands of Write run a program: a config naming
// filters and hooks, a .gitattributes using them, a .git file pointing to
// a git directory of its own.
func TestHostileCopyConfigRunsNothing(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"config", "gitfile", "plain"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			env, seen := hostileEnv(t)
			var dir string
			if how == "plain" {
				dir = filepath.Join(t.TempDir(), "plain")
				writeFiles(t, dir, map[string]string{"a.txt": "one\n"})
			} else {
				dir, _ = newRepo(t)
			}
			c, err := Prepare(context.Background(), dir, Options{Env: env, DropEnv: []string{"GW_AUTH"}, TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if rel, err := filepath.Rel(c.Root, c.GitDir()); err != nil || !strings.HasPrefix(rel, "..") {
				t.Errorf("the private git directory %s is inside the copy %s", c.GitDir(), c.Root)
			}
			evil := evilDir(t)
			// What sandboxed code can do in its writable work tree.
			gitDir := filepath.Join(c.Root, ".git")
			switch how {
			case "gitfile":
				own := filepath.Join(c.Root, "own.git")
				sh(t, testEnv(t), "", "git", "init", "-q", "--bare", own)
				hostileConfig(t, testEnv(t), filepath.Join(own, "config"), evil)
				os.RemoveAll(gitDir)
				writeFiles(t, c.Root, map[string]string{".git": "gitdir: " + own + "\n"})
			default:
				if err := os.MkdirAll(gitDir, 0o755); err != nil {
					t.Fatal(err)
				}
				hostileConfig(t, testEnv(t), filepath.Join(gitDir, "config"), evil)
				writeFiles(t, gitDir, map[string]string{"info/attributes": hostileAttributes})
			}
			writeFiles(t, c.Root, map[string]string{".gitattributes": hostileAttributes, "a.txt": "one\nby the agent\n", "proc.txt": "p\n", "inc.txt": "i\n"})
			var buf bytes.Buffer
			_, err = c.Write(context.Background(), &buf)
			noneRan(t, evil, "Write")
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			if !strings.Contains(buf.String(), "+by the agent") {
				t.Errorf("patch:\n%s", buf.String())
			}
			checkSeen(t, seen)
		})
	}
}

// TestHostilePromisorRunsNothing checks that a checkout posing as a
// partial clone, whose HEAD names a commit it lacks, cannot make git fetch
// it through the remote program its configuration names (a lazy fetch
// runs remote.origin.uploadpack, even for a local remote).
func TestHostilePromisorRunsNothing(t *testing.T) {
	t.Parallel()
	dir, plain := newRepo(t)
	evil := evilDir(t)
	// a remote program that records that it ran and ends at once
	remote := "#!/bin/sh\n{ echo \"ran: $0 $*\"; env; } >> \"$(dirname \"$0\")/ran\"\nexit 1\n"
	if err := os.WriteFile(filepath.Join(evil, "remote.sh"), []byte(remote), 0o755); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	sh(t, plain, other, "git", "init", "-q", "--bare", ".")
	for _, kv := range [][2]string{
		{"core.repositoryformatversion", "1"}, {"extensions.partialClone", "origin"},
		{"remote.origin.url", other}, {"remote.origin.promisor", "true"},
		{"remote.origin.uploadpack", filepath.Join(evil, "remote.sh")},
	} {
		sh(t, plain, dir, "git", "config", kv[0], kv[1])
	}
	missing := strings.Repeat("12", 20)
	if err := os.WriteFile(filepath.Join(dir, ".git", "refs", "heads", "main"), []byte(missing+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Unprotected, git fetches the commit through the program.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "-q", "--verify", "HEAD^{commit}").Run()
	if _, err := os.Stat(filepath.Join(evil, "ran")); err != nil {
		t.Fatalf("plain git ran no lazy fetch: %v", err)
	}
	os.Remove(filepath.Join(evil, "ran"))
	env, _ := hostileEnv(t)
	c, err := Prepare(ctx, dir, Options{Env: env, TempDir: t.TempDir()})
	if err == nil {
		c.Close()
	}
	noneRan(t, evil, "Prepare")
}

package patch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// baseFiles is the committed content of the test repositories.
func baseFiles() map[string]string {
	return map[string]string{
		"a.txt":        "one\ntwo\nthree\n",
		"b.txt":        "to be deleted\n",
		"c.txt":        "to be renamed\nwith enough lines\nto be found\nas a rename\n",
		"crlf.txt":     "dos\r\nline\r\n",
		"nonl.txt":     "no final newline",
		"run.sh":       "#!/bin/sh\necho hi\n",
		"sub/deep.txt": "deep\n",
		".gitignore":   "*.log\n",
	}
}

// newRepo makes a git repository with baseFiles committed, and returns
// its directory and the environment to run git in it.
func newRepo(t testing.TB) (string, []string) {
	env := testEnv(t)
	dir := filepath.Join(t.TempDir(), "checkout")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sh(t, env, dir, "git", "init", "-q", "-b", "main")
	writeFiles(t, dir, baseFiles())
	sh(t, env, dir, "git", "add", "-A")
	sh(t, env, dir, "git", "commit", "-q", "-m", "base")
	return dir, env
}

// agentWork changes the copy the way the agent would: an edit, a new
// file, a deletion, a rename with git mv, a chmod, a binary file, a CRLF
// edit and an edit keeping the missing final newline.
func agentWork(t *testing.T, env []string, root string) {
	writeFiles(t, root, map[string]string{
		"a.txt":    "one\nTWO\nthree\n",
		"new.txt":  "created\n",
		"crlf.txt": "dos\r\nLINE\r\n",
		"nonl.txt": "still no final newline",
	})
	if err := os.WriteFile(filepath.Join(root, "blob.bin"), []byte{0, 1, 2, 0xff, 0, 'x', '\n'}, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "b.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh(t, env, root, "git", "mv", "c.txt", "sub/renamed.txt")
	writeFiles(t, root, map[string]string{"build.log": "ignored\n"})
}

func TestGitRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, env := newRepo(t)
	// Uncommitted and untracked files are part of the base; ignored ones
	// are not copied.
	writeFiles(t, dir, map[string]string{"sub/deep.txt": "deep, edited\n", "untracked.txt": "mine\n", "secret.log": "x\n"})
	// A file whose time changed but not its content: git status would
	// refresh the index's stat cache and write .git/index.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "a.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, dir, true)

	c, err := Prepare(ctx, dir, Options{Env: env, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Git || !c.Dirty || len(c.BaseCommit) != 40 {
		t.Fatalf("copy: git=%v dirty=%v base=%q, want a dirty git base", c.Git, c.Dirty, c.BaseCommit)
	}
	if got := readFile(t, filepath.Join(c.Root, "sub/deep.txt")); got != "deep, edited\n" {
		t.Errorf("uncommitted change not in the copy: %q", got)
	}
	if got := readFile(t, filepath.Join(c.Root, "untracked.txt")); got != "mine\n" {
		t.Errorf("untracked file not in the copy: %q", got)
	}
	if _, err := os.Stat(filepath.Join(c.Root, "secret.log")); err == nil {
		t.Errorf("ignored file copied")
	}
	if st := sh(t, env, c.Root, "git", "status", "--porcelain"); st != "" {
		t.Errorf("the copy's git status is not clean at the start:\n%s", st)
	}

	agentWork(t, env, c.Root)
	var buf bytes.Buffer
	res, err := c.Write(ctx, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 8 {
		t.Errorf("files = %d, want 8\n%s", res.Files, buf.String())
	}
	if after := treeHash(t, dir, true); after != before {
		t.Fatalf("the checkout changed")
	}
	patch := buf.String()
	for _, want := range []string{"base-commit: " + c.BaseCommit, "dirty-base: true", "GIT binary patch",
		"rename from c.txt", "old mode 100644\nnew mode 100755", "\\ No newline at end of file", "LINE\r\n"} {
		if !strings.Contains(patch, want) {
			t.Errorf("patch lacks %q:\n%s", want, patch)
		}
	}

	// The patch applies to a copy of the checkout as it was and gives the
	// agent's tree.
	target := filepath.Join(t.TempDir(), "target")
	sh(t, env, "", "cp", "-a", dir, target)
	applyPatch(t, env, target, patch, "git", "apply", "--check")
	applyPatch(t, env, target, patch, "git", "apply")
	os.Remove(filepath.Join(c.Root, "build.log"))
	os.Remove(filepath.Join(target, "secret.log"))
	if got, want := treeHash(t, target, false, ".git"), treeHash(t, c.Root, false, ".git"); got != want {
		t.Errorf("applied tree differs from the copy\n%s", sh(t, env, "", "diff", "-r", target, c.Root))
	}
}

func TestGitCleanBaseAppliesToFreshClone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, env := newRepo(t)
	c, err := Prepare(ctx, filepath.Join(dir, "sub"), Options{Env: env, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Dirty {
		t.Error("a clean checkout is reported dirty")
	}
	if filepath.Base(c.Root) != "sub" {
		t.Errorf("root %s is not the copy of the subdirectory", c.Root)
	}
	agentWork(t, env, filepath.Dir(c.Root))
	var buf bytes.Buffer
	if _, err := c.Write(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	sh(t, env, "", "git", "clone", "-q", dir, clone)
	sh(t, env, clone, "git", "checkout", "-q", c.BaseCommit)
	applyPatch(t, env, clone, buf.String(), "git", "apply", "--check")
	applyPatch(t, env, clone, buf.String(), "git", "apply")
	os.Remove(filepath.Join(filepath.Dir(c.Root), "build.log"))
	if got, want := treeHash(t, clone, false, ".git"), treeHash(t, filepath.Dir(c.Root), false, ".git"); got != want {
		t.Errorf("applied tree differs from the copy")
	}
}

func TestEmptyChangeWritesNothing(t *testing.T) {
	t.Parallel()
	dir, env := newRepo(t)
	c, err := Prepare(context.Background(), dir, Options{Env: env, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	writeFiles(t, c.Root, map[string]string{"x.log": "ignored\n"})
	var buf bytes.Buffer
	res, err := c.Write(context.Background(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 || res.Files != 0 || res.Bytes != 0 {
		t.Errorf("empty change: %d files, %d bytes: %q", res.Files, res.Bytes, buf.String())
	}
	if res.SHA256 != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("sha256 of nothing = %s", res.SHA256)
	}
}

func TestPlainCopy(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	dir := filepath.Join(t.TempDir(), "plain")
	writeFiles(t, dir, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "gone\n", "nonl.txt": "x", "d/e.txt": "e\n"})
	before := treeHash(t, dir, true)
	c, err := Prepare(context.Background(), dir, Options{Env: env, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Git || c.Dirty || c.BaseCommit != "" {
		t.Errorf("plain copy: git=%v dirty=%v base=%q", c.Git, c.Dirty, c.BaseCommit)
	}
	if _, err := os.Stat(filepath.Join(c.Root, ".git")); err == nil {
		t.Error("the plain copy has a .git inside")
	}
	writeFiles(t, c.Root, map[string]string{"a.txt": "one\nTWO\n", "new/f.txt": "new\n", "nonl.txt": "y"})
	os.Remove(filepath.Join(c.Root, "b.txt"))
	var buf bytes.Buffer
	res, err := c.Write(context.Background(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 4 || !strings.Contains(buf.String(), "base-commit: none (not a git repository)") {
		t.Errorf("files = %d, patch:\n%s", res.Files, buf.String())
	}
	if treeHash(t, dir, true) != before {
		t.Fatal("the workspace changed")
	}
	target := filepath.Join(t.TempDir(), "target")
	sh(t, env, "", "cp", "-a", dir, target)
	applyPatch(t, env, target, buf.String(), "patch", "-p1", "-s")
	if got, want := treeHash(t, target, false), treeHash(t, c.Root, false); got != want {
		t.Errorf("patch -p1 gave another tree\n%s", sh(t, env, "", "diff", "-r", target, c.Root))
	}
}

func TestPlainCopySizeBound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a": strings.Repeat("x", 600), "b": strings.Repeat("y", 600)})
	_, err := Prepare(context.Background(), dir, Options{Env: testEnv(t), MaxSize: 1000, TempDir: t.TempDir()})
	var se *SizeError
	if !errors.As(err, &se) || se.Max != 1000 {
		t.Fatalf("err = %v, want a SizeError", err)
	}
	c, err := Prepare(context.Background(), dir, Options{Env: testEnv(t), MaxSize: 1200, TempDir: t.TempDir()})
	if err != nil {
		t.Fatalf("at the bound: %v", err)
	}
	c.Close()
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// applyPatch runs a patch program in dir with the patch on stdin.
func applyPatch(t *testing.T, env []string, dir, patch string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader(patch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s\npatch:\n%s", name, args, err, out, patch)
	}
}

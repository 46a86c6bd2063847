package toolkit

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgKeysStrict checks that duplicate keys and keys that differ from
// the schema's only by case make a call malformed, for the bash tool and
// for a file tool, and that a good call's summary is its decoded command.
func TestArgKeysStrict(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, nil)
	read := NewRead(newWS(t, map[string]string{"a": "x"}), NewReadTracker())
	for _, tc := range []struct {
		tool Tool
		args string
		want string // "" for a good call
	}{
		{b, `{"command": "ls", "Command": "find . -name k -delete"}`, `"Command" differs from "command" only by case`},
		{b, `{"command": "ls", "command": "rm -rf x"}`, `"command" is given twice`},
		{b, `{"COMMAND": "rm -rf x"}`, "only by case"},
		{b, `{"command": "ls"}`, ""},
		{read, `{"path": "a", "Path": ".env"}`, "only by case"},
		{read, `{"path": "a", "path": ".env"}`, "given twice"},
	} {
		eff, err := tc.tool.Effects(json.RawMessage(tc.args))
		if tc.want == "" {
			if err != nil || eff.Summary != "ls" {
				t.Errorf("%s: effects %+v, %v; want summary ls", tc.args, eff, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Effects error %v, want %q", tc.args, err, tc.want)
		}
		res, err := tc.tool.Run(t.Context(), json.RawMessage(tc.args))
		if err != nil || !res.IsError || !strings.Contains(res.Content, tc.want) {
			t.Errorf("%s: Run = %+v, %v; want an error result with %q", tc.args, res, err, tc.want)
		}
	}
}

// TestCleanPath checks the PATH the bash tool's commands get.
func TestCleanPath(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws-link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   string
		add  []string
		want string
	}{
		{"/usr/bin:/bin", nil, "/usr/bin:/bin"},
		{":/usr/bin::.:bin:./x:/bin:", nil, "/usr/bin:/bin"},
		{ws + "/bin:/usr/bin:" + ws + ":" + link + "/tools", nil, "/usr/bin"},
		{"/usr/bin:/usr/bin", nil, "/usr/bin"},
		{"/usr/bin", []string{"node_modules/.bin"}, "/usr/bin:" + ws + "/node_modules/.bin"},
		{"", []string{"/opt/x"}, "/opt/x"},
	} {
		if got := cleanPath(tc.in, ws, tc.add); got != tc.want {
			t.Errorf("cleanPath(%q, add %q) = %q, want %q", tc.in, tc.add, got, tc.want)
		}
	}
}

// TestBashPathPlanted checks that a program checked into the workspace is
// not run for an allowed `git status` however the inherited PATH names
// the workspace, and that PathAdd adds a directory on purpose.
func TestBashPathPlanted(t *testing.T) {
	t.Parallel()
	for _, entry := range []string{".", "", "bin", "WS/bin"} {
		b, dir := newTestBash(t, func(c *BashConfig) {
			e := strings.ReplaceAll(entry, "WS", c.Dir)
			c.Env[0] = "PATH=" + e + ":" + os.Getenv("PATH")
		})
		for _, d := range []string{dir, filepath.Join(dir, "bin")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "git"), []byte("#!/bin/sh\necho PLANTED\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		res := callBash(t, t.Context(), b, "git --version; echo \"$PATH\"", 0)
		if strings.Contains(res.Content, "PLANTED") {
			t.Errorf("PATH entry %q: the planted git ran: %q", entry, res.Content)
		}
	}
	b, dir := newTestBash(t, func(c *BashConfig) { c.PathAdd = []string{"tools"} })
	if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tools", "mytool"), []byte("#!/bin/sh\necho MINE\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if res := callBash(t, t.Context(), b, "mytool", 0); strings.TrimSpace(res.Content) != "MINE" {
		t.Errorf("PathAdd tool: %+v", res)
	}
}

// TestBashFakeBareRepo checks that a git directory the workspace was made
// into (HEAD, objects/, refs/ and a config naming a textconv program) no
// longer runs that program for `git log -p`, at the root and with -C in a
// monorepo subfolder, while plain git does.
func TestBashFakeBareRepo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, sub := range []string{"", "pkg"} {
		b, dir := newTestBash(t, nil)
		marks := t.TempDir()
		mark := filepath.Join(marks, "textconv-ran")
		plain := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + marks, "GIT_CONFIG_NOSYSTEM=1"}
		run := func(d string, args ...string) string {
			t.Helper()
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = d, plain
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("git %q: %v\n%s", args, err, out)
			}
			return string(out)
		}
		src := t.TempDir()
		run(src, "init", "-q", ".")
		if err := os.WriteFile(filepath.Join(src, "f.txt"), []byte("one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		run(src, "add", ".")
		run(src, "-c", "user.name=ci", "-c", "user.email=ci@example.invalid", "commit", "-qm", "one")
		bare := filepath.Join(dir, sub)
		if sub != "" {
			run(dir, "init", "-q", ".") // the monorepo
		}
		run(marks, "clone", "-q", "--bare", src, bare)
		run(bare, "config", "diff.x.textconv", "touch "+mark+"; cat")
		if err := os.WriteFile(filepath.Join(bare, "info", "attributes"), []byte("* diff=x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		run(bare, "log", "-p")
		if err := os.Remove(mark); err != nil {
			t.Fatalf("sub %q: plain git did not run the textconv program, so the test proves nothing: %v", sub, err)
		}
		cmd := "git log -p"
		if sub != "" {
			cmd = "git -C " + sub + " log -p"
		}
		res := callBash(t, t.Context(), b, cmd, 0)
		if _, err := os.Stat(mark); !os.IsNotExist(err) {
			t.Errorf("sub %q: the fake bare repository ran its textconv program through the bash tool: %+v", sub, res)
		}
		if !strings.Contains(res.Content, "bare repository") {
			t.Errorf("sub %q: want git's refusal of an implicit bare repository, got %+v", sub, res)
		}
	}
}

// TestGrepSkipsLinked checks that grep leaves out a file with more than
// one hard link when asked to, and counts it as skipped.
func TestGrepSkipsLinked(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{".env": "TOPSECRET=1\n", "plain.txt": "TOPSECRET in plain\n"})
	if err := os.Link(filepath.Join(ws.Root(), ".env"), filepath.Join(ws.Root(), "notes.txt")); err != nil {
		t.Skip("no hard links here:", err)
	}
	deny := func(p string) bool { return p != ".env" }
	for _, skip := range []bool{false, true} {
		g := newGrepLinked(ws, deny, skip)
		res, err := g.Run(t.Context(), json.RawMessage(`{"pattern": "TOPSECRET", "path": "."}`))
		if err != nil {
			t.Fatal(err)
		}
		leaked := strings.Contains(res.Content, "notes.txt")
		if leaked == skip || !strings.Contains(res.Content, "plain.txt") {
			t.Errorf("skipLinked %v: %q", skip, res.Content)
		}
		if skip && (res.Meta.Skipped != 2 || !strings.Contains(res.Content, "2 files skipped by policy")) {
			t.Errorf("skipLinked: skipped %d, content %q; want .env and notes.txt counted", res.Meta.Skipped, res.Content)
		}
	}
}

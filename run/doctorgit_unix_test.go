//go:build unix

package run

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorGitHardened checks the git commands of `rubichan doctor`
// (issue 30, item 1): git is found in the PATH of the scrubbed
// environment, never in the workspace (a planted bin/git named in PATH
// does not run), it runs without the key, and a hostile .git/config's
// fsmonitor, hooks and pager do not run.
func TestDoctorGitHardened(t *testing.T) {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	d := newDoctorSetup(t, http.StatusOK)
	marks := t.TempDir()
	evil := filepath.Join(marks, "evil.sh")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\nenv > "+marks+"/ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	shimDir := t.TempDir()
	seen := filepath.Join(marks, "seen")
	if err := os.WriteFile(filepath.Join(shimDir, "git"), []byte("#!/bin/sh\nenv >> "+seen+"\nexec "+real+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(d.dir, "bin")
	if err := os.Mkdir(planted, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(planted, "git"), []byte("#!/bin/sh\ntouch "+marks+"/planted\necho 'git version 99'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q", d.dir},
		{"-C", d.dir, "config", "core.fsmonitor", evil},
		{"-C", d.dir, "config", "core.pager", evil},
		{"-C", d.dir, "config", "core.hooksPath", marks},
	} {
		if out, err := exec.Command(real, args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	d.vars["PATH"] = planted + string(filepath.ListSeparator) + shimDir
	d.vars["GIT_CONFIG_NOSYSTEM"] = "1"
	env := fakeEnv(d.vars)
	env.Environ = func() []string {
		var out []string
		for k, v := range d.vars {
			out = append(out, k+"="+v)
		}
		return out
	}
	code, out, errOut := runCLI(t, env, "", "doctor", "-C", d.dir)
	if code != 0 || !strings.Contains(out, "the workspace is in the repository") {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(marks, "planted")); err == nil {
		t.Error("doctor ran the git planted in the workspace")
	}
	if _, err := os.Stat(filepath.Join(marks, "ran")); err == nil {
		t.Error("doctor's git ran a program the repository's configuration names")
	}
	data, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("doctor's git did not come from the run's PATH: %v", err)
	}
	if strings.Contains(string(data), testAPIKey) {
		t.Error("doctor's git got the key")
	}
}

package toolkit

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// needLandlock fails the test when the kernel cannot enforce a required
// sandbox with the network off: the CI machine must be able to.
func needLandlock(t *testing.T) {
	t.Helper()
	if !sandbox.Linux {
		t.Skip("the sandbox runs on Linux only")
	}
	if abi := sandbox.ProbeABI(); abi < 4 {
		t.Fatalf("this test needs Landlock ABI >= 4 (filesystem and network rules); the kernel has ABI %d", abi)
	}
}

// newSandboxBash returns a sandboxed bash tool with its own workspace and
// temporary directory, and a directory outside both.
func newSandboxBash(t *testing.T, network bool) (b *Bash, ws, tmp, outside string) {
	t.Helper()
	tmp, outside = t.TempDir(), t.TempDir()
	b, ws = newTestBash(t, func(c *BashConfig) {
		c.TempDir = tmp
		c.Sandbox = BashSandbox{Enabled: true, Network: network, ABI: sandbox.ProbeABI(), Isolate: sandbox.ProbeNamespaces() == nil}
	})
	return b, ws, tmp, outside
}

// listen127 serves TCP on 127.0.0.1 until the test ends, answering every
// connection with "hello".
func listen127(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			fmt.Fprint(c, "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello")
			c.Close()
		}
	}()
	return ln.Addr().String()
}

func TestSandboxWrites(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	b, ws, tmp, outside := newSandboxBash(t, false)
	cases := []struct {
		name, command, file string
		ok                  bool
	}{
		{"workspace", "echo hi > in.txt", filepath.Join(ws, "in.txt"), true},
		{"tmpdir", `echo hi > "$TMPDIR/t.txt"`, filepath.Join(tmp, "t.txt"), true},
		{"dev null", "echo hi > /dev/null && echo hi 2>/dev/null >&2", "", true},
		{"outside", fmt.Sprintf("echo hi > %s/x", outside), filepath.Join(outside, "x"), false},
		{"outside by child of child", fmt.Sprintf(`sh -c 'sh -c "echo hi > %s/y"'`, outside), filepath.Join(outside, "y"), false},
		{"outside from a new session", fmt.Sprintf(`setsid sh -c 'mkdir %s/d' ; true`, outside), filepath.Join(outside, "d"), false},
		{"home", "touch $HOME/../x-home", filepath.Join(filepath.Dir(ws), "x-home"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := callBash(t, context.Background(), b, tc.command, 0)
			if tc.ok && res.IsError {
				t.Fatalf("%s failed: %s", tc.command, res.Content)
			}
			if !tc.ok && tc.name == "outside" {
				// Isolated, every mount outside the writable roots is
				// read-only, which the kernel checks before Landlock.
				want := "Permission denied"
				if b.box.rules.Isolate {
					want = "Read-only file system"
				}
				output, hint, _ := strings.Cut(res.Content, "[sandbox: ")
				if !res.IsError || !strings.Contains(output, want) || !strings.HasPrefix(hint, "writes outside") {
					t.Errorf("result = %q, want a %s failure with the sandbox hint", res.Content, want)
				}
			}
			if tc.file == "" {
				return
			}
			_, err := os.Stat(tc.file)
			if exists := err == nil; exists != tc.ok {
				t.Errorf("%s: file %s exists = %v, want %v (result %q)", tc.command, tc.file, exists, tc.ok, res.Content)
			}
		})
	}
}

func TestSandboxNetwork(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	addr := listen127(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	goProgram := fmt.Sprintf("%s %s connect %s", exe, sandbox.ProbeCommand, addr)
	commands := map[string]string{"go program": goProgram}
	if _, err := exec.LookPath("curl"); err == nil {
		commands["curl"] = "curl -sS --max-time 5 http://" + addr + "/"
	}
	for _, network := range []bool{false, true} {
		b, _, _, _ := newSandboxBash(t, network)
		for name, command := range commands {
			t.Run(fmt.Sprintf("%s network=%v", name, network), func(t *testing.T) {
				res := callBash(t, context.Background(), b, command, 10)
				if res.IsError == network {
					t.Fatalf("%s: error=%v with network=%v: %s", command, res.IsError, network, res.Content)
				}
				if !network && !strings.Contains(res.Content, "[sandbox: network connections are blocked") {
					t.Errorf("result %q lacks the network hint", res.Content)
				}
			})
		}
	}
}

// TestSandboxFailsClosed proves that a command whose sandbox cannot be
// applied (Landlock refuses a directory rule on a regular file) does not
// run: neither the spawner nor the one-shot helper it falls back to runs
// it, and the result is exit 126 with the reason.
func TestSandboxFailsClosed(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	b, ws := newTestBash(t, func(c *BashConfig) {
		c.Sandbox = BashSandbox{Enabled: true, ABI: sandbox.ProbeABI(), Writable: []string{file}}
	})
	t.Cleanup(func() { b.Close() })
	res := callBash(t, context.Background(), b, "touch ran", 0)
	if !res.IsError || res.Meta.ExitCode == nil || *res.Meta.ExitCode != 126 || !strings.Contains(res.Content, "rubichan sandbox: landlock") {
		t.Errorf("result = %+v, want exit 126 with the sandbox's reason", res)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Error("the command ran unconfined")
	}
}

// TestSandboxWrap proves that a command wrapped for a long-lived start
// (a stdio MCP server) is confined: its write outside fails and leaves
// no file, its write in the workspace works, and its pipes work.
func TestSandboxWrap(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	ws, tmp, outside := t.TempDir(), t.TempDir(), t.TempDir()
	box := NewSandbox(BashSandbox{Enabled: true, ABI: sandbox.ProbeABI()}, ws, tmp, nil)
	defer box.Close()
	cmd := exec.Command("/bin/sh", "-c", "read x; echo $x > in.txt; echo $x > "+outside+"/x; echo done")
	cmd.Dir, cmd.Env = ws, []string{"PATH=/usr/bin:/bin"}
	cmd.Stdin = strings.NewReader("hi\n")
	box.Wrap(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Permission denied") || !strings.HasSuffix(string(out), "done\n") {
		t.Fatalf("output %q, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("the wrapped command wrote outside")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "in.txt")); string(b) != "hi\n" {
		t.Errorf("in.txt = %q", b)
	}
}

// TestSandboxSpawnerLost proves that when the spawner dies mid-run the
// next commands still run, and confined: through the one-shot helper.
func TestSandboxSpawnerLost(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	b, ws, _, outside := newSandboxBash(t, false)
	t.Cleanup(func() { b.Close() })
	if res := callBash(t, context.Background(), b, "true", 0); res.IsError {
		t.Fatal(res.Content)
	}
	b.box.mu.Lock()
	sp := b.box.sp
	b.box.mu.Unlock()
	if sp == nil {
		t.Fatal("no spawner after the first command")
	}
	if err := syscall.Kill(sp.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	res := callBash(t, context.Background(), b, "echo hi > in.txt; echo hi > "+outside+"/x", 0)
	if !strings.Contains(res.Content, "Permission denied") {
		t.Errorf("result %q, want the write outside denied", res.Content)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("a command ran unconfined after the spawner died")
	}
	if _, err := os.Stat(filepath.Join(ws, "in.txt")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}
}

func TestSandboxCacheEnv(t *testing.T) {
	t.Parallel()
	env := []string{"GOCACHE=/home/u/.cache/go-build", "PATH=/bin"}
	got := cacheEnv(env, []string{"/ws", "/tmp/r"}, "/tmp/r/cache")
	want := []string{"PATH=/bin", "GOCACHE=/tmp/r/cache/go-build", "XDG_CACHE_HOME=/tmp/r/cache"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("cacheEnv = %q, want %q", got, want)
	}
	kept := cacheEnv([]string{"GOCACHE=/ws/.cache", "XDG_CACHE_HOME=/ws/.x"}, []string{"/ws"}, "/tmp/r/cache")
	if strings.Join(kept, " ") != "GOCACHE=/ws/.cache XDG_CACHE_HOME=/ws/.x" {
		t.Errorf("cacheEnv changed caches inside a writable root: %q", kept)
	}
}

// BenchmarkBashSandbox measures one trivial command (`true`) with the
// sandbox off, through the run's spawner (what commands take) and through
// the one-shot helper (a rubichan start-up per command: the fallback, and
// the design before the spawner); the difference between off and spawner
// is what the sandbox costs per call (target: at most 1.5 ms). The shell
// is /bin/sh. cpu-ms/op is the CPU time of everything involved per call,
// which load does not inflate as it does wall time; spawner-peak-MB the
// spawner's peak resident set, spawner-anon-MB its anonymous part.
//
// spawner and helper are isolated (namespaces of their own) where the
// system allows, as a run's are; spawner-landlock is the spawner without
// them (Landlock alone), what every command got before isolation.
func BenchmarkBashSandbox(b *testing.B) {
	isolate := sandbox.ProbeNamespaces() == nil
	for _, mode := range []string{"off", "spawner", "spawner-landlock", "helper"} {
		b.Run("sandbox="+mode, func(b *testing.B) {
			dir := b.TempDir()
			tool := NewBash(BashConfig{
				Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}, Shell: "/bin/sh", TempDir: b.TempDir(),
				Sandbox: BashSandbox{Enabled: mode != "off", ABI: sandbox.ProbeABI(), Isolate: isolate && mode != "spawner-landlock"},
			})
			if mode == "helper" {
				tool.box.tried = true // as if the spawner could not be started
			}
			args := []byte(`{"command":"true"}`)
			b.Cleanup(func() { tool.Close() })
			// The first call starts the run's spawner, once per run: not
			// per call.
			if _, err := tool.Run(context.Background(), args); err != nil {
				b.Fatal(err)
			}
			var pids []int
			if tool.box != nil && tool.box.sp != nil {
				pids = append(pids, tool.box.sp.Pid())
			}
			cpu := treeCPU(pids...)
			for b.Loop() {
				res, err := tool.Run(context.Background(), args)
				if err != nil || res.IsError {
					b.Fatalf("%v %s", err, res.Content)
				}
			}
			// CPU time of everything involved (this process, the spawner,
			// the shells), which load does not inflate as it does wall time.
			b.ReportMetric(float64(treeCPU(pids...)-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			// The spawner's peak resident set (budget: 6 MB), and what of
			// its resident set is its own (not the executable's pages).
			for _, pid := range pids {
				b.ReportMetric(procStatusMB(pid, "VmHWM"), "spawner-peak-MB")
				b.ReportMetric(procStatusMB(pid, "RssAnon"), "spawner-anon-MB")
			}
		})
	}
}

// TestSandboxStopsGroups proves that commands the spawner starts keep
// the bash tool's timeout and kill semantics: a timeout stops the group
// (SIGTERM, then SIGKILL for a shell that ignores SIGTERM), and what a
// command leaves in its group is killed when it ends.
func TestSandboxStopsGroups(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	b, _, _, _ := newSandboxBash(t, false)
	t.Cleanup(func() { b.Close() })
	cases := []struct {
		command string
		timeout float64
		want    string
	}{
		{"sleep 100 & echo $!", 0.5, "[timed out after 500ms; the process group got SIGTERM]"},
		{"sleep 100 >/dev/null 2>&1 & echo $!", 30, ""},
		{"trap '' TERM; sleep 100 & echo $$ $!; wait", 0.3, "[timed out after 300ms; the process group got SIGTERM, then SIGKILL after 300ms]\n[signal: killed]"},
	}
	for _, tc := range cases {
		start := time.Now()
		res := callBash(t, t.Context(), b, tc.command, tc.timeout)
		if elapsed := time.Since(start); elapsed > time.Duration(min(tc.timeout, 5)*float64(time.Second))+testGrace+3*time.Second {
			t.Errorf("%s: took %v", tc.command, elapsed)
		}
		if tc.want == "" && res.IsError || tc.want != "" && !strings.HasSuffix(res.Content, tc.want) {
			t.Errorf("%s: result %q, want it to end in %q", tc.command, res.Content, tc.want)
		}
		line, _, _ := strings.Cut(res.Content, "\n")
		waitGone(t, parsePIDs(t, line)...)
	}
}

// TestSandboxAwaitsSettling proves that what is left to settle after a
// command's status (the spawner's kill of its group and its reap, the
// reaper's sweep) is waited for before the sandbox starts its next
// command and before it closes: nothing an earlier command left behind
// runs beside the next one, nor outlives the run.
func TestSandboxAwaitsSettling(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	b, _, _, _ := newSandboxBash(t, false)
	t.Cleanup(func() { b.Close() })
	for _, tc := range []struct {
		name string
		next func() // returns once done
	}{
		{"next command", func() { callBash(t, t.Context(), b, "echo next", 30) }},
		{"close", func() { b.box.Close() }},
	} {
		release := make(chan struct{})
		var once sync.Once
		free := func() { once.Do(func() { close(release) }) }
		t.Cleanup(free) // before b.Close, which waits for it
		b.box.later(func() { <-release })
		done := make(chan struct{})
		go func() {
			defer close(done)
			tc.next()
		}()
		select {
		case <-done:
			t.Fatalf("%s: done while an earlier command had not settled", tc.name)
		case <-time.After(100 * time.Millisecond):
		}
		free()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: not done 10 s after the earlier command settled", tc.name)
		}
	}
}

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// spawnRun spawns sh -c command through sp with its output in a file and
// returns the output and the status.
func spawnRun(t testing.TB, sp *Spawner, dir, command string) (string, Status) {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	p, err := sp.Spawn(SpawnRequest{Path: "/bin/sh", Args: []string{"sh", "-c", command}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: dir,
		Stdin: null, Stdout: out, Stderr: out})
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out.Name())
	return string(b), st
}

func startTestSpawner(t testing.TB, r Rules) *Spawner {
	t.Helper()
	sp, err := StartSpawner("/proc/self/exe", r, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sp.Close() })
	return sp
}

// TestSpawner proves that the commands the spawner starts are confined:
// a write outside fails and leaves no file, also from a grandchild and a
// process in a new session; writes in the writable directory work; the
// exit status and a signal come back.
func TestSpawner(t *testing.T) {
	abi := ProbeABI()
	if abi < minNetABI {
		t.Fatalf("this test needs Landlock ABI >= %d; the kernel has ABI %d", minNetABI, abi)
	}
	ws, outside := t.TempDir(), t.TempDir()
	sp := startTestSpawner(t, Rules{Writable: []string{ws}, ABI: abi})
	cases := []struct {
		name, command, file string
		ok                  bool
	}{
		{"inside", "echo hi > in.txt", filepath.Join(ws, "in.txt"), true},
		{"outside", "echo hi > " + outside + "/x", filepath.Join(outside, "x"), false},
		{"grandchild", `sh -c 'sh -c "echo hi > ` + outside + `/y"'`, filepath.Join(outside, "y"), false},
		{"new session", "setsid sh -c 'mkdir " + outside + "/d'; sleep 0.2", filepath.Join(outside, "d"), false},
	}
	for _, tc := range cases {
		out, st := spawnRun(t, sp, ws, tc.command)
		if (st.ExitCode() == 0) != tc.ok && tc.name != "new session" {
			t.Errorf("%s: status %v, output %q", tc.name, st, out)
		}
		if _, err := os.Stat(tc.file); (err == nil) != tc.ok {
			t.Errorf("%s: %s exists = %v, want %v (output %q)", tc.name, tc.file, err == nil, tc.ok, out)
		}
		if !tc.ok && tc.name == "outside" && !strings.Contains(out, "Permission denied") {
			t.Errorf("%s: output %q, want Permission denied", tc.name, out)
		}
	}
	// A request bigger than the server's first read.
	if out, st := spawnRun(t, sp, ws, ": "+strings.Repeat("x", 100<<10)+"; echo big"); st.ExitCode() != 0 || out != "big\n" {
		t.Errorf("big command: status %v, output %q", st, out)
	}
	// The command has its three descriptors and no other (3 is the
	// directory ls reads).
	if out, _ := spawnRun(t, sp, ws, "exec ls -1 /proc/self/fd"); out != "0\n1\n2\n3\n" {
		t.Errorf("descriptors of a command: %q, want 0 1 2 and ls's own", out)
	}
	if _, st := spawnRun(t, sp, ws, "exit 3"); st.ExitCode() != 3 || st.String() != "exit status 3" {
		t.Errorf("exit 3: status %v", st)
	}
	if _, st := spawnRun(t, sp, ws, "kill -9 $$"); st.Exited() || st.String() != "signal: killed" {
		t.Errorf("kill -9: status %v", st)
	}
}

// TestSpawnerTellsStatusAtExit proves that the spawner sends a command's
// status as soon as it exits, before the client asks (so a client that
// has read the output to its end finds it waiting), keeps the leader a
// zombie — and what it left in its group alive — until the client asks,
// and then kills the group, reaps the leader and says "reaped".
func TestSpawnerTellsStatusAtExit(t *testing.T) {
	sp := startTestSpawner(t, Rules{ABI: ProbeABI()})
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	// unasked starts command and returns what the spawner says before
	// the client asks anything.
	unasked := func(command string, out *os.File) (*Process, string) {
		t.Helper()
		p, err := sp.Spawn(SpawnRequest{Path: "/bin/sh", Args: []string{"sh", "-c", command}, Env: []string{"PATH=/usr/bin:/bin"},
			Stdin: null, Stdout: out, Stderr: out})
		if err != nil {
			t.Fatal(err)
		}
		_ = p.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		return p, p.line()
	}
	p, l := unasked("sleep 100 >/dev/null 2>&1 & echo $!; exit 7", out)
	if l != "exit 7 " {
		t.Fatalf("unasked, the spawner said %q; want the status, exit 7", l)
	}
	leader := fmt.Sprintf("/proc/%d/stat", p.Pid)
	if stat, err := os.ReadFile(leader); err != nil || !strings.Contains(string(stat), ") Z ") {
		t.Errorf("leader before the client asked: %q, %v; want a zombie", stat, err)
	}
	b, _ := os.ReadFile(out.Name())
	var left int
	if _, err := fmt.Sscan(string(b), &left); err != nil {
		t.Fatalf("output %q: %v", b, err)
	}
	if syscall.Kill(left, 0) != nil {
		t.Errorf("the command's leftover %d is gone before the client asked", left)
	}
	if err := p.Signal(0); err != nil {
		t.Fatal(err)
	}
	if err := p.Settled(); err != nil {
		t.Fatalf("settled: %v", err)
	}
	if _, err := os.Stat(leader); err == nil {
		t.Errorf("leader %d not reaped once settled", p.Pid)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(-p.Pid, 0) != syscall.ESRCH {
		if time.Now().After(deadline) {
			t.Fatalf("group %d still has members once settled", p.Pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A signal's death is told the same way.
	if p, l = unasked("kill -9 $$", null); l != "exit -1 killed" {
		t.Errorf("unasked, after kill -9 the spawner said %q; want exit -1 killed", l)
	}
	_ = p.Signal(0)
	if err := p.Settled(); err != nil {
		t.Errorf("settled after kill -9: %v", err)
	}
}

// TestSpawnerProcessors proves that the spawner runs its Go runtime on
// two Ps whatever the machine (GOMAXPROCS=2 in its environment, see
// StartSpawner) and that its commands do not inherit that: they get their
// requests' environments.
func TestSpawnerProcessors(t *testing.T) {
	sp := startTestSpawner(t, Rules{ABI: ProbeABI()})
	if !slices.Contains(sp.cmd.Env, "GOMAXPROCS=2") {
		t.Errorf("spawner environment %q, want GOMAXPROCS=2", sp.cmd.Env)
	}
	if out, st := spawnRun(t, sp, t.TempDir(), "echo ${GOMAXPROCS-unset}"); st.ExitCode() != 0 || out != "unset\n" {
		t.Errorf("a command's GOMAXPROCS: %q (%v), want unset", out, st)
	}
}

// TestSpawnerSignal proves that a running command's group can be
// stopped through the spawner, and that what the leader leaves in its
// group is killed when it exits.
func TestSpawnerSignal(t *testing.T) {
	sp := startTestSpawner(t, Rules{ABI: ProbeABI()})
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	p, err := sp.Spawn(SpawnRequest{Path: "/bin/sh", Args: []string{"sh", "-c", "sleep 100 & wait"}, Env: []string{"PATH=/usr/bin:/bin"},
		Stdin: null, Stdout: null, Stderr: null})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if err := p.Terminate(); err != nil {
		t.Fatal(err)
	}
	st, err := p.Wait()
	if err != nil || st.Exited() {
		t.Fatalf("status %v, %v; want a signal", st, err)
	}
	// The killed members are reaped by init (this test is no subreaper).
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(-p.Pid, 0) != syscall.ESRCH {
		if time.Now().After(deadline) {
			t.Fatalf("group %d still has members", p.Pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSpawnerFailsClosed proves that a spawner that cannot confine
// itself (Landlock refuses a directory rule on a regular file) does not
// start, and says why.
func TestSpawnerFailsClosed(t *testing.T) {
	abi := ProbeABI()
	if abi < 1 {
		t.Fatalf("this test needs Landlock; the kernel has ABI %d", abi)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sp, err := StartSpawner("/proc/self/exe", Rules{ABI: abi, Writable: []string{file}}, nil)
	if err == nil {
		sp.Close()
		t.Fatal("StartSpawner succeeded with rules it cannot apply")
	}
	if !strings.Contains(err.Error(), "landlock") {
		t.Errorf("error %q does not say landlock failed", err)
	}
}

// BenchmarkSpawn compares starting `sh -c true` directly with starting
// it through the spawner.
func BenchmarkSpawn(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/sh", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spawner", func(b *testing.B) {
		sp := startTestSpawner(b, Rules{Writable: []string{b.TempDir()}, ABI: ProbeABI()})
		dir := b.TempDir()
		b.ResetTimer()
		for b.Loop() {
			if _, st := spawnRun(b, sp, dir, "true"); st.ExitCode() != 0 {
				b.Fatal(st)
			}
		}
	})
}

// BenchmarkStartSpawner measures a run's one start of the spawner, with
// and without namespaces (isolate; see Rules.Namespaces), and the probe
// of namespaces a run makes before it starts (ProbeNamespaces).
func BenchmarkStartSpawner(b *testing.B) {
	for _, isolate := range []bool{false, true} {
		b.Run(fmt.Sprintf("isolate=%v", isolate), func(b *testing.B) {
			r := Rules{Writable: []string{b.TempDir()}, ABI: ProbeABI(), Isolate: isolate}
			for b.Loop() {
				sp, err := StartSpawner("/proc/self/exe", r, nil)
				if err != nil {
					b.Fatal(err)
				}
				sp.Close()
			}
		})
	}
	b.Run("probe", func(b *testing.B) {
		for b.Loop() {
			if err := ProbeNamespaces(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestCommandSocket: the client's end of a command's socket is in the
// runtime's poller (a read takes a deadline) and the spawner's end is
// blocking (its server reads a request whole); bytes go both ways.
func TestCommandSocket(t *testing.T) {
	ours, theirs, err := commandSocket()
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	defer syscall.Close(theirs)
	if flags, err := unix.FcntlInt(uintptr(theirs), syscall.F_GETFL, 0); err != nil || flags&syscall.O_NONBLOCK != 0 {
		t.Errorf("the spawner's end: flags %#x, %v; want blocking", flags, err)
	}
	if err := ours.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		t.Fatalf("the client's end takes no deadline (%v): it is not in the poller", err)
	}
	if _, err := ours.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a read with nothing sent, past its deadline: %v", err)
	}
	_ = ours.SetReadDeadline(time.Time{})
	if _, err := syscall.Write(theirs, []byte("pid 1\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := ours.Read(buf); string(buf[:n]) != "pid 1\n" || err != nil {
		t.Errorf("read %q, %v", buf[:n], err)
	}
	if _, err := ours.Write([]byte{0}); err != nil {
		t.Fatal(err)
	}
	if n, err := syscall.Read(theirs, buf); n != 1 || buf[0] != 0 || err != nil {
		t.Errorf("the spawner read %q, %v", buf[:max(n, 0)], err)
	}
}

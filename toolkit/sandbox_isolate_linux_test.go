package toolkit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// probeCmd is the shell command that runs the test binary's probe
// (testProbe) with args.
func probeCmd(t *testing.T, args ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe + " " + testProbeCommand + " " + strings.Join(args, " ")
}

// fileFacts is what a metadata call could change about a file: mode,
// owner, times (ctime changes with any of them) and its one xattr.
func fileFacts(t *testing.T, path string) string {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := syscall.Getxattr(path, "user.rubichan", buf)
	return fmt.Sprintf("mode %o uid %d gid %d mtime %v ctime %v xattr %q", st.Mode, st.Uid, st.Gid, st.Mtim, st.Ctim, buf[:max(n, 0)])
}

// TestSandboxMetadata proves that a sandboxed command cannot change the
// metadata of a file outside the writable roots — its mode (the setuid
// bit included), owner, times or extended attributes, which Landlock has
// no right for — while the same calls work in the workspace: `chmod +x`
// a script there and run it.
func TestSandboxMetadata(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	for _, via := range []string{"spawner", "helper"} {
		t.Run(via, func(t *testing.T) { testSandboxMetadata(t, via) })
	}
}

// newSandboxBashVia is newSandboxBash whose commands go through the
// spawner or, via "helper", the one-shot helper (as a stdio MCP server's
// do).
func newSandboxBashVia(t *testing.T, network bool, via string) (b *Bash, ws, tmp, outside string) {
	t.Helper()
	b, ws, tmp, outside = newSandboxBash(t, network)
	t.Cleanup(func() { b.Close() })
	if via == "helper" {
		b.box.tried = true // as if the spawner could not be started
	}
	return b, ws, tmp, outside
}

func testSandboxMetadata(t *testing.T, via string) {
	b, ws, tmp, outside := newSandboxBashVia(t, false, via)
	for _, dir := range []string{ws, tmp, outside} {
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte("#!/bin/sh\necho ran\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, in := filepath.Join(outside, "f"), filepath.Join(ws, "f")
	cases := []struct {
		name    string
		command func(path string) string
		dir     bool // the call is on the file's directory
	}{
		{"chmod 777", func(p string) string { return probeCmd(t, "chmod", "777", p) }, false},
		{"chmod setuid", func(p string) string { return probeCmd(t, "chmod", "4755", p) }, false},
		{"shell chmod u+s", func(p string) string { return "chmod u+s " + p }, false},
		{"chown to its owner", func(p string) string { return probeCmd(t, "chown", p) }, false},
		{"utime", func(p string) string { return probeCmd(t, "utime", p) }, false},
		{"shell touch -d", func(p string) string { return "touch -d 2001-01-01 " + p }, false},
		{"setxattr", func(p string) string { return probeCmd(t, "setxattr", p) }, false},
		{"the directory itself", func(p string) string { return probeCmd(t, "chmod", "777", filepath.Dir(p)) }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before, dirBefore := fileFacts(t, out), fileFacts(t, outside)
			res := callBash(t, context.Background(), b, tc.command(out), 0)
			if !res.IsError || !strings.Contains(res.Content, "read-only file system") && !strings.Contains(res.Content, "Read-only file system") {
				t.Errorf("outside: %s: %s; want a read-only file system failure", tc.command(out), res.Content)
			}
			if !strings.Contains(res.Content, "[sandbox: writes outside the workspace and $TMPDIR are blocked, and so are chmod") {
				t.Errorf("outside: %s: %s; want the sandbox hint", tc.command(out), res.Content)
			}
			if after := fileFacts(t, out); after != before {
				t.Errorf("outside: %s changed the file: %s -> %s", tc.command(out), before, after)
			}
			if after := fileFacts(t, outside); after != dirBefore {
				t.Errorf("outside: %s changed the directory: %s -> %s", tc.command(out), dirBefore, after)
			}
			for _, p := range []string{in, filepath.Join(tmp, "f")} {
				target := p
				if tc.dir {
					target = filepath.Dir(p)
				}
				before := fileFacts(t, target)
				if res := callBash(t, context.Background(), b, tc.command(p), 0); res.IsError {
					t.Errorf("writable root: %s failed: %s", tc.command(p), res.Content)
				}
				if tc.name != "chown to its owner" && fileFacts(t, target) == before {
					t.Errorf("writable root: %s changed nothing", tc.command(p))
				}
			}
		})
	}
	if err := os.Chmod(in, 0o644); err != nil {
		t.Fatal(err)
	}
	if res := callBash(t, context.Background(), b, "chmod +x f && ./f", 0); res.IsError || !strings.Contains(res.Content, "ran") {
		t.Errorf("chmod +x in the workspace: %s", res.Content)
	}
}

// listenUDP127 returns a UDP socket on 127.0.0.1 that the test reads.
func listenUDP127(t *testing.T) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// received reports whether c gets a datagram within wait.
func received(t *testing.T, c *net.UDPConn, wait time.Duration) bool {
	t.Helper()
	if err := c.SetReadDeadline(time.Now().Add(wait)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _, err := c.ReadFromUDP(buf)
	return err == nil && n > 0
}

// TestSandboxUDP proves that with the network off no UDP datagram leaves
// a sandboxed command, from a Go program, bash's /dev/udp or a DNS
// query of Go's resolver, through the spawner or the one-shot helper, and that with the
// network on it does.
func TestSandboxUDP(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	for _, c := range []struct {
		network bool
		via     string
	}{{false, "spawner"}, {false, "helper"}, {true, "spawner"}, {true, "helper"}} {
		network := c.network
		b, _, _, _ := newSandboxBashVia(t, network, c.via)
		for _, sender := range []string{"go program", "bash /dev/udp", "go resolver"} {
			t.Run(fmt.Sprintf("%s network=%v via %s", sender, network, c.via), func(t *testing.T) {
				ln := listenUDP127(t)
				addr := ln.LocalAddr().(*net.UDPAddr)
				command := probeCmd(t, "udp", addr.String())
				switch sender {
				case "bash /dev/udp":
					command = fmt.Sprintf("bash -c 'echo escaped > /dev/udp/127.0.0.1/%d'", addr.Port)
				case "go resolver":
					// The query arrives, or not; no answer comes.
					command = probeCmd(t, "dns", addr.String())
				}
				res := callBash(t, context.Background(), b, command, 10)
				if res.IsError == network && sender != "go resolver" || !network && !res.IsError {
					t.Errorf("%s: error=%v with network=%v: %s", command, res.IsError, network, res.Content)
				}
				// The model learns that the sandbox refused it.
				if !network && !strings.Contains(res.Content, "[sandbox: network connections are blocked") {
					t.Errorf("%s: result %q lacks the network hint", command, res.Content)
				}
				wait := 2 * time.Second
				if !network {
					wait = 300 * time.Millisecond // the command has ended: a datagram it sent is queued already
				}
				if got := received(t, ln, wait); got != network {
					t.Errorf("%s with network=%v: datagram received = %v", command, network, got)
				}
			})
		}
	}
}

// listenUnix serves a Unix socket at addr (@name: abstract) until the
// test ends.
func listenUnix(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("unix", addr)
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
			c.Close()
		}
	}()
}

// TestSandboxUnixSockets proves which Unix sockets of processes outside
// the sandbox a command reaches: abstract ones never where Landlock
// scopes them (ABI >= 6) — with the network on or off —, a socket with a
// path in $TMPDIR (where the run's sub-query socket is) always, and one
// with a path outside the writable roots never where Landlock restricts
// them (ABI >= 9).
func TestSandboxUnixSockets(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	abi := sandbox.ProbeABI()
	for _, network := range []bool{false, true} {
		b, _, tmp, outside := newSandboxBash(t, network)
		cases := []struct {
			name, addr string
			minABI     int // the first ABI that refuses it; 0: never refused
		}{
			{"abstract", fmt.Sprintf("@rubichan-test-%d-%v", os.Getpid(), network), 6},
			{"path in TMPDIR", filepath.Join(tmp, "s.sock"), 0},
			{"path outside", filepath.Join(outside, "s.sock"), 9},
		}
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s network=%v", tc.name, network), func(t *testing.T) {
				if tc.minABI > 0 && abi < tc.minABI {
					t.Skipf("this kernel's Landlock ABI %d cannot refuse it (ABI >= %d can)", abi, tc.minABI)
				}
				listenUnix(t, tc.addr)
				res := callBash(t, context.Background(), b, probeCmd(t, "unix", tc.addr), 10)
				if refused := tc.minABI > 0; res.IsError != refused {
					t.Errorf("connect to %s: error=%v, want %v: %s", tc.addr, res.IsError, refused, res.Content)
				}
			})
		}
	}
}

// TestSandboxUnprivileged runs the isolation tests again as an
// unprivileged user (nobody), for whom the helper and the spawner need a
// user namespace of their own (see sandbox.Rules.Namespaces): the path
// of most users, whereas CI runs as root.
func TestSandboxUnprivileged(t *testing.T) {
	needLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("not root: the other tests ran the unprivileged path already")
	}
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A copy nobody can reach and run.
	dir, err := os.MkdirTemp("", "rubichan-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	copyExe := filepath.Join(dir, "toolkit.test")
	if err := os.WriteFile(copyExe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out []byte
	// A test running in parallel may fork while the copy is open for
	// writing, and hold it so (ETXTBSY) until its child execs.
	for try := 0; try < 50; try++ {
		cmd := exec.CommandContext(ctx, copyExe, "-test.run", "^TestSandbox(Metadata|UDP|UnixSockets|Writes|Network)$", "-test.count", "1", "-test.v")
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + os.TempDir()}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
		if out, err = cmd.CombinedOutput(); !errors.Is(err, syscall.ETXTBSY) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestSandboxMetadata") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	// Subtests skip only where this kernel's ABI says so, as they do as root.
	if regexp.MustCompile(`(?m)^--- SKIP`).Match(out) {
		t.Errorf("as nobody, a test skipped:\n%s", out)
	}
}

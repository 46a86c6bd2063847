package sandbox

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Probe results of [SelfTest].
type Result struct {
	// Name is "write outside", "chmod outside", "tcp connect" or "udp
	// send".
	Name string `json:"name"`
	// Blocked says whether the sandbox refused the effect.
	Blocked bool `json:"blocked"`
	// Want says whether the state promises to block it.
	Want bool `json:"want"`
	// Detail is the probe's message, if any.
	Detail string `json:"detail,omitempty"`
}

// OK reports whether the probe did what the state promised.
func (r Result) OK() bool { return r.Blocked == r.Want }

// SelfTest starts exe (rubichan itself) as the sandbox's spawner the way
// a run does with st's settings (see [StartSpawner]), and has a probe it
// spawns try a write outside its writable directory, a chmod (to setuid)
// of a file there, a TCP connection to a listener on 127.0.0.1 and a UDP
// datagram to another. The results say what was blocked next to
// what st promises. An error means the test itself could not run (a
// spawner that cannot confine itself is one).
func SelfTest(ctx context.Context, exe string, st State) ([]Result, error) {
	base, err := os.MkdirTemp("", "rubichan-sandbox-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(base)
	ws, outside := filepath.Join(base, "workspace"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	rules := Rules{Writable: []string{ws}, Network: st.Network == NetAllowed, ABI: st.ABI, Isolate: st.Isolated}
	var sp *Spawner
	if st.Helper {
		if sp, err = StartSpawner(exe, rules, nil); err != nil {
			return nil, err
		}
		defer sp.Close()
	}
	target := filepath.Join(outside, "x")
	w, err := runProbe(ctx, exe, sp, "write", target)
	if err != nil {
		return nil, err
	}
	if _, serr := os.Stat(target); serr == nil && w.Blocked {
		w.Blocked, w.Detail = false, "the probe failed, but the file was written"
	}
	w.Name, w.Want = "write outside", st.Filesystem
	m, err := chmodProbe(ctx, exe, sp, filepath.Join(outside, "m"))
	if err != nil {
		return nil, err
	}
	m.Name, m.Want = "chmod outside", st.Isolated
	c, err := runProbe(ctx, exe, sp, "connect", ln.Addr().String())
	if err != nil {
		return nil, err
	}
	c.Name, c.Want = "tcp connect", st.Network == NetBlocked
	u, err := udpProbe(ctx, exe, sp)
	if err != nil {
		return nil, err
	}
	u.Name, u.Want = "udp send", st.Network == NetBlocked && st.UDP
	return []Result{w, c, m, u}, nil
}

// chmodProbe has the probe set the setuid bit of target, a file it
// creates, and checks that the mode did not change when it says blocked.
func chmodProbe(ctx context.Context, exe string, sp *Spawner, target string) (Result, error) {
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		return Result{}, err
	}
	r, err := runProbe(ctx, exe, sp, "chmod", target)
	if fi, serr := os.Stat(target); err == nil && serr == nil && r.Blocked && fi.Mode() != 0o600 {
		r.Blocked, r.Detail = false, "the probe failed, but the mode changed to "+fi.Mode().String()
	}
	return r, err
}

// udpProbe has the probe send a datagram to a socket on 127.0.0.1, and
// checks that none arrived when it says blocked.
func udpProbe(ctx context.Context, exe string, sp *Spawner) (Result, error) {
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		return Result{}, err
	}
	defer pc.Close()
	r, err := runProbe(ctx, exe, sp, "udp", pc.LocalAddr().String())
	if err == nil && r.Blocked {
		// The probe has ended: a datagram it sent is queued already.
		_ = pc.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if n, _, rerr := pc.ReadFrom(make([]byte, 64)); rerr == nil && n > 0 {
			r.Blocked, r.Detail = false, "the probe failed, but the datagram arrived"
		}
	}
	return r, err
}

// runProbe runs one probe, through the spawner sp when there is one.
func runProbe(ctx context.Context, exe string, sp *Spawner, what, arg string) (Result, error) {
	// argv[0] is "rubichan": a test binary standing in for rubichan
	// dispatches on it.
	argv := []string{"rubichan", ProbeCommand, what, arg}
	code, detail, err := 0, "", error(nil)
	if sp != nil {
		code, detail, err = spawnProbe(ctx, sp, exe, argv)
	} else {
		cmd := exec.CommandContext(ctx, exe)
		cmd.Args = argv
		out, rerr := cmd.CombinedOutput()
		detail, err = string(out), rerr
		var ee *exec.ExitError
		if errors.As(rerr, &ee) {
			code, err = ee.ExitCode(), nil
		}
	}
	detail = strings.TrimSpace(detail)
	switch {
	case err != nil:
		return Result{}, err
	case code == 0:
		return Result{Detail: detail}, nil
	case code == ProbeDenied:
		return Result{Blocked: true, Detail: detail}, nil
	}
	return Result{}, errors.New("sandbox self-test: " + what + " probe failed: " + detail)
}

// spawnProbe runs the probe argv through sp and returns its exit code
// and output; the end of ctx kills it.
func spawnProbe(ctx context.Context, sp *Spawner, exe string, argv []string) (int, string, error) {
	out, err := os.CreateTemp("", "rubichan-sandbox-probe-")
	if err != nil {
		return 0, "", err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		return 0, "", err
	}
	defer null.Close()
	p, err := sp.Spawn(SpawnRequest{Path: exe, Args: argv, Env: []string{}, Dir: "/", Stdin: null, Stdout: out, Stderr: out})
	if err != nil {
		return 0, "", err
	}
	stop := context.AfterFunc(ctx, func() { _ = p.Kill() })
	st, err := p.Wait()
	stop()
	if err != nil {
		return 0, "", err
	}
	b, _ := os.ReadFile(out.Name())
	return st.ExitCode(), string(b), nil
}

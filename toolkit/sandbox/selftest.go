package sandbox

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Probe results of [SelfTest].
type Result struct {
	// Name is "write outside" or "tcp connect".
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
// spawns try a write outside its writable directory and a TCP connection
// to a listener on 127.0.0.1. The results say what was blocked next to
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
	rules := Rules{Writable: []string{ws}, Network: st.Network == NetAllowed, ABI: st.ABI}
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
	c, err := runProbe(ctx, exe, sp, "connect", ln.Addr().String())
	if err != nil {
		return nil, err
	}
	c.Name, c.Want = "tcp connect", st.Network == NetBlocked
	return []Result{w, c}, nil
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

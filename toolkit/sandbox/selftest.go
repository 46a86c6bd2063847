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

// SelfTest runs exe (rubichan itself) as the helper the way the bash tool
// does with st's settings, and has it try a write outside its writable
// directory and a TCP connection to a listener on 127.0.0.1. The results
// say what was blocked next to what st promises. An error means the test
// itself could not run.
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
	target := filepath.Join(outside, "x")
	w, err := runProbe(ctx, exe, st.Helper, rules, "write", target)
	if err != nil {
		return nil, err
	}
	if _, serr := os.Stat(target); serr == nil && w.Blocked {
		w.Blocked, w.Detail = false, "the probe failed, but the file was written"
	}
	w.Name, w.Want = "write outside", st.Filesystem
	c, err := runProbe(ctx, exe, st.Helper, rules, "connect", ln.Addr().String())
	if err != nil {
		return nil, err
	}
	c.Name, c.Want = "tcp connect", st.Network == NetBlocked
	return []Result{w, c}, nil
}

// runProbe runs one probe, through the helper when helper is set.
func runProbe(ctx context.Context, exe string, helper bool, r Rules, what, arg string) (Result, error) {
	// argv[0] is "rubichan" at every step: a test binary standing in for
	// rubichan dispatches on it.
	argv := []string{"rubichan", ProbeCommand, what, arg}
	if helper {
		argv = append([]string{"rubichan"}, r.Argv(exe, argv)...)
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Args = argv
	out, err := cmd.CombinedOutput()
	detail := strings.TrimSpace(string(out))
	var ee *exec.ExitError
	switch {
	case err == nil:
		return Result{Detail: detail}, nil
	case errors.As(err, &ee) && ee.ExitCode() == ProbeDenied:
		return Result{Blocked: true, Detail: detail}, nil
	case errors.As(err, &ee):
		return Result{}, errors.New("sandbox self-test: " + what + " probe failed: " + detail)
	}
	return Result{}, err
}

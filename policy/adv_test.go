package policy

import (
	"strings"
	"testing"
	"time"
)

// adversarialPolicy is a strict policy with two rules whose wildcards the
// adversarial commands try to make expensive.
func adversarialPolicy(tb testing.TB) *Policy {
	tb.Helper()
	p, err := loadStrict(tb).WithRules(nil, []string{"shell:x y z *", "shell:x -a y *"})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// adversarialCommands are commands built to make the analysis slow or
// deep, each at the 16 KB limit.
func adversarialCommands() map[string]string {
	n := MaxCommandBytes
	return map[string]string{
		"nested substitutions":   strings.Repeat("$(", n/3) + strings.Repeat(")", n/3),
		"sh -c of wrappers":      "sh -c '" + strings.Repeat("env 'a b' ", n/11) + "'",
		"quoted scripts":         strings.Repeat("env 'x; y; z' ", n/15),
		"deep subshells":         strings.Repeat("(", n/2-1) + "ls" + strings.Repeat(")", n/2-1),
		"deep blocks":            strings.Repeat("{ ", n/4-1) + "ls;" + strings.Repeat(" }", n/4-1),
		"long pipeline":          strings.Repeat("ls|", n/3-1) + "ls",
		"many words":             "env " + strings.Repeat("a ", n/2-4),
		"nested ifs":             strings.Repeat("if a; then ", n/15) + "ls" + strings.Repeat("; fi", n/15),
		"eval chain":             strings.Repeat("eval ", n/5),
		"nested bash -c":         `bash -c "` + strings.Repeat(`bash -c 'bash -c \"env x y z\"' `, n/40) + `"`,
		"options after wrappers": "env " + strings.Repeat("x -a ", n/5-1),
		"go flags":               "go test " + strings.Repeat("-exec x -o y ", n/13-1),
		"git output options":     "git -C a diff " + strings.Repeat("--output=a -o ", n/14-2),
		"globbed git options":    "git d* " + strings.Repeat("-* ", n/3-4),
	}
}

// adversarialBound is how long one adversarial decision may take in the
// test: 10× the slowest case measured in this test on a loaded 2-core
// machine (1.0 s; 143 ms alone in BenchmarkAdversarialSizes, see README's
// Performance table), times the race detector's slowdown, so only a
// pathological (super-linear) regression trips it, not a busy machine.
const adversarialBound = 10 * time.Second * raceSlowdown

// TestAdversarialSizes feeds the adversarial commands: every one is judged
// within adversarialBound, and none allowed. The cases run one at a time so
// each one's time is its own, not a wait for the CPU.
func TestAdversarialSizes(t *testing.T) {
	t.Parallel()
	p := adversarialPolicy(t)
	for name, cmd := range adversarialCommands() {
		t.Run(name, func(t *testing.T) {
			if len(cmd) > MaxCommandBytes {
				t.Fatalf("test command is %d bytes, over the limit", len(cmd))
			}
			// A decision that never ends fails at the bound instead of
			// hanging the test binary; its goroutine is then left behind.
			done := make(chan Result, 1)
			go func() { done <- p.Decide(Action{Class: ClassShell, Command: cmd}) }()
			select {
			case r := <-done:
				if r.Decision == Allow {
					t.Errorf("allowed: %s", r.Fact)
				}
			case <-time.After(adversarialBound):
				t.Fatalf("no decision within %v", adversarialBound)
			}
		})
	}
}

// BenchmarkAdversarialSizes measures one decision on each adversarial
// command.
func BenchmarkAdversarialSizes(b *testing.B) {
	p := adversarialPolicy(b)
	for name, cmd := range adversarialCommands() {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				p.Decide(Action{Class: ClassShell, Command: cmd})
			}
		})
	}
}

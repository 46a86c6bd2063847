package policy

import (
	"strings"
	"testing"
)

// TestAdversarialSizes feeds commands built to make the analysis slow or
// deep, each at the 16 KB limit: every one is judged, and none allowed.
func TestAdversarialSizes(t *testing.T) {
	t.Parallel()
	p, err := loadStrict(t).WithRules(nil, []string{"shell:x y z *", "shell:x -a y *"})
	if err != nil {
		t.Fatal(err)
	}
	n := MaxCommandBytes
	tests := map[string]string{
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
	for name, cmd := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if len(cmd) > n {
				t.Fatalf("test command is %d bytes, over the limit", len(cmd))
			}
			if r := p.Decide(Action{Class: ClassShell, Command: cmd}); r.Decision == Allow {
				t.Errorf("allowed: %s", r.Fact)
			}
		})
	}
}

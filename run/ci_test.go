package run

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCIRunsReadmeTargets checks that every `make TARGET` README.md names
// is run by CI (.ci/run), the benchmarks with a short -benchtime, so the
// README's commands stay true on a fresh clone.
func TestCIRunsReadmeTargets(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	for _, line := range strings.Split(string(ci), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "make" {
			ran[f[1]] = true
		}
	}
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bmake ([a-z]+)\b`).FindAllStringSubmatch(string(readme), -1) {
		targets[m[1]] = true
	}
	if len(targets) == 0 {
		t.Fatal("README names no make target")
	}
	for tgt := range targets {
		if !ran[tgt] {
			t.Errorf("README names `make %s`, which .ci/run does not run", tgt)
		}
	}
	if !regexp.MustCompile(`(?m)^make bench BENCHTIME=\d+x\b`).Match(ci) {
		t.Error(".ci/run does not run `make bench` with a short BENCHTIME")
	}
}

package run

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestMakeTestShowsProgress: make test runs every package with -race, and
// the run package, whose scripts take minutes, verbosely through
// testdata/make/progress.awk, so that a line shows as its tests end.
func TestMakeTestShowsProgress(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	target := regexp.MustCompile(`(?ms)^test:.*?\n\n`).Find(mk)
	for _, want := range []string{
		`$(GO) test -race -count=1 -timeout 30m $$($(GO) list $(PKGS) | grep -vx $(RUNPKG))`,
		`$(GO) test -race -count=1 -timeout 30m -v $(RUNPKG)`,
		`awk -f testdata/make/progress.awk`,
	} {
		if !strings.Contains(string(target), want) {
			t.Errorf("make test does not run %q:\n%s", want, target)
		}
	}
}

// TestProgressFilter: the filter prints, as they come, each top-level
// test's result, each failing sub-test, and a line per 25 sub-tests
// ended; when go test did not say ok it then prints what go test printed
// (but its === lines and passing sub-tests) and exits 1.
func TestProgressFilter(t *testing.T) {
	t.Parallel()
	var sub strings.Builder
	for range 30 {
		sub.WriteString("=== RUN   TestScript/a\n    --- PASS: TestScript/a (0.10s)\n")
	}
	cases := map[string]struct {
		in, want string
		code     int
	}{
		"ok": {
			in: "=== RUN   TestA\nnoise\n--- PASS: TestA (0.01s)\n" + sub.String() +
				"--- PASS: TestScript (9.00s)\nPASS\nok  \tgithub.com/rubichan/rubichan/run\t9.5s\n",
			want: "--- PASS: TestA (0.01s)\n  25 sub-tests ended\n--- PASS: TestScript (9.00s)\nok  \tgithub.com/rubichan/rubichan/run\t9.5s\n",
		},
		"a log quoting another go test": {
			in: "=== RUN   TestScript/go_test\n        > exec go test\n        --- FAIL: TestX (0.00s)\n        --- PASS: TestY (0.00s)\n" +
				"    --- PASS: TestScript/go_test (0.50s)\n--- PASS: TestScript (9.00s)\nPASS\nok  \tgithub.com/rubichan/rubichan/run\t9.5s\n",
			want: "--- PASS: TestScript (9.00s)\nok  \tgithub.com/rubichan/rubichan/run\t9.5s\n",
		},
		"fail": {
			in: "=== RUN   TestA\n    a_test.go:3: why\n--- FAIL: TestA (0.01s)\n    more detail\n=== RUN   TestB\nnoise\n--- PASS: TestB (0.01s)\n" +
				"    --- PASS: TestScript/y (0.20s)\n    --- FAIL: TestScript/x (0.20s)\n        x.txtar:3: no match\nFAIL\nFAIL\tgithub.com/rubichan/rubichan/run\t9.5s\n",
			want: "--- FAIL: TestA (0.01s)\n--- PASS: TestB (0.01s)\n    --- FAIL: TestScript/x (0.20s)\nFAIL\tgithub.com/rubichan/rubichan/run\t9.5s\n" +
				"go test -v's output, without its === lines and passing sub-tests:\n" +
				"    a_test.go:3: why\n--- FAIL: TestA (0.01s)\n    more detail\nnoise\n--- PASS: TestB (0.01s)\n" +
				"    --- FAIL: TestScript/x (0.20s)\n        x.txtar:3: no match\nFAIL\nFAIL\tgithub.com/rubichan/rubichan/run\t9.5s\n",
			code: 1,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command("awk", "-f", "../testdata/make/progress.awk")
			cmd.Stdin = strings.NewReader(c.in)
			out, err := cmd.Output()
			code := 0
			if e, ok := err.(*exec.ExitError); ok {
				code = e.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.want || code != c.code {
				t.Errorf("got exit %d and\n%s\nwant exit %d and\n%s", code, out, c.code, c.want)
			}
		})
	}
}

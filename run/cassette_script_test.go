package run

import (
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// activityLineRE matches the tool and retry lines of stderr; the
// duration at the end of a result line (" · 3ms") is cut before lines
// are compared.
var (
	activityLineRE = regexp.MustCompile(`^(▸|✓|✗|↻|⚠) `)
	durationRE     = regexp.MustCompile(` · [0-9.]+(µs|ms|s|m)$`)
)

// cmdToolLines writes the tool and retry lines of SRC (a file, stdout or
// stderr) to DST without their durations: toollines SRC DST.
func cmdToolLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: toollines SRC DST")
	}
	var out strings.Builder
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if activityLineRE.MatchString(line) {
			out.WriteString(durationRE.ReplaceAllString(line, "") + "\n")
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out.String()), 0o644))
}

// cmdReplaceIn replaces every OLD in FILE with NEW, failing when there is
// none: replacein FILE OLD NEW.
func cmdReplaceIn(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replacein FILE OLD NEW")
	}
	s := ts.ReadFile(args[0])
	if !strings.Contains(s, args[1]) {
		ts.Fatalf("%s has no %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strings.ReplaceAll(s, args[1], args[2])), 0o644))
}

// cmdCutTail cuts the last N bytes off FILE: cuttail FILE N.
func cmdCutTail(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cuttail FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	s := ts.ReadFile(args[0])
	if n > len(s) {
		ts.Fatalf("%s has only %d bytes", args[0], len(s))
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(s[:len(s)-n]), 0o644))
}

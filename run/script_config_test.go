package run

import (
	"fmt"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdHeader prints the values of header NAME in request N (from 1) on
// stdout, one per line, or fails when the request has no such header:
// header N NAME.
func (s *serverSet) cmdHeader(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: header N NAME")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	reqs := s.get(ts).Requests()
	if n < 1 || n > len(reqs) {
		ts.Fatalf("request %d of %d", n, len(reqs))
	}
	vals := reqs[n-1].Header.Values(args[1])
	switch {
	case neg && len(vals) > 0:
		ts.Fatalf("request %d has header %s: %q", n, args[1], vals)
	case !neg && len(vals) == 0:
		ts.Fatalf("request %d has no header %s", n, args[1])
	}
	for _, v := range vals {
		fmt.Fprintln(ts.Stdout(), v)
	}
}

// cmdExpandFile copies SRC to DST with $VAR and ${VAR} replaced by the
// script's environment, for config files that name the model server's
// address: expandfile SRC DST.
func cmdExpandFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expandfile SRC DST")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o644))
}

package run

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHelpListsEveryExitCode: the top-level help and exec's list every
// exit code of the contract, and 3 names the pause for an approval.
func TestHelpListsEveryExitCode(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"rubichan", "--help"}, {"rubichan", "exec", "--help"}} {
		var out, errb bytes.Buffer
		MainWith(context.Background(), args, strings.NewReader(""), &out, &errb, nil)
		help := out.String() + errb.String()
		for _, want := range []string{"0 done", "1 runtime failure", "2 usage", "3 stopped by the policy or paused for an approval",
			"4 a limit", "5 the model provider failed", "6 --verify never passed", "7 the answer did not match --json-schema",
			"130/143", "141 stdout closed"} {
			if !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
				t.Errorf("%s: help does not say %q", strings.Join(args, " "), want)
			}
		}
	}
}

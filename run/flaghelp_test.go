package run

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestFlagHelpPlaceholders: in every command's --help, a flag that takes a
// value names it (a backquoted placeholder such as `DURATION`, never the
// library's "value"), and a switch shows none (a backquoted word in a
// switch's usage would be printed as its placeholder, as `--no-subqueries
// rubichan query` once was).
func TestFlagHelpPlaceholders(t *testing.T) {
	t.Parallel()
	eachFlag(t, func(cmd string, f cli.Flag) {
		df, ok := f.(cli.DocGenerationFlag)
		if !ok {
			return
		}
		name := cmd + " --" + f.Names()[0]
		placeholder := backquoted(df.GetUsage())
		switch {
		case df.TakesValue() && placeholder == "":
			t.Errorf("%s: its value has no placeholder in the usage (help shows %q)", name, f.String())
		case !df.TakesValue() && strings.Contains(df.GetUsage(), "`"):
			t.Errorf("%s: a switch whose usage has a backquoted word (help shows %q)", name, f.String())
		}
	})
}

// backquoted is the first backquoted word of usage, the placeholder
// urfave/cli shows; "" without one.
func backquoted(usage string) string {
	_, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return ""
	}
	word, _, ok := strings.Cut(rest, "`")
	if !ok {
		return ""
	}
	return word
}

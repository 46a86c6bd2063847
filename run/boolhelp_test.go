package run

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestBoolFlagsShowAsBooleans: urfave/cli takes the first `quoted` word
// of a flag's usage as its value's placeholder, so a boolean flag with
// one prints as if it took a value (`--no-subqueries rubichan query`).
// No boolean flag of any command quotes a word.
func TestBoolFlagsShowAsBooleans(t *testing.T) {
	t.Parallel()
	app := newApp(nil, nil, nil, processEnvironment(), earlyOutput{})
	var walk func(path string, cmds []*cli.Command)
	n := 0
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			for _, f := range c.Flags {
				b, ok := boolFlagOf(f)
				if !ok {
					continue
				}
				n++
				if strings.Contains(b.Usage, "`") {
					t.Errorf("%s %s: --%s's usage quotes a word, so help shows it taking a value: %q", path, c.Name, b.Name, b.Usage)
				}
			}
			walk(path+" "+c.Name, c.Subcommands)
		}
	}
	walk("rubichan", app.Commands)
	if n < 10 {
		t.Fatalf("found only %d boolean flags", n)
	}
}

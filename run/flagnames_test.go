package run

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// eachFlag calls check with every flag of every command of the app, and
// the command's path ("config show"); it fails the test when it saw fewer
// than 100 flags (a walk that finds nothing checks nothing).
func eachFlag(t *testing.T, check func(cmd string, f cli.Flag)) {
	t.Helper()
	app := newApp(nil, nil, nil, fakeEnv(nil), earlyOutput{})
	checked := 0
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			for _, f := range c.Flags {
				check(path+c.Name, f)
				checked++
			}
			walk(path+c.Name+" ", c.Subcommands)
		}
	}
	walk("", app.Commands)
	if checked < 100 {
		t.Fatalf("checked %d flags; the commands have more", checked)
	}
}

// Every flag of every command keeps the names the library would work
// out, its own help line, and is one whose names are worked out once.
func TestFlagNamesWorkedOutOnce(t *testing.T) {
	t.Parallel()
	eachFlag(t, func(cmd string, f cli.Flag) {
		var name string
		var aliases []string
		var help string
		switch f := f.(type) {
		case *namedString:
			name, aliases, help = f.Name, f.Aliases, f.StringFlag.String()
		case *namedBool:
			name, aliases, help = f.Name, f.Aliases, f.BoolFlag.String()
		case *namedStringSlice:
			name, aliases, help = f.Name, f.Aliases, f.StringSliceFlag.String()
		default:
			t.Errorf("%s: flag %v is a %T, which works its names out at every lookup", cmd, f.Names(), f)
			return
		}
		if want := cli.FlagNames(name, aliases); !slices.Equal(f.Names(), want) {
			t.Errorf("%s: flag names %v, want %v", cmd, f.Names(), want)
		}
		if f.String() != help {
			t.Errorf("%s --%s: help line %q, want %q", cmd, name, f.String(), help)
		}
	})
}

// A run keeps the flags of the command it names (or whose help it shows)
// and drops the others'; when it names no command, all are kept.
func TestKeepFlagsOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		kept []string // commands left with flags
	}{
		{[]string{"rubichan", "exec", "fix it"}, []string{"exec"}},
		{[]string{"rubichan", "help", "chat"}, []string{"chat"}},
		{[]string{"rubichan", "config", "show", "--json"}, []string{"config"}},
		{[]string{"rubichan", "--model", "x", "exec"}, nil},
		{[]string{"rubichan", "bogus"}, nil},
		{[]string{"rubichan"}, nil},
	} {
		app := newApp(nil, nil, nil, fakeEnv(nil), earlyOutput{})
		keepFlagsOf(app, tc.args)
		for _, c := range app.Commands {
			has := hasFlags(c)
			want := tc.kept == nil || slices.Contains(tc.kept, c.Name)
			if want && !has && (c.Name == "exec" || c.Name == "chat" || c.Name == "config") {
				t.Errorf("%q: %s lost its flags", tc.args, c.Name)
			}
			if !want && has {
				t.Errorf("%q: %s kept its flags", tc.args, c.Name)
			}
		}
	}
}

func hasFlags(c *cli.Command) bool {
	if len(c.Flags) > 0 {
		return true
	}
	for _, sub := range c.Subcommands {
		if hasFlags(sub) {
			return true
		}
	}
	return false
}

// rawName reads the name urfave's Names() would give, for every flag
// exec and the configuration commands declare.
func TestRawName(t *testing.T) {
	t.Parallel()
	flags := append(execFlags(), configFlags()...)
	flags = append(flags, &cli.Float64Flag{Name: "other"})
	for _, f := range flags {
		if got, want := rawName(f), f.Names()[0]; got != want {
			t.Errorf("rawName = %q, want %q", got, want)
		}
	}
	if len(flags) < 50 {
		t.Fatalf("only %d flags checked", len(flags))
	}
}

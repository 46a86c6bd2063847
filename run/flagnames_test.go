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

// A run builds only the command it names (or whose help it shows), with
// its flags; when it names none, or a name that is no command, every
// command is built.
func TestBuildsInvokedCommand(t *testing.T) {
	t.Parallel()
	all := newApp(nil, nil, nil, fakeEnv(nil), earlyOutput{})
	for _, tc := range []struct {
		args []string
		only string // "": every command
	}{
		{[]string{"rubichan", "exec", "fix it"}, "exec"},
		{[]string{"rubichan", "help", "chat"}, "chat"},
		{[]string{"rubichan", "config", "show", "--json"}, "config"},
		{[]string{"rubichan", "version"}, "version"},
		{[]string{"rubichan", "--model", "x", "exec"}, ""},
		{[]string{"rubichan", "bogus"}, ""},
		{[]string{"rubichan", "help"}, ""},
		{[]string{"rubichan"}, ""},
	} {
		app := buildApp(nil, nil, nil, fakeEnv(nil), earlyOutput{}, invokedCommand(tc.args))
		var names []string
		for _, c := range app.Commands {
			names = append(names, c.Name)
		}
		switch {
		case tc.only == "" && len(names) != len(all.Commands):
			t.Errorf("%q: built %v, want every command (%d)", tc.args, names, len(all.Commands))
		case tc.only != "" && !slices.Equal(names, []string{tc.only}):
			t.Errorf("%q: built %v, want [%s]", tc.args, names, tc.only)
		case tc.only == "exec" || tc.only == "chat" || tc.only == "config":
			if !hasFlags(app.Commands[0]) {
				t.Errorf("%q: %s built without its flags", tc.args, tc.only)
			}
		}
	}
}

// Every command builder is known by the name of the command it builds,
// and builds each of rubichan's commands once.
func TestCommandBuilders(t *testing.T) {
	t.Parallel()
	all := newApp(nil, nil, nil, fakeEnv(nil), earlyOutput{})
	if len(all.Commands) < 14 {
		t.Fatalf("only %d commands", len(all.Commands))
	}
	for _, c := range all.Commands {
		app := buildApp(nil, nil, nil, fakeEnv(nil), earlyOutput{}, c.Name)
		if len(app.Commands) != 1 || app.Commands[0].Name != c.Name {
			t.Errorf("the builder named %s: built %d commands, the first %q", c.Name, len(app.Commands), app.Commands[0].Name)
		}
	}
}

// hasFlags reports whether c or one of its subcommands has flags.
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

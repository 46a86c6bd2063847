package run

import (
	"github.com/urfave/cli/v2"
)

// urfave/cli v2 works a flag's names out of its Name and Aliases with a
// regexp at every call of Names(), and finds a flag by name by asking
// every flag of the command for its names. Each command run asks that of
// each of its flags (runFlagActions, IsSet): quadratic in the number of
// flags, about 6,000 regexp calls and 2 ms of every start with exec's and
// chat's 75 flags — a tenth of line mode's start-up target.
//
// The types below are cli.Flags (the interface the library takes flags
// through) that work their names out once; everything else is the
// embedded flag's. String, the help line, is the embedded flag's own, so
// help is what the library writes for its types.

// namedString is a *cli.StringFlag whose names are worked out once.
type namedString struct {
	*cli.StringFlag
	names []string
}

// Names returns the flag's name and aliases.
func (f *namedString) Names() []string { return f.names }

// namedBool is a *cli.BoolFlag whose names are worked out once.
type namedBool struct {
	*cli.BoolFlag
	names []string
}

// Names returns the flag's name and aliases.
func (f *namedBool) Names() []string { return f.names }

// namedStringSlice is a *cli.StringSliceFlag whose names are worked out
// once.
type namedStringSlice struct {
	*cli.StringSliceFlag
	names []string
}

// Names returns the flag's name and aliases.
func (f *namedStringSlice) Names() []string { return f.names }

// nameFlags gives the flags of cmds and their subcommands names worked
// out once. A flag of another type is left as it is.
func nameFlags(cmds []*cli.Command) {
	for _, c := range cmds {
		c.Flags = namedFlags(c.Flags)
		nameFlags(c.Subcommands)
	}
}

func namedFlags(fs []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, len(fs))
	for i, f := range fs {
		switch f := f.(type) {
		case *cli.StringFlag:
			out[i] = &namedString{f, flagNames(f.Name, f.Aliases)}
		case *cli.BoolFlag:
			out[i] = &namedBool{f, flagNames(f.Name, f.Aliases)}
		case *cli.StringSliceFlag:
			out[i] = &namedStringSlice{f, flagNames(f.Name, f.Aliases)}
		default:
			out[i] = f
		}
	}
	return out
}

// rawName is a flag's name read from its field, for the flags before
// [nameFlags] wraps them: urfave's Names() runs a regular expression over
// the name at each call (a third of a millisecond of every start, asked
// of exec's hundred flags to pick acp's, and of the configuration's).
func rawName(f cli.Flag) string {
	switch f := f.(type) {
	case *cli.StringFlag:
		return f.Name
	case *cli.BoolFlag:
		return f.Name
	case *cli.StringSliceFlag:
		return f.Name
	case *cli.IntFlag:
		return f.Name
	}
	return f.Names()[0]
}

// flagNames is a flag's name, then its aliases: what cli.FlagNames makes
// of names that hold no comma or space, as none of rubichan's do (the
// regexp it runs strips a v1-style "name, alias").
func flagNames(name string, aliases []string) []string {
	return append([]string{name}, aliases...)
}

// invokedCommand is the command args run, or whose help they ask for
// (`rubichan help COMMAND`): args[1], or args[2] after "help"; "" when
// args name none. A name that is no command comes back as it is: the
// application is then built with every command (see [commands]).
func invokedCommand(args []string) string {
	if len(args) < 2 {
		return ""
	}
	if args[1] == "help" && len(args) > 2 {
		return args[2]
	}
	return args[1]
}

// boolFlagOf returns the *cli.BoolFlag f is or wraps.
func boolFlagOf(f cli.Flag) (*cli.BoolFlag, bool) {
	switch f := f.(type) {
	case *cli.BoolFlag:
		return f, true
	case *namedBool:
		return f.BoolFlag, true
	}
	return nil, false
}

package run

import (
	"slices"
	"strings"

	"github.com/rubichan/rubichan/run/exit"
	"github.com/urfave/cli/v2"
)

// normalizeArgs puts the flags of a command before its positional words, so
// that `rubichan exec "fix it" --model x` parses --model as a flag (urfave/cli
// stops at the first positional word). args[0] is the program name.
//
// A `--` word ends the flags: everything after it is positional. A word that
// starts with `-` and names no flag of the command is a usage error; a lone
// `-` is positional. The result separates flags from positional words with
// `--`, so prompt words that begin with a dash after `--` stay prompt words.
func normalizeArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	cmd := app.Command(args[1])
	if cmd == nil {
		return args, unknownGlobalFlag(app, args)
	}
	head := 2 // program, command and any subcommands: left in place
	for head < len(args) {
		sub := cmd.Command(args[head])
		if sub == nil {
			break
		}
		cmd = sub
		head++
	}
	flags := commandFlags(cmd)
	path := strings.Join(args[1:head], " ") // "exec", "config show"
	hint := ""
	if cmd.Name == "exec" {
		hint = " (use -- before prompt words that start with a dash)"
	}
	rest := args[head:]
	var front, positional []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			positional = append(positional, rest[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takes, known := flags[name]
		if !known || strings.HasPrefix(a, "---") {
			return nil, unknownFlag(path, a, hint, flags)
		}
		front = append(front, a)
		if takes && !hasValue {
			if i+1 >= len(rest) {
				return nil, exit.Usagef("%s: flag %s needs a value", path, a)
			}
			i++
			front = append(front, rest[i])
		}
	}
	out := make([]string, 0, len(args)+1)
	out = append(out, args[:head]...)
	out = append(out, front...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out, nil
}

// commandFlags maps the names of cmd's flags, and of the help flag, to
// whether the flag takes a value.
func commandFlags(cmd *cli.Command) map[string]bool {
	flags := make(map[string]bool)
	for _, f := range cmd.Flags {
		takes := false
		if dv, ok := f.(cli.DocGenerationFlag); ok {
			takes = dv.TakesValue()
		}
		for _, n := range f.Names() {
			flags[n] = takes
		}
	}
	for _, n := range cli.HelpFlag.Names() {
		flags[n] = false
	}
	return flags
}

// unknownFlag is the usage error for a flag a of the command at path
// that is none of flags: with the flag it was likely meant to be, when
// one is close.
func unknownFlag(path, a, hint string, flags map[string]bool) error {
	names := make([]string, 0, len(flags))
	for n := range flags {
		names = append(names, n)
	}
	slices.Sort(names)
	if s, whole := flagSuggestion(path, a, names); whole {
		return exit.Usagef("%s: %s", path, s)
	} else if s != "" {
		return exit.Usagef("%s: unknown flag %s (%s)%s", path, a, s, hint)
	}
	return exit.Usagef("%s: unknown flag %s%s", path, a, hint)
}

// unknownGlobalFlag is the usage error for a first word that looks like a
// flag but is none of rubichan's own (--help, --version; -v is exec's --verbose): urfave/cli would
// say "flag provided but not defined: -bogus". Command flags go after the
// command, so the error lists the commands.
func unknownGlobalFlag(app *cli.App, args []string) error {
	first := args[1]
	if len(first) < 2 || first[0] != '-' || first == "--" {
		return nil
	}
	name, _, _ := strings.Cut(strings.TrimLeft(first, "-"), "=")
	for _, f := range append([]cli.Flag{cli.HelpFlag}, app.Flags...) {
		for _, n := range f.Names() {
			if n == name && !strings.HasPrefix(first, "---") {
				return nil
			}
		}
	}
	if name == "v" {
		return exit.Usagef("unknown flag %s: the version is --version (or rubichan version); -v is --verbose, a flag of exec", first)
	}
	if slices.Contains(args[2:], "-i") || slices.Contains(args[2:], "--interactive") {
		return exit.Usagef("unknown flag %s: line mode's flags go after -i: rubichan -i %s …", first, first)
	}
	if commandFlag(app, "exec", name) {
		return exit.Usagef("unknown flag %s: a command's flags go after it: rubichan exec %s …", first, first)
	}
	var names []string
	for _, c := range app.Commands {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return exit.Usagef("unknown flag %s; commands: %s", first, strings.Join(names, ", "))
}

// commandFlag reports whether the command called cmd has a flag called
// name.
func commandFlag(app *cli.App, cmd, name string) bool {
	c := app.Command(cmd)
	if c == nil {
		return false
	}
	for _, f := range c.Flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

package policy

import (
	"maps"
	"slices"
)

// RunOptions returns the options of program (and of its subcommand sub,
// for git and go) that the analysis knows make it run another program,
// sorted, each with "=" appended when it takes a value. An allow rule's
// final `*` does not cover them; a policy learner uses them as the
// neighbours a generalised rule must not allow. It returns nil for the
// other programs, whose models are not tables (see programs.go).
func RunOptions(program, sub string) []string {
	var tables []map[string]optSpec
	switch program {
	case "go":
		tables = append(tables, goOptions, goSub[sub])
	case "git":
		tables = append(tables, gitSub[sub])
	}
	var out []string
	for _, t := range tables {
		for _, name := range slices.Sorted(maps.Keys(t)) {
			s := t[name]
			if s.effect != optExec || len(s.execIf) > 0 {
				continue
			}
			if s.value || s.needsEq {
				name += "="
			}
			out = append(out, name)
		}
	}
	return out
}

// Modelled reports whether the analysis models the options of the
// program named (by its base name): an allow rule with a final `*` for
// any other program draws a warning.
func Modelled(program string) bool { return isModelled(program) }

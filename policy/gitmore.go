package policy

import "strings"

// Git subcommands whose effects options.go's per-option tables cannot
// express: a word after the subcommand that runs a command (bisect run,
// submodule foreach), a whole subcommand that runs programs (filter-branch
// filters, difftool, mergetool), paths written (bundle create FILE,
// worktree add PATH) and files read beneath the working tree (grep
// --untracked, --no-index).

// gitMoreTables are options of git subcommands, beyond gitSub.
var gitMoreTables = map[string]map[string]optSpec{
	"apply": {"--unsafe-paths": {effect: optExec, why: "lets the patch write files outside the working tree"}},
	"filter-branch": {
		"--setup": gitShell, "--env-filter": gitShell, "--tree-filter": gitShell, "--index-filter": gitShell,
		"--parent-filter": gitShell, "--msg-filter": gitShell, "--commit-filter": gitShell,
		"--tag-name-filter": gitShell,
	},
	"send-email": {
		"--smtp-server": {effect: optExec, value: true, why: "names a program to send mail with"},
		"--to-cmd":      gitShell, "--cc-cmd": gitShell, "--header-cmd": gitShell,
	},
}

// gitShell is an option whose value git runs as a shell command.
var gitShell = optSpec{effect: optExec, value: true, why: "runs a shell command"}

// gitMore returns the findings of argv's git subcommand at index sub that
// the option tables do not give.
func gitMore(argv []word, sub int) []optFinding {
	w := argv[sub]
	if !w.exact {
		return nil
	}
	var out []optFinding
	if t := gitMoreTables[w.value]; t != nil {
		for j := sub + 1; j < len(argv); j++ {
			if argv[j].exact && argv[j].value == "--" {
				break
			}
			out = append(out, matchOption(argv, j, t, shortClusters)...)
		}
	}
	ops := gitOperands(argv, sub+1)
	switch w.value {
	case "bisect":
		if len(ops) > 0 && argv[ops[0]].value == "run" {
			out = append(out, execAt(ops[0], "bisect run", "runs a command at each step"))
		}
	case "submodule":
		for _, j := range ops {
			if argv[j].value == "foreach" {
				out = append(out, execAt(j, "submodule foreach", "runs a shell command in each submodule"))
				break
			}
		}
	case "difftool", "mergetool":
		out = append(out, execAt(len(argv), w.value, "runs an external diff or merge program"))
	case "bundle":
		if len(ops) >= 2 && argv[ops[0]].value == "create" {
			out = append(out, writeAt(ops[1], "bundle create", argv[ops[1]]))
		}
	case "worktree":
		if len(ops) >= 2 && argv[ops[0]].value == "add" {
			out = append(out, treeAt(ops[1], "worktree add", argv[ops[1]], false))
		}
	case "grep":
		for j := sub + 1; j < len(argv); j++ {
			v := argv[j]
			if v.exact && v.value == "--" {
				break
			}
			if !v.exact || v.value == "--untracked" || v.value == "--no-index" || strings.HasPrefix(v.value, "--unt") || strings.HasPrefix(v.value, "--no-ind") {
				if v.exact || globMatches(v.glob, "--untracked") || globMatches(v.glob, "--no-index") {
					out = append(out, treeAt(j, "git grep "+v.src, dotWord, true))
					break
				}
			}
		}
	}
	return out
}

// gitOperands returns the indexes of the words from argv[from] on that
// do not start with "-", up to `--`. An option's value may be taken for
// an operand, which only adds findings.
func gitOperands(argv []word, from int) []int {
	var out []int
	for j := from; j < len(argv); j++ {
		w := argv[j]
		if w.exact && w.value == "--" {
			break
		}
		if w.exact && !strings.HasPrefix(w.value, "-") {
			out = append(out, j)
		}
	}
	return out
}

// gitWrapped returns the command lines a git argv runs for deny checks:
// `git bisect run CMD…`, `git submodule foreach CMD…` (a shell script),
// and the shell commands of rebase --exec/-x, difftool --extcmd/-x and
// filter-branch's filters.
func (a *analyzer) gitWrapped(argv []word, depth int) [][]word {
	var out [][]word
	sub := gitSubIndex(argv)
	if sub < 0 {
		return nil
	}
	ops := gitOperands(argv, sub+1)
	switch argv[sub].value {
	case "bisect", "submodule":
		verb := map[string]string{"bisect": "run", "submodule": "foreach"}[argv[sub].value]
		for k, j := range ops {
			if argv[j].value != verb || j+1 >= len(argv) {
				continue
			}
			rest := argv[j+1:]
			if k == 0 || argv[sub].value == "submodule" {
				for len(rest) > 0 && rest[0].exact && strings.HasPrefix(rest[0].value, "-") {
					rest = rest[1:]
				}
				if len(rest) > 0 && a.spend() {
					out = append(out, rest)
				}
				out = append(out, a.script(joinWords(rest), depth+1)...)
			}
			break
		}
	}
	for j := sub + 1; j < len(argv); j++ {
		w := argv[j]
		if !w.exact {
			continue
		}
		name, val, eq := strings.Cut(w.value, "=")
		if !strings.HasSuffix(name, "-filter") && name != "--exec" && name != "-x" && name != "--extcmd" &&
			name != "--setup" && !strings.HasSuffix(name, "-cmd") {
			continue
		}
		if !eq && j+1 < len(argv) {
			val = argv[j+1].value
		}
		out = append(out, a.script(val, depth+1)...)
	}
	return out
}

// gitSubIndex returns the index of git's subcommand, -1 when there is
// none the analysis can read.
func gitSubIndex(argv []word) int {
	for i := 1; i < len(argv); i++ {
		w := argv[i]
		if !w.exact {
			return -1
		}
		if !strings.HasPrefix(w.value, "-") {
			return i
		}
		if name, _, eq := strings.Cut(w.value, "="); gitGlobalValue[name] && !eq {
			i++
		}
	}
	return -1
}

// joinWords joins the values of words with spaces, as git joins the
// words of a foreach command before the shell runs them.
func joinWords(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.value
	}
	return strings.Join(parts, " ")
}

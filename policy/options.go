package policy

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Options of well-known commands that write a file or run another
// program. A prefix allow such as `git diff *` or `go test *` is meant for
// a command, not for everything its options can do: `git diff
// --output=FILE` writes FILE, `go test -exec PROG` runs PROG. So:
//
//   - an option that names a file the command writes becomes a write
//     fact for that file, judged by the write rules like a `>` redirect
//     (whatever rule matched the command);
//   - an option that makes the command run a program (or code from a
//     setting it changes) is not covered by an allow rule's final `*`: the
//     rule's match counts as ask, unless an allow rule names the option in
//     its literal words.
//
// The tables list the options whose effect is plain; they are not every
// option of every program (see the package documentation).

// optEffect is what an option does.
type optEffect uint8

const (
	// optWrite: the option's value names a file or directory the command
	// writes.
	optWrite optEffect = iota + 1
	// optExec: the option makes the command run another program, or
	// changes settings from which it runs one.
	optExec
	// optRead: the word names a file the command reads and shows (the
	// paths of `git diff --no-index`, `git blame --contents FILE`).
	optRead
	// optWriteTree: the value names a directory beneath which the command
	// writes files the analysis cannot name (an extraction, a download).
	optWriteTree
	// optReadTree: the value names a directory beneath which the command
	// reads and shows files the analysis cannot name (git grep --untracked).
	optReadTree
)

// optSpec describes one option.
type optSpec struct {
	effect  optEffect
	value   bool     // the option takes a value ("=" or the next word; attached for a short option)
	needsEq bool     // the option has its effect only with "=value" (bare `git --exec-path` prints)
	execIf  []string // optExec: only when the value holds one of these (or cannot be read)
	why     string   // for optExec: what it runs
}

var (
	writeFile   = optSpec{effect: optWrite, value: true}
	readFile    = optSpec{effect: optRead, value: true}
	gitConfigIn = optSpec{effect: optExec, value: true, why: "sets git configuration, which can name programs git runs (core.fsmonitor, core.pager, aliases)"}
	gitRemote   = optSpec{effect: optExec, value: true, why: "names the program git runs for the remote side"}
)

// gitGlobal are git's options before the subcommand.
var gitGlobal = map[string]optSpec{
	"-c":           gitConfigIn,
	"--config-env": gitConfigIn,
	"--exec-path":  {effect: optExec, needsEq: true, why: "sets where git finds the programs it runs"},
	"--git-dir":    {effect: optExec, value: true, why: "names a git directory explicitly, whose config (which the workspace may have written) can name programs git runs"},
	"--bare":       {effect: optExec, why: "uses the working directory as a git directory explicitly, whose config (which the workspace may have written) can name programs git runs; safe.bareRepository does not stop that"},
}

// gitGlobalValue are git's options before the subcommand that take the
// next word as their value when they have no "=".
var gitGlobalValue = map[string]bool{
	"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--super-prefix": true, "--config-env": true, "--attr-source": true,
}

// Options that make git run a program the repository's configuration
// names: a checkout's own .git/config can name any program there.
var (
	gitExtDiff  = optSpec{effect: optExec, why: "runs the external diff program the repository's configuration names (diff.external, a diff driver's command)"}
	gitTextconv = optSpec{effect: optExec, why: "runs the textconv program the repository's configuration names for a diff driver"}
	gitFilters  = optSpec{effect: optExec, why: "runs the filter programs the repository's configuration names (filter.*.smudge, filter.*.process)"}
	gitSigCheck = optSpec{effect: optExec, why: "runs the signature program the configuration names (gpg.program)"}
	// gitPlain is an option with no effect, listed so that it is not taken
	// for an abbreviation of a longer one (--text of --textconv).
	gitPlain = optSpec{}
)

// gitDiffOptions are the diff options that write a file or run a program:
// every subcommand that takes diff options accepts them.
var gitDiffOptions = map[string]optSpec{
	"--output": writeFile, "--ext-diff": gitExtDiff, "--textconv": gitTextconv, "--text": gitPlain,
}

// gitLogOptions are the options of the subcommands that show commits:
// the diff options and --show-signature.
var gitLogOptions = withOptions(gitDiffOptions, map[string]optSpec{"--show-signature": gitSigCheck})

// withOptions returns a new table with the options of both.
func withOptions(a, b map[string]optSpec) map[string]optSpec {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

// gitSub are the options of git subcommands.
var gitSub = map[string]map[string]optSpec{
	"diff": gitDiffOptions, "log": gitLogOptions, "show": gitLogOptions, "whatchanged": gitLogOptions,
	"diff-tree": gitDiffOptions, "diff-index": gitDiffOptions, "diff-files": gitDiffOptions,
	"range-diff": gitDiffOptions, "stash": gitDiffOptions,
	"format-patch": withOptions(gitDiffOptions, map[string]optSpec{"-o": writeFile, "--output-directory": writeFile}),
	"grep": {
		"-O":                    {effect: optExec, why: "opens the matching files in a pager program"},
		"--open-files-in-pager": {effect: optExec, why: "opens the matching files in a pager program"},
		"--textconv":            gitTextconv, "--text": gitPlain,
	},
	"cat-file":  {"--textconv": gitTextconv, "--filters": gitFilters},
	"rebase":    {"-x": {effect: optExec, value: true, why: "runs a shell command"}, "--exec": {effect: optExec, value: true, why: "runs a shell command"}},
	"difftool":  {"-x": {effect: optExec, value: true, why: "runs a program"}, "--extcmd": {effect: optExec, value: true, why: "runs a program"}},
	"fetch":     {"--upload-pack": gitRemote},
	"pull":      {"--upload-pack": gitRemote},
	"ls-remote": {"--upload-pack": gitRemote, "--exec": gitRemote},
	"clone": {
		"--upload-pack": gitRemote, "-u": gitRemote, "-c": gitConfigIn, "--config": gitConfigIn,
		"--template": {effect: optExec, value: true, why: "copies hooks, which git runs, from a directory"},
	},
	"push":    {"--receive-pack": gitRemote, "--exec": gitRemote},
	"archive": {"--exec": gitRemote, "--output": writeFile, "-o": writeFile},
	// options that read a file and show it (blame --contents prints it, a
	// bad --ignore-revs-file line is quoted in the error) or put it in the
	// history, where git log shows it
	"blame":  {"--contents": readFile, "--ignore-revs-file": readFile, "-S": readFile, "--textconv": gitTextconv},
	"commit": {"-F": readFile, "--file": readFile, "-t": readFile, "--template": readFile},
	"tag":    {"-F": readFile, "--file": readFile},
	"notes":  {"-F": readFile, "--file": readFile},
	"merge":  {"-F": readFile, "--file": readFile},
}

// goOptions are the go command's options, for every subcommand; a flag
// may be written with one dash or two, and the test binary's flags also
// with the "test." prefix.
var goOptions = map[string]optSpec{
	"-exec":     {effect: optExec, value: true, why: "runs the built binaries through a program"},
	"-toolexec": {effect: optExec, value: true, why: "runs the compiler and linker through a program"},
	"-vettool":  {effect: optExec, value: true, why: "runs a program as the vet tool"},
	"-ldflags": {effect: optExec, value: true, execIf: []string{"extld", "extar"},
		why: "names the external linker or archiver program the linker runs"},
	"-o": writeFile, "-coverprofile": writeFile, "-cpuprofile": writeFile, "-memprofile": writeFile,
	"-blockprofile": writeFile, "-mutexprofile": writeFile, "-trace": writeFile, "-outputdir": writeFile,
	"-testlogfile": writeFile, "-gocoverdir": writeFile, "-fuzzcachedir": writeFile,
}

// goSub are options that matter only for one go subcommand.
var goSub = map[string]map[string]optSpec{
	"env": {
		"-w": {effect: optExec, why: "changes the go command's settings for later runs (GOFLAGS=-toolexec=…, CC, GOTOOLCHAIN)"},
		"-u": {effect: optExec, why: "changes the go command's settings for later runs"},
	},
}

// maxOptionFindings bounds the options of one command that the analysis
// turns into facts; a command with more is opaque (the scan stops there).
const maxOptionFindings = 64

// shortForms says which forms of a one-letter option a command accepts
// besides the word alone ("-o FILE").
type shortForms uint8

const (
	// shortAlone: only "-o" ("-ofoo" is another option, as for go's flag
	// package, where -overlay is not -o).
	shortAlone shortForms = iota
	// shortAttached: also "-oVALUE".
	shortAttached
	// shortClusters: also after other one-letter options, "-koVALUE", as
	// git's option parser allows.
	shortClusters
)

// optFinding is one option found in an argv.
type optFinding struct {
	index   int    // argv index of the option word
	name    string // the option, as its table names it
	spec    optSpec
	value   word        // optWrite: the value
	base    string      // optWrite: the directory a relative value is relative to, from -C options; "" for the shell's
	opaque  bool        // optWrite: the base directory cannot be read
	filter  *nameFilter // optReadTree: the files a search lets through
	deletes bool        // optWriteTree: a removal, which touches only what exists
	listing bool        // optRead: shows names or metadata only (see [listAt])
	operand bool        // optRead, optReadTree: a reader's file operand, listed after its command
	split   bool        // optReadTree: the names come through xargs, which splits them at blanks and quotes
}

// findOptions returns the known options of argv that write a file or run
// a program, for git and go; nil for other commands.
func findOptions(argv []word) []optFinding {
	if len(argv) == 0 || !argv[0].exact {
		return nil
	}
	reads, _ := readerFindings(argv)
	if len(argv) < 2 {
		return reads
	}
	switch path.Base(argv[0].value) {
	case "git":
		return gitFindings(argv)
	case "go":
		return goFindings(argv)
	}
	if m := programModel(path.Base(argv[0].value)); m != nil {
		return append(m(argv), reads...)
	}
	return reads
}

// gitFindings scans git's global options, then the subcommand's up to
// `--`.
func gitFindings(argv []word) []optFinding {
	var out []optFinding
	base, opaque := "", false
	i := 1
	for ; i < len(argv) && len(out) <= maxOptionFindings; i++ {
		w := argv[i]
		out = append(out, matchOption(argv, i, gitGlobal, shortAttached)...)
		if !w.exact {
			if !strings.HasPrefix(w.glob, "-") {
				break // a globbed subcommand
			}
			continue
		}
		if !strings.HasPrefix(w.value, "-") {
			break
		}
		name, _, hasEq := strings.Cut(w.value, "=")
		if gitGlobalValue[name] && !hasEq && i+1 < len(argv) {
			i++
			if name == "-C" {
				opaque = opaque || !argv[i].exact
				base = joinDir(base, argv[i].value)
			}
		}
	}
	if i >= len(argv) {
		return out
	}
	if argv[i].exact && argv[i].value == "diff" {
		out = append(out, gitDiffPaths(argv, i+1)...)
	}
	out = append(out, gitMore(argv, i)...)
	for _, table := range gitTables(argv[i]) {
		for j := i + 1; j < len(argv) && len(out) <= maxOptionFindings; j++ {
			if argv[j].exact && argv[j].value == "--" {
				break
			}
			out = append(out, matchOption(argv, j, table, shortClusters)...)
		}
	}
	for k := range out {
		out[k].base, out[k].opaque = base, opaque
	}
	return out
}

// gitDiffValue are git diff options that take the next word as their
// value when it is not attached.
var gitDiffValue = map[string]bool{
	"--output": true, "-S": true, "-G": true, "-O": true, "-I": true, "--src-prefix": true,
	"--dst-prefix": true, "--line-prefix": true, "--anchored": true, "--diff-algorithm": true,
	"--word-diff-regex": true, "--find-object": true, "--ignore-matching-lines": true,
	"--skip-to": true, "--rotate-to": true, "--color-moved-ws": true, "--ws-error-highlight": true,
}

// gitDiffPaths returns the paths that `git diff` may read as files
// rather than from the repository, each a read fact. With --no-index, or
// when one path is outside the repository (absolute, /dev/null too, or
// with a ".." element anywhere: src/../../x leaves it), git reads every
// path from disk (`git diff /dev/null .env` prints .env); and outside a
// repository (a workspace need not be one) any two paths are compared as
// files, before or after `--`. So every operand is a read fact then, and
// so are both of exactly two operands (a revision such as HEAD is read as
// a path too, which the read rules allow unless they deny it); a single
// pathspec, a revision range, and `REV -- PATH` are left to git (outside
// a repository the latter needs a file named like the revision, which a
// write must have made). A value of an option
// taking the next word is taken for a path too, which can only make the
// decision stricter; the values of the common ones are skipped.
func gitDiffPaths(argv []word, from int) []optFinding {
	var ops []int
	implied := false
	dashes := false
	for j := from; j < len(argv); j++ {
		w := argv[j]
		if !dashes && w.exact && w.value == "--" {
			dashes = true
			continue
		}
		text := w.value
		if !w.exact {
			text = w.glob
		}
		if !dashes && strings.HasPrefix(text, "-") {
			if w.exact && gitDiffValue[w.value] {
				j++
			}
			implied = implied || w.exact && w.value == "--no-index"
			continue
		}
		ops = append(ops, j)
		implied = implied || path.IsAbs(text) || hasDotDot(text)
	}
	if !implied && (len(ops) != 2 || revThenPath(argv, ops)) {
		return nil
	}
	out := make([]optFinding, 0, len(ops))
	for _, j := range ops {
		out = append(out, optFinding{index: j, name: "git diff", spec: optSpec{effect: optRead}, value: argv[j]})
	}
	return out
}

// revThenPath reports whether two operands are a revision before `--` and
// a path after it.
func revThenPath(argv []word, ops []int) bool {
	w := argv[ops[0]]
	if !w.exact || w.value == "" || w.value[0] == '.' || strings.ContainsAny(w.value, "/\\") {
		return false
	}
	for j := ops[0] + 1; j < ops[1]; j++ {
		if argv[j].exact && argv[j].value == "--" {
			return true
		}
	}
	return false
}

// hasDotDot reports whether a path has a ".." element anywhere. git
// cleans a path before it decides whether it is in the repository, so
// src/../../x is outside as much as ../x is; and a ".." after a symlink
// goes where the link leads, which only the resolved read fact can tell.
// A path inside the workspace taken for a read costs nothing: read rules
// judge it.
func hasDotDot(p string) bool {
	return slices.Contains(strings.Split(p, "/"), "..")
}

// joinDir returns the directory a -C dir option moves to from base: an
// absolute dir replaces base, a relative one is joined to it.
func joinDir(base, dir string) string {
	if path.IsAbs(dir) {
		return path.Clean(dir)
	}
	return path.Join(base, dir)
}

// gitTables returns the option tables of a git subcommand; for a globbed
// subcommand, those of every subcommand it could expand to.
func gitTables(sub word) []map[string]optSpec {
	if sub.exact {
		if t := gitSub[sub.value]; t != nil {
			return []map[string]optSpec{t}
		}
		return nil
	}
	var out []map[string]optSpec
	for _, name := range slices.Sorted(maps.Keys(gitSub)) {
		if ok, err := doublestar.Match(sub.glob, name); ok && err == nil {
			out = append(out, gitSub[name])
		}
	}
	return out
}

// goFindings scans every word of a go command.
func goFindings(argv []word) []optFinding {
	var out []optFinding
	base, opaque := "", false
	sub := goSub[argv[1].value]
	for j := 2; j < len(argv) && len(out) <= maxOptionFindings; j++ {
		if w := argv[j]; w.exact {
			switch {
			case w.value == "-C" && j+1 < len(argv):
				opaque = opaque || !argv[j+1].exact
				base = joinDir(base, argv[j+1].value)
			case strings.HasPrefix(w.value, "-C="):
				base = joinDir(base, w.value[3:])
			}
		}
		out = append(out, matchGoOption(argv, j, goOptions)...)
		out = append(out, matchGoOption(argv, j, sub)...)
	}
	for k := range out {
		out[k].base, out[k].opaque = base, opaque
	}
	return out
}

// matchGoOption matches argv[j] as a go flag: "--x" is "-x", and
// "-test.x" is "-x".
func matchGoOption(argv []word, j int, table map[string]optSpec) []optFinding {
	if table == nil {
		return nil
	}
	w := argv[j]
	if w.exact {
		v := w.value
		if strings.HasPrefix(v, "--") {
			v = v[1:]
		}
		if rest, ok := strings.CutPrefix(v, "-test."); ok {
			v = "-" + rest
		}
		w.value = v
	}
	return matchWord(w, argv[j+1:], j, table, shortAlone)
}

// matchOption returns the finding for argv[j] when it is one of the
// table's options: "--name", "--name=value" or "--name value"; for a
// one-letter option, also the forms short allows. A word the analysis
// cannot read exactly is a finding for every option its glob could
// expand to, with an unreadable value.
func matchOption(argv []word, j int, table map[string]optSpec, short shortForms) []optFinding {
	return matchWord(argv[j], argv[j+1:], j, table, short)
}

// matchWord is [matchOption] for the word w at index j, followed by the
// words after.
func matchWord(w word, after []word, j int, table map[string]optSpec, short shortForms) []optFinding {
	if !w.exact {
		return globOptions(w, j, table)
	}
	v := w.value
	if len(v) < 2 || v[0] != '-' || v == "--" {
		return nil
	}
	name, val, hasEq := strings.Cut(v, "=")
	if spec, ok := table[name]; ok {
		if spec.needsEq && !hasEq {
			return nil
		}
		return []optFinding{finding(after, j, name, spec, val, hasEq)}
	}
	if strings.HasPrefix(v, "--") {
		if short == shortClusters {
			return abbreviated(after, j, table, name, val, hasEq)
		}
		return nil
	}
	if short == shortAlone {
		return nil
	}
	// one-letter options: "-xvalue", and in clusters "-kx", "-kxvalue"
	for k := 1; k < len(v); k++ {
		c := v[k]
		if !isLetter(c) {
			return nil
		}
		if spec, ok := table["-"+string(c)]; ok {
			rest := v[k+1:]
			return []optFinding{finding(after, j, "-"+string(c), spec, rest, rest != "")}
		}
		if short != shortClusters {
			return nil
		}
	}
	return nil
}

// abbreviated returns the finding for a long option written as a prefix
// of a table's option: git's option parser (shortClusters) accepts any
// unambiguous prefix, so `git grep --open-files-in-p=CMD` runs CMD. Any
// prefix counts, ambiguous or not (git refuses those; taking them is only
// stricter), and among several candidates the first in name order.
func abbreviated(after []word, j int, table map[string]optSpec, name, val string, hasEq bool) []optFinding {
	if len(name) < 3 {
		return nil
	}
	for _, opt := range slices.Sorted(maps.Keys(table)) {
		if !strings.HasPrefix(opt, name) {
			continue
		}
		spec := table[opt]
		if spec.needsEq && !hasEq {
			return nil
		}
		return []optFinding{finding(after, j, opt, spec, val, hasEq)}
	}
	return nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// finding builds the finding for an option at index j: its value is the
// attached one, else the next word when the option takes a value.
func finding(after []word, j int, name string, spec optSpec, attached string, hasAttached bool) optFinding {
	f := optFinding{index: j, name: name, spec: spec}
	switch {
	case !spec.value:
	case hasAttached:
		f.value = word{value: attached, exact: true, src: attached}
	case len(after) > 0:
		f.value = after[0]
	default:
		f.spec.effect = 0 // no value: the command will refuse it
	}
	return f
}

// globOptions returns a finding for every option of the table that the
// globbed word could expand to (a file named "--output=x" makes `git diff
// *` write x), with an unreadable value. Findings come in the order of
// the option names, so the analysis stays deterministic.
func globOptions(w word, j int, table map[string]optSpec) []optFinding {
	if w.glob == "" || !strings.ContainsAny(w.glob[:1], "-*?[") {
		return nil
	}
	name, _, _ := strings.Cut(w.glob, "=")
	var out []optFinding
	for _, opt := range slices.Sorted(maps.Keys(table)) {
		if ok, err := doublestar.Match(name, opt); ok && err == nil {
			out = append(out, optFinding{index: j, name: opt, spec: table[opt], value: word{src: w.src}})
		}
	}
	return out
}

// options records the facts of the known options in argv: a write fact
// for each file an option writes, and the options that run a program,
// which it returns for [cmdPattern] matching.
func (a *analyzer) options(argv []word) []optFinding {
	var execs []optFinding
	found := findOptions(argv)
	if len(found) > maxOptionFindings {
		a.opaque(fmt.Sprintf("more than %d options that write files or run programs", maxOptionFindings), shorten(renderArgv(argv), 200))
		found = found[:maxOptionFindings]
	}
	for _, f := range found {
		switch f.spec.effect {
		case optExec:
			if f.spec.execIf == nil || !f.value.exact || slices.ContainsFunc(f.spec.execIf, func(s string) bool {
				return strings.Contains(f.value.value, s)
			}) {
				execs = append(execs, f)
			}
		case optWrite, optRead, optWriteTree, optReadTree:
			a.record(argv, f)
		}
	}
	return execs
}

// record records the read or write fact of one finding of argv.
func (a *analyzer) record(argv []word, f optFinding) {
	read := f.spec.effect == optRead || f.spec.effect == optReadTree
	what := "the file " + f.name + " names"
	if read {
		what = "a file " + f.name + " reads"
	}
	if f.opaque {
		a.opaque("a -C directory the analysis cannot read, for "+what, renderArgv(argv))
		return
	}
	n := len(a.facts)
	if f.operand && f.spec.effect == optRead && !f.value.exact && f.value.glob != "" && f.base == "" &&
		!strings.HasPrefix(f.value.glob, "~") {
		a.globRead(f.value)
	} else {
		a.fileTarget(read, !read, false, f.base, f.value, what, f.value.src)
	}
	for k := n; k < len(a.facts); k++ {
		a.facts[k].tree = f.spec.effect == optWriteTree || f.spec.effect == optReadTree
		a.facts[k].filter, a.facts[k].deletes, a.facts[k].listing = f.filter, f.deletes, f.listing
		a.facts[k].operand, a.facts[k].split = f.operand, f.split
		a.facts[k].owner = a.commands
	}
}

// tailExec returns the first option in argv that runs a program and that
// the pattern's final `*` stands for (an option the pattern spells out is
// allowed on purpose).
func (p cmdPattern) tailExec(execs []optFinding) (optFinding, bool) {
	if !p.rest {
		return optFinding{}, false
	}
	for _, f := range execs {
		if f.index >= len(p.words) {
			return f, true
		}
	}
	return optFinding{}, false
}

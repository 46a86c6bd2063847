package policy

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Everyday shapes of the command lines models write, read for what they
// are: `cd DIR &&`, `timeout N CMD`, `VAR=value CMD`, `find … | xargs
// grep`. docs/policy.md describes each.

// cd moves the analysis to the directory a `cd DIR` names, when DIR is a
// plain word and lies inside the workspace from every directory the line
// may be in; it reports whether it did. `cd`, `cd -`, `cd $X` and a cd
// outside the workspace are left to the caller (relative paths after
// them are opaque).
func (a *analyzer) cd(argv []word) bool {
	if a.moved || len(argv) != 2 || !argv[1].exact {
		return false
	}
	target := argv[1].value
	if target == "" || strings.HasPrefix(target, "-") {
		return false
	}
	dirs := make([]string, 0, len(a.dirs))
	for _, d := range a.dirs {
		p := target
		if !path.IsAbs(p) {
			p = path.Join(d, p)
		}
		rel, ok := a.within(p)
		if !ok {
			return false
		}
		if !slices.Contains(dirs, rel) {
			dirs = append(dirs, rel)
		}
	}
	a.dirs = dirs
	return true
}

// durationRe matches timeout's DURATION operand.
var durationRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+(\.[0-9]+)?[smhd]?$`) })

// stripTimeout returns the command `timeout [OPTION] DURATION CMD…`
// runs, and true; else argv and false.
func stripTimeout(argv []word) ([]word, bool) {
	if !argv[0].exact || argv[0].value != "timeout" {
		return argv, false
	}
	i := 1
	for i < len(argv) {
		w := argv[i]
		if !w.exact {
			return argv, false
		}
		v := w.value
		if v == "--" {
			i++
			break
		}
		if !strings.HasPrefix(v, "-") {
			break
		}
		if v == "-s" || v == "-k" || v == "--signal" || v == "--kill-after" {
			i++
		}
		i++
	}
	if i+1 >= len(argv) || !argv[i].exact || !durationRe().MatchString(argv[i].value) {
		return argv, false
	}
	return argv[i+1:], true
}

// ordinaryAssigns reports whether every prefix assignment sets an
// ordinary variable to a value the analysis reads exactly.
func (a *analyzer) ordinaryAssigns(as []*syntax.Assign) bool {
	for _, x := range as {
		if x.Append || x.Naked || x.Index != nil || x.Array != nil || x.Name == nil || !ordinaryVar(x.Name.Value) {
			return false
		}
		if x.Value != nil && !readWordEnv(x.Value, a.env).exact {
			return false
		}
	}
	return true
}

// runVars are variables that change what a command runs or where it
// finds its code and settings; a prefix assignment of one keeps a
// command opaque.
var runVars = map[string]bool{
	"PATH": true, "HOME": true, "ENV": true, "BASH_ENV": true, "CDPATH": true, "IFS": true, "PS4": true,
	"SHELLOPTS": true, "BASHOPTS": true, "PROMPT_COMMAND": true, "GLOBIGNORE": true, "TMPDIR": true,
	"SHELL": true, "EDITOR": true, "VISUAL": true, "PAGER": true, "MANPAGER": true, "BROWSER": true,
	"CC": true, "CXX": true, "LD": true, "AR": true, "AS": true, "CPP": true, "FC": true, "MAKEFLAGS": true,
	"MAKE": true, "GCONV_PATH": true, "LOCPATH": true, "CLASSPATH": true, "NODE_OPTIONS": true,
	"RUBYOPT": true, "RUBYLIB": true, "PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true,
	"RUSTC_WRAPPER": true, "RUSTFLAGS": true, "TERMINFO": true, "HOSTALIASES": true,
}

// ordinaryGo are the GO* variables that change no program the go
// command runs; every other GO* variable (GOFLAGS, GOTOOLCHAIN, GOPROXY,
// GOENV, …) may.
var ordinaryGo = map[string]bool{
	"GOOS": true, "GOARCH": true, "GOARM": true, "GOAMD64": true, "GOMAXPROCS": true, "GOTRACEBACK": true,
	"GOGC": true, "GOMEMLIMIT": true, "CGO_ENABLED": true,
}

// ordinaryVar reports whether a prefix assignment of name changes only
// what the command computes, not what it runs.
func ordinaryVar(name string) bool {
	u := strings.ToUpper(name)
	if runVars[u] || ordinaryGo[u] {
		return !runVars[u]
	}
	for _, pre := range []string{"LD_", "DYLD_", "GIT_", "GO", "CGO_", "PYTHON", "NODE_", "NPM_CONFIG_", "PIP_",
		"CARGO_", "SSH_", "XDG_", "LESS", "JAVA", "_JAVA", "JDK_", "SUDO_", "BASH_FUNC"} {
		if strings.HasPrefix(u, pre) {
			return false
		}
	}
	for _, part := range []string{"PRELOAD", "PATH", "OPT", "FLAGS", "LIB", "HOOK", "CONFIG", "EXEC", "CMD", "COMMAND", "PROGRAM", "WRAPPER"} {
		if strings.Contains(u, part) {
			return false
		}
	}
	return true
}

// findTree is what a find prints: names beneath its starting points that
// its filter lets through.
type findTree struct {
	roots  []word
	filter *nameFilter
	print0 bool // the names end with NUL (-print0), not a newline
}

// passFilter reports whether argv passes on a subset of the lines it
// reads whole: head, tail, sort, uniq with no file operand, grep without
// -o, -r or a file operand.
func passFilter(argv []word) bool {
	name := path.Base(argv[0].value)
	g, ok := readerOpts[name]
	switch name {
	case "sort":
		g, ok = getopt{val: "kotTS"}, true
	case "uniq":
		g, ok = getopt{val: "fsw"}, true
	}
	if !ok {
		return false
	}
	p := g.parse(argv)
	switch name {
	case "head", "tail", "sort", "uniq":
		return len(p.operands) == 0 && !p.has("-o")
	case "grep", "egrep", "fgrep":
		if p.has("-o", "--only-matching", "-r", "-R", "--recursive", "-d", "--directories", "-f", "--file") {
			return false
		}
		pattern := !p.has("-e", "--regexp")
		return len(p.operands) == 0 || pattern && len(p.operands) == 1
	}
	return false
}

// printedNames returns what a find prints when it prints only the names
// it finds (no -printf, -fprint, -ls, -delete; an -exec only of grep -l
// or -L, which prints names of the files it is given), else nil.
func printedNames(argv []word) *findTree {
	roots, first := findRoots(argv)
	execAt, printed, print0 := -1, false, false
	for i := first; i < len(argv); i++ {
		w := argv[i]
		if !w.exact {
			return nil
		}
		switch w.value {
		case "-exec", "-execdir":
			end := i + 1
			for end < len(argv) && !(argv[end].exact && (argv[end].value == ";" || argv[end].value == "+")) {
				end++
			}
			if execAt >= 0 || !namesOnly(argv[i+1:end], roots) {
				return nil
			}
			execAt, i = i, end
		case "-print", "-print0":
			printed = true
			print0 = print0 || w.value == "-print0"
		case "-ok", "-okdir", "-printf", "-fprintf", "-fprint", "-fprint0", "-ls", "-fls", "-delete":
			return nil
		}
	}
	if execAt >= 0 && printed {
		return nil
	}
	if execAt >= 0 {
		return &findTree{roots: roots, filter: &nameFilter{include: execNames(argv, first, execAt)}}
	}
	return &findTree{roots: roots, filter: &nameFilter{include: exprNames(argv[first:])}, print0: print0}
}

// namesOnly reports whether the command an -exec runs is a plain grep
// that prints only the names of the files it is given (-l or -L).
func namesOnly(r []word, roots []word) bool {
	if len(r) == 0 || !r[0].exact {
		return false
	}
	switch path.Base(r[0].value) {
	case "grep", "egrep", "fgrep":
	default:
		return false
	}
	if _, ok := execReader(r, roots, nil, false); !ok {
		return false
	}
	p := grepOpts.parse(r)
	return p.has("-l", "-L", "--files-with-matches", "--files-without-match") && !p.has("-c", "--count", "-o", "--only-matching")
}

// findRoots returns find's starting points ("." when none) and the index
// where its expression starts.
func findRoots(argv []word) ([]word, int) {
	var roots []word
	i := 1
	for ; i < len(argv); i++ {
		w := argv[i]
		v := w.value
		if !w.exact {
			v = w.glob
		}
		if v == "-H" || v == "-L" || v == "-P" {
			continue
		}
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" {
			break
		}
		roots = append(roots, w)
	}
	if len(roots) == 0 {
		roots = []word{dotWord}
	}
	return roots, i
}

// findValued are find's primaries that take one value.
var findValued = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true,
	"-regex": true, "-iregex": true, "-type": true, "-xtype": true, "-maxdepth": true, "-mindepth": true,
	"-size": true, "-mtime": true, "-mmin": true, "-atime": true, "-amin": true, "-ctime": true, "-cmin": true,
	"-newer": true, "-user": true, "-group": true, "-perm": true, "-links": true, "-inum": true,
	"-samefile": true, "-fstype": true, "-used": true, "-lname": true, "-ilname": true, "-uid": true,
	"-gid": true, "-printf": true, "-fprint": true, "-fprint0": true, "-fls": true, "-regextype": true,
	"-context": true, "-newermt": true,
}

// exprNames returns the base-name globs that every name a find
// expression accepts matches one of (an -name or -iname the expression
// requires, or one per branch of an -o), or nil when the names are not so
// bounded. It errs towards nil, which reads more.
func exprNames(expr []word) []word {
	branches := splitOr(expr)
	if branches == nil {
		return nil
	}
	var out []word
	for _, b := range branches {
		names := branchNames(b)
		if names == nil {
			return nil
		}
		out = append(out, names...)
	}
	return out
}

// splitOr splits an expression at its top-level -o; nil when a word
// cannot be read.
func splitOr(expr []word) [][]word {
	var out [][]word
	depth, start := 0, 0
	for i := 0; i < len(expr); i++ {
		w := expr[i]
		if !w.exact {
			return nil
		}
		switch w.value {
		case "(":
			depth++
		case ")":
			depth--
		case "-exec", "-execdir", "-ok", "-okdir":
			for i++; i < len(expr) && !(expr[i].exact && (expr[i].value == ";" || expr[i].value == "+")); i++ {
			}
		case "-o", "-or":
			if depth == 0 {
				out = append(out, expr[start:i])
				start = i + 1
			}
		default:
			if findValued[w.value] {
				i++
			}
		}
	}
	return append(out, expr[start:])
}

// branchNames returns the name globs an and-branch requires: the first
// -name or -iname at its top level, or a parenthesised group's, else nil.
func branchNames(b []word) []word {
	for i := 0; i < len(b); i++ {
		v := b[i].value
		switch {
		case v == "!" || v == "-not":
			if i+1 < len(b) && b[i+1].value == "(" {
				i = closeParen(b, i+1)
			} else if i+1 < len(b) && findValued[b[i+1].value] {
				i += 2
			} else {
				i++
			}
		case v == "(":
			end := closeParen(b, i)
			if end > i+1 {
				if names := exprNames(b[i+1 : end]); names != nil {
					return names
				}
			}
			i = end
		case (v == "-name" || v == "-iname") && i+1 < len(b):
			return []word{b[i+1]}
		case v == "-exec" || v == "-execdir" || v == "-ok" || v == "-okdir":
			for i++; i < len(b) && !(b[i].value == ";" || b[i].value == "+"); i++ {
			}
		case findValued[v]:
			i++
		}
	}
	return nil
}

// closeParen returns the index of the ")" matching the "(" at i.
func closeParen(b []word, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j].value {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(b)
}

// execReader returns the findings of the command `find … -exec R … {} ;`
// runs when R is a plain reader, given the words of R: R's own reads and
// a tree read of each starting point, through what the expression before
// the -exec lets through. ok is false when R is not a plain reader.
func execReader(r []word, roots []word, names []word, execdir bool) ([]optFinding, bool) {
	if len(r) == 0 || !r[0].exact {
		return nil, false
	}
	if _, reader := readerOpts[path.Base(r[0].value)]; !reader {
		return nil, false
	}
	if name, ok := isPlainName(r[0]); !ok || name == "" {
		return nil, false
	}
	own := make([]word, 0, len(r))
	for _, w := range r {
		if w.exact && w.value == "{}" {
			continue
		}
		if strings.Contains(w.value, "{}") || !w.exact && w.glob == "" {
			return nil, false
		}
		own = append(own, w)
	}
	found, _ := readerFindings(own)
	for _, f := range found {
		// -execdir runs R in each found file's directory, where R's own
		// operands name other files than the analysis would join
		if f.spec.effect == optExec || f.spec.effect == optReadTree || execdir {
			return nil, false
		}
	}
	for _, root := range roots {
		found = append(found, treeReadAt(0, "find -exec "+path.Base(r[0].value), root, &nameFilter{include: names}))
	}
	return found, true
}

// xargsReads records the reads of `xargs R …` where R is a plain reader
// and the names come from a find in the same pipeline; it reports
// whether it did.
func (a *analyzer) xargsReads(argv []word, src *findTree) bool {
	p := getopt{val: "aEILnPsdjS", opt: "eil", posix: true, long: map[string]bool{
		"--arg-file": true, "--delimiter": true, "--max-args": true, "--max-procs": true,
		"--max-chars": true, "--process-slot-var": true, "--jobs": true,
	}}.parse(argv)
	if len(p.operands) == 0 || p.has("-a", "--arg-file") || len(p.globs) > 0 {
		return false
	}
	found, ok := execReader(argv[p.operands[0]:], src.roots, src.filter.include, false)
	if !ok {
		return false
	}
	// xargs splits its input at blanks and quotes unless both ends use
	// NUL: a found name "src/x .env" would reach the reader as two
	split := !(src.print0 && p.has("-0", "--null"))
	for _, f := range found {
		if f.spec.effect == optReadTree {
			f.split = split
		}
		a.record(argv, f)
	}
	return true
}

// wrapsDirChange reports whether argv runs a cd, pushd or popd through a
// builtin that runs it in this shell (builtin cd, command cd, eval cd).
func wrapsDirChange(argv []word) bool {
	switch path.Base(argv[0].value) {
	case "builtin", "command", "eval", "exec":
	default:
		return false
	}
	for _, w := range argv[1:] {
		if !w.exact || dirChangers[w.value] || strings.ContainsAny(w.value, " ;&|") {
			return true
		}
	}
	return false
}

// redirectsStreams reports whether redirects change a command's
// standard input, or what reaches its standard output (a redirect of
// descriptor 1, or one that joins another descriptor to it). Errors sent
// to a file or /dev/null (`2>/dev/null`) change neither.
func redirectsStreams(rs []*syntax.Redirect) (stdin, stdout bool) {
	for _, r := range rs {
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if fd == "" || fd == "0" {
				stdin = true
			} else {
				stdout = true // conservative
			}
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob:
			if fd == "" || fd == "1" {
				stdout = true
			}
		default: // dups, &>, and anything else
			stdout = true
		}
	}
	return stdin, stdout
}

// unionDirs returns the directories of a and b, each once.
func unionDirs(a, b []string) []string {
	out := slices.Clone(a)
	for _, d := range b {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

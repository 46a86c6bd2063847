package policy

import (
	"path"
	"slices"
	"strings"
)

// Option and operand knowledge of the everyday programs a CI policy
// allows, in the form of options.go: what writes a file becomes a write
// fact (a tree of them when the program writes names the analysis cannot
// know, such as an extraction), what reads a file it then shows or sends
// becomes a read fact, and what runs another program is not covered by an
// allow rule's final `*`. docs/policy.md documents every table here.

// progModel returns the findings for one program's argv.
type progModel func(argv []word) []optFinding

// programModel returns the model of a program's options by its base
// name, nil for a program the analysis does not model (git and go have
// their own tables in options.go).
func programModel(name string) progModel {
	switch name {
	case "sed", "gsed":
		return sedFindings
	case "sort":
		return sortFindings
	case "find", "gfind":
		return findFindings
	case "xargs", "parallel":
		return xargsFindings
	case "awk", "gawk", "mawk", "nawk":
		return awkFindings
	case "zip":
		return zipFindings
	case "unzip":
		return unzipFindings
	case "rsync":
		return rsyncFindings
	case "ssh", "scp", "sftp":
		return sshFindings
	case "less", "more", "man":
		return pagerFindings
	case "vim", "vi", "ex", "view", "nvim", "vimdiff", "rvim", "rview", "gvim", "nano", "pico", "ed":
		return editorFindings
	case "curl":
		return curlFindings
	case "wget":
		return wgetFindings
	case "rubichan":
		return rubichanFindings
	}
	return fileProgramModel(name)
}

// modelledPrograms are the programs whose options and operands the
// analysis models: the ones above, git and go, and plain readers that
// have no option that runs a program or writes a file. An allow rule with
// a final `*` for any other program draws a warning at load time.
var modelledPrograms = []string{
	"awk", "base64", "basename", "bsdtar", "cat", "chgrp", "chmod", "chown", "cksum", "cmp", "comm",
	"cp", "curl", "cut", "date", "dd", "df", "diff", "dirname", "du", "echo", "ed", "egrep", "ex",
	"expand", "expr", "false", "fgrep", "file", "find", "fold", "gawk", "gfind", "git", "go", "grep",
	"gsed", "gtar", "gvim", "head", "hostname", "id", "install", "less", "link", "ln", "ls", "man",
	"mawk", "md5sum", "mkdir", "more", "mv", "nano", "nawk", "nl", "nproc", "nvim", "od", "parallel",
	"paste", "patch", "pico", "printenv", "printf", "pwd", "readlink", "realpath", "rev", "rm",
	"rmdir", "rsync", "rubichan", "rview", "rvim", "scp", "sed", "seq", "sftp", "sha1sum",
	"sha256sum", "sha512sum", "sleep", "sort", "ssh", "stat", "tac", "tail", "tar", "tee", "test",
	"touch", "tr", "tree", "true", "truncate", "uname", "uniq", "unlink", "unzip", "vi", "view",
	"vim", "vimdiff", "wc", "wget", "which", "whoami", "xargs", "xxd", "zip",
}

// isModelled reports whether the analysis models a program's options.
func isModelled(name string) bool {
	_, ok := slices.BinarySearch(modelledPrograms, path.Base(name))
	return ok
}

// sedFindings: -i/--in-place makes every file operand a write; the
// script (-e, --expression, or the first operand) is read for the e
// command and s///e (run a program), w and W (write a file) and r and R
// (read a file into the output); a -f script file cannot be seen.
func sedFindings(argv []word) []optFinding {
	p := getopt{val: "efl", opt: "i", long: map[string]bool{
		"--expression": true, "--file": true, "--line-length": true, "--in-place": false,
	}}.parse(argv)
	out := globExecs(p, argv)
	var scripts []int
	files := p.operands
	for _, o := range p.opts {
		switch o.name {
		case "-e", "--expression":
			if o.has {
				scripts = append(scripts, o.index)
			}
		case "-f", "--file":
			out = append(out, execAt(o.index, o.name, "reads a script from a file the analysis cannot see, which may run programs (e) or write files (w)"))
		}
	}
	if len(scripts) == 0 && !p.has("-f", "--file") && len(files) > 0 {
		scripts, files = files[:1], files[1:]
	}
	for _, i := range scripts {
		out = append(out, sedScript(i, scriptWord(p, argv, i))...)
	}
	if p.has("-i", "--in-place") {
		for _, i := range files {
			out = append(out, writeAt(i, "sed -i", argv[i]))
		}
	}
	// -iSUFFIX keeps a backup: FILE+SUFFIX, or with a * or / in the
	// suffix a name (in a directory) the suffix makes
	for _, o := range p.opts {
		if (o.name != "-i" && o.name != "--in-place") || !o.has || o.value.value == "" {
			continue
		}
		if strings.ContainsAny(o.value.value, "*/") || !o.value.exact {
			out = append(out, execAt(o.index, o.name, "keeps a backup under a name or directory its suffix makes"))
			continue
		}
		for _, i := range files {
			if w := argv[i]; w.exact {
				out = append(out, writeAt(i, "sed -i backup", word{value: w.value + o.value.value, exact: true, src: w.src}))
			}
		}
	}
	return append(out, operandReads(argv, "sed", files)...)
}

// scriptWord returns the script text at argv index i: an option's value
// when i is the index of an option that has one, else the word.
func scriptWord(p parsedArgs, argv []word, i int) word {
	for _, o := range p.opts {
		if o.index == i && o.has {
			return o.value
		}
	}
	return argv[i]
}

// sedScript turns one sed script into findings.
func sedScript(i int, w word) []optFinding {
	if !w.exact {
		return []optFinding{execAt(i, "sed script", "is a script the analysis cannot read")}
	}
	s := scanSed(w.value)
	var out []optFinding
	if !s.ok {
		out = append(out, execAt(i, "sed script", "is a script the analysis cannot parse, which may run programs (e) or write files (w)"))
	}
	if s.exec {
		out = append(out, execAt(i, "sed e", "runs a shell command (the e command or the s///e flag)"))
	}
	for _, f := range s.writes {
		out = append(out, writeAt(i, "sed w", word{value: f, exact: true, src: f}))
	}
	for _, f := range s.reads {
		out = append(out, readAt(i, "sed r", word{value: f, exact: true, src: f}))
	}
	return out
}

// sortFindings: -o and --output write; --compress-program runs a
// program; -T and --temporary-directory write temporary files there.
func sortFindings(argv []word) []optFinding {
	p := getopt{val: "kotTS", long: map[string]bool{
		"--output": true, "--compress-program": true, "--temporary-directory": true, "--key": true,
		"--field-separator": true, "--buffer-size": true, "--batch-size": true, "--parallel": true,
		"--random-source": true, "--sort": true, "--files0-from": true,
	}}.parse(argv)
	out := globExecs(p, argv)
	for _, o := range p.opts {
		switch o.name {
		case "-o", "--output", "-T", "--temporary-directory":
			if o.has {
				out = append(out, writeAt(o.index, o.name, o.value))
			}
		case "--compress-program":
			out = append(out, execAt(o.index, o.name, "runs a program to compress temporary files"))
		case "--files0-from":
			out = append(out, execAt(o.index, o.name, "sorts and shows the files a list names, which the analysis cannot see"))
		}
	}
	return append(out, operandReads(argv, "sort", p.operands)...)
}

// findActions are find's actions that run a program, delete or write.
var findActions = []string{"-delete", "-exec", "-execdir", "-fls", "-fprint", "-fprint0", "-fprintf", "-ok", "-okdir"}

// findFindings: -exec, -execdir, -ok and -okdir run programs; -delete
// writes beneath every starting point; -fprint, -fprint0, -fprintf and
// -fls write the file they name; wherever they stand in the expression.
func findFindings(argv []word) []optFinding {
	var out []optFinding
	var starts []word
	expr := false
	exprStart := len(argv)
	for i := 1; i < len(argv); i++ {
		w := argv[i]
		if !expr && exprStart == len(argv) && (!w.exact || strings.HasPrefix(w.value, "-") && !slices.Contains([]string{"-H", "-L", "-P"}, w.value) || w.value == "(" || w.value == "!") {
			exprStart = i
		}
		if !w.exact {
			for _, a := range findActions {
				if globMatches(w.glob, a) {
					out = append(out, execAt(i, w.src, "may expand to "+a+", which runs a program or writes"))
					break
				}
			}
			continue
		}
		v := w.value
		switch v {
		case "-exec", "-execdir":
			end := i + 1
			for end < len(argv) && !(argv[end].exact && (argv[end].value == ";" || argv[end].value == "+")) {
				end++
			}
			roots := starts
			if len(roots) == 0 {
				roots = []word{dotWord}
			}
			if found, ok := execReader(argv[i+1:end], roots, execNames(argv, exprStart, i), v == "-execdir"); ok {
				out = append(out, found...)
				expr, i = true, end
				continue
			}
			out = append(out, execAt(i, v, "runs a program for the files found"))
		case "-ok", "-okdir":
			out = append(out, execAt(i, v, "runs a program for the files found"))
		case "-delete":
			out = append(out, execAt(i, v, "deletes the files found"))
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if i+1 < len(argv) {
				out = append(out, writeAt(i, v, argv[i+1]))
			}
		}
		if !expr && (strings.HasPrefix(v, "-") && !slices.Contains([]string{"-H", "-L", "-P"}, v) || v == "(" || v == "!") {
			expr = true
		}
		if !expr {
			starts = append(starts, w)
		}
	}
	listed := starts
	if len(listed) == 0 {
		listed = []word{dotWord}
	}
	for _, s := range listed {
		out = append(out, listAt(0, "find", s))
	}
	if slices.ContainsFunc(out, func(f optFinding) bool { return f.name == "-delete" }) {
		if len(starts) == 0 {
			starts = append(starts, dotWord)
		}
		for _, s := range starts {
			out = append(out, treeAt(0, "find -delete", s, false))
		}
	}
	return out
}

// execNames returns the name globs that the files reaching an -exec at
// index at must match: those of the and-branch the -exec ends, when it
// stands at the top level of the expression that starts at from.
func execNames(argv []word, from, at int) []word {
	if from > at {
		return nil
	}
	branches := splitOr(argv[from:at])
	if len(branches) == 0 {
		return nil
	}
	last := branches[len(branches)-1]
	open := 0
	for _, w := range last {
		switch w.value {
		case "(":
			open++
		case ")":
			open--
		}
	}
	if open != 0 {
		return nil
	}
	return branchNames(last)
}

// containsAny reports whether s holds one of the words.
func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// xargsFindings: the first operand of xargs and parallel is a command
// they run.
func xargsFindings(argv []word) []optFinding {
	p := getopt{val: "aEILnPsdjS", opt: "eil", posix: true, long: map[string]bool{
		"--arg-file": true, "--delimiter": true, "--max-args": true, "--max-procs": true,
		"--max-chars": true, "--process-slot-var": true, "--jobs": true,
	}}.parse(argv)
	out := globExecs(p, argv)
	if len(p.operands) > 0 {
		i := p.operands[0]
		out = append(out, execAt(i, argv[i].src, "is a command "+path.Base(argv[0].value)+" runs"))
	}
	return out
}

// awkFindings: a program in a file (-f, -E, -i, -l, -W) cannot be seen;
// gawk's -d, -o, -p and -D write files or start the debugger; program
// text is opaque unless it is free of system(), pipes, redirects and
// getline.
func awkFindings(argv []word) []optFinding {
	p := getopt{val: "fvFEilWe", opt: "dopD", posix: true, long: map[string]bool{
		"--file": true, "--exec": true, "--include": true, "--load": true, "--assign": true,
		"--field-separator": true, "--source": true, "--dump-variables": false, "--pretty-print": false,
		"--profile": false, "--debug": false,
	}}.parse(argv)
	out := globExecs(p, argv)
	var progs []int
	fromFile := false
	for _, o := range p.opts {
		switch o.name {
		case "-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load", "-W":
			fromFile = true
			out = append(out, execAt(o.index, o.name, "loads program text or an extension the analysis cannot see"))
		case "-d", "--dump-variables", "-o", "--pretty-print", "-p", "--profile", "-D", "--debug":
			out = append(out, execAt(o.index, o.name, "writes a file (awkvars.out, awkprof.out or the one named) or starts the debugger"))
		case "-e", "--source":
			progs = append(progs, o.index)
		}
	}
	files := p.operands
	if len(progs) == 0 && !fromFile && len(p.operands) > 0 {
		progs, files = p.operands[:1], p.operands[1:]
	}
	out = append(out, operandReads(argv, "awk", files)...)
	for _, i := range progs {
		w := scriptWord(p, argv, i)
		if !w.exact || strings.ContainsAny(w.value, "|>@") || containsAny(w.value, "system", "getline", "ARGV", "ARGC", "ENVIRON", "PROCINFO") {
			out = append(out, execAt(i, "awk program", "may run commands (system(), pipes) or read and write files (getline, print >)"))
		}
	}
	return out
}

// zipFindings: -T, --test, -TT and --unzip-command run a program; the archive (the
// first operand) and -O are written; -m deletes the files it adds.
func zipFindings(argv []word) []optFinding {
	var out []optFinding
	for i, w := range argv[1:] {
		if w.exact && (strings.HasPrefix(w.value, "-TT") || strings.HasPrefix(w.value, "--unz")) {
			out = append(out, execAt(i+1, w.value, "runs a program to test the archive"))
		}
	}
	p := getopt{val: "bnOtiIxZsP", long: map[string]bool{"--output-file": true, "--temp-path": true, "--unzip-command": true, "--test": false}}.parse(argv)
	out = append(out, globExecs(p, argv)...)
	for _, o := range p.opts {
		if o.name == "-T" || o.name == "--test" {
			out = append(out, execAt(o.index, o.name, "tests the archive by running unzip"))
		}
		if (o.name == "-O" || o.name == "--output-file" || o.name == "-b" || o.name == "--temp-path") && o.has {
			out = append(out, writeAt(o.index, o.name, o.value))
		}
	}
	if len(p.operands) > 0 {
		i := p.operands[0]
		out = append(out, writeAt(i, "zip archive", argv[i]))
		if argv[i].exact && !strings.Contains(path.Base(argv[i].value), ".") {
			out = append(out, writeAt(i, "zip archive", word{value: argv[i].value + ".zip", exact: true, src: argv[i].src}))
		}
		if p.has("-m", "--move") {
			for _, j := range p.operands[1:] {
				out = append(out, treeAt(j, "zip -m", argv[j], false))
			}
		}
	}
	return out
}

// unzipFindings: extraction writes anything beneath -d DIR (else the
// working directory) unless a listing, testing or printing mode is
// chosen; -: lets it write outside.
func unzipFindings(argv []word) []optFinding {
	p := getopt{val: "dP"}.parse(argv)
	out := globExecs(p, argv)
	if p.has("-:") {
		out = append(out, execAt(1, "-:", "extracts names with .. anywhere"))
	}
	if p.has("-l", "-t", "-v", "-z", "-Z", "-p", "-c") {
		return out
	}
	dir := dotWord
	for _, o := range p.opts {
		if o.name == "-d" && o.has {
			dir = o.value
		}
	}
	return append(out, treeAt(len(argv), "unzip", dir, false))
}

// pagerFindings: a `+` operand of less and more is a command the pager
// runs at start (`+!cmd` runs a shell command in less); less's lesskey
// options can set LESSOPEN, its -o and -O write a log; man's -P, -H and
// -C name programs. Commands typed into a pager need a terminal, which
// the bash tool never gives (a new session, stdin from /dev/null).
func pagerFindings(argv []word) []optFinding {
	name := path.Base(argv[0].value)
	var out []optFinding
	if name == "man" {
		p := getopt{val: "CMPpLmSseRrTEK", opt: "H", long: map[string]bool{
			"--pager": true, "--html": false, "--config-file": true, "--preprocessor": true,
		}}.parse(argv)
		out = append(out, globExecs(p, argv)...)
		for _, o := range p.opts {
			if slices.Contains([]string{"-P", "--pager", "-H", "--html", "-C", "--config-file"}, o.name) {
				out = append(out, execAt(o.index, o.name, "names a program man runs (a pager, a browser, or a config file that names them)"))
			}
		}
		return out
	}
	p := getopt{val: "bhjkoOpPtTxyz#", long: map[string]bool{
		"--log-file": true, "--LOG-FILE": true, "--lesskey-file": true, "--lesskey-src": true,
		"--lesskey-content": true, "--tag": true, "--tag-file": true, "--pattern": true, "--prompt": true,
	}}.parse(argv)
	out = append(out, globExecs(p, argv)...)
	for _, o := range p.opts {
		switch o.name {
		case "-k", "--lesskey-file", "--lesskey-src", "--lesskey-content":
			out = append(out, execAt(o.index, o.name, "reads key bindings and variables (LESSOPEN), which can run programs"))
		case "-o", "-O", "--log-file", "--LOG-FILE":
			if o.has {
				out = append(out, writeAt(o.index, o.name, o.value))
			}
		}
	}
	for _, i := range p.operands {
		if w := argv[i]; !w.exact || strings.HasPrefix(w.value, "+") {
			out = append(out, execAt(i, "+command", "is a pager command run at start, which can run a shell command (!) or write a file (s)"))
		}
	}
	return out
}

// editorFindings: an editor runs the commands it reads, from its options
// (-c, +cmd, -S, -u) and from standard input, which a pipe or redirect
// in the same command can fill (`:!cmd`, `:w FILE`); so no editor
// command is covered by a final `*`, and its file operands are writes.
func editorFindings(argv []word) []optFinding {
	out := []optFinding{execAt(len(argv), path.Base(argv[0].value),
		"is an editor, which runs the commands it reads (options, standard input), and those can run programs and write files")}
	p := getopt{val: "cSuUsTwWioqrt"}.parse(argv)
	for _, i := range p.operands {
		if w := argv[i]; !w.exact || !strings.HasPrefix(w.value, "+") {
			out = append(out, writeAt(i, "edited file", w))
		}
	}
	return out
}

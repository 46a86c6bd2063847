package policy

import (
	"path"
	"slices"
	"strings"
)

// Readers: programs that read the files their operands name and show what
// they read. Their file operands are read facts, judged by the read rules
// (the built-in secret denials among them), so an allow rule for `cat *`
// does not let `cat .env` through; a recursive search is a tree read.
// docs/policy.md lists them.

// readerOpts are the reading programs and how each parses its options.
var readerOpts = map[string]getopt{
	"cat": {}, "tac": {val: "s", long: map[string]bool{"--separator": true}},
	"nl":   {val: "bdfhilnsvw"},
	"wc":   {long: map[string]bool{"--files0-from": true}},
	"head": {val: "nc", long: map[string]bool{"--lines": true, "--bytes": true}},
	"tail": {val: "ncs", long: map[string]bool{"--lines": true, "--bytes": true, "--pid": true,
		"--sleep-interval": true, "--max-unchanged-stats": true}},
	"cut": {val: "bcdf", long: map[string]bool{"--bytes": true, "--characters": true, "--delimiter": true,
		"--fields": true, "--output-delimiter": true}},
	"paste": {val: "d", long: map[string]bool{"--delimiters": true}},
	"rev":   {}, "od": {val: "AjNStw"}, "cksum": {}, "md5sum": {}, "sha1sum": {}, "sha256sum": {},
	"sha512sum": {}, "base64": {val: "w"}, "fold": {val: "w"}, "expand": {val: "t"},
	"file": {val: "emfFP", long: map[string]bool{"--compile": false, "--magic-file": true, "--files-from": true, "--separator": true}},
	"cmp":  {val: "inI"},
	"comm": {},
	"diff": {val: "CUDFILSxX", long: map[string]bool{"--label": true, "--ignore-matching-lines": true,
		"--show-function-line": true, "--exclude": true, "--exclude-from": true, "--starting-file": true,
		"--from-file": true, "--to-file": true, "--context": false, "--unified": false, "--color": false,
		"--line-format": true, "--old-line-format": true, "--new-line-format": true,
		"--unchanged-line-format": true, "--horizon-lines": true, "--tabsize": true, "--width": true}},
	"grep": grepOpts, "egrep": grepOpts, "fgrep": grepOpts,
	"ls": {val: "ITw", long: map[string]bool{"--ignore": true, "--hide": true, "--format": true,
		"--sort": true, "--time-style": true, "--width": true, "--tabsize": true, "--block-size": true,
		"--time": true, "--quoting-style": true, "--indicator-style": true}},
	"stat":     {val: "c", long: map[string]bool{"--format": true, "--printf": true}},
	"du":       {val: "BdXt", long: map[string]bool{"--max-depth": true, "--exclude": true, "--block-size": true, "--threshold": true, "--time-style": true}},
	"tree":     {val: "LIPo", long: map[string]bool{"--fromfile": false, "--filelimit": true, "--timefmt": true, "--charset": true, "--sort": true}},
	"readlink": {}, "realpath": {},
}

// grepOpts is how grep parses its options.
var grepOpts = getopt{val: "efmABCdD", long: map[string]bool{
	"--regexp": true, "--file": true, "--max-count": true, "--after-context": true,
	"--before-context": true, "--context": true, "--label": true, "--include": true, "--exclude": true,
	"--exclude-dir": true, "--exclude-from": true, "--binary-files": true, "--devices": true,
	"--directories": true, "--group-separator": true, "--color": false, "--colour": false,
	"--recursive": false, "--dereference-recursive": false,
}}

// pureProgs have no file effects at all, whatever their operands.
var pureProgs = map[string]bool{
	"echo": true, "printf": true, "true": true, "false": true, "test": true, "[": true, "pwd": true,
	"which": true, "basename": true, "dirname": true, "seq": true, "sleep": true, ":": true,
}

// plainWriters are the file-changing programs whose every effect the
// analysis models (fileops.go): a write rule covering their targets is
// enough.
var plainWriters = map[string]bool{
	"mkdir": true, "touch": true, "rm": true, "rmdir": true, "cp": true, "mv": true, "tee": true,
}

// plainAlso are modelled programs that are plain when their model finds
// nothing that runs a program: sed (no e command, no -f script), awk
// (print-only), sort, uniq, find (no -exec other than a plain reader,
// no -delete), xargs over a plain reader (see [analyzer.xargsTree]).
var plainAlso = map[string]bool{
	"sed": true, "gsed": true, "awk": true, "gawk": true, "mawk": true, "nawk": true,
	"sort": true, "uniq": true, "find": true, "gfind": true,
}

// isPlainName reports whether a command name names a plain program: a
// bare name (a path such as ./cat could be anything) or one in a system
// directory.
func isPlainName(w word) (string, bool) {
	if !w.exact {
		return "", false
	}
	v := w.value
	if strings.Contains(v, "/") {
		switch path.Dir(v) {
		case "/bin", "/usr/bin", "/usr/local/bin":
		default:
			return "", false
		}
	}
	name := path.Base(v)
	_, reader := readerOpts[name]
	return name, reader || pureProgs[name] || plainWriters[name] || plainAlso[name]
}

// plainCommand reports whether argv runs a plain program whose model
// found nothing that runs another program.
func plainCommand(argv []word, execs []optFinding) bool {
	if len(argv) == 0 || len(execs) > 0 {
		return false
	}
	name, ok := isPlainName(argv[0])
	if !ok {
		return false
	}
	if name == "xargs" {
		return false
	}
	for _, w := range argv[1:] {
		if !w.exact && w.glob == "" {
			return false // an opaque word: its value could be an option
		}
	}
	return true
}

// readerFindings returns the read facts of a reader's argv, and whether
// the program is a reader at all.
func readerFindings(argv []word) ([]optFinding, bool) {
	name := path.Base(argv[0].value)
	g, ok := readerOpts[name]
	if !ok {
		return nil, false
	}
	p := g.parse(argv)
	out := globExecs(p, argv)
	files := p.operands
	filter := &nameFilter{}
	recursive := false
	switch name {
	case "grep", "egrep", "fgrep":
		var found []optFinding
		found, files, recursive = grepOptions(p, filter)
		out = append(out, found...)
		if recursive && len(files) == 0 {
			return append(out, treeReadAt(len(argv), name+" -r", dotWord, filter)), true
		}
	case "diff":
		recursive = p.has("-r", "--recursive")
		out = append(out, optionReads(p, "-X", "--exclude-from", "--from-file", "--to-file")...)
	case "wc":
		out = append(out, optionReads(p, "--files0-from")...)
	case "file":
		out = append(out, optionReads(p, "-f", "-m", "--magic-file", "--files-from")...)
		if p.has("-C", "--compile") {
			out = append(out, execAt(1, "-C", "compiles a magic file, which it writes"))
		}
	case "tree":
		out = append(out, treeOptions(p)...)
	}
	return append(out, readerOperands(argv, name, files, recursive, filter)...), true
}

// grepOptions returns the files grep's options name, the operands that
// are files (the pattern left out when no option gives it), and whether
// it searches directories; the name filters go into filter.
func grepOptions(p parsedArgs, filter *nameFilter) (out []optFinding, files []int, recursive bool) {
	pattern := true
	for _, o := range p.opts {
		switch o.name {
		case "-e", "--regexp":
			pattern = false
		case "-f", "--file":
			pattern = false
			if o.has {
				out = append(out, readAt(o.vindex, o.name, o.value))
			}
		case "--exclude-from":
			if o.has {
				out = append(out, readAt(o.vindex, o.name, o.value))
			}
		case "-r", "-R", "--recursive", "--dereference-recursive":
			recursive = true
		case "-d", "--directories":
			recursive = recursive || !o.value.exact || o.value.value == "recurse"
		case "--include":
			filter.include = append(filter.include, o.value)
		case "--exclude":
			filter.exclude = append(filter.exclude, o.value)
		case "--exclude-dir":
			filter.excludeDirs = append(filter.excludeDirs, o.value)
		}
	}
	files = p.operands
	if pattern && len(files) > 0 {
		files = files[1:]
	}
	return out, files, recursive
}

// optionReads returns a read fact for the value of every option of p
// named in names, in the order they stand.
func optionReads(p parsedArgs, names ...string) []optFinding {
	var out []optFinding
	for _, o := range p.opts {
		if o.has && slices.Contains(names, o.name) {
			out = append(out, readAt(o.vindex, o.name, o.value))
		}
	}
	return out
}

// treeOptions returns what tree's options write or show besides the
// listing.
func treeOptions(p parsedArgs) []optFinding {
	var out []optFinding
	for _, o := range p.opts {
		if o.name == "-o" && o.has {
			out = append(out, writeAt(o.vindex, "tree -o", o.value))
		}
		if o.name == "-R" {
			out = append(out, execAt(o.index, "-R", "writes an output file in every directory"))
		}
		if o.name == "--fromfile" {
			out = append(out, execAt(o.index, o.name, "shows the lines of the files it names as a tree"))
		}
	}
	return out
}

// readerOperands returns the facts of a reader's file operands: a tree
// read when it recurses, a listing for the programs that show names and
// metadata, else a read; with no operand, ls, du and tree list ".".
func readerOperands(argv []word, name string, files []int, recursive bool, filter *nameFilter) []optFinding {
	var out []optFinding
	switch name {
	case "ls", "du", "tree":
		if len(files) == 0 {
			out = append(out, listAt(len(argv), name, dotWord))
		}
	}
	listing := name == "ls" || name == "du" || name == "tree" || name == "stat" || name == "file" ||
		name == "readlink" || name == "realpath"
	for _, i := range files {
		w := argv[i]
		if w.exact && w.value == "-" {
			continue // standard input
		}
		switch {
		case recursive:
			out = append(out, treeReadAt(i, name+" -r", w, filter))
		case listing:
			out = append(out, listAt(i, name, w))
		default:
			f := readAt(i, name, w)
			f.operand = true
			out = append(out, f)
		}
	}
	return out
}

// operandReads returns read facts for the operands of argv at the given
// indexes, standard input and var=value words of awk left out.
func operandReads(argv []word, name string, idx []int) []optFinding {
	var out []optFinding
	for _, i := range idx {
		w := argv[i]
		if w.exact && (w.value == "-" || name == "awk" && strings.Contains(w.value, "=")) {
			continue
		}
		f := readAt(i, name, w)
		f.operand = true
		out = append(out, f)
	}
	return out
}

// listAt is a read of the file or directory w names that shows its name
// or metadata, not its content: judged by the read rules when the program
// runs as a plain program, left to the rule that allows it otherwise.
func listAt(i int, name string, w word) optFinding {
	f := readAt(i, name, w)
	f.listing, f.operand = true, true
	return f
}

// treeReadAt is a read of every file beneath the directory w names that
// the filter lets through.
func treeReadAt(i int, name string, w word, filter *nameFilter) optFinding {
	f := treeAt(i, name, w, true)
	f.filter, f.operand = filter, true
	return f
}

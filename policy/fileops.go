package policy

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// Programs that create, change or remove the files their operands name:
// those operands are write facts (a tree of them when the program
// recurses), so `cp *` or `rm *` cannot write what the write rules deny.

// fileProgramModel returns the model of a file-changing program, nil for
// one not modelled.
func fileProgramModel(name string) progModel {
	switch name {
	case "tee", "mkdir", "touch", "rm", "rmdir", "unlink", "truncate":
		return operandWrites
	case "cp", "mv", "install", "ln", "link":
		return copyFindings
	case "chmod", "chown", "chgrp":
		return modeFindings
	case "dd":
		return ddFindings
	case "patch":
		return patchFindings
	case "xxd", "uniq":
		return outputOperand
	case "tar", "gtar", "bsdtar":
		return tarFindings
	}
	return nil
}

// operandValueOptions returns the short options that take a value, for a
// program of [operandWrites]: rm's -r and -d take none, touch's -r does.
func operandValueOptions(name string) string {
	switch name {
	case "touch":
		return "dtr"
	case "truncate":
		return "sr"
	case "mkdir":
		return "m"
	}
	return ""
}

// operandWrites: every operand is written (created, truncated, removed);
// with -r, -R or --recursive everything beneath it.
func operandWrites(argv []word) []optFinding {
	name := path.Base(argv[0].value)
	p := getopt{val: operandValueOptions(name), long: map[string]bool{
		"--mode": true, "--date": true, "--reference": true, "--size": true, "--output-error": false,
	}}.parse(argv)
	tree := name == "rm" && p.has("-r", "-R", "--recursive")
	out := globExecs(p, argv)
	for _, i := range p.operands {
		if tree {
			f := treeAt(i, name, argv[i], false)
			f.deletes = true
			out = append(out, f)
		} else {
			out = append(out, writeAt(i, name, argv[i]))
		}
	}
	return out
}

// copyFindings: cp, mv, install, ln and link write their destination
// (the last operand, or -t DIR) and, when it is a directory, the source's
// name in it; cp -r and -a write everything beneath; mv also removes its
// sources; install --strip-program runs a program.
func copyFindings(argv []word) []optFinding {
	p := getopt{val: "tSgmo", long: map[string]bool{
		"--target-directory": true, "--suffix": true, "--strip-program": true, "--group": true,
		"--mode": true, "--owner": true, "--backup": false, "--reflink": false, "--preserve": false,
		"--recursive": false, "--archive": false, "--directory": false, "--parents": false,
	}}.parse(argv)
	name := path.Base(argv[0].value)
	out := globExecs(p, argv)
	if p.has("--strip-program") {
		out = append(out, execAt(1, "--strip-program", "runs a program on the installed files"))
	}
	if p.has("--parents") {
		out = append(out, execAt(1, "--parents", "writes each source under its whole path beneath the destination, which the analysis does not name"))
	}
	recursive := name == "cp" && p.has("-r", "-R", "-a", "--recursive", "--archive")
	srcs := p.operands
	var dst word
	dstAt := -1
	for _, o := range p.opts {
		if (o.name == "-t" || o.name == "--target-directory") && o.has {
			dst, dstAt = o.value, o.index
		}
	}
	if name == "install" && p.has("-d", "--directory") {
		for _, i := range srcs {
			out = append(out, writeAt(i, name, argv[i]))
		}
		return out
	}
	switch {
	case dstAt >= 0:
	case len(srcs) >= 2 || len(srcs) == 1 && name != "ln" && name != "link":
		dstAt = srcs[len(srcs)-1]
		dst, srcs = argv[dstAt], srcs[:len(srcs)-1]
	case len(srcs) == 1: // ln TARGET: a link named after it, here
		s := argv[srcs[0]]
		in := word{src: s.src}
		if s.exact {
			in = word{value: path.Base(s.value), exact: true, src: s.src}
		}
		return append(out, writeAt(srcs[0], name, in))
	default:
		return out
	}
	if recursive {
		out = append(out, treeAt(dstAt, name, dst, false))
	} else {
		out = append(out, writeAt(dstAt, name, dst))
	}
	for _, i := range srcs {
		s := argv[i]
		in := word{src: s.src}
		if dst.exact && s.exact {
			in = word{value: path.Join(dst.value, path.Base(s.value)), exact: true, src: s.src}
		}
		if recursive {
			out = append(out, treeAt(i, name, in, false))
		} else {
			out = append(out, writeAt(i, name, in))
		}
		if name == "mv" {
			out = append(out, writeAt(i, name, s))
		}
		// what is copied or moved can be read under its new name: the
		// source is read (a directory, all of it)
		switch {
		case name == "mv" || recursive:
			out = append(out, treeReadAt(i, name, s, nil))
		case name == "cp" || name == "install":
			out = append(out, readAt(i, name, s))
		}
	}
	return out
}

// modeRe matches a chmod mode written like an option (-w, -x, -rwx).
var modeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[-+=][rwxXst]*$`) })

// modeFindings: chmod, chown and chgrp change every operand after the
// mode or owner (none with --reference); -R changes everything beneath.
func modeFindings(argv []word) []optFinding {
	name := path.Base(argv[0].value)
	var out []optFinding
	recursive, reference, skipped := false, false, false
	dashes := false
	var ops []int
	for i := 1; i < len(argv); i++ {
		w := argv[i]
		v := w.value
		switch {
		case !w.exact || dashes:
			ops = append(ops, i)
		case v == "--":
			dashes = true
		case v == "-R" || v == "--recursive":
			recursive = true
		case strings.HasPrefix(v, "--reference"):
			reference = true
			if !strings.Contains(v, "=") {
				i++
			}
		case name == "chmod" && modeRe().MatchString(v) && !skipped:
			skipped = true // the mode
		case strings.HasPrefix(v, "-") && len(v) > 1:
			recursive = recursive || strings.Contains(v[1:], "R") && !strings.HasPrefix(v, "--")
		default:
			ops = append(ops, i)
		}
	}
	if !reference && !skipped && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, i := range ops {
		if recursive {
			out = append(out, treeAt(i, name, argv[i], false))
		} else {
			out = append(out, writeAt(i, name, argv[i]))
		}
	}
	return out
}

// ddFindings: of=FILE is written, if=FILE read and shown.
func ddFindings(argv []word) []optFinding {
	var out []optFinding
	for i, w := range argv[1:] {
		if !w.exact {
			out = append(out, execAt(i+1, w.src, "is an operand the analysis cannot read (of=, if=)"))
			continue
		}
		if f, ok := strings.CutPrefix(w.value, "of="); ok {
			out = append(out, writeAt(i+1, "dd of=", word{value: f, exact: true, src: w.src}))
		}
		if f, ok := strings.CutPrefix(w.value, "if="); ok {
			out = append(out, readAt(i+1, "dd if=", word{value: f, exact: true, src: w.src}))
		}
	}
	return out
}

// patchFindings: patch writes the files its patch names, anything beneath
// -d DIR (else the working directory), unless --dry-run or -o FILE; -o and
// -r write the file they name; an ORIGFILE operand is written.
func patchFindings(argv []word) []optFinding {
	p := getopt{val: "pFdioBrDVYzg", long: map[string]bool{
		"--strip": true, "--fuzz": true, "--directory": true, "--input": true, "--output": true,
		"--prefix": true, "--reject-file": true, "--ifdef": true, "--version-control": true,
		"--basename-prefix": true, "--suffix": true, "--get": true, "--dry-run": false,
	}}.parse(argv)
	out := globExecs(p, argv)
	dir, whole := dotWord, true
	for _, o := range p.opts {
		switch o.name {
		case "-o", "--output", "-r", "--reject-file":
			if o.has {
				out = append(out, writeAt(o.index, o.name, o.value))
			}
			whole = whole && o.name != "-o" && o.name != "--output"
		case "-d", "--directory":
			if o.has {
				dir = o.value
			}
		case "-i", "--input":
			if o.has {
				out = append(out, readAt(o.index, o.name, o.value))
			}
		}
	}
	if len(p.operands) > 0 {
		out = append(out, writeAt(p.operands[0], "patch file", argv[p.operands[0]]))
	}
	if whole && !p.has("--dry-run") {
		out = append(out, treeAt(len(argv), "patch", dir, false))
	}
	return out
}

// outputOperand: the second operand of xxd (with or without -r) and uniq
// is the output file.
func outputOperand(argv []word) []optFinding {
	p := getopt{val: "cglosnfwC", long: map[string]bool{
		"--skip-fields": true, "--skip-chars": true, "--check-chars": true, "--group": false,
		"--all-repeated": false,
	}}.parse(argv)
	out := globExecs(p, argv)
	if len(p.operands) >= 2 {
		i := p.operands[1]
		out = append(out, writeAt(i, path.Base(argv[0].value)+" output", argv[i]))
	}
	if len(p.operands) >= 1 && (path.Base(argv[0].value) == "uniq" || !p.has("-r", "--revert")) {
		out = append(out, operandReads(argv, path.Base(argv[0].value), p.operands[:1])...)
	}
	return out
}

// tarFindings: --to-command, -I, --use-compress-program, -F,
// --info-script, --new-volume-script, --rsh-command, --rmt-command and
// --checkpoint-action=exec run programs, and so does a host:file archive
// (rsh); extraction (-x, --extract, --get) writes anything beneath each
// -C directory (else the working directory) and, with -P, anywhere;
// creating, appending or updating writes the archive; -g,
// --listed-incremental, --index-file and --volno-file write a file. The
// old form (`tar xvf a.tar`) is read like the dashed one.
func tarFindings(argv []word) []optFinding {
	args, at := tarArgs(argv)
	p := getopt{val: "bCfFgHIKLNTVX", long: map[string]bool{
		"--file": true, "--directory": true, "--to-command": true, "--checkpoint-action": true,
		"--use-compress-program": true, "--info-script": true, "--new-volume-script": true,
		"--rsh-command": true, "--rmt-command": true, "--listed-incremental": true, "--index-file": true,
		"--volno-file": true, "--files-from": true, "--exclude-from": true, "--exclude": true,
		"--transform": true, "--format": true, "--owner": true, "--group": true, "--mode": true,
		"--blocking-factor": true, "--label": true, "--newer": true, "--after-date": true,
		"--extract": false, "--get": false, "--create": false, "--append": false, "--update": false,
		"--catenate": false, "--concatenate": false, "--delete": false, "--force-local": false,
		"--absolute-names": false,
	}}.parse(args)
	var out []optFinding
	for _, i := range p.globs {
		out = append(out, execAt(at[i], args[i].src, "may expand to an option that runs a program or writes a file"))
	}
	extract := p.has("-x", "--extract", "--get")
	archive := p.has("-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate", "--delete")
	var dirs []word
	base := ""
	for _, o := range p.opts {
		i := at[o.index]
		switch o.name {
		case "--to-command", "-I", "--use-compress-program", "-F", "--info-script", "--new-volume-script",
			"--rsh-command", "--rmt-command":
			out = append(out, execAt(i, o.name, "runs a program"))
		case "--checkpoint-action":
			if !o.value.exact || strings.Contains(o.value.value, "exec") {
				out = append(out, execAt(i, o.name, "runs a program at each checkpoint"))
			}
		case "-f", "--file":
			if o.value.exact && strings.Contains(o.value.value, ":") && !p.has("--force-local") {
				out = append(out, execAt(at[o.vindex], o.name, "names a host:file archive, which tar reaches by running rsh"))
			}
			if archive && o.has && !(o.value.exact && o.value.value == "-") {
				out = append(out, writeAt(i, o.name, o.value))
			}
		case "-g", "--listed-incremental", "--index-file", "--volno-file":
			if o.has {
				out = append(out, writeAt(i, o.name, o.value))
			}
		case "-C", "--directory":
			if o.has {
				if !o.value.exact {
					dirs = append(dirs, o.value)
					continue
				}
				base = joinDir(base, o.value.value)
				dirs = append(dirs, word{value: base, exact: true, src: o.value.src})
			}
		case "-P", "--absolute-names":
			if extract {
				out = append(out, execAt(i, o.name, "extracts absolute and .. names anywhere"))
			}
		}
	}
	if extract {
		if len(dirs) == 0 {
			dirs = append(dirs, dotWord)
		}
		for _, d := range dirs {
			out = append(out, treeAt(len(argv), "tar extraction", d, false))
		}
	}
	return out
}

// tarArgs rewrites tar's old form, a first word of option letters without
// a dash (`tar xvfC a.tar dir`), into dashed options, each letter that
// takes a value followed by its word; at maps the new indexes to argv's.
func tarArgs(argv []word) ([]word, []int) {
	at := make([]int, 0, len(argv)+8)
	if len(argv) < 2 || !argv[1].exact || strings.HasPrefix(argv[1].value, "-") || argv[1].value == "" {
		for i := range argv {
			at = append(at, i)
		}
		return argv, at
	}
	out := []word{argv[0]}
	at = append(at, 0)
	next := 2
	for _, c := range argv[1].value {
		opt := "-" + string(c)
		out = append(out, word{value: opt, exact: true, src: opt})
		at = append(at, 1)
		if strings.ContainsRune("bCfFgHIKLNTVX", c) && next < len(argv) {
			out = append(out, argv[next])
			at = append(at, next)
			next++
		}
	}
	for ; next < len(argv); next++ {
		out = append(out, argv[next])
		at = append(at, next)
	}
	return out, at
}

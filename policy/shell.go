package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Limits of the shell analysis; beyond them a command is opaque.
const (
	// MaxCommandBytes is the longest command the analysis reads.
	MaxCommandBytes = 16 << 10
	// MaxCommands is the most simple commands one call may hold.
	MaxCommands = 64
	// maxUnwrap bounds how deep wrappers and `sh -c` scripts are unwrapped
	// when looking for denied commands.
	maxUnwrap = 3
	// maxCandidates bounds the unwrapped command lines one call may
	// produce; a 16 KB command has fewer words than this.
	maxCandidates = 8192
)

// lang is a shell dialect the analysis parses a command in.
type lang uint8

const (
	langBash lang = iota
	langPOSIX
)

// String names the dialect, for parse errors.
func (l lang) String() string {
	if l == langPOSIX {
		return "posix"
	}
	return "bash"
}

// shellParsers keeps parsers for reuse, bash's and then POSIX's: a
// parser is a few kilobytes to make, and a decision parses a command in
// both dialects, and again each script it unwraps (BenchmarkDecide, 3
// runs each: 17.0–18.3 → 15.1–16.9 µs, 18.4 → 13.0 KB allocated a
// decision).
var shellParsers = [2]sync.Pool{
	{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)) }},
	{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangPOSIX), syntax.KeepComments(true)) }},
}

// parseShell parses src in one dialect. A comment that ends in a
// backslash is an error: the parser continues it onto the next line,
// taking that line for more words of the commented command, while sh ends
// every comment at the newline and runs the next line (`echo #\` then
// `rm -rf x` would be judged as one echo).
func parseShell(src string, l lang) (*syntax.File, error) {
	pool := &shellParsers[0]
	if l == langPOSIX {
		pool = &shellParsers[1]
	}
	pr := pool.Get().(*syntax.Parser)
	f, err := pr.Parse(strings.NewReader(src), "")
	pool.Put(pr) // the file it returned shares nothing with it: each Parse starts afresh
	if err != nil {
		return nil, err
	}
	var bad *syntax.Comment
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok && bad == nil && strings.Contains(c.Text, "\n") {
			bad = c
		}
		return bad == nil
	})
	if bad != nil {
		return nil, fmt.Errorf("%s: a comment ending in a backslash, which the shell does not continue", bad.Pos())
	}
	return f, nil
}

// rawFact is a fact before the rules judge it.
type rawFact struct {
	kind     FactKind
	value    string       // display value; for opaque facts, what is opaque
	argv     []word       // FactCommand
	inner    [][]word     // FactCommand: wrapped command lines, checked for deny
	execs    []optFinding // FactCommand: options that make it run another program
	path     string       // FactRead, FactWrite: the path, joined to the dir
	redirect bool         // a path fact that comes from a shell redirect
	tree     bool         // FactRead, FactWrite: anything beneath the path
	owner    int          // FactCommand, and FactRead, FactWrite from its options: the command's number
	exact    bool         // the fact is exact enough for a session approval
	filter   *nameFilter  // FactRead, tree: the files a search lets through
	deletes  bool         // FactWrite, tree: a removal (rm -r), which touches only what exists
	plain    bool         // FactCommand: a plain program, judged by its effects (see [ShellOptions])
	listing  bool         // FactRead: names or metadata only, judged only for a plain program
	operand  bool         // FactRead: a reader's file operand, placed after its command
	glob     bool         // FactRead: path is a glob pattern; the read is of every file it matches
	split    bool         // FactRead, tree: the names reach the reader through xargs's splitting
	why      string       // FactCommand: how the analysis read it, for `policy check`
}

// analyzer collects the facts of one shell command.
type analyzer struct {
	src            string
	dirs           []string // the directories the next command may run in: more than one after a cd whose failure the line does not stop on
	env            map[string]string
	within         func(p string) (string, bool) // the workspace-relative form of a path inside the workspace
	stdinFind      *findTree                     // the next command reads the names a find in the same pipeline prints
	piped          *findTree                     // what the last command wrote to its standard output, when it is such names
	stdinRedirect  bool                          // the statement of the next command redirects its standard input
	stdoutRedirect bool                          // … or its standard output, or its errors into the output
	facts          []rawFact
	commands       int
	depth          int
	moved          bool  // a cd, pushd or popd ran: relative targets are unknown
	makers         []int // numbers of the commands that create links or files
	candidates     *int  // shared budget of unwrapped command lines
}

// analyzeIn turns a shell command into facts, parsing it under both
// dialects and keeping the facts of both, so that a construct the dialects
// read differently is judged both ways; env holds the values of the
// variables the command will see, inside the workspace's bounds (nil: only
// relative paths that stay inside are inside).
func analyzeIn(src, dir string, env map[string]string, inside func(string) (string, bool)) []rawFact {
	if inside == nil {
		inside = func(p string) (string, bool) {
			c := path.Clean(p)
			return c, !path.IsAbs(c) && c != ".." && !strings.HasPrefix(c, "../")
		}
	}
	if err := checkText(src); err != nil {
		return []rawFact{{kind: FactOpaque, value: "command text: " + err.Error()}}
	}
	if len(src) > MaxCommandBytes {
		return []rawFact{{kind: FactOpaque, value: fmt.Sprintf("command longer than %d bytes", MaxCommandBytes)}}
	}
	budget := 0
	var facts []rawFact
	seen := map[string]bool{}
	for _, l := range []lang{langBash, langPOSIX} {
		var got []rawFact
		f, err := parseShell(src, l)
		if err != nil {
			got = []rawFact{{kind: FactOpaque, value: fmt.Sprintf("does not parse as %s: %v", l, err)}}
		} else {
			a := &analyzer{src: src, dirs: []string{dir}, env: env, within: inside, candidates: &budget}
			a.stmts(f.Stmts)
			a.linkLine()
			if a.commands > MaxCommands {
				a.opaque(fmt.Sprintf("more than %d commands", MaxCommands), "")
			}
			if budget > maxCandidates {
				a.opaque("too many nested wrapped commands", "")
			}
			got = a.facts
		}
		for _, rf := range got {
			k := rf.key()
			if !seen[k] {
				seen[k] = true
				facts = append(facts, rf)
			}
		}
	}
	if len(facts) == 0 {
		facts = append(facts, rawFact{kind: FactOpaque, value: "no command"})
	}
	return facts
}

func (rf rawFact) key() string {
	v := rf.value
	if rf.kind == FactCommand {
		// one command text judged in two contexts (a plain reader fed by
		// a find, and the same text fed by anything else) is two facts
		v += fmt.Sprintf("\x00%v\x00%s", rf.plain, rf.why)
	}
	if rf.kind == FactRead || rf.kind == FactWrite {
		v = rf.path
		if rf.tree {
			v += "/**" + rf.filter.key()
		}
		if rf.glob || rf.listing || rf.deletes || rf.split {
			v += fmt.Sprintf("\x00%v%v%v%v", rf.glob, rf.listing, rf.deletes, rf.split)
		}
	}
	return rf.kind.String() + "\x00" + v
}

// text returns the source of n, shortened for display.
func (a *analyzer) text(n syntax.Node) string { return shorten(a.fullText(n), 200) }

// fullText returns the source of n.
func (a *analyzer) fullText(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(a.src) || start > end {
		return ""
	}
	return a.src[start:end]
}

func (a *analyzer) opaque(what, src string) {
	v := what
	if src != "" {
		v += ": " + src
	}
	a.facts = append(a.facts, rawFact{kind: FactOpaque, value: v})
}

// stmts analyses a list. A statement's cd may fail and the next
// statement still runs: after each, the line may be in the directories
// before it or after it.
func (a *analyzer) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		before := a.dirs
		a.stmt(s)
		a.dirs = unionDirs(before, a.dirs)
	}
}

func (a *analyzer) stmt(s *syntax.Stmt) {
	if s.Background {
		// the whole statement: an approval must not cover another job
		// that merely starts the same way
		a.facts = append(a.facts, rawFact{kind: FactBackground, value: a.fullText(s), exact: true})
	}
	if s.Coprocess || s.Disown {
		a.opaque("coprocess or disowned job", a.text(s))
	}
	n := len(a.facts)
	for _, r := range s.Redirs {
		a.redirect(r)
	}
	a.stdinRedirect, a.stdoutRedirect = redirectsStreams(s.Redirs)
	if c, ok := s.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 {
		// the command's own redirects are opened before it runs
		for k := n; k < len(a.facts); k++ {
			a.facts[k].owner = a.commands + 1
		}
	}
	switch c := s.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		a.call(c)
	case *syntax.BinaryCmd:
		before := a.dirs
		switch c.Op {
		case syntax.AndStmt:
			a.stmt(c.X)
			a.stmt(c.Y)
		case syntax.OrStmt:
			a.stmt(c.X)
			a.dirs = unionDirs(before, a.dirs)
			a.stmt(c.Y)
			a.dirs = unionDirs(before, a.dirs)
		default: // a pipeline: each side runs in a subshell
			a.piped = nil
			a.stmt(c.X)
			a.dirs = before
			switch x := c.X.Cmd.(type) {
			case *syntax.CallExpr:
				a.stdinFind = a.piped
			case *syntax.BinaryCmd:
				if x.Op == syntax.Pipe {
					a.stdinFind = a.piped
				}
			}
			a.stmt(c.Y)
			a.stdinFind = nil
			a.dirs = before
		}
	case *syntax.Subshell:
		before := a.dirs
		a.stmts(c.Stmts)
		a.dirs = before
	case *syntax.Block:
		a.stmts(c.Stmts)
	default:
		a.opaque(commandName(c), a.text(c))
		a.inside(c)
	}
}

// commandName names a compound command the analysis treats as opaque.
func commandName(c syntax.Command) string {
	switch c := c.(type) {
	case *syntax.IfClause:
		return "control flow (if)"
	case *syntax.WhileClause:
		if c.Until {
			return "control flow (until)"
		}
		return "control flow (while)"
	case *syntax.ForClause:
		return "control flow (for)"
	case *syntax.CaseClause:
		return "control flow (case)"
	case *syntax.FuncDecl:
		return "function definition"
	case *syntax.ArithmCmd:
		return "arithmetic command"
	case *syntax.TestClause:
		return "test clause [[ ]]"
	case *syntax.DeclClause:
		return "declaration (" + c.Variant.Value + ")"
	case *syntax.LetClause:
		return "let"
	case *syntax.TimeClause:
		return "time"
	case *syntax.CoprocClause:
		return "coprocess"
	}
	return fmt.Sprintf("unsupported construct %T", c)
}

// inside analyses the statements and substitutions nested anywhere in n, so
// that a denied command inside an opaque construct is still denied.
func (a *analyzer) inside(n syntax.Node) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			a.stmt(n)
			return false
		case *syntax.CmdSubst:
			a.opaque(partName(n), a.text(n))
			a.stmts(n.Stmts)
			return false
		case *syntax.ProcSubst:
			a.opaque(partName(n), a.text(n))
			a.stmts(n.Stmts)
			return false
		}
		return true
	})
}

// word reads w, records an opaque fact when needed and analyses the
// commands nested in it.
func (a *analyzer) word(w *syntax.Word) word {
	info := readWordEnv(w, a.env)
	wd := word{value: info.value, exact: info.exact, src: a.text(w)}
	if info.opaque != "" {
		a.opaque(info.opaque, a.text(w))
		a.inside(w)
	} else if !info.exact {
		wd.glob = info.glob
	}
	return wd
}

func (a *analyzer) call(c *syntax.CallExpr) {
	stdinFind := a.stdinFind
	a.stdinFind, a.piped = nil, nil
	if a.stdinRedirect {
		stdinFind = nil
	}
	why := a.assigns(c)
	if len(c.Args) == 0 {
		return
	}
	a.commands++
	full, exact := a.commandWords(c)
	argv, timed := stripTimeout(full)
	if timed {
		why = append(why, "judged as the command timeout runs")
	}
	from := slices.Clone(a.dirs)
	cd := argv[0].exact && argv[0].value == "cd" && a.cd(argv)
	if cd {
		why = append(why, "a cd within the workspace: the paths after it are resolved from "+strings.Join(a.dirs, " or "))
	} else if !argv[0].exact || dirChangers[path.Base(argv[0].value)] || wrapsDirChange(argv) {
		a.moved = true
	}
	if makesLinks(argv) {
		a.makers = append(a.makers, a.commands)
	}
	optStart := len(a.facts)
	execs := a.options(argv)
	plain := cd || plainCommand(argv, execs)
	if argv[0].exact && path.Base(argv[0].value) == "xargs" && stdinFind != nil && a.xargsReads(argv, stdinFind) {
		plain = true
		why = append(why, "xargs runs a plain reader over the names a find in the pipeline prints")
	}
	if !a.stdoutRedirect && len(c.Assigns) == 0 && argv[0].exact {
		a.pipeNames(argv, stdinFind)
	}
	inner := a.unwrap(full, a.depth+1)
	if timed {
		inner = append(inner, full)
	}
	if len(from) > 1 || from[0] != "." {
		why = append(why, "run from "+strings.Join(from, " or "))
	}
	a.facts = append(a.facts, rawFact{
		kind:  FactCommand,
		value: renderArgv(argv),
		argv:  argv,
		inner: inner,
		execs: execs,
		exact: exact,
		owner: a.commands,
		plain: plain,
		why:   strings.Join(why, "; "),
	})
	// a reader's operands come after it, so that an allowed call is
	// explained by the rule that allowed the command
	tail := a.facts[optStart:]
	slices.SortStableFunc(tail, func(x, y rawFact) int {
		return boolRank(x.operand) - boolRank(y.operand)
	})
}

// assigns judges the assignments before a command: opaque unless they
// set ordinary variables of a command, in which case it returns why
// they do not matter.
func (a *analyzer) assigns(c *syntax.CallExpr) []string {
	if len(c.Assigns) == 0 {
		return nil
	}
	if len(c.Args) == 0 || !a.ordinaryAssigns(c.Assigns) {
		a.opaque("variable assignment", a.text(c.Assigns[0]))
		for _, as := range c.Assigns {
			a.inside(as)
		}
		return nil
	}
	return []string{"its prefix assignments set ordinary variables"}
}

// commandWords reads the words of a command, and whether all of them
// are exact; a command name that expands, and an alias definition, are
// opaque.
func (a *analyzer) commandWords(c *syntax.CallExpr) ([]word, bool) {
	full := make([]word, len(c.Args))
	exact := true
	for i, w := range c.Args {
		full[i] = a.word(w)
		exact = exact && full[i].exact
	}
	if !full[0].exact && readWordEnv(c.Args[0], a.env).opaque == "" {
		a.opaque("glob, brace or tilde expansion in a command name", full[0].src)
	}
	if full[0].exact && (full[0].value == "alias" || full[0].value == "unalias") {
		a.opaque("alias definition", a.text(c))
	}
	return full, exact
}

// pipeNames records the file names a command prints into the pipe: a
// find's, or those a pass-through filter hands on from the find before it.
func (a *analyzer) pipeNames(argv []word, stdinFind *findTree) {
	switch {
	case path.Base(argv[0].value) == "find" || path.Base(argv[0].value) == "gfind":
		a.piped = printedNames(argv)
	case passFilter(argv):
		a.piped = stdinFind
	}
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isFD reports whether s names a file descriptor in a dup redirect: digits,
// "-" (close), or digits followed by "-" (move).
func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return true
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// dirChangers change the working directory for the rest of the command.
var dirChangers = map[string]bool{"cd": true, "pushd": true, "popd": true}

// harmlessTargets are redirect targets that are never files of the
// workspace: the bit bucket and the process's own output streams.
var harmlessTargets = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}

func (a *analyzer) redirect(r *syntax.Redirect) {
	if r.N != nil && !isFD(r.N.Value) {
		a.opaque("redirect to a named file descriptor", a.text(r))
	}
	var read, write bool
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc != nil {
			for _, p := range r.Hdoc.Parts {
				if _, ok := p.(*syntax.Lit); !ok {
					a.opaque("here-document whose body expands", a.text(p))
					a.inside(r.Hdoc)
					break
				}
			}
		}
		return
	case syntax.WordHdoc:
		a.word(r.Word)
		return
	case syntax.DplIn, syntax.DplOut:
		if info := readWordEnv(r.Word, a.env); info.exact && isFD(info.value) {
			return
		}
		read, write = r.Op == syntax.DplIn, r.Op == syntax.DplOut
	case syntax.RdrIn:
		read = true
	case syntax.RdrInOut:
		read, write = true, true
	default: // >, >>, >|, &>, &>>, and the zsh clobber forms
		write = true
	}
	w := a.word(r.Word)
	if !w.exact {
		if readWordEnv(r.Word, a.env).opaque == "" {
			a.opaque("glob, brace or tilde expansion in a redirect target", w.src)
		}
		return
	}
	a.fileTarget(read, write, true, "", w, "redirect", a.text(r))
}

// globRead records a reader's read of every file a globbed operand
// (`src/*.go`) may expand to, from each directory the line may be in.
func (a *analyzer) globRead(w word) {
	if a.moved && !strings.HasPrefix(w.glob, "/") {
		a.opaque("relative glob after a change of directory", w.src)
		return
	}
	for _, dir := range a.dirs {
		p := w.glob
		if !strings.HasPrefix(p, "/") {
			p = dir + "/" + p
			if dir == "." {
				p = w.glob
			}
		}
		a.facts = append(a.facts, rawFact{kind: FactRead, path: p, value: w.src, glob: true})
	}
}

// fileTarget records a read or write of the file that a redirect or an
// option names, joined to the working directory (and base, a directory
// relative to it). Reads and writes of /dev/null and the standard streams
// are not facts; a target the analysis cannot read is opaque, and so is a
// relative one after the directory changed.
func (a *analyzer) fileTarget(read, write, redirect bool, base string, w word, what, src string) {
	if !w.exact {
		a.opaque("an expansion or a glob in "+what, w.src)
		return
	}
	if harmlessTargets[w.value] && !(read && write) {
		return
	}
	if !strings.HasPrefix(w.value, "/") && a.moved {
		a.opaque("relative "+what+" after a change of directory", src)
		return
	}
	for _, dir := range a.dirs {
		p := w.value
		if !strings.HasPrefix(p, "/") {
			b := base
			if !path.IsAbs(b) {
				b = path.Join(dir, b)
			}
			p = path.Join(b, p)
		}
		if read {
			a.facts = append(a.facts, rawFact{kind: FactRead, path: p, value: w.value, redirect: redirect, exact: true})
		}
		if write {
			a.facts = append(a.facts, rawFact{kind: FactWrite, path: p, value: w.value, redirect: redirect, exact: true})
		}
	}
}

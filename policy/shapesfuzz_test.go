package policy

import (
	"path"
	"slices"
	"strings"
	"testing"
)

// FuzzShapes generates command lines from the everyday shapes of issue 32
// (cd DIR, timeout, prefix assignments, readers and their operands,
// recursive searches, find -exec, find | xargs, plain writers, variables,
// redirects, `|| true`) and checks the property: a line judged allow
// never runs a program its rule does not name, never reads a path the
// read rules deny, and never writes outside what the write rules allow.
//
// The oracle is independent of the analysis: each fragment declares in
// the table below what it runs, reads and writes, the oracle follows the
// line's working directory itself over a fixed world of files
// (shapesFiles), and it judges paths with its own hand-written reading of
// shapesPolicy, not with the package's matcher.
func FuzzShapes(f *testing.F) {
	for _, s := range []string{"\x00\x00\x00", "\x01\x02\x03\x04", "\x05\x10\x01\x02\x03", "\x07\x07\x07\x07\x07\x07",
		"\x02\x11\x00\x01\x09\x03\x04", "\x0c\x01\x05\x02", "\x13\x00\x02\x04\x01\x06\x07\x08\x09"} {
		f.Add([]byte(s))
	}
	pol, err := Parse("ci.toml", []byte(shapesPolicy))
	if err != nil {
		f.Fatal(err)
	}
	pol = pol.InWorkspace("/ws")
	f.Fuzz(func(t *testing.T, data []byte) {
		line := genLine(data)
		r := pol.Decide(Action{Class: ClassShell, Command: line.text, Env: shapesEnv, Files: shapesFiles})
		if r.Decision != Allow {
			return
		}
		if bad := line.violation(); bad != "" {
			t.Fatalf("%q allowed, but %s\nfacts: %v", line.text, bad, r.Facts)
		}
	})
}

// genFrag is one command of a generated line with the effects it has.
type genFrag struct {
	text                 string   // with F, G, D and V to fill in
	progs                []string // the programs it runs
	reads, writes, trees []string // F, G or D: files read, written; directories searched or removed
	include              string   // for trees: the base names the search reads, "" for all
	remove               bool     // trees are removed (written), not read
	env                  bool     // shows the variable V
}

var genFrags = []genFrag{
	{text: "cat F", progs: []string{"cat"}, reads: []string{"F"}},
	{text: "head -n 3 F", progs: []string{"head"}, reads: []string{"F"}},
	{text: "grep -n x F G", progs: []string{"grep"}, reads: []string{"F", "G"}},
	{text: "sed -n 1p F", progs: []string{"sed"}, reads: []string{"F"}},
	{text: "sed -i s/a/b/ F", progs: []string{"sed"}, reads: []string{"F"}, writes: []string{"F"}},
	{text: "wc -l F", progs: []string{"wc"}, reads: []string{"F"}},
	{text: "grep -r x D", progs: []string{"grep"}, trees: []string{"D"}},
	{text: "grep -rn x D --include='*.go'", progs: []string{"grep"}, trees: []string{"D"}, include: "*.go"},
	{text: "find D -name '*.go' -exec grep -l x {} \\;", progs: []string{"find", "grep"}, trees: []string{"D"}, include: "*.go"},
	{text: "find D -name '*.txt' | xargs cat", progs: []string{"find", "xargs", "cat"}, trees: []string{"D"}, include: "*.txt"},
	{text: "find D | xargs head", progs: []string{"find", "xargs", "head"}, trees: []string{"D"}},
	{text: "find D -exec sh -c 'cat {}' \\;", progs: []string{"find", "sh"}, trees: []string{"D"}},
	{text: "rm -rf D", progs: []string{"rm"}, trees: []string{"D"}, remove: true},
	{text: "rm F", progs: []string{"rm"}, writes: []string{"F"}},
	{text: "mkdir -p D", progs: []string{"mkdir"}, writes: []string{"D"}},
	{text: "touch F", progs: []string{"touch"}, writes: []string{"F"}},
	{text: "cp F G", progs: []string{"cp"}, reads: []string{"F"}, writes: []string{"G"}},
	{text: "mv F G", progs: []string{"mv"}, reads: []string{"F"}, writes: []string{"F", "G"}},
	{text: "echo V", progs: []string{"echo"}, env: true},
	{text: "go test ./...", progs: []string{"go"}},
	{text: "python x.py", progs: []string{"python"}},
	{text: "ls D", progs: []string{"ls"}, reads: []string{"D"}},
}

var (
	genFiles    = []string{"src/main.go", ".env", "../x", "/etc/passwd", "$HOME/.ssh/id_rsa", "src/*.go", "certs/server.key", "build/log.txt", "~/x", "README.md", "vendored/.git/config", "\"$TMPDIR/t\"", "./*", "/ws/*", "/ws/src/*.go", "$PWD/.env"}
	genDirs     = []string{".", "src", "build", "vendored", "/etc", "..", "$TMPDIR", "certs"}
	genVars     = []string{"$HOME", "$SECRET", "\"$?\"", "$USER", "done"}
	genPrefixes = []string{"", "cd src && ", "cd src; ", "cd /etc && ", "cd - && ", "cd $X && ", "timeout 5 ", "CGO_ENABLED=0 ",
		"LD_PRELOAD=x ", "GOFLAGS=-toolexec=x ", "PATH=. ", "cd build || "}
	genSuffixes = []string{"", " 2>&1", " > /dev/null", " > out.txt", " > src/out.txt", " | tail -3", " || true", " 2>/dev/null | head"}
	genJoiners  = []string{" && ", "; ", "\n", " || "}
)

// genPart is one fragment of a line as generated.
type genPart struct {
	prefix, suffix string
	frag           genFrag
	f, g, d, v     string
	joiner         string // before it; "" for the first
}

// genLineT is a generated line.
type genLineT struct {
	text  string
	parts []genPart
}

// genLine turns fuzz bytes into a line of one to three fragments (bytes
// that run out read as zero).
func genLine(data []byte) genLineT {
	i := 0
	next := func(n int) int {
		if i >= len(data) {
			i++
			return 0
		}
		b := int(data[i])
		i++
		return b % n
	}
	var l genLineT
	n := 1 + next(3)
	var b strings.Builder
	for k := 0; k < n; k++ {
		p := genPart{prefix: genPrefixes[next(len(genPrefixes))], frag: genFrags[next(len(genFrags))],
			f: genFiles[next(len(genFiles))], g: genFiles[next(len(genFiles))], d: genDirs[next(len(genDirs))],
			v: genVars[next(len(genVars))], suffix: genSuffixes[next(len(genSuffixes))]}
		if k > 0 {
			p.joiner = genJoiners[next(len(genJoiners))]
			b.WriteString(p.joiner)
		}
		text := strings.NewReplacer("F", p.f, "G", p.g, "D", p.d, "V", p.v).Replace(p.frag.text)
		b.WriteString(p.prefix + text + p.suffix)
		l.parts = append(l.parts, p)
	}
	l.text = b.String()
	return l
}

// The oracle's world and policy, written out by hand.
var (
	oracleEnv   = map[string]string{"$HOME": "/home/runner", "$TMPDIR": "/tmp/rubichan-1", "$USER": "runner", "$PWD": "/ws"}
	oracleProgs = []string{"go", "cat", "head", "tail", "grep", "sed", "wc", "find", "xargs", "rm", "mkdir", "touch", "cp",
		"mv", "echo", "ls", "true", "cd"}
)

// oracleRead reports whether the shapes policy lets a workspace-relative
// or absolute path be read.
func oracleRead(p string) bool {
	if strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") {
		return false
	}
	base := path.Base(p)
	return base != ".env" && !strings.HasSuffix(base, ".key") && !strings.HasSuffix(base, ".pem") &&
		!strings.HasPrefix(base, "id_rsa") && !strings.HasSuffix(p, ".git/config") && p != ".git/config" &&
		base != ".netrc" && base != ".npmrc" && base != ".pypirc"
}

// oracleWrite reports whether the shapes policy lets a path be written.
func oracleWrite(p string) bool {
	if strings.Contains("/"+p+"/", "/.git/") {
		return false
	}
	for _, d := range []string{"src", "build", "vendored"} {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// violation returns what an allowed line does that the policy does not
// allow, or "".
func (l genLineT) violation() string {
	runDirs, bad := l.runDirs()
	if bad != "" {
		return bad
	}
	for k, p := range l.parts {
		here := runDirs[k]
		switch {
		case strings.HasPrefix(p.prefix, "LD_PRELOAD"), strings.HasPrefix(p.prefix, "GOFLAGS"), strings.HasPrefix(p.prefix, "PATH"):
			return "a prefix assignment changes what runs: " + p.prefix
		}
		for _, prog := range p.frag.progs {
			if !slices.Contains(oracleProgs, prog) {
				return "it runs " + prog + ", which no rule names"
			}
		}
		if p.frag.env && p.v == "$SECRET" {
			return "it shows $SECRET, a variable of the environment"
		}
		fill := func(s string) string {
			return strings.NewReplacer("F", p.f, "G", p.g, "D", p.d).Replace(s)
		}
		for _, dir := range here {
			for _, r := range p.frag.reads {
				for _, rp := range oracleExpand(dir, fill(r)) {
					if !oracleRead(rp) {
						return "it reads " + rp
					}
				}
			}
			for _, w := range p.frag.writes {
				for _, wp := range oracleExpand(dir, fill(w)) {
					if !oracleWrite(wp) {
						return "it writes " + wp
					}
				}
			}
			for _, tr := range p.frag.trees {
				for _, root := range oracleExpand(dir, fill(tr)) {
					if p.frag.remove && !oracleWrite(root) {
						return "it removes " + root
					}
					all, _ := shapesFiles(".")
					for _, file := range all {
						if root != "." && !strings.HasPrefix(file, root+"/") {
							continue
						}
						if p.frag.include != "" {
							if ok, _ := path.Match(p.frag.include, path.Base(file)); !ok {
								continue
							}
						}
						if p.frag.remove && !oracleWrite(file) {
							return "it removes " + file
						}
						if !p.frag.remove && !oracleRead(file) {
							return "it searches " + file
						}
						if strings.Contains(p.frag.text, "xargs") {
							// xargs splits the names at blanks
							for _, tok := range strings.Fields(file) {
								if rp := path.Join(dir, tok); tok != file && !oracleRead(rp) {
									return "xargs splits " + file + " and reads " + rp
								}
							}
						}
					}
				}
			}
			for _, out := range []string{" > out.txt", " > src/out.txt"} {
				if p.suffix == out && !oracleWrite(path.Join(dir, strings.TrimPrefix(out, " > "))) {
					return "it writes " + path.Join(dir, strings.TrimPrefix(out, " > "))
				}
			}
		}
	}
	return ""
}

// genUnit is one step of a line as the shell runs it: a cd or a part's
// command, and the operator before it.
type genUnit struct {
	op   string // "", "&&", "||", ";"
	cd   string // the directory of a cd; "" for a command
	part int
}

// runDirs returns, for each part, every directory its command may run
// in, found by running the line's and-or lists under every outcome of
// the commands (a cd to src or build always succeeds in the world).
func (l genLineT) runDirs() (map[int][]string, string) {
	var units []genUnit
	for k, p := range l.parts {
		op := strings.TrimSpace(p.joiner)
		if op == "" && k > 0 {
			op = ";" // a newline
		}
		if strings.HasPrefix(p.prefix, "cd ") {
			f := strings.Fields(p.prefix)
			target, sep := strings.TrimSuffix(f[1], ";"), ";"
			if len(f) > 2 {
				sep = f[2]
			}
			if target != "src" && target != "build" {
				return nil, "it changes to a directory the oracle cannot follow (" + target + ") and is allowed"
			}
			units = append(units, genUnit{op: op, cd: target, part: k})
			op = sep
		}
		units = append(units, genUnit{op: op, part: k})
	}
	out := map[int][]string{}
	n := len(l.parts)
	for mask := 0; mask < 1<<n; mask++ {
		dir, status := ".", true
		for i, u := range units {
			run := i == 0 || u.op == ";" || u.op == "&&" && status || u.op == "||" && !status
			if !run {
				continue
			}
			if u.cd != "" {
				dir, status = path.Join(dir, u.cd), true
				continue
			}
			if !slices.Contains(out[u.part], dir) {
				out[u.part] = append(out[u.part], dir)
			}
			status = mask&(1<<u.part) != 0
		}
	}
	return out, ""
}

// oracleExpand resolves a generated path from dir: variables and ~ take
// the bash tool's values, a glob matches the world's files.
func oracleExpand(dir, p string) []string {
	p = strings.Trim(p, `"`)
	for k, v := range oracleEnv {
		p = strings.ReplaceAll(p, k, v)
	}
	if strings.HasPrefix(p, "~") {
		p = "/home/runner" + p[1:]
	}
	if !path.IsAbs(p) {
		p = path.Join(dir, p)
	}
	if rel, ok := strings.CutPrefix(p, "/ws/"); ok { // the workspace, by its absolute name
		p = rel
	}
	if !strings.ContainsAny(p, "*?[") {
		return []string{p}
	}
	all, _ := shapesFiles(".")
	var out []string
	for _, f := range all {
		if ok, _ := path.Match(p, f); ok {
			out = append(out, f)
		}
	}
	return out
}

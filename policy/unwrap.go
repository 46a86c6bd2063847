package policy

import (
	"path"
	"slices"
	"strings"
)

// Wrappers are never unwrapped to allow anything: `env rm` needs a rule for
// `env` itself. They are unwrapped to deny: a deny rule for `rm *` also
// refuses `env rm -rf /`, `xargs rm`, `find . -exec rm {} ;` and
// `sh -c 'rm -rf /'`, so a wrapper allowed too broadly cannot smuggle a
// denied command through.

// wrappers run the command line that follows their options.
var wrappers = map[string]bool{
	"env": true, "command": true, "builtin": true, "exec": true, "nohup": true,
	"nice": true, "ionice": true, "chrt": true, "taskset": true, "time": true,
	"timeout": true, "stdbuf": true, "unbuffer": true, "setsid": true,
	"sudo": true, "doas": true, "su": true, "runuser": true, "chroot": true,
	"xargs": true, "parallel": true, "find": true, "flock": true,
	"strace": true, "ltrace": true, "watch": true, "busybox": true,
	"fakeroot": true, "firejail": true, "unshare": true, "nsenter": true,
}

// shells run a script given with -c.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true,
	"mksh": true, "ash": true, "fish": true, "csh": true, "tcsh": true,
}

// unwrap returns the command lines a wrapper argv would run, for deny
// checks only.
func (a *analyzer) unwrap(argv []word, depth int) [][]word {
	if depth > maxUnwrap || len(argv) < 2 || !argv[0].exact {
		return nil
	}
	name := path.Base(argv[0].value)
	var out [][]word
	switch {
	case shells[name]:
		for _, s := range scripts(argv) {
			out = append(out, a.shellScript(s, depth)...)
		}
	case name == "git":
		out = a.gitWrapped(argv, depth)
	case name == "eval":
		var b strings.Builder
		for i, w := range argv[1:] {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w.value)
		}
		out = a.shellScript(b.String(), depth)
	case wrappers[name]:
		// Every suffix of argv is a candidate, which covers wrappers of
		// wrappers without recursion; only scripts need parsing.
		for i := 1; i < len(argv); i++ {
			w := argv[i]
			if w.exact && strings.HasPrefix(w.value, "-") {
				continue
			}
			if !a.spend() {
				return out
			}
			out = append(out, argv[i:])
			if w.exact && (shells[path.Base(w.value)] || w.value == "eval") {
				out = append(out, a.unwrap(argv[i:], depth+1)...)
			}
			if w.exact && strings.ContainsAny(w.value, " \t\n;&|") {
				// su -c 'cmd', watch 'cmd', parallel ::: 'cmd': a script
				out = append(out, a.script(w.value, depth+1)...)
			}
		}
	}
	return out
}

// spend takes one unit of the unwrapping budget. Once it runs out the
// budget stays above maxCandidates and the command becomes opaque.
func (a *analyzer) spend() bool {
	if *a.candidates >= maxCandidates {
		*a.candidates = maxCandidates + 1
		return false
	}
	*a.candidates++
	return true
}

// scripts returns the -c scripts of a shell argv. With -c anywhere among
// the options (alone or in a cluster: -ec, -lc), the script is the first
// word that is not an option, as the shell reads it: options may follow
// -c (`bash -c -x CMD`), `--` or `-` end them (`sh -c -- CMD`), and -o,
// -O, +o, +O, --rcfile and --init-file take the next word. The word right
// after the -c cluster is a candidate too, which only adds deny checks.
func scripts(argv []word) []string {
	var out []string
	sawC := false
	for i := 1; i < len(argv); i++ {
		w := argv[i]
		if !w.exact {
			break
		}
		v := w.value
		if sawC && (v == "--" || v == "-") {
			if i+1 < len(argv) {
				out = append(out, argv[i+1].value)
			}
			break
		}
		if len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			if sawC {
				out = append(out, v)
			}
			break
		}
		if strings.HasPrefix(v, "--") {
			if v == "--rcfile" || v == "--init-file" {
				i++
			}
			continue
		}
		if v[0] == '-' && strings.Contains(v, "c") {
			sawC = true
			if i+1 < len(argv) {
				out = append(out, argv[i+1].value)
			}
		}
		i += strings.Count(v, "o") + strings.Count(v, "O")
	}
	return slices.Compact(out)
}

// shellScript is [analyzer.script] for a script a shell surely runs (sh -c,
// eval): one that parses in neither dialect makes the command opaque, since
// the shell runs its lines up to the one it cannot parse, and what they
// are is unknown (`sh -c 'rm -rf x<newline>('` runs rm).
func (a *analyzer) shellScript(src string, depth int) [][]word {
	out, parsed := a.scriptParsed(src, depth)
	if !parsed && depth <= maxUnwrap {
		a.opaque(unparsedScript, shorten(src, 200))
	}
	return out
}

// unparsedScript names the opaque fact of a script that does not parse. It
// is passed up from a script inside a script, which only yields commands.
const unparsedScript = "a script that does not parse"

// script analyses a script that a shell or eval would run and returns every
// command line in it, wrapped ones included.
func (a *analyzer) script(src string, depth int) [][]word {
	out, _ := a.scriptParsed(src, depth)
	return out
}

// scriptParsed is [analyzer.script], and also says whether the script
// parsed in either dialect (or was not looked at).
func (a *analyzer) scriptParsed(src string, depth int) ([][]word, bool) {
	if depth > maxUnwrap || len(src) > MaxCommandBytes || checkText(src) != nil {
		return nil, true
	}
	var out [][]word
	parsed := false
	for _, l := range []lang{langBash, langPOSIX} {
		f, err := parseShell(src, l)
		if err != nil {
			continue
		}
		parsed = true
		sub := &analyzer{src: src, dirs: a.dirs, env: a.env, within: a.within, depth: depth, candidates: a.candidates}
		sub.stmts(f.Stmts)
		for _, rf := range sub.facts {
			if rf.kind == FactOpaque && strings.HasPrefix(rf.value, unparsedScript) {
				a.facts = append(a.facts, rf)
				continue
			}
			if rf.kind != FactCommand || !a.spend() {
				continue
			}
			out = append(out, rf.argv)
			out = append(out, rf.inner...)
		}
	}
	return out, parsed
}

package toolkit

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode/utf8"
)

// Bounds on a lineDFA's work: a runner caches at most dfaMaxStates
// states, flushing them all when it needs more, so memory stays bounded
// whatever the pattern; after dfaMaxFlushes flushes the pattern is taken
// to need too many states and the runner matches with the regexp instead.
// Patterns of more than dfaMaxInsts instructions (large repetitions such as
// \w{500}) are matched with the regexp alone: each new state would cost a
// walk over the whole program.
const (
	dfaMaxStates  = 1000
	dfaMaxFlushes = 8
	dfaMaxInsts   = 1000
)

// errDFATooBig reports a pattern left to the regexp.
var errDFATooBig = errors.New("pattern too large for the line DFA")

// lineDFA answers whether a line holds a match of a pattern, as a lazily
// built deterministic automaton over the pattern's compiled program: each
// byte costs one table look-up once its transition is known, where Go's
// regexp runs a backtracker or an NFA over every line. Only whether a line
// matches is decided, never where, which is all grep needs.
//
// Lines are matched alone, as the regexp compiled with (?m) matches a
// line: ^, $, \A, \z hold at the line's edges and \b looks at the
// neighbouring characters. Invalid UTF-8 reads as U+FFFD, as in regexp.
//
// A lineDFA is safe for concurrent use: each goroutine builds its own
// states (in a pool of runners), from the shared, read-only program.
type lineDFA struct {
	prog      *syntax.Prog
	maxStates int            // dfaMaxStates; lower in tests
	re        *regexp.Regexp // the same pattern, for runners that gave up
	runners   sync.Pool      // *dfaRunner
}

// newLineDFA compiles expr, the pattern as given to regexp with its flags;
// re is the regexp compiled from it.
func newLineDFA(expr string, re *regexp.Regexp) (*lineDFA, error) {
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, err
	}
	if len(prog.Inst) > dfaMaxInsts {
		return nil, errDFATooBig
	}
	return &lineDFA{prog: prog, re: re, maxStates: dfaMaxStates}, nil
}

// dfaState is a set of program instructions waiting for the next character,
// with what the empty-width assertions need to know of the previous one.
type dfaState struct {
	pcs      []uint32 // sorted, the start instruction included
	atStart  bool     // no character consumed yet in the line
	prevWord bool     // the previous character is a word character
	ascii    [utf8.RuneSelf]*dfaState
	endKnown bool // endMatch has been computed
	endMatch bool // the line matches if it ends here
}

// dfaRunner holds one goroutine's states.
type dfaRunner struct {
	d       *lineDFA
	states  map[string]*dfaState
	start   *dfaState
	matched *dfaState // the state after a match: the line is known to match
	flushes int
	gaveUp  bool // too many states: match with the regexp
	// scratch for closures and keys
	stack []uint32
	seen  []bool
	cons  []uint32
	key   []byte
}

// get returns a runner for one goroutine's matching; put it back when
// done.
func (d *lineDFA) get() *dfaRunner {
	if r, ok := d.runners.Get().(*dfaRunner); ok {
		return r
	}
	r := &dfaRunner{d: d, matched: &dfaState{}, seen: make([]bool, len(d.prog.Inst))}
	r.flush()
	return r
}

// flush forgets every state but the start state.
func (r *dfaRunner) flush() {
	if r.states != nil {
		r.flushes++
		r.gaveUp = r.flushes > dfaMaxFlushes
	}
	r.states = make(map[string]*dfaState)
	r.start = r.intern([]uint32{uint32(r.d.prog.Start)}, true, false)
}

// intern returns the state for pcs (sorted) and the flags.
func (r *dfaRunner) intern(pcs []uint32, atStart, prevWord bool) *dfaState {
	r.key = r.key[:0]
	if atStart {
		r.key = append(r.key, 1)
	} else if prevWord {
		r.key = append(r.key, 2)
	} else {
		r.key = append(r.key, 0)
	}
	for _, pc := range pcs {
		r.key = append(r.key, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if s, ok := r.states[string(r.key)]; ok {
		return s
	}
	s := &dfaState{pcs: slices.Clone(pcs), atStart: atStart, prevWord: prevWord}
	r.states[string(r.key)] = s
	return s
}

// closure follows the non-consuming instructions from s's set under the
// empty-width context op and collects the consuming ones in r.cons; it
// reports whether a match instruction is reached.
func (r *dfaRunner) closure(s *dfaState, op syntax.EmptyOp) bool {
	prog := r.d.prog
	r.cons = r.cons[:0]
	r.stack = append(r.stack[:0], s.pcs...)
	clear(r.seen)
	matched := false
	for len(r.stack) > 0 {
		pc := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		if r.seen[pc] {
			continue
		}
		r.seen[pc] = true
		inst := &prog.Inst[pc]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			r.stack = append(r.stack, inst.Arg, inst.Out)
		case syntax.InstCapture, syntax.InstNop:
			r.stack = append(r.stack, inst.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&^op == 0 {
				r.stack = append(r.stack, inst.Out)
			}
		case syntax.InstMatch:
			matched = true
		case syntax.InstFail:
		default:
			r.cons = append(r.cons, pc)
		}
	}
	return matched
}

// context returns the empty-width context between s's previous character
// and next (-1 at the end of the line).
func (s *dfaState) context(next rune) syntax.EmptyOp {
	prev := rune(' ')
	switch {
	case s.atStart:
		prev = -1
	case s.prevWord:
		prev = 'a'
	}
	return syntax.EmptyOpContext(prev, next)
}

// step returns the state after s reads c, or r.matched.
func (r *dfaRunner) step(s *dfaState, c rune) *dfaState {
	if r.closure(s, s.context(c)) {
		return r.matched
	}
	prog := r.d.prog
	next := []uint32{uint32(prog.Start)}
	for _, pc := range r.cons {
		inst := &prog.Inst[pc]
		var ok bool
		switch inst.Op {
		case syntax.InstRune1:
			ok = c == inst.Rune[0]
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = c != '\n'
		default:
			ok = inst.MatchRune(c)
		}
		if ok {
			next = append(next, inst.Out)
		}
	}
	slices.Sort(next)
	next = slices.Compact(next)
	if len(r.states) >= r.d.maxStates {
		r.flush()
	}
	return r.intern(next, false, syntax.IsWordChar(c))
}

// endMatches reports whether the line matches if it ends after s.
func (r *dfaRunner) endMatches(s *dfaState) bool {
	if !s.endKnown {
		s.endMatch, s.endKnown = r.closure(s, s.context(-1)), true
	}
	return s.endMatch
}

// match reports whether line, without its newline, holds a match.
func (r *dfaRunner) match(line []byte) bool {
	if r.gaveUp {
		return r.d.re.Match(line)
	}
	s := r.start
	for i := 0; i < len(line); {
		c := line[i]
		var next *dfaState
		if c < utf8.RuneSelf {
			next = s.ascii[c]
			if next == nil {
				next = r.step(s, rune(c))
				s.ascii[c] = next
			}
			i++
		} else {
			ch, size := utf8.DecodeRune(line[i:])
			next = r.step(s, ch)
			i += size
		}
		if next == r.matched {
			return true
		}
		s = next
	}
	return r.endMatches(s)
}

// put returns r, from get, to the pool.
func (d *lineDFA) put(r *dfaRunner) { d.runners.Put(r) }

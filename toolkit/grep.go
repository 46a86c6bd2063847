package toolkit

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

//go:embed grep.md
var grepDescription string

var grepSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern":          {"type": "string", "description": "RE2 regular expression, or a literal with fixed_string."},
    "path":             {"type": "string", "description": "Directory or file. Default: the workspace root."},
    "include":          {"type": "string", "description": "Glob, e.g. *.go."},
    "case_insensitive": {"type": "boolean", "description": "Ignore case."},
    "fixed_string":     {"type": "boolean", "description": "Literal pattern, not RE2."},
    "context":          {"type": "integer", "minimum": 0, "maximum": 20, "description": "Default 0."},
    "max_results":      {"type": "integer", "minimum": 1, "description": "Default 200."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)

// grepArgs is grepSchema, parsed once.
var grepArgs = newArgSchema(grepSchema)

// grepParams are the arguments of the grep tool.
type grepParams struct {
	Pattern         string `json:"pattern"`
	Path            string `json:"path"`
	Include         string `json:"include"`
	CaseInsensitive bool   `json:"case_insensitive"`
	FixedString     bool   `json:"fixed_string"`
	Context         int    `json:"context"`
	MaxResults      int    `json:"max_results"`
}

func (p *grepParams) path() string {
	if p.Path == "" {
		return "."
	}
	return p.Path
}

// Grep is the grep tool: a parallel regular-expression search over the
// workspace. It is safe for concurrent use.
type Grep struct {
	ws         *Workspace
	filter     func(string) bool
	skipLinked bool // leave out files with more than one hard link
}

// NewGrep returns the grep tool over ws. filter, when not nil, is asked
// about every file met while walking a directory (see [Options]).
func NewGrep(ws *Workspace, filter func(string) bool) *Grep {
	return &Grep{ws: ws, filter: filter}
}

// newGrepLinked is [NewGrep] that leaves out multiply-linked files when
// skipLinked is set (see [Options.SkipLinked]).
func newGrepLinked(ws *Workspace, filter func(string) bool, skipLinked bool) *Grep {
	return &Grep{ws: ws, filter: filter, skipLinked: skipLinked}
}

// Spec implements [Tool].
func (t *Grep) Spec() Spec {
	return Spec{Name: "grep", Description: grepDescription, Schema: grepSchema}
}

// Effects implements [Tool]: a read of the resolved path; the files inside
// a directory are checked one by one with the filter while walking.
func (t *Grep) Effects(args json.RawMessage) (Effects, error) {
	var p grepParams
	if err := decodeArgs(grepArgs, args, &p); err != nil {
		return Effects{}, err
	}
	eff, err := t.ws.effectsFor(EffectRead, p.path())
	eff.Summary = strings.TrimSpace(p.Pattern + "  " + p.Path)
	return eff, err
}

// grepJob is one opened file to search; idx is its place in walk order.
type grepJob struct {
	idx   int
	path  string
	f     *os.File
	named bool // the call named this file itself: no size cap (see searchLarge)
}

// grepFile is what searching one file found.
type grepFile struct {
	path    string
	hits    []grepHit
	matches int
	binary  bool
	large   bool
	linked  bool // left out: more than one hard link (see Options.SkipLinked)
}

// grepHit is one output line: a match or a context line.
type grepHit struct {
	num   int
	text  string
	match bool
}

// Run implements [Tool].
func (t *Grep) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var p grepParams
	if err := decodeArgs(grepArgs, args, &p); err != nil {
		return errorResult("grep: %v", err), nil
	}
	if p.Context < 0 || p.Context > grepMaxContext {
		return errorResult("grep: context must be between 0 and %d", grepMaxContext), nil
	}
	if p.MaxResults < 0 {
		return errorResult("grep: max_results must be positive"), nil
	}
	if p.MaxResults == 0 {
		p.MaxResults = grepDefaultMax
	}
	if p.Include != "" && !doublestar.ValidatePattern(p.Include) {
		return errorResult("grep: include %q is not a valid glob", p.Include), nil
	}
	m, err := newLineMatcher(p.Pattern, p.FixedString, p.CaseInsensitive)
	if err != nil {
		return errorResult("grep: %v", err), nil
	}
	loc, err := t.ws.resolve(p.path())
	if err != nil {
		return errorResult("grep: %v", err), nil
	}
	if !loc.exists() {
		return errorResult("grep: no such file or directory: %s", loc.ref.Requested), nil
	}

	s := grepSearch{m: m, context: p.Context, max: p.MaxResults, results: map[int]*grepFile{}, skipLinked: t.skipLinked}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.cancel = cancel
	jobs := make(chan grepJob, 64)
	var wg sync.WaitGroup
	for range max(2, runtime.GOMAXPROCS(0)) {
		wg.Go(func() { s.worker(jobs) })
	}

	var walkErr error
	skipped, files := 0, 0
	if loc.info.IsDir() {
		skipped, walkErr = walk(wctx, loc, t.filter, func(e walkEntry) error {
			if p.Include != "" && !includeMatch(p.Include, e.rel) {
				return nil
			}
			f, err := e.dir.OpenFile(e.name, readFlags, 0)
			if err != nil {
				return nil // vanished or unreadable: not searchable
			}
			select {
			case jobs <- grepJob{idx: files, path: e.path, f: f}:
				files++
				return nil
			case <-wctx.Done():
				f.Close()
				return wctx.Err()
			}
		})
	} else if f, _, err := loc.openRegular(); err != nil {
		walkErr = err
	} else {
		jobs <- grepJob{idx: 0, path: loc.ref.Resolved, f: f, named: true}
		files = 1
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if walkErr != nil && !errors.Is(walkErr, context.Canceled) {
		return errorResult("grep: %v", walkErr), nil
	}
	return s.result(p, loc.ref.Requested, files, skipped), nil
}

// includeMatch applies grep's include glob: by base name when it has no
// "/", else to the path relative to the search directory.
func includeMatch(glob, rel string) bool {
	target := rel
	if !strings.Contains(glob, "/") {
		target = path.Base(rel)
	}
	ok, _ := doublestar.Match(glob, target)
	return ok
}

// grepSearch is the state one grep call shares between its workers.
type grepSearch struct {
	m          *lineMatcher
	context    int
	max        int
	cancel     context.CancelFunc
	skipLinked bool

	mu      sync.Mutex
	results map[int]*grepFile
	next    int // results[:next] are all in
	total   int // matches in results[:next]
}

// worker searches the files it receives until jobs is closed.
func (s *grepSearch) worker(jobs <-chan grepJob) {
	var buf []byte
	for job := range jobs {
		var r *grepFile
		r, buf = s.searchFile(job, buf)
		s.add(job.idx, r)
	}
}

// add stores a file's result and stops the walk once the matches of the
// files before every unfinished one exceed the maximum: what follows in
// walk order could not be shown.
func (s *grepSearch) add(idx int, r *grepFile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results[idx] = r
	for {
		done, ok := s.results[s.next]
		if !ok {
			break
		}
		s.total += done.matches
		s.next++
	}
	if s.total > s.max {
		s.cancel()
	}
}

// searchFile reads and searches one file, reusing buf.
func (s *grepSearch) searchFile(job grepJob, buf []byte) (*grepFile, []byte) {
	defer job.f.Close()
	r := &grepFile{path: job.path}
	fi, err := job.f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return r, buf
	}
	if s.skipLinked && hardLinks(fi) > 1 {
		r.linked = true
		return r, buf
	}
	if fi.Size() > grepMaxFileSize {
		if job.named {
			return r, s.searchLarge(job.f, r, buf)
		}
		r.large = true
		return r, buf
	}
	buf, err = readInto(job.f, buf[:0], grepMaxFileSize+1)
	if err != nil {
		return r, buf
	}
	if len(buf) > grepMaxFileSize {
		r.large = true
		return r, buf
	}
	if containsNUL(buf[:min(len(buf), binarySniffBytes)]) {
		r.binary = true
		return r, buf
	}
	r.hits, r.matches = s.m.search(buf, s.context, s.max+1)
	return r, buf
}

// readInto reads f into buf, up to limit bytes.
func readInto(f io.Reader, buf []byte, limit int) ([]byte, error) {
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):min(cap(buf), limit)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// result formats the matches of the files in walk order.
func (s *grepSearch) result(p grepParams, where string, files, skipped int) Result {
	var b strings.Builder
	st := s.writeMatches(&b, files)
	skipped += st.linked
	res := Result{Meta: Meta{Skipped: skipped}}
	var notes []string
	switch {
	case st.cut:
		res.Meta.Truncated = true
		notes = append(notes, fmt.Sprintf("output capped at %d KB after %d matches; narrow the pattern, path or include", grepMaxBytes>>10, st.shown))
	case st.capped:
		res.Meta.Truncated = true
		notes = append(notes, fmt.Sprintf("showing the first %d matches; narrow the pattern, path or include, or raise max_results", st.shown))
	default:
		notes = append(notes, fmt.Sprintf("%d %s in %d %s", st.shown, plural(st.shown, "match", "matches"), st.withMatch, plural(st.withMatch, "file", "files")))
	}
	if skipped > 0 {
		notes = append(notes, fmt.Sprintf("%d %s skipped by policy", skipped, plural(skipped, "file", "files")))
	}
	if st.binary > 0 {
		notes = append(notes, fmt.Sprintf("%d binary %s not searched", st.binary, plural(st.binary, "file", "files")))
	}
	if st.large > 0 {
		notes = append(notes, fmt.Sprintf("%d %s over %d MB not searched", st.large, plural(st.large, "file", "files"), grepMaxFileSize>>20))
	}
	if st.shown == 0 {
		res.IsError = true
		searched := files - st.binary - st.large - st.linked
		res.Content = fmt.Sprintf("grep: no match for %q in %s (%d %s searched; %s)\n", p.Pattern, where, searched, plural(searched, "file", "files"), strings.Join(notes[1:], "; "))
		res.Content = strings.Replace(res.Content, "; )", ")", 1)
		return res
	}
	b.WriteString("[" + strings.Join(notes, "; ") + "]\n")
	res.Content = b.String()
	return res
}

// grepStats counts what writeMatches wrote and met.
type grepStats struct {
	shown, withMatch, binary, large int
	linked                          int  // files left out for their hard links
	capped                          bool // matches past max_results were left out
	cut                             bool // the byte cap stopped the output
}

// writeMatches writes the hits of the files in walk order, as
// path:line:text (path-line-text for context, "--" between groups), up to
// the maximum number of matches and the byte cap.
func (s *grepSearch) writeMatches(b *strings.Builder, files int) grepStats {
	var st grepStats
	for idx := range files {
		r := s.results[idx]
		if r == nil {
			continue
		}
		if r.binary {
			st.binary++
		}
		if r.large {
			st.large++
		}
		if r.linked {
			st.linked++
		}
		if r.matches == 0 || st.capped || st.cut {
			if r.matches > 0 {
				st.capped = true
			}
			continue
		}
		st.withMatch++
		if s.context > 0 && b.Len() > 0 {
			b.WriteString("--\n")
		}
		lastMatch, prev := 0, 0
		for i, h := range r.hits {
			if h.match && st.shown == s.max {
				st.capped = true
				break
			}
			if !h.match && st.shown == s.max && h.num > lastMatch+s.context {
				st.capped = slices.ContainsFunc(r.hits[i:], func(h grepHit) bool { return h.match })
				break
			}
			if s.context > 0 && prev != 0 && h.num > prev+1 {
				b.WriteString("--\n")
			}
			sep := "-"
			if h.match {
				sep = ":"
				st.shown++
				lastMatch = h.num
			}
			line := fmt.Sprintf("%s%s%d%s%s\n", r.path, sep, h.num, sep, h.text)
			if b.Len()+len(line) > grepMaxBytes {
				st.cut = true
				break
			}
			b.WriteString(line)
			prev = h.num
		}
	}
	return st
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

package toolkit

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

//go:embed glob.md
var globDescription string

var globSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Glob, e.g. **/*.go."},
    "path":    {"type": "string", "description": "Directory to search. Default: the workspace root."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)

// globArgs is globSchema, parsed once.
var globArgs = newArgSchema(globSchema)

// globParams are the arguments of the glob tool.
type globParams struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

func (p *globParams) path() string {
	if p.Path == "" {
		return "."
	}
	return p.Path
}

// Glob is the glob tool: files by path pattern. It is safe for concurrent
// use.
type Glob struct {
	ws     *Workspace
	filter func(string) bool
}

// NewGlob returns the glob tool over ws. filter, when not nil, is asked
// about every file met while walking (see [Options]).
func NewGlob(ws *Workspace, filter func(string) bool) *Glob {
	return &Glob{ws: ws, filter: filter}
}

// Spec implements [Tool].
func (t *Glob) Spec() Spec {
	return Spec{Name: "glob", Description: globDescription, Schema: globSchema}
}

// Effects implements [Tool]: a read of the resolved directory.
func (t *Glob) Effects(args json.RawMessage) (Effects, error) {
	var p globParams
	if err := decodeArgs(globArgs, args, &p); err != nil {
		return Effects{}, err
	}
	eff, err := t.ws.effectsFor(EffectRead, p.path())
	eff.Summary = strings.TrimSpace(p.Pattern + "  " + p.Path)
	return eff, err
}

// Run implements [Tool].
func (t *Glob) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var p globParams
	if err := decodeArgs(globArgs, args, &p); err != nil {
		return errorResult("glob: %v", err), nil
	}
	pattern := strings.TrimPrefix(p.Pattern, "./")
	if pattern == "" || !doublestar.ValidatePattern(pattern) {
		return errorResult("glob: %q is not a valid glob pattern", p.Pattern), nil
	}
	if strings.HasPrefix(pattern, "/") || slices.Contains(strings.Split(pattern, "/"), "..") {
		return errorResult("glob: pattern %q must be relative to path and stay inside it; set path to search elsewhere", p.Pattern), nil
	}
	// Walk only below the pattern's fixed leading directories.
	base, _ := doublestar.SplitPattern(pattern)
	start := p.path()
	if base != "." {
		start = filepath.Join(start, filepath.FromSlash(unescapeGlob(base)))
	}
	dirLoc, err := t.ws.resolve(p.path())
	if err != nil {
		return errorResult("glob: %v", err), nil
	}
	if !dirLoc.exists() || !dirLoc.info.IsDir() {
		return errorResult("glob: %s is not a directory", dirLoc.ref.Requested), nil
	}
	var matches []string
	skipped := 0
	if loc, err := t.ws.resolve(start); err == nil && loc.exists() && loc.info.IsDir() {
		prefix := ""
		if base != "." {
			prefix = unescapeGlob(base) + "/"
		}
		skipped, err = walk(ctx, loc, t.filter, func(e walkEntry) error {
			if ok, _ := doublestar.Match(pattern, prefix+e.rel); ok {
				matches = append(matches, e.path)
			}
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			return errorResult("glob: %v", err), nil
		}
	}
	res := Result{Meta: Meta{Skipped: skipped}}
	var skipNote string
	if skipped > 0 {
		skipNote = fmt.Sprintf("; %d %s skipped by policy", skipped, plural(skipped, "file", "files"))
	}
	if len(matches) == 0 {
		return Result{
			Content: fmt.Sprintf("glob: no file matches %q in %s%s", p.Pattern, dirLoc.ref.Requested, skipNote),
			IsError: true,
			Meta:    res.Meta,
		}, nil
	}
	slices.Sort(matches)
	var b strings.Builder
	for _, m := range matches[:min(len(matches), globMaxResults)] {
		b.WriteString(m)
		b.WriteByte('\n')
	}
	if len(matches) > globMaxResults {
		res.Meta.Truncated = true
		fmt.Fprintf(&b, "[showing the first %d of %d files%s; narrow the pattern or path]\n", globMaxResults, len(matches), skipNote)
	} else {
		fmt.Fprintf(&b, "[%d %s%s]\n", len(matches), plural(len(matches), "file", "files"), skipNote)
	}
	res.Content = b.String()
	return res, nil
}

// unescapeGlob removes the backslash escapes of a glob's literal part.
func unescapeGlob(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return path.Clean(b.String())
}

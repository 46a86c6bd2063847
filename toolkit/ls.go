package toolkit

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

//go:embed ls.md
var lsDescription string

var lsSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory to list. Default: the workspace root."}
  },
  "additionalProperties": false
}`)

// lsArgs is lsSchema, parsed once.
var lsArgs = newArgSchema(lsSchema)

// lsParams are the arguments of the ls tool.
type lsParams struct {
	Path string `json:"path"`
}

func (p *lsParams) path() string {
	if p.Path == "" {
		return "."
	}
	return p.Path
}

// Ls is the ls tool: one directory's entries. It is safe for concurrent
// use.
type Ls struct {
	ws *Workspace
}

// NewLs returns the ls tool over ws.
func NewLs(ws *Workspace) *Ls { return &Ls{ws: ws} }

// Spec implements [Tool].
func (t *Ls) Spec() Spec { return Spec{Name: "ls", Description: lsDescription, Schema: lsSchema} }

// Effects implements [Tool]: a read of the resolved directory.
func (t *Ls) Effects(args json.RawMessage) (Effects, error) {
	var p lsParams
	if err := decodeArgs(lsArgs, args, &p); err != nil {
		return Effects{}, err
	}
	eff, err := t.ws.effectsFor(EffectRead, p.path())
	eff.Summary = p.Path
	return eff, err
}

// Run implements [Tool].
func (t *Ls) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var p lsParams
	if err := decodeArgs(lsArgs, args, &p); err != nil {
		return errorResult("ls: %v", err), nil
	}
	loc, err := t.ws.resolve(p.path())
	if err != nil {
		return errorResult("ls: %v", err), nil
	}
	if !loc.exists() {
		return errorResult("ls: no such directory: %s", loc.ref.Requested), nil
	}
	if !loc.info.IsDir() {
		return Result{Content: fmt.Sprintf("%s is a file: %s\t%d\n", loc.ref.Requested, filepath.Base(loc.rel), loc.info.Size())}, nil
	}
	d, err := loc.root.r.Open(loc.rel)
	if err != nil {
		return errorResult("ls: open %s: %v", loc.ref.Requested, stripPathError(err)), nil
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return errorResult("ls: read %s: %v", loc.ref.Requested, stripPathError(err)), nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return cmp.Compare(a.Name(), b.Name()) })

	var b strings.Builder
	fmt.Fprintf(&b, "Directory: %s (%d %s)\n", loc.ref.Resolved, len(entries), plural(len(entries), "entry", "entries"))
	shown := entries[:min(len(entries), lsMaxEntries)]
	for _, e := range shown {
		name := strings.ToValidUTF8(e.Name(), "\uFFFD")
		switch typ := e.Type(); {
		case typ.IsDir():
			fmt.Fprintf(&b, "%s/\n", name)
		case typ&fs.ModeSymlink != 0:
			target, err := loc.root.r.Readlink(filepath.Join(loc.rel, e.Name()))
			if err != nil {
				target = "?"
			}
			fmt.Fprintf(&b, "%s -> %s\n", name, strings.ToValidUTF8(target, "\uFFFD"))
		case typ.IsRegular():
			size := int64(-1)
			if fi, err := e.Info(); err == nil {
				size = fi.Size()
			}
			fmt.Fprintf(&b, "%s\t%d\n", name, size)
		default:
			fmt.Fprintf(&b, "%s\t(%s)\n", name, fileKind(typ))
		}
	}
	var res Result
	if len(entries) > len(shown) {
		res.Meta.Truncated = true
		fmt.Fprintf(&b, "[showing the first %d of %d entries; use glob to find specific files]\n", len(shown), len(entries))
	}
	if len(entries) == 0 {
		b.WriteString("(empty)\n")
	}
	res.Content = b.String()
	return res, nil
}

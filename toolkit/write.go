package toolkit

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
)

//go:embed write.md
var writeDescription string

var writeSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path":    {"type": "string", "description": "File to write."},
    "content": {"type": "string", "description": "The complete new content of the file."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`)

// writeArgs is writeSchema, parsed once.
var writeArgs = newArgSchema(writeSchema)

// writeParams are the arguments of the write tool.
type writeParams struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// newFileMode is the mode of files write creates.
const newFileMode fs.FileMode = 0o644

// Write is the write tool: atomic whole-file writes. It is safe for
// concurrent use.
type Write struct {
	ws *Workspace
	rt *ReadTracker
	aw atomicWriter
}

// NewWrite returns the write tool over ws, checking and recording file
// contents in rt.
func NewWrite(ws *Workspace, rt *ReadTracker) *Write { return &Write{ws: ws, rt: rt} }

// Spec implements [Tool].
func (t *Write) Spec() Spec {
	return Spec{Name: "write", Description: writeDescription, Schema: writeSchema}
}

// Effects implements [Tool]: a write of the resolved file, so a write
// through a symlink names the file that really changes.
func (t *Write) Effects(args json.RawMessage) (Effects, error) {
	var p writeParams
	if err := decodeArgs(writeArgs, args, &p); err != nil {
		return Effects{}, err
	}
	eff, err := t.ws.effectsFor(EffectWrite, p.Path)
	eff.Summary = p.Path
	return eff, err
}

// Run implements [Tool].
func (t *Write) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	return t.run(ctx, args, nil)
}

// RunJudged implements [JudgedRunner]: the call acts on the judged path.
func (t *Write) RunJudged(ctx context.Context, args json.RawMessage, eff Effects) (Result, error) {
	return t.run(ctx, args, &eff)
}

func (t *Write) run(ctx context.Context, args json.RawMessage, eff *Effects) (Result, error) {
	var p writeParams
	if err := decodeArgs(writeArgs, args, &p); err != nil {
		return errorResult("write: %v", err), nil
	}
	loc, err := t.ws.locate(p.Path, eff)
	if err != nil {
		return errorResult("write: %v", err), nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	old, perm, res, ok := loadForChange("write", loc, t.rt)
	if !ok {
		return res, nil
	}
	created := !loc.exists()
	if !created && old == p.Content {
		return Result{Content: fmt.Sprintf("%s unchanged: it already has this content", loc.ref.Requested)}, nil
	}
	if created {
		perm = newFileMode
	}
	if err := t.aw.write(loc, []byte(p.Content), perm); err != nil {
		return errorResult("write: %v", err), nil
	}
	t.rt.record(loc.key(), sha256.Sum256([]byte(p.Content)))

	name := loc.ref.Resolved
	oldName := name
	if created {
		oldName = "/dev/null"
	}
	diff := UnifiedDiff(oldName, name, old, p.Content)
	res = Result{Meta: Meta{Diff: diff, Changed: []string{name}}}
	lines := strings.Count(p.Content, "\n")
	if p.Content != "" && !strings.HasSuffix(p.Content, "\n") {
		lines++
	}
	if created {
		res.Content = fmt.Sprintf("Created %s%s (%d lines, %d bytes)\n", name, via(loc), lines, len(p.Content))
	} else {
		res.Content = fmt.Sprintf("Wrote %s%s (%d lines, %d bytes)\n%s", name, via(loc), lines, len(p.Content), diff)
	}
	return res, nil
}

// loadForChange reads the current content of a file write or edit is about
// to change, after checking it may be changed: its root is writable, it is
// not a directory, and it did not change since the agent last saw it. ok is
// false when the call must stop with res. A missing file loads as "".
func loadForChange(tool string, loc location, rt *ReadTracker) (old string, perm fs.FileMode, res Result, ok bool) {
	if !loc.writable {
		return "", 0, errorResult("%s: %s is in a read-only directory", tool, loc.ref.Requested), false
	}
	if !loc.exists() {
		return "", 0, Result{}, true
	}
	if loc.info.IsDir() {
		return "", 0, errorResult("%s: %s is a directory", tool, loc.ref.Requested), false
	}
	data, fi, err := loc.readAll()
	if err != nil {
		return "", 0, errorResult("%s: %v", tool, err), false
	}
	if rt.stale(loc.key(), sha256.Sum256(data)) {
		return "", 0, errorResult("%s: %s changed on disk since you last read it; read it again before changing it", tool, loc.ref.Requested), false
	}
	return string(data), fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), Result{}, true
}

// via names the symlink a change went through, if any.
func via(loc location) string {
	if loc.ref.Requested == loc.ref.Resolved {
		return ""
	}
	return " through the symlink " + loc.ref.Requested
}

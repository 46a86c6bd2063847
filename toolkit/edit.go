package toolkit

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed edit.md
var editDescription string

var editSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path":        {"type": "string", "description": "File to edit."},
    "old_string":  {"type": "string", "description": "Exact text to replace."},
    "new_string":  {"type": "string", "description": "Replacement text."},
    "replace_all": {"type": "boolean", "description": "Replace every occurrence."}
  },
  "required": ["path", "old_string", "new_string"],
  "additionalProperties": false
}`)

// editArgs is editSchema, parsed once.
var editArgs = newArgSchema(editSchema)

// editParams are the arguments of the edit tool.
type editParams struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// Edit is the edit tool: exact search and replace. It is safe for
// concurrent use.
type Edit struct {
	ws *Workspace
	rt *ReadTracker
	aw atomicWriter
}

// NewEdit returns the edit tool over ws, checking and recording file
// contents in rt.
func NewEdit(ws *Workspace, rt *ReadTracker) *Edit { return &Edit{ws: ws, rt: rt} }

// Spec implements [Tool].
func (t *Edit) Spec() Spec {
	return Spec{Name: "edit", Description: editDescription, Schema: editSchema}
}

// Effects implements [Tool]: a write of the resolved file.
func (t *Edit) Effects(args json.RawMessage) (Effects, error) {
	var p editParams
	if err := decodeArgs(editArgs, args, &p); err != nil {
		return Effects{}, err
	}
	eff, err := t.ws.effectsFor(EffectWrite, p.Path)
	eff.Summary = p.Path
	return eff, err
}

// Run implements [Tool].
func (t *Edit) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	return t.run(ctx, args, nil)
}

// RunJudged implements [JudgedRunner]: the call acts on the judged path.
func (t *Edit) RunJudged(ctx context.Context, args json.RawMessage, eff Effects) (Result, error) {
	return t.run(ctx, args, &eff)
}

func (t *Edit) run(ctx context.Context, args json.RawMessage, eff *Effects) (Result, error) {
	var p editParams
	if err := decodeArgs(editArgs, args, &p); err != nil {
		return errorResult("edit: %v", err), nil
	}
	if p.OldString == "" {
		return errorResult("edit: old_string is empty; use write to create a file or replace its whole content"), nil
	}
	if p.OldString == p.NewString {
		return errorResult("edit: old_string and new_string are identical; nothing to change"), nil
	}
	loc, err := t.ws.locate(p.Path, eff)
	if err != nil {
		return errorResult("edit: %v", err), nil
	}
	if !loc.exists() {
		return errorResult("edit: file not found: %s (use write to create a file)", loc.ref.Requested), nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	content, perm, res, ok := loadForChange("edit", loc, t.rt)
	if !ok {
		return res, nil
	}
	if bytes.IndexByte([]byte(content[:min(len(content), binarySniffBytes)]), 0) >= 0 {
		return errorResult("edit: %s is a binary file; edit changes text files only", loc.ref.Requested), nil
	}

	oldS, newS := p.OldString, p.NewString
	count := strings.Count(content, oldS)
	crlf := isCRLF(content)
	if count == 0 && crlf {
		// The model usually writes "\n"; match the file's line endings.
		if o := toCRLF(oldS); o != oldS {
			count = strings.Count(content, o)
			oldS = o
		}
	}
	if crlf {
		newS = toCRLF(newS) // new lines follow the file's style
	}
	if count == 0 {
		return errorResult("edit: old_string not found in %s.%s", loc.ref.Requested, noMatchHint(content, p.OldString)), nil
	}
	if count > 1 && !p.ReplaceAll {
		return errorResult("edit: old_string occurs %d times in %s (at lines %s); add surrounding lines to make it unique, or set replace_all to replace every one",
			count, loc.ref.Requested, matchLines(content, oldS)), nil
	}
	updated := strings.ReplaceAll(content, oldS, newS)
	if err := t.aw.write(loc, []byte(updated), perm); err != nil {
		return errorResult("edit: %v", err), nil
	}
	t.rt.record(loc.key(), sha256.Sum256([]byte(updated)))

	name := loc.ref.Resolved
	diff := UnifiedDiff(name, name, content, updated)
	plural := "s"
	if count == 1 {
		plural = ""
	}
	return Result{
		Content: fmt.Sprintf("Edited %s%s: %d replacement%s\n%s", name, via(loc), count, plural, diff),
		Meta:    Meta{Diff: diff, Changed: []string{name}},
	}, nil
}

// isCRLF reports whether most line endings of content are CRLF.
func isCRLF(content string) bool {
	return 2*strings.Count(content, "\r\n") > strings.Count(content, "\n")
}

// toCRLF turns every bare "\n" of s into "\r\n".
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// matchLines lists the 1-based line numbers where sub starts in s.
func matchLines(s, sub string) string {
	var nums []string
	line, pos := 1, 0
	for {
		i := strings.Index(s[pos:], sub)
		if i < 0 {
			break
		}
		line += strings.Count(s[pos:pos+i], "\n")
		nums = append(nums, fmt.Sprint(line))
		line += strings.Count(sub, "\n")
		pos += i + len(sub)
		if len(nums) == editMatchLines {
			nums = append(nums, "…")
			break
		}
	}
	return strings.Join(nums, ", ")
}

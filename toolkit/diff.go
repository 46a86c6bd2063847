package toolkit

import (
	"fmt"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffContext is the number of unchanged lines shown around each change.
const diffContext = 3

// diffTimeout bounds the diff search; past it the diff stays correct but may
// not be minimal.
const diffTimeout = time.Second

// UnifiedDiff returns a line-based unified diff (the `diff -u` format, three
// lines of context) turning oldText into newText, headed by oldName and
// newName; it is empty when the texts are equal. A line without a final
// newline is marked "\ No newline at end of file". The diff is cut at a line
// boundary past the diff cap, with a closing line saying how much was left
// out.
func UnifiedDiff(oldName, newName, oldText, newText string) string {
	if oldText == newText {
		return ""
	}
	ops := lineOps(oldText, newText)
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range hunks(ops) {
		writeHunk(&b, ops, h)
	}
	return capDiff(b.String())
}

// lineOp is one line of the diff: kept (' '), removed ('-') or added ('+').
type lineOp struct {
	kind byte
	text string // the line, with its newline when it has one
	old  int    // 1-based line number in the old text (kept, removed)
	new  int    // 1-based line number in the new text (kept, added)
}

// lineOps diffs the texts line by line with go-diff's line mode.
func lineOps(oldText, newText string) []lineOp {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	a, b, lines := dmp.DiffLinesToChars(oldText, newText)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)
	var ops []lineOp
	oldN, newN := 0, 0
	for _, d := range diffs {
		for _, line := range splitLinesKeep(d.Text) {
			op := lineOp{text: line}
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				oldN++
				newN++
				op.kind, op.old, op.new = ' ', oldN, newN
			case diffmatchpatch.DiffDelete:
				oldN++
				op.kind, op.old, op.new = '-', oldN, newN
			case diffmatchpatch.DiffInsert:
				newN++
				op.kind, op.old, op.new = '+', oldN, newN
			}
			ops = append(ops, op)
		}
	}
	return ops
}

// splitLinesKeep splits s after each newline; the last line may lack one.
func splitLinesKeep(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// span is a hunk: ops[start:end].
type span struct{ start, end int }

// hunks groups the changed ops with their context, merging groups whose
// context would touch or overlap (at most 2×diffContext kept lines apart).
func hunks(ops []lineOp) []span {
	var out []span
	for i, op := range ops {
		if op.kind == ' ' {
			continue
		}
		start, end := max(0, i-diffContext), min(len(ops), i+1+diffContext)
		if n := len(out); n > 0 && start <= out[n-1].end {
			out[n-1].end = end
		} else {
			out = append(out, span{start, end})
		}
	}
	return out
}

// writeHunk writes one hunk with its GNU-style header.
func writeHunk(b *strings.Builder, ops []lineOp, h span) {
	oldCount, newCount := 0, 0
	oldStart, newStart := 0, 0
	for _, op := range ops[h.start:h.end] {
		if op.kind != '+' {
			if oldCount == 0 {
				oldStart = op.old
			}
			oldCount++
		}
		if op.kind != '-' {
			if newCount == 0 {
				newStart = op.new
			}
			newCount++
		}
	}
	// An empty side names the line before the hunk, as diff -u does.
	if oldCount == 0 {
		oldStart = ops[h.start].old
	}
	if newCount == 0 {
		newStart = ops[h.start].new
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(oldStart, oldCount), hunkRange(newStart, newCount))
	for _, op := range ops[h.start:h.end] {
		b.WriteByte(op.kind)
		b.WriteString(op.text)
		if !strings.HasSuffix(op.text, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, count int) string {
	if count == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}

// capDiff cuts a diff past diffMaxBytes at a line boundary.
func capDiff(d string) string {
	if len(d) <= diffMaxBytes {
		return d
	}
	cut := strings.LastIndexByte(d[:diffMaxBytes], '\n') + 1
	rest := d[cut:]
	return d[:cut] + fmt.Sprintf("... diff truncated: %d more lines (%d bytes) not shown\n",
		strings.Count(rest, "\n"), len(rest))
}

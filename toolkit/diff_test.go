package toolkit

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, old, new, want string
	}{
		{"equal", "a\n", "a\n", ""},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n",
			"--- o\n+++ n\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"new file", "", "x\ny\n",
			"--- o\n+++ n\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"deleted content", "x\n", "",
			"--- o\n+++ n\n@@ -1 +0,0 @@\n-x\n"},
		{"missing final newline added", "a\nb", "a\nb\n",
			"--- o\n+++ n\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"missing final newline kept", "a\nb", "A\nb",
			"--- o\n+++ n\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n"},
		{"context limited to three lines", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nX\n6\n7\n8\n9\n",
			"--- o\n+++ n\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n"},
		{"two hunks", lines(1, 20), strings.Replace(strings.Replace(lines(1, 20), "2\n", "two\n", 1), "18\n", "eighteen\n", 1),
			"--- o\n+++ n\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n"},
		{"close changes merge", lines(1, 12), strings.Replace(strings.Replace(lines(1, 12), "2\n", "b\n", 1), "9\n", "i\n", 1),
			"--- o\n+++ n\n@@ -1,12 +1,12 @@\n 1\n-2\n+b\n 3\n 4\n 5\n 6\n 7\n 8\n-9\n+i\n 10\n 11\n 12\n"},
		{"crlf kept visible", "a\r\nb\r\n", "a\r\nc\r\n",
			"--- o\n+++ n\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := UnifiedDiff("o", "n", tc.old, tc.new); got != tc.want {
				t.Errorf("UnifiedDiff:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// lines returns the numbers from..to, one per line.
func lines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// TestUnifiedDiffApplies checks on random edits that applying the diff to
// the old text gives the new text, so hunk headers and context are right.
func TestUnifiedDiffApplies(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		old := randomText(rng)
		new := mutate(rng, old)
		d := UnifiedDiff("o", "n", old, new)
		got, err := applyDiff(old, d)
		if err != nil {
			t.Fatalf("iteration %d: %v\nold %q\nnew %q\ndiff:\n%s", iter, err, old, new, d)
		}
		if got != new {
			t.Fatalf("iteration %d: applying the diff gave %q, want %q\ndiff:\n%s", iter, got, new, d)
		}
	}
}

func randomText(rng *rand.Rand) string {
	n := rng.IntN(30)
	var b strings.Builder
	for i := range n {
		b.WriteString(strconv.Itoa(rng.IntN(8)))
		if i < n-1 || rng.IntN(3) > 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func mutate(rng *rand.Rand, s string) string {
	ls := splitLinesKeep(s)
	for range rng.IntN(5) + 1 {
		switch i := rng.IntN(len(ls) + 1); rng.IntN(3) {
		case 0:
			ls = append(ls[:i], append([]string{"new" + strconv.Itoa(rng.IntN(9)) + "\n"}, ls[i:]...)...)
		case 1:
			if i < len(ls) {
				ls = append(ls[:i], ls[i+1:]...)
			}
		case 2:
			if i < len(ls) {
				ls[i] = "chg\n"
			}
		}
	}
	out := strings.Join(ls, "")
	if rng.IntN(4) == 0 {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}

// applyDiff applies a unified diff to old, checking every context and
// removed line and every hunk header count.
func applyDiff(old, diff string) (string, error) {
	src := splitLinesKeep(old)
	dl := strings.Split(diff, "\n")
	if len(dl) < 2 || !strings.HasPrefix(dl[0], "--- ") || !strings.HasPrefix(dl[1], "+++ ") {
		if diff == "" {
			return old, nil
		}
		return "", fmt.Errorf("bad header")
	}
	var out []string
	pos := 0 // next unconsumed source line
	i := 2
	for i < len(dl) && dl[i] != "" {
		var os, oc, ns, nc int
		h := dl[i]
		if _, err := fmt.Sscanf(normalizeHunk(h), "@@ -%d,%d +%d,%d @@", &os, &oc, &ns, &nc); err != nil {
			return "", fmt.Errorf("bad hunk header %q: %v", h, err)
		}
		start := os - 1
		if oc == 0 {
			start = os
		}
		if start < pos {
			return "", fmt.Errorf("hunk %q overlaps", h)
		}
		out = append(out, src[pos:start]...)
		pos = start
		i++
		gotOld, gotNew := 0, 0
		for i < len(dl) && dl[i] != "" && !strings.HasPrefix(dl[i], "@@") {
			kind, line := dl[i][0], dl[i][1:]+"\n"
			i++
			if i < len(dl) && dl[i] == `\ No newline at end of file` {
				line = line[:len(line)-1]
				i++
			}
			switch kind {
			case ' ', '-':
				if pos >= len(src) || src[pos] != line {
					return "", fmt.Errorf("line %d: want %q", pos+1, line)
				}
				pos++
				gotOld++
				if kind == ' ' {
					out = append(out, line)
					gotNew++
				}
			case '+':
				out = append(out, line)
				gotNew++
			default:
				return "", fmt.Errorf("bad diff line kind %q", kind)
			}
		}
		if gotOld != oc || gotNew != nc {
			return "", fmt.Errorf("hunk %q counts %d,%d lines", h, gotOld, gotNew)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

// normalizeHunk spells out the counts diff -u leaves out when they are 1.
func normalizeHunk(h string) string {
	f := strings.Fields(h)
	if len(f) < 4 {
		return h
	}
	for _, i := range []int{1, 2} {
		if !strings.Contains(f[i], ",") {
			f[i] += ",1"
		}
	}
	return strings.Join(f, " ")
}

func TestUnifiedDiffCapped(t *testing.T) {
	t.Parallel()
	old := lines(1, 1500)
	new := strings.ReplaceAll(old, "\n", " changed\n")
	d := UnifiedDiff("o", "n", old, new)
	body, notice, ok := strings.Cut(d, "... diff truncated: ")
	if !ok {
		t.Fatalf("big diff not truncated (%d bytes)", len(d))
	}
	if len(body) > diffMaxBytes || !strings.HasSuffix(body, "\n") {
		t.Errorf("kept %d bytes (cap %d), ending %q", len(body), diffMaxBytes, body[len(body)-10:])
	}
	if !strings.Contains(notice, "more lines") {
		t.Errorf("notice %q does not say what was left out", notice)
	}
}

package toolkit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Bounds on the work noMatchHint does for a failed edit; what it shows is
// capped in caps.go.
const (
	hintMaxLines   = 5000 // file lines compared with old_string's first line
	hintLineBytes  = 200  // bytes of each line compared
	hintMinSimilar = 0.5  // similarity below which a line is not shown
)

// noMatchHint explains why old matched nothing in content: a
// whitespace-insensitive match, or the lines closest to old's first line.
func noMatchHint(content, old string) string {
	fileLines := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
	want := trimmedLines(old)
	if len(want) == 0 {
		return " old_string contains only whitespace."
	}
	if strings.Contains(old, "\r\n") && !strings.Contains(content, "\r\n") {
		return " old_string has Windows (CRLF) line endings and the file does not; use plain newlines."
	}
	if at := findTrimmed(fileLines, want); at >= 0 {
		var b strings.Builder
		fmt.Fprintf(&b, " It matches lines %d-%d if whitespace is ignored: indentation (tabs or spaces) or trailing spaces differ. The file has exactly:\n", at+1, at+len(want))
		for i := at; i < at+len(want) && i < at+editHintRun; i++ {
			fmt.Fprintf(&b, "%6d\t%s\n", i+1, fileLines[i])
		}
		return b.String()
	}

	type scored struct {
		line int
		sim  float64
	}
	dmp := diffmatchpatch.New()
	target := cutUTF8(want[0], hintLineBytes)
	var best []scored
	for i, l := range fileLines[:min(len(fileLines), hintMaxLines)] {
		l = cutUTF8(strings.TrimSpace(l), hintLineBytes)
		if l == "" {
			continue
		}
		d := dmp.DiffLevenshtein(dmp.DiffMain(target, l, false))
		sim := 1 - float64(d)/float64(max(len(target), len(l)))
		if sim >= hintMinSimilar {
			best = append(best, scored{i, sim})
		}
	}
	if len(best) == 0 {
		return " No line resembles its first line; read the file to see its current content."
	}
	slices.SortStableFunc(best, func(a, b scored) int {
		switch {
		case a.sim > b.sim:
			return -1
		case a.sim < b.sim:
			return 1
		}
		return a.line - b.line
	})
	var b strings.Builder
	b.WriteString(" The closest lines to its first line are:\n")
	for _, s := range best[:min(len(best), editHintLines)] {
		fmt.Fprintf(&b, "%6d\t%s\n", s.line+1, fileLines[s.line])
	}
	b.WriteString("Copy the text exactly as read shows it (without the line numbers).")
	return b.String()
}

// squash trims s and turns each run of inner whitespace into one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// trimmedLines splits s into lines with whitespace squashed,
// without leading and trailing blank lines.
func trimmedLines(s string) []string {
	ls := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i := range ls {
		ls[i] = squash(ls[i])
	}
	for len(ls) > 0 && ls[0] == "" {
		ls = ls[1:]
	}
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// findTrimmed returns the first index where want matches fileLines with
// whitespace squashed, or -1.
func findTrimmed(fileLines, want []string) int {
	for i := 0; i+len(want) <= len(fileLines); i++ {
		ok := true
		for j, w := range want {
			if squash(fileLines[i+j]) != w {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}

package toolkit

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHeadTail(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		max    int
		writes []string
		want   string
		trunc  bool
	}{
		"empty":             {10, nil, "", false},
		"fits":              {10, []string{"abc", "def"}, "abcdef", false},
		"exactly full":      {10, []string{"0123456789"}, "0123456789", false},
		"one byte over":     {10, []string{"0123456789x"}, "01234" + cutNote(1, 0, 5, 5, 11) + "6789x", true},
		"many small":        {4, []string{"a", "b", "c", "d", "e", "f", "g"}, "ab" + cutNote(3, 0, 2, 2, 7) + "fg", true},
		"ring wraps":        {6, []string{"abc", "de", "fgh", "ij", "k"}, "abc" + cutNote(5, 0, 3, 3, 11) + "ijk", true},
		"small writes wrap": {8, []string{"abcd", "efg", "hi", "jk", "lm", "n"}, "abcd" + cutNote(6, 0, 4, 4, 14) + "klmn", true},
		"each write wraps":  {8, []string{"abcd", "efg", "hij", "klm", "nop"}, "abcd" + cutNote(8, 0, 4, 4, 16) + "mnop", true},
		"chunk over tail":   {6, []string{"ab", "cdefghijklmnop"}, "abc" + cutNote(10, 0, 3, 3, 16) + "nop", true},
		"lines counted":     {8, []string{"1\n2\n3\n4\n5\n6\n7\n8\n9\n"}, "1\n2\n" + cutNote(10, 5, 4, 4, 18) + "8\n9\n", true},
		"one line cut":      {4, []string{"ab\ncd"}, "ab" + cutNote(1, 1, 2, 2, 5) + "cd", true},
		"invalid utf8":      {10, []string{"a\xffb"}, "a\uFFFDb", false},
		"split rune fits":   {10, []string{"\xc3", "\xa9"}, "é", false},
		"cut inside runes":  {8, []string{"ab€", "xxxxx", "€cd"}, "ab" + cutNote(11, 0, 2, 2, 15) + "cd", true},
		"tail keeps rune":   {10, []string{"abcde", "zzzzz", "a€b"}, "abcde" + cutNote(5, 0, 5, 5, 15) + "a€b", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newHeadTail(tc.max)
			var total int
			for _, s := range tc.writes {
				n, err := w.Write([]byte(s))
				if n != len(s) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", s, n, err, len(s))
				}
				total += len(s)
			}
			if got := w.String(); got != tc.want {
				t.Errorf("String() =\n%q\nwant\n%q", got, tc.want)
			}
			if w.Truncated() != tc.trunc {
				t.Errorf("Truncated() = %v, want %v", w.Truncated(), tc.trunc)
			}
			if w.Total() != int64(total) {
				t.Errorf("Total() = %d, want %d", w.Total(), total)
			}
		})
	}
}

func cutNote(cut, lines, head, tail, total int) string {
	unit := "lines"
	if lines == 1 {
		unit = "line"
	}
	return fmt.Sprintf("\n\n[output cut: %d bytes (%d %s) omitted from the middle; showing the first %d and the last %d of %d bytes]\n\n",
		cut, lines, unit, head, tail, total)
}

// FuzzHeadTail checks headTail against the whole stream: what fits comes
// back whole, and otherwise the kept head and tail are a prefix and a
// suffix of it and the note's count adds up.
func FuzzHeadTail(f *testing.F) {
	f.Add([]byte("hello, world\n"), uint8(3), uint8(8))
	f.Add([]byte("ab€cd\xff€ef"), uint8(1), uint8(5))
	f.Add([]byte("abcdefghijklmnopq"), uint8(2), uint8(8)) // writes of 3 straddle the ring's end
	f.Fuzz(func(t *testing.T, data []byte, chunk, max uint8) {
		w := newHeadTail(int(max))
		step := int(chunk)%17 + 1
		for rest := data; len(rest) > 0; {
			k := min(step, len(rest))
			_, _ = w.Write(rest[:k])
			rest = rest[k:]
		}
		got := w.String()
		if !utf8.ValidString(got) {
			t.Fatalf("String() is not valid UTF-8: %q", got)
		}
		if len(data) <= int(max) {
			if w.Truncated() || got != strings.ToValidUTF8(string(data), "\uFFFD") {
				t.Fatalf("short input changed: %q -> %q (truncated %v)", data, got, w.Truncated())
			}
			return
		}
		if !w.Truncated() {
			t.Fatalf("%d bytes into a cap of %d not reported as truncated", len(data), max)
		}
		var cut, lines, head, tail, total int
		var unit string
		i := strings.Index(got, "\n\n[output cut: ")
		if i < 0 {
			t.Fatalf("no cut note in %q", got)
		}
		rest := got[i+2:]
		if _, err := fmt.Sscanf(rest, "[output cut: %d bytes (%d %s omitted from the middle; showing the first %d and the last %d of %d bytes]",
			&cut, &lines, &unit, &head, &tail, &total); err != nil {
			t.Fatalf("cut note %q: %v", rest, err)
		}
		if total != len(data) || head+tail+cut != total || head > int(max)/2 || tail > int(max)-int(max)/2 {
			t.Fatalf("note head %d tail %d cut %d total %d for %d bytes, cap %d", head, tail, cut, total, len(data), max)
		}
		if want := bytes.Count(data[head:len(data)-tail], []byte{'\n'}); lines != want {
			t.Fatalf("note says %d lines cut, want %d", lines, want)
		}
		if gotHead, want := got[:i], strings.ToValidUTF8(string(data[:head]), "\uFFFD"); gotHead != want {
			t.Fatalf("head %q, want %q", gotHead, want)
		}
		if !strings.HasSuffix(got, strings.ToValidUTF8(string(data[len(data)-tail:]), "\uFFFD")) {
			t.Fatalf("%q does not end with the last %d bytes of %q", got, tail, data)
		}
	})
}

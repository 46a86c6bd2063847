package policy

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestParseShellReuse proves that parsing with a reused parser gives what
// a fresh one gives, and leaves the files it gave before as they were:
// after a failed parse, after a comment the parser refuses, and while an
// earlier file is still in use (an unwrapped script is parsed while its
// command's file is being read).
func TestParseShellReuse(t *testing.T) {
	printed := func(f *syntax.File) string {
		var b strings.Builder
		if err := syntax.NewPrinter().Print(&b, f); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	srcs := []string{
		"go test ./... > out.log 2>&1 && git status # done",
		"echo 'unterminated",
		"echo #\\\nrm -rf x",
		`bash -c "cat <<EOF > f.txt
hello $HOME
EOF"`,
		"for f in *.go; do gofmt -l \"$f\"; done | sort",
		"[[ -f go.mod ]] && cat <<< hi",
	}
	for _, l := range []lang{langBash, langPOSIX} {
		var kept []*syntax.File
		var want []string
		for range 3 {
			for _, src := range srcs {
				f, err := parseShell(src, l)
				fresh, ferr := syntax.NewParser(syntax.Variant(map[lang]syntax.LangVariant{langBash: syntax.LangBash, langPOSIX: syntax.LangPOSIX}[l]), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
				if (err == nil) != (ferr == nil && !strings.Contains(src, "#\\")) {
					t.Fatalf("%s %q: error %v, a fresh parser's %v", l, src, err, ferr)
				}
				if err != nil {
					continue
				}
				if got := printed(f); got != printed(fresh) {
					t.Fatalf("%s %q: reused parser gave %q, a fresh one %q", l, src, got, printed(fresh))
				}
				kept, want = append(kept, f), append(want, printed(f))
			}
		}
		for i, f := range kept {
			if got := printed(f); got != want[i] {
				t.Errorf("%s: file %d changed after later parses: %q, was %q", l, i, got, want[i])
			}
		}
	}
}

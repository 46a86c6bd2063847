package skills

import (
	"strings"
	"testing"
)

// TestParseFrontmatterProblems: each way a frontmatter breaks the
// specification is one problem on the SKILL.md line it concerns.
func TestParseFrontmatterProblems(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		text string
		line int
		msg  string // a part of the only problem, "" for none
	}{
		"valid":               {"---\nname: a-1\ndescription: d\nlicense: MIT\ncompatibility: ''\nmetadata:\n  k: v\nallowed-tools: [Read, Bash(git *)]\n---\nbody\n", 0, ""},
		"crlf and BOM":        {"\ufeff---\r\nname: a\r\ndescription: d\r\n---\r\n", 0, ""},
		"unknown field":       {"---\nname: a\ndescription: d\nmodel: x\n---\n", 4, `unknown field "model"`},
		"twice":               {"---\nname: a\ndescription: d\nname: a\n---\n", 4, `field "name" given twice`},
		"metadata not string": {"---\nname: a\ndescription: d\nmetadata:\n  version: 1.0\n---\n", 5, "metadata must map strings to strings"},
		"metadata a list":     {"---\nname: a\ndescription: d\nmetadata: [a]\n---\n", 4, "metadata must be a mapping"},
		"name a number":       {"---\nname: 123\ndescription: d\n---\n", 2, "name must be a string"},
		"description blank":   {"---\nname: a\ndescription: '  '\n---\n", 3, "description is empty"},
		"leading hyphen":      {"---\nname: -a\ndescription: d\n---\n", 2, `name "-a"`},
		"double hyphen":       {"---\nname: a--b\ndescription: d\n---\n", 2, `name "a--b"`},
		"65 characters":       {"---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n", 2, "want 1–64 characters"},
		"compatibility long":  {"---\nname: a\ndescription: d\ncompatibility: " + strings.Repeat("c", 501) + "\n---\n", 4, "compatibility has 501 characters"},
		"tools a map":         {"---\nname: a\ndescription: d\nallowed-tools: {a: b}\n---\n", 4, "allowed-tools must be a string or a list"},
		"no description":      {"---\nname: a\n---\n", 1, "missing required field description"},
		"not closed":          {"---\nname: a\ndescription: d\n", 1, "no frontmatter"},
		"yaml error":          {"---\nname: a\ndescription: d\nlicense: x: y\n---\n", 4, "invalid YAML: mapping values are not allowed"},
		"not a mapping":       {"---\n- a\n---\n", 2, "not a mapping"},
		"empty":               {"---\n---\n", 1, "empty frontmatter"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, probs := ParseFrontmatter([]byte(tc.text))
			if tc.msg == "" {
				if len(probs) != 0 {
					t.Fatalf("problems %v, want none", probs)
				}
				return
			}
			if len(probs) != 1 || probs[0].Line != tc.line || !strings.Contains(probs[0].Msg, tc.msg) {
				t.Errorf("problems %v, want one on line %d containing %q", probs, tc.line, tc.msg)
			}
		})
	}
}

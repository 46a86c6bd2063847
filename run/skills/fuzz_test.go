package skills

import (
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// specName is the specification's rule for a name, written out again
// without the parser's regular expression: 1–64 characters, each a
// lowercase ASCII letter, a digit or a hyphen, no hyphen first, last or
// next to another.
func specName(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > 64 || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// specValid is the specification's verdict on a frontmatter of these
// fields (compatibility and the extra key only when non-empty).
func specValid(name, desc, compat, extra string) bool {
	n := utf8.RuneCountInString
	return specName(name) && strings.TrimSpace(desc) != "" && n(desc) <= 1024 && n(compat) <= 500 && extra == ""
}

// FuzzFrontmatterSpec checks the property "valid per the spec ⇔
// accepted": a frontmatter written by a YAML encoder from fuzzed field
// values is accepted by ParseFrontmatter (no problems) exactly when the
// values follow the specification's rules, and an accepted one gives back
// the values it was written from.
func FuzzFrontmatterSpec(f *testing.F) {
	f.Add("release-notes", "Write release notes.", "", "", "author", "me", "Bash(*) Read")
	f.Add("Bad_Name", "x", "", "", "", "", "")
	f.Add("a--b", "x", "", "", "", "", "")
	f.Add("ok", " \t", "", "", "", "", "")
	f.Add("ok", "x", strings.Repeat("c", 501), "", "", "", "")
	f.Add("ok", "x", "", "model", "", "", "")
	f.Add(strings.Repeat("a", 65), "x", "", "", "", "", "")
	f.Add("ok", strings.Repeat("é", 1024), "", "", "k", "v", "")
	f.Fuzz(func(t *testing.T, name, desc, compat, extra, mk, mv, tools string) {
		for _, s := range []string{name, desc, compat, extra, mk, mv, tools} {
			if !utf8.ValidString(s) {
				return // YAML text is UTF-8; the encoder would write binary
			}
		}
		switch extra {
		case "name", "description", "compatibility", "metadata", "allowed-tools", "license":
			return // not an extra key
		}
		doc := &yaml.Node{Kind: yaml.MappingNode}
		add := func(k string, v *yaml.Node) {
			doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, v)
		}
		str := func(s string) *yaml.Node {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
		}
		add("name", str(name))
		add("description", str(desc))
		if compat != "" {
			add("compatibility", str(compat))
		}
		if extra != "" {
			add(extra, str("x"))
		}
		if mk != "" {
			add("metadata", &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str(mk), str(mv)}})
		}
		if tools != "" {
			add("allowed-tools", str(tools))
		}
		out, err := yaml.Marshal(doc)
		if err != nil {
			return
		}
		fm, probs := ParseFrontmatter([]byte("---\n" + string(out) + "---\nbody\n"))
		if want := specValid(name, desc, compat, extra); (len(probs) == 0) != want {
			t.Fatalf("accepted = %v, spec says valid = %v; problems %v\n%s", len(probs) == 0, want, probs, out)
		}
		if len(probs) == 0 && (fm.Name != name || fm.Description != desc || fm.Compatibility != compat || mk != "" && fm.Metadata[mk] != mv) {
			t.Fatalf("accepted but changed: %+v", fm)
		}
	})
}

// FuzzFrontmatterBytes feeds any bytes: ParseFrontmatter never panics, and
// what it accepts follows the specification (the "accepted ⇒ valid" half
// on input no encoder wrote).
func FuzzFrontmatterBytes(f *testing.F) {
	f.Add([]byte("---\nname: a\ndescription: b\n---\n"))
	f.Add([]byte("---\nname: [a\n---\n"))
	f.Add([]byte("---\n- a\n---\n"))
	f.Add([]byte("---\nname: a\nname: a\ndescription: b\n---\n"))
	f.Add([]byte("---\nname: a\ndescription: b\nmetadata: {x: 1}\n---\n"))
	f.Add([]byte("---\r\nname: a\r\ndescription: &x b\r\nlicense: *x\r\n---\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, probs := ParseFrontmatter(data)
		if len(probs) > 0 {
			for _, p := range probs {
				if p.Line < 0 || p.Msg == "" {
					t.Fatalf("bad problem %+v", p)
				}
			}
			return
		}
		if !specValid(fm.Name, fm.Description, fm.Compatibility, "") {
			t.Fatalf("accepted a frontmatter the spec rejects: %+v", fm)
		}
	})
}

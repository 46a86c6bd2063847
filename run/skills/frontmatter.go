package skills

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The specification's limits (agentskills.io specification; the reference
// validator skills-ref, validator.py).
const (
	MaxNameLen          = 64
	MaxDescriptionLen   = 1024
	MaxCompatibilityLen = 500
)

// Frontmatter is the parsed frontmatter of a SKILL.md.
type Frontmatter struct {
	Name          string
	Description   string
	License       string
	Compatibility string
	Metadata      map[string]string
	// AllowedTools is the experimental allowed-tools field, split on
	// spaces when it is a string. It is recorded and shown, never obeyed.
	AllowedTools []string
	// NameLine is the line of SKILL.md that gives the name; 0 when none.
	NameLine int
	// BodyLine is the line of SKILL.md where the Markdown body begins.
	BodyLine int
}

// Problem is one way a SKILL.md breaks the specification: Line is the
// line of SKILL.md it concerns, 0 when unknown.
type Problem struct {
	Line int
	Msg  string
}

// String is "line N: MSG", or MSG when the line is unknown.
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("line %d: %s", p.Line, p.Msg)
	}
	return p.Msg
}

// namePattern is a name's spelling: lowercase ASCII letters and digits in
// groups joined by single hyphens, none leading or trailing.
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })

// ValidName reports whether name is a valid skill name (its spelling and
// length; a name must also equal its folder's, which [Load] checks).
func ValidName(name string) bool {
	return utf8.RuneCountInString(name) <= MaxNameLen && namePattern().MatchString(name)
}

// yamlLine finds the line yaml.v3 names in its error messages.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })

// ParseFrontmatter parses and validates the frontmatter of a SKILL.md:
// the file must begin with a line "---", and the YAML up to the next
// "---" line must be a mapping of the specification's fields only, each of
// its type and within its limits. Every problem found is returned, each
// with the SKILL.md line it concerns; the skill is valid when there are
// none (and its name equals its folder's, which [Load] checks). It never
// panics on any input.
func ParseFrontmatter(data []byte) (Frontmatter, []Problem) {
	fm := Frontmatter{}
	yamlText, bodyLine, ok := splitFrontmatter(data)
	if !ok {
		return fm, []Problem{{Line: 1, Msg: `no frontmatter: SKILL.md must begin with a "---" line and close it with another`}}
	}
	fm.BodyLine = bodyLine
	var doc yaml.Node
	if err := yaml.Unmarshal(yamlText, &doc); err != nil {
		return fm, []Problem{yamlProblem(err)}
	}
	if len(doc.Content) == 0 {
		return fm, []Problem{{Line: 1, Msg: "empty frontmatter: name and description are required"}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fm, []Problem{{Line: root.Line + 1, Msg: "frontmatter is not a mapping of fields"}}
	}
	var probs []Problem
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		line := k.Line + 1 // the frontmatter begins on the file's second line
		if k.Kind != yaml.ScalarNode {
			probs = append(probs, Problem{line, "a field name must be a string"})
			continue
		}
		if seen[k.Value] {
			probs = append(probs, Problem{line, fmt.Sprintf("field %q given twice", k.Value)})
			continue
		}
		seen[k.Value] = true
		probs = append(probs, fm.field(k.Value, v, line)...)
	}
	for _, req := range []string{"name", "description"} {
		if !seen[req] {
			probs = append(probs, Problem{1, "missing required field " + req})
		}
	}
	return fm, probs
}

// field sets one field of fm from v and returns its problems.
func (fm *Frontmatter) field(key string, v *yaml.Node, line int) []Problem {
	switch key {
	case "name":
		s, p := str(key, v, line)
		fm.Name, fm.NameLine = s, line
		if p == nil && !ValidName(s) {
			p = &Problem{line, fmt.Sprintf("name %q: want 1–%d characters of lowercase letters, digits and single hyphens, not at either end", s, MaxNameLen)}
		}
		return list(p)
	case "description":
		s, p := str(key, v, line)
		fm.Description = s
		if p == nil {
			p = bounded(key, s, MaxDescriptionLen, line)
		}
		return list(p)
	case "license":
		s, p := str(key, v, line)
		fm.License = s
		return list(p)
	case "compatibility":
		s, p := str(key, v, line)
		fm.Compatibility = s
		if n := utf8.RuneCountInString(s); p == nil && n > MaxCompatibilityLen {
			p = &Problem{line, fmt.Sprintf("%s has %d characters, more than %d", key, n, MaxCompatibilityLen)}
		}
		return list(p)
	case "metadata":
		return fm.metadata(v, line)
	case "allowed-tools":
		return fm.allowedTools(v, line)
	}
	return []Problem{{line, fmt.Sprintf("unknown field %q: the specification allows name, description, license, compatibility, metadata and allowed-tools", key)}}
}

func list(p *Problem) []Problem {
	if p == nil {
		return nil
	}
	return []Problem{*p}
}

// str returns the string value of a field, or a problem when it is not a
// YAML string.
func str(key string, v *yaml.Node, line int) (string, *Problem) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return "", &Problem{line, fmt.Sprintf("%s must be a string (quote it)", key)}
	}
	return v.Value, nil
}

// bounded checks a required text: not blank, at most max characters.
func bounded(key, s string, max, line int) *Problem {
	n := utf8.RuneCountInString(s)
	switch {
	case strings.TrimSpace(s) == "":
		return &Problem{line, key + " is empty"}
	case n > max:
		return &Problem{line, fmt.Sprintf("%s has %d characters, more than %d", key, n, max)}
	}
	return nil
}

// metadata sets fm.Metadata from a mapping of strings to strings.
func (fm *Frontmatter) metadata(v *yaml.Node, line int) []Problem {
	if v.Kind != yaml.MappingNode {
		return []Problem{{line, "metadata must be a mapping of strings to strings"}}
	}
	fm.Metadata = map[string]string{}
	var probs []Problem
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		kl := k.Line + 1
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" || val.Kind != yaml.ScalarNode || val.Tag != "!!str" {
			probs = append(probs, Problem{kl, "metadata must map strings to strings (quote the value)"})
			continue
		}
		if _, dup := fm.Metadata[k.Value]; dup {
			probs = append(probs, Problem{kl, fmt.Sprintf("metadata key %q given twice", k.Value)})
			continue
		}
		fm.Metadata[k.Value] = val.Value
	}
	return probs
}

// allowedTools sets fm.AllowedTools from a space-separated string or a
// list of strings (the forms the reference validator accepts).
func (fm *Frontmatter) allowedTools(v *yaml.Node, line int) []Problem {
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!str":
		fm.AllowedTools = strings.Fields(v.Value)
		return nil
	case v.Kind == yaml.SequenceNode:
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode || it.Tag != "!!str" {
				fm.AllowedTools = nil
				return []Problem{{it.Line + 1, "allowed-tools must be a string or a list of strings"}}
			}
			fm.AllowedTools = append(fm.AllowedTools, it.Value)
		}
		return nil
	}
	return []Problem{{line, "allowed-tools must be a string or a list of strings"}}
}

// splitFrontmatter returns the YAML between the opening "---" line and the
// closing one, and the line after the closing one.
func splitFrontmatter(data []byte) (yamlText []byte, bodyLine int, ok bool) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first, rest, found := bytes.Cut(data, []byte("\n"))
	if !found || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, 0, false
	}
	line := 2
	start := rest
	off := 0
	for len(rest) > 0 {
		l, next, _ := bytes.Cut(rest, []byte("\n"))
		if string(bytes.TrimRight(l, " \t\r")) == "---" {
			return start[:off], line + 1, true
		}
		off += len(l) + 1
		rest = next
		line++
	}
	return nil, 0, false
}

// yamlProblem turns a YAML error into a problem on the SKILL.md line it
// names (the frontmatter's line N is the file's N+1).
func yamlProblem(err error) Problem {
	msg := err.Error()
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		if n, e := strconv.Atoi(m[1]); e == nil {
			return Problem{n + 1, "invalid YAML: " + strings.TrimPrefix(msg, m[0])}
		}
	}
	return Problem{1, "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

package structured

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// maxLocateDepth bounds the $ref hops and nesting the locator follows.
const maxLocateDepth = 32

// locator finds where an answer fails the schema. The validator stops at
// the first failure and names no place in the answer, so the locator
// walks the answer and the schema together: a property, an item, a
// local $ref or an allOf branch that fails is looked into in turn, and
// what fails at a level once its children are set aside is a problem
// there.
type locator struct {
	root any // the whole schema, decoded
}

// problems are the failures of inst against the sub-schema sub of the
// root, inst sitting at ptr in the answer.
func (l *locator) problems(inst, sub any, ptr string, depth int) []Problem {
	err := l.check(sub, inst)
	if err == nil {
		return nil
	}
	m, ok := sub.(map[string]any)
	if !ok || depth > maxLocateDepth {
		return []Problem{{Pointer: ptr, Message: message(err)}}
	}
	local := cloneMap(m)
	var ps []Problem
	if obj, ok := inst.(map[string]any); ok {
		if props, ok := m["properties"].(map[string]any); ok {
			set := make(map[string]any, len(props))
			for k, v := range props {
				set[k] = true
				if x, ok := obj[k]; ok {
					ps = append(ps, l.problems(x, v, ptr+"/"+escape(k), depth+1)...)
				}
			}
			local["properties"] = set
		}
	}
	if arr, ok := inst.([]any); ok {
		ps = append(ps, l.items(arr, m, local, ptr, depth)...)
	}
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
		if target, ok := lookup(l.root, ref[1:]); ok {
			ps = append(ps, l.problems(inst, target, ptr, depth+1)...)
			delete(local, "$ref")
		}
	}
	if all, ok := m["allOf"].([]any); ok {
		for _, s := range all {
			ps = append(ps, l.problems(inst, s, ptr, depth+1)...)
		}
		delete(local, "allOf")
	}
	if err := l.check(local, inst); err != nil {
		ps = append(ps, Problem{Pointer: ptr, Message: message(err)})
	}
	if len(ps) == 0 { // the parts pass, the whole does not (unevaluated*)
		ps = []Problem{{Pointer: ptr, Message: message(err)}}
	}
	return ps
}

// items are the failures of the items of arr against m's items and
// prefixItems (set aside in local).
func (l *locator) items(arr []any, m, local map[string]any, ptr string, depth int) []Problem {
	var ps []Problem
	first := 0
	if pre, ok := m["prefixItems"].([]any); ok {
		set := make([]any, len(pre))
		for i, s := range pre {
			set[i] = true
			if i < len(arr) {
				ps = append(ps, l.problems(arr[i], s, ptr+"/"+strconv.Itoa(i), depth+1)...)
			}
		}
		local["prefixItems"] = set
		first = len(pre)
	}
	if items, ok := m["items"]; ok {
		if _, list := items.([]any); !list {
			for i := first; i < len(arr); i++ {
				ps = append(ps, l.problems(arr[i], items, ptr+"/"+strconv.Itoa(i), depth+1)...)
			}
			local["items"] = true
		}
	}
	return ps
}

// check validates inst against the sub-schema sub of the root: sub sits
// in a document that holds the root under $defs, its local references
// moved there, so they resolve as they did.
func (l *locator) check(sub, inst any) error {
	const at = "#/$defs/rubichan-root"
	doc := map[string]any{
		"$defs": map[string]any{"rubichan-root": moveRefs(l.root, at)},
		"allOf": []any{moveRefs(sub, at)},
	}
	if m, ok := l.root.(map[string]any); ok && m["$schema"] != nil {
		doc["$schema"] = m["$schema"]
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{Loader: noLoader})
	if err != nil {
		return err
	}
	return r.Validate(inst)
}

// moveRefs is v with its local references ("#", "#/x") moved under at.
func moveRefs(v any, at string) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if s, ok := x.(string); ok && (k == "$ref" || k == "$dynamicRef") && strings.HasPrefix(s, "#") && (s == "#" || strings.HasPrefix(s, "#/")) {
				out[k] = at + s[1:]
				continue
			}
			if k == "$schema" || k == "$id" {
				continue
			}
			out[k] = moveRefs(x, at)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = moveRefs(x, at)
		}
		return out
	}
	return v
}

// lookup is the value at the RFC 6901 pointer ptr in v.
func lookup(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch t := v.(type) {
		case map[string]any:
			x, ok := t[tok]
			if !ok {
				return nil, false
			}
			v = x
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// message is the validator's error without the schema locations it is
// wrapped in ("validating /properties/a: ").
func message(err error) string {
	msg := err.Error()
	for strings.HasPrefix(msg, "validating ") {
		i := strings.Index(msg, ": ")
		if i < 0 {
			break
		}
		msg = msg[i+2:]
	}
	return msg
}

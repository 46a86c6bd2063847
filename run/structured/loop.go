package structured

import (
	"strconv"
	"strings"
)

// inPlace are the keywords that apply a schema to the same value.
var inPlace = []string{"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"}

// refLoop is the pointer of a local $ref that leads back to itself
// without stepping into the answer ({"anyOf":[{"$ref":"#"}]}), "" when
// there is none: the validator would recurse without end. (Inside, "/"
// stands for "a loop, its $ref not yet met".)
func refLoop(root any) string {
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var visit func(ptr string, v any) string
	visit = func(ptr string, v any) string {
		switch state[ptr] {
		case visiting:
			return "/"
		case done:
			return ""
		}
		state[ptr] = visiting
		defer func() { state[ptr] = done }()
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		if ref, ok := m["$ref"].(string); ok && (ref == "#" || strings.HasPrefix(ref, "#/")) {
			if target, ok := lookup(root, ref[1:]); ok {
				if p := visit(ref[1:], target); p != "" {
					return ptr + "/$ref"
				}
			}
		}
		for _, k := range inPlace {
			switch t := m[k].(type) {
			case []any:
				for i, x := range t {
					if p := visit(ptr+"/"+k+"/"+strconv.Itoa(i), x); p != "" {
						return p
					}
				}
			case map[string]any:
				if k == "dependentSchemas" {
					for name, x := range t {
						if p := visit(ptr+"/"+k+"/"+escape(name), x); p != "" {
							return p
						}
					}
					continue
				}
				if p := visit(ptr+"/"+k, t); p != "" {
					return p
				}
			}
		}
		return ""
	}
	var all func(ptr string, v any) string
	all = func(ptr string, v any) string {
		if p := visit(ptr, v); p != "" {
			return p
		}
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if p := all(ptr+"/"+escape(k), x); p != "" {
					return p
				}
			}
		case []any:
			for i, x := range t {
				if p := all(ptr+"/"+strconv.Itoa(i), x); p != "" {
					return p
				}
			}
		}
		return ""
	}
	return all("", root)
}

package structured

import (
	"fmt"
	"slices"
	"sort"
)

// Subset is a provider's strict mode: the part of JSON Schema its
// constrained decoding accepts.
type Subset uint8

// The strict subsets.
const (
	// OpenAIStrict is OpenAI's Structured Outputs with strict: true (Chat
	// Completions and Responses): the root an object, every object with
	// additionalProperties false and all its properties required, only
	// the supported keywords. Source:
	// https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
	OpenAIStrict Subset = iota + 1
	// AnthropicJSON is Anthropic's JSON outputs (output_config.format):
	// every object with additionalProperties false, no numeric or string
	// length constraints, no recursive schemas (here: no references at
	// all, to be sure). Source:
	// https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations
	AnthropicJSON
)

// common are the keywords both subsets accept.
var common = []string{
	"type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
	"description", "title", "$schema", "$comment", "format",
}

// subsetKeywords are the keywords each subset accepts.
var subsetKeywords = map[Subset][]string{
	OpenAIStrict: append(slices.Clone(common), "$ref", "$defs", "definitions", "pattern",
		"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems"),
	AnthropicJSON: slices.Clone(common),
}

// Fits says whether the schema lies inside sub; when it does not, why
// (the first keyword or object outside it, with its pointer).
func (s *Schema) Fits(sub Subset) (bool, string) {
	root, ok := s.doc.(map[string]any)
	if !ok || root["type"] != "object" {
		return false, "the root is not an object"
	}
	why := fits(sub, root, "")
	return why == "", why
}

// fits checks one schema object at pointer ptr; "" when it fits.
func fits(sub Subset, m map[string]any, ptr string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(subsetKeywords[sub], k) {
			return fmt.Sprintf("%s/%s: keyword outside the strict subset", ptr, k)
		}
	}
	if isObject(m) {
		if m["additionalProperties"] != false {
			return ptr + ": an object without additionalProperties false"
		}
		props, _ := m["properties"].(map[string]any)
		if sub == OpenAIStrict && !allRequired(props, m["required"]) {
			return ptr + ": an object whose properties are not all required"
		}
	}
	return fitsChildren(sub, m, ptr)
}

// fitsChildren checks the subschemas of m.
func fitsChildren(sub Subset, m map[string]any, ptr string) string {
	for _, k := range []string{"properties", "$defs", "definitions"} {
		group, _ := m[k].(map[string]any)
		names := make([]string, 0, len(group))
		for n := range group {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if why := fitsAny(sub, group[n], ptr+"/"+k+"/"+escape(n)); why != "" {
				return why
			}
		}
	}
	if why := fitsAny(sub, m["items"], ptr+"/items"); m["items"] != nil && why != "" {
		return why
	}
	if list, ok := m["anyOf"].([]any); ok {
		for i, x := range list {
			if why := fitsAny(sub, x, fmt.Sprintf("%s/anyOf/%d", ptr, i)); why != "" {
				return why
			}
		}
	}
	return ""
}

// fitsAny checks a subschema that may be a boolean: only objects fit.
func fitsAny(sub Subset, v any, ptr string) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ptr + ": a boolean schema"
	}
	return fits(sub, m, ptr)
}

// isObject says whether m describes objects.
func isObject(m map[string]any) bool {
	switch t := m["type"].(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	_, ok := m["properties"]
	return ok
}

// allRequired says whether every property is in required.
func allRequired(props map[string]any, required any) bool {
	list, _ := required.([]any)
	for n := range props {
		if !slices.Contains(list, any(n)) {
			return false
		}
	}
	return true
}

// escape is a name as an RFC 6901 pointer token.
func escape(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch r {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, r)
		}
	}
	return string(out)
}

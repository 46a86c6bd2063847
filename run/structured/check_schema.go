package structured

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// metaSchemas are the $schema values a schema may name: the drafts the
// validator implements.
var metaSchemas = []string{
	"https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema#",
}

// Keywords whose values are schemas: one, a list, or an object of them.
var (
	oneSchema  = []string{"not", "if", "then", "else", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "contains", "propertyNames", "additionalItems", "contentSchema"}
	listSchema = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	mapSchema  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

// checkSchema checks the schema v at pointer ptr keyword by keyword, so a
// bad one is named by its pointer: a keyword's value of the wrong kind
// ("type": 5), a pattern that is not a regular expression, a $schema
// other than a published meta-schema the validator knows.
func checkSchema(v any, ptr string) *Error {
	m, ok := v.(map[string]any)
	if !ok {
		if _, ok := v.(bool); ok {
			return nil
		}
		return &Error{Pointer: ptr, Msg: "a schema is an object or a boolean"}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		x := m[k]
		at := ptr + "/" + escape(k)
		var e *Error
		switch {
		case k == "items":
			if l, ok := x.([]any); ok {
				e = checkList(l, at)
			} else {
				e = checkSchema(x, at)
			}
		case slices.Contains(oneSchema, k):
			e = checkSchema(x, at)
		case slices.Contains(listSchema, k):
			l, ok := x.([]any)
			if !ok {
				return &Error{Pointer: at, Msg: k + " must be an array of schemas"}
			}
			e = checkList(l, at)
		case slices.Contains(mapSchema, k):
			e = checkMap(k, x, at)
		case k == "$schema":
			if s, _ := x.(string); !slices.Contains(metaSchemas, s) {
				return &Error{Pointer: at, Msg: (&refError{ref: jsonText(x)}).Error()}
			}
		default:
			e = checkKeyword(k, x, at)
		}
		if e != nil {
			return e
		}
	}
	return nil
}

// checkList checks a list of schemas at ptr.
func checkList(l []any, ptr string) *Error {
	for i, x := range l {
		if e := checkSchema(x, ptr+"/"+strconv.Itoa(i)); e != nil {
			return e
		}
	}
	return nil
}

// checkMap checks the object of schemas x of keyword k at ptr.
func checkMap(k string, x any, ptr string) *Error {
	mm, ok := x.(map[string]any)
	if !ok {
		return &Error{Pointer: ptr, Msg: k + " must be an object of schemas"}
	}
	for _, name := range slices.Sorted(maps.Keys(mm)) {
		sub := mm[name]
		at := ptr + "/" + escape(name)
		if k == "patternProperties" {
			if _, err := regexp.Compile(name); err != nil {
				return &Error{Pointer: at, Msg: "not a regular expression: " + err.Error()}
			}
		}
		if e := checkSchema(sub, at); e != nil {
			return e
		}
	}
	return nil
}

// checkKeyword checks the value of a keyword that is no schema.
func checkKeyword(k string, x any, ptr string) *Error {
	if k == "pattern" {
		p, ok := x.(string)
		if !ok {
			return &Error{Pointer: ptr, Msg: "pattern must be a string"}
		}
		if _, err := regexp.Compile(p); err != nil {
			return &Error{Pointer: ptr, Msg: "not a regular expression: " + err.Error()}
		}
		return nil
	}
	if e := checkValue(k, x, ptr); e != nil {
		return e
	}
	b, err := json.Marshal(map[string]any{k: x})
	if err != nil {
		return &Error{Pointer: ptr, Msg: err.Error()}
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return &Error{Pointer: ptr, Msg: "invalid " + k + ": " + err.Error()}
	}
	return nil
}

// typeNames are the values of "type".
var typeNames = []string{"null", "boolean", "object", "array", "number", "string", "integer"}

// counts are the keywords whose value is a non-negative integer.
var counts = []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"}

// checkValue holds the values of "type", the counts and "multipleOf" to
// what the meta-schema allows, which the validator takes on trust.
func checkValue(k string, x any, ptr string) *Error {
	switch {
	case k == "type":
		names, ok := x.([]any)
		if !ok {
			names = []any{x}
		}
		for _, n := range names {
			if s, _ := n.(string); !slices.Contains(typeNames, s) {
				return &Error{Pointer: ptr, Msg: "type must be one of " + strings.Join(typeNames, ", ") + " (or a list of them), not " + jsonText(n)}
			}
		}
	case slices.Contains(counts, k):
		if n, ok := x.(json.Number); !ok || !isCount(n) {
			return &Error{Pointer: ptr, Msg: k + " must be a non-negative integer, not " + jsonText(x)}
		}
	case k == "multipleOf":
		if n, ok := x.(json.Number); !ok || n.String() == "" || strings.HasPrefix(n.String(), "-") || isZero(n) {
			return &Error{Pointer: ptr, Msg: "multipleOf must be a number above 0, not " + jsonText(x)}
		}
	}
	return nil
}

// isCount reports whether n is a non-negative integer (2, 2.0).
func isCount(n json.Number) bool {
	f, err := n.Float64()
	return err == nil && f >= 0 && f == float64(int64(f))
}

// isZero reports whether n is 0.
func isZero(n json.Number) bool {
	f, err := n.Float64()
	return err != nil || f == 0
}

// findRef is the pointer of the first $ref (or $schema) under v whose
// value, its fragment aside, is ref; "" when none is.
func findRef(v any, ptr, ref string) string {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range []string{"$ref", "$dynamicRef", "$schema"} {
			if s, ok := t[k].(string); ok && (s == ref || strings.HasPrefix(s, ref+"#")) {
				return ptr + "/" + escape(k)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if p := findRef(t[k], ptr+"/"+escape(k), ref); p != "" {
				return p
			}
		}
	case []any:
		for i, x := range t {
			if p := findRef(x, ptr+"/"+strconv.Itoa(i), ref); p != "" {
				return p
			}
		}
	}
	return ""
}

// jsonText is x as JSON.
func jsonText(x any) string {
	b, _ := json.Marshal(x)
	return string(b)
}

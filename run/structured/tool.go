package structured

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rubichan/rubichan/toolkit"
)

// ToolName is the name of the synthetic final tool.
const ToolName = "respond"

// toolDescription tells the model what the final tool is for.
const toolDescription = "Give your final answer by calling this tool once you are done, with the answer as its input; " +
	"it must match the input schema exactly. The run ends with this call: make every other tool call before it."

// annotations are root keywords that accept anything: left out of the
// tool's schema, which accepts the same documents without them.
var annotations = []string{"$schema", "$comment", "title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly"}

// Wrapped reports whether the final tool wraps the answer as {"value": …}:
// the schema's root is not an object, and a tool's input is one.
func (s *Schema) Wrapped() bool {
	m, ok := s.doc.(map[string]any)
	return !ok || m["type"] != "object"
}

// Tool is the synthetic final tool: its input schema is the user's
// schema (annotations aside) when its root is an object, else
// {"value": SCHEMA} with the definitions hoisted to the root and the
// local references moved with the schema.
func (s *Schema) Tool() toolkit.Spec {
	var schema any
	if !s.Wrapped() {
		root := cloneMap(s.doc.(map[string]any))
		for _, k := range annotations {
			delete(root, k)
		}
		schema = root
	} else {
		schema = wrap(s.doc)
	}
	raw, _ := json.Marshal(schema) // it came from JSON
	return toolkit.Spec{Name: ToolName, Description: toolDescription, Schema: raw}
}

// wrap returns the object schema {"value": doc} for a non-object root.
func wrap(doc any) map[string]any {
	w := map[string]any{"type": "object", "required": []any{"value"}, "additionalProperties": false}
	inner := doc
	if m, ok := doc.(map[string]any); ok {
		m = cloneMap(m)
		for _, k := range annotations {
			delete(m, k)
		}
		delete(m, "$id")
		for _, k := range []string{"$defs", "definitions"} {
			if d, ok := m[k]; ok {
				w[k] = d
				delete(m, k)
			}
		}
		inner = rewriteRefs(m)
		for _, k := range []string{"$defs", "definitions"} {
			if d, ok := w[k]; ok {
				w[k] = rewriteRefs(d)
			}
		}
	}
	w["properties"] = map[string]any{"value": inner}
	return w
}

// rewriteRefs moves the local references of a schema that now sits at
// /properties/value: "#" and "#/x" point into it, but for the hoisted
// definitions, which stay where they were named.
func rewriteRefs(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if s, ok := x.(string); ok && (k == "$ref" || k == "$dynamicRef") {
				out[k] = moveRef(s)
				continue
			}
			out[k] = rewriteRefs(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = rewriteRefs(x)
		}
		return out
	}
	return v
}

// moveRef is the reference ref once its schema is at /properties/value.
func moveRef(ref string) string {
	switch {
	case ref == "#":
		return "#/properties/value"
	case strings.HasPrefix(ref, "#/$defs/"), strings.HasPrefix(ref, "#/definitions/"), ref == "#/$defs", ref == "#/definitions":
		return ref
	case strings.HasPrefix(ref, "#/"):
		return "#/properties/value" + ref[1:]
	}
	return ref
}

// cloneMap is a shallow copy of m.
func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Answer is the final answer in a call to the final tool: its input, or
// for a wrapped schema the input's "value".
func (s *Schema) Answer(input json.RawMessage) (json.RawMessage, error) {
	if !s.Wrapped() {
		return input, nil
	}
	var w map[string]json.RawMessage
	if err := json.Unmarshal(input, &w); err != nil {
		return nil, fmt.Errorf("structured: the %s input is not an object: %w", ToolName, err)
	}
	v, ok := w["value"]
	if !ok {
		return nil, fmt.Errorf("structured: the %s input has no \"value\"", ToolName)
	}
	return v, nil
}

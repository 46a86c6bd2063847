package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
)

// maxToolName is the longest tool name both model APIs accept (OpenAI's
// limit; Anthropic allows 128).
const maxToolName = 64

// ToolName returns the model's name for the tool of server:
// mcp__SERVER__TOOL with every character other than ASCII letters, digits,
// '_' and '-' replaced by '_', cut to 64 bytes. Two tools may end up with
// the same name; [Start] refuses the second.
func ToolName(server, tool string) string {
	n := "mcp__" + sanitize(server) + "__" + sanitize(tool)
	if len(n) > maxToolName {
		n = n[:maxToolName]
	}
	return n
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// combinators are top-level schema keywords that the model APIs reject in
// a tool's input schema; they are dropped, which only loosens the schema
// (the server still validates the arguments).
var combinators = []string{"oneOf", "anyOf", "allOf", "not", "enum", "const"}

// inputSchema returns a tool's input schema as the model APIs accept it: a
// JSON object schema of type "object". A schema without a type gets
// "object"; top-level combinators are dropped (note says so). A schema
// that is not an object schema is refused with the reason.
func inputSchema(schema any) (raw json.RawMessage, note string, err error) {
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, "", fmt.Errorf("its input schema does not encode: %v", err)
	}
	var m map[string]any
	if string(data) == "null" {
		m = map[string]any{}
	} else if err := json.Unmarshal(data, &m); err != nil {
		return nil, "", fmt.Errorf("its input schema is not a JSON object")
	}
	switch t := m["type"].(type) {
	case nil:
		m["type"] = "object"
	case string:
		if t != "object" {
			return nil, "", fmt.Errorf("its input schema has type %q; the model APIs want an object", t)
		}
	default:
		return nil, "", fmt.Errorf("its input schema's type is not \"object\"")
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	var dropped []string
	for _, k := range combinators {
		if _, ok := m[k]; ok {
			delete(m, k)
			dropped = append(dropped, k)
		}
	}
	if len(dropped) > 0 {
		note = "its input schema was simplified (dropped top-level " + strings.Join(dropped, ", ") + ")"
	}
	raw, err = json.Marshal(m)
	return raw, note, err
}

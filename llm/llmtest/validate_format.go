package llmtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
)

// checkFormat checks a request's structured-output field as the provider
// does: Anthropic's output_config.format, Chat Completions'
// response_format and the Responses API's text.format. Each must be of
// type json_schema with a schema (OpenAI's also a name of [a-zA-Z0-9_-]);
// Anthropic refuses an object schema without additionalProperties false,
// and OpenAI's strict mode also one whose properties are not all required.
func checkFormat(proto protocol, body []byte) string {
	var req struct {
		OutputConfig *struct {
			Format *formatField `json:"format"`
		} `json:"output_config"`
		ResponseFormat *struct {
			Type       string       `json:"type"`
			JSONSchema *formatField `json:"json_schema"`
		} `json:"response_format"`
		Text *struct {
			Format *formatField `json:"format"`
		} `json:"text"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "body: " + err.Error()
	}
	switch {
	case proto == anthropic && req.OutputConfig != nil && req.OutputConfig.Format != nil:
		f := req.OutputConfig.Format
		return f.check("output_config.format", true, false, true)
	case proto == openai && req.ResponseFormat != nil:
		if req.ResponseFormat.Type != "json_schema" || req.ResponseFormat.JSONSchema == nil {
			return "response_format: want type json_schema with json_schema"
		}
		f := req.ResponseFormat.JSONSchema
		return f.check("response_format.json_schema", false, true, f.Strict)
	case proto == responses && req.Text != nil && req.Text.Format != nil:
		f := req.Text.Format
		return f.check("text.format", true, true, f.Strict)
	}
	return ""
}

// formatField is a structured-output field of any of the three wires.
type formatField struct {
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

var formatName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// check applies the rules: typed says the field carries its own type,
// named that it needs a name, strict that the schema must be closed.
func (f *formatField) check(where string, typed, named, strict bool) string {
	if typed && f.Type != "json_schema" {
		return fmt.Sprintf("%s.type: want json_schema, got %q", where, f.Type)
	}
	if named && !formatName.MatchString(f.Name) {
		return fmt.Sprintf("%s.name: %q does not match ^[a-zA-Z0-9_-]+$", where, f.Name)
	}
	var schema any
	if err := json.Unmarshal(f.Schema, &schema); err != nil {
		return where + ".schema: missing or not JSON"
	}
	if !strict {
		return ""
	}
	if msg := closedObjects(schema, "", named); msg != "" {
		return where + ".schema: " + msg
	}
	return ""
}

// closedObjects returns the first object schema under v, at ptr, that is
// not closed (additionalProperties false) or, with allRequired, does not
// require all its properties.
func closedObjects(v any, ptr string, allRequired bool) string {
	switch t := v.(type) {
	case []any:
		for i, x := range t {
			if msg := closedObjects(x, fmt.Sprintf("%s/%d", ptr, i), allRequired); msg != "" {
				return msg
			}
		}
	case map[string]any:
		if t["type"] == "object" {
			if t["additionalProperties"] != false {
				return fmt.Sprintf("%s: for 'object' type, 'additionalProperties' must be explicitly set to false", orRoot(ptr))
			}
			props, _ := t["properties"].(map[string]any)
			req, _ := t["required"].([]any)
			for name := range props {
				if allRequired && !slices.Contains(req, any(name)) {
					return fmt.Sprintf("%s: 'required' must include every key in properties; missing %q", orRoot(ptr), name)
				}
			}
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if msg := closedObjects(t[k], ptr+"/"+k, allRequired); msg != "" {
				return msg
			}
		}
	}
	return ""
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "(root)"
	}
	return ptr
}

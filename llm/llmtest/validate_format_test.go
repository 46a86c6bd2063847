package llmtest

// formatValidationCases are the structured-output cases of
// TestRequestValidation: each wire's native field, well formed and as
// the provider refuses it.
func formatValidationCases() map[string]requestValidationCase {
	const (
		closed = `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`
		open   = `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`
		opt    = `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`
		user   = `{"role":"user","content":"hi"}`
	)
	ant := func(format string) string {
		return `{"model":"x","max_tokens":100,"stream":true,"output_config":{"format":` + format + `},"messages":[` + user + `]}`
	}
	chat := func(format string) string {
		return `{"model":"x","stream":true,"response_format":` + format + `,"messages":[` + user + `]}`
	}
	resp := func(format string) string {
		return `{"model":"x","stream":true,"store":false,"text":{"format":` + format + `},"input":[{"type":"message","role":"user","content":"hi"}]}`
	}
	return map[string]requestValidationCase{
		"anthropic format ok":            {"/v1/messages", ant(`{"type":"json_schema","schema":` + opt + `}`), ""},
		"anthropic format open object":   {"/v1/messages", ant(`{"type":"json_schema","schema":` + open + `}`), "output_config.format.schema: (root): for 'object' type, 'additionalProperties' must be explicitly set to false"},
		"anthropic format wrong type":    {"/v1/messages", ant(`{"type":"json","schema":` + closed + `}`), "output_config.format.type: want json_schema"},
		"anthropic format no schema":     {"/v1/messages", ant(`{"type":"json_schema"}`), "output_config.format.schema: missing"},
		"chat format strict ok":          {"/v1/chat/completions", chat(`{"type":"json_schema","json_schema":{"name":"answer","strict":true,"schema":` + closed + `}}`), ""},
		"chat format strict optional":    {"/v1/chat/completions", chat(`{"type":"json_schema","json_schema":{"name":"answer","strict":true,"schema":` + opt + `}}`), `'required' must include every key in properties; missing "a"`},
		"chat format loose open object":  {"/v1/chat/completions", chat(`{"type":"json_schema","json_schema":{"name":"answer","strict":false,"schema":` + open + `}}`), ""},
		"chat format bad name":           {"/v1/chat/completions", chat(`{"type":"json_schema","json_schema":{"name":"an swer","schema":` + closed + `}}`), "response_format.json_schema.name"},
		"chat format not json_schema":    {"/v1/chat/completions", chat(`{"type":"text"}`), "response_format: want type json_schema"},
		"responses format strict ok":     {"/v1/responses", resp(`{"type":"json_schema","name":"answer","strict":true,"schema":` + closed + `}`), ""},
		"responses format strict nested": {"/v1/responses", resp(`{"type":"json_schema","name":"answer","strict":true,"schema":{"type":"object","properties":{"o":` + open + `},"required":["o"],"additionalProperties":false}}`), "text.format.schema: /properties/o: for 'object' type"},
		"responses format no name":       {"/v1/responses", resp(`{"type":"json_schema","schema":` + closed + `}`), "text.format.name"},
	}
}

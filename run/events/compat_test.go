package events_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/events"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestPublishedSchema checks the published schema as a consumer compiles
// it: it accepts fields added within schema_version 1 (at the top of an
// event and inside its objects), ties every status to its exit codes,
// and wants the pending calls of a deferred result.
func TestPublishedSchema(t *testing.T) {
	t.Parallel()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(events.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("events.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("events.json")
	if err != nil {
		t.Fatal(err)
	}
	const head = `{"schema_version":1,"ts":"2026-11-23T20:30:00.123Z","session_id":"s","type":"result",`
	const tail = `"final_text":"","num_turns":0,"num_tool_calls":0,"denials":0,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0},"cost_usd":null,"duration_ms":0,"files_changed":[],"session_path":null,"verified":null,"patch":null}`
	const errObj = `"error":{"type":"internal","message":"x","retryable":false},`
	pending := `"pending":[{"id":"c","tool":"bash","fact":"f","rule":"r"}],`
	tests := map[string]struct {
		line  string
		valid bool
	}{
		"added top-level field": {`{"schema_version":1,"ts":"2026-11-23T20:30:00.123Z","session_id":"s","type":"turn_start","turn":1,"added_later":true}`, true},
		"added nested field":    {head + `"status":"success","exit_code":0,` + strings.Replace(tail, `"cache_write_tokens":0}`, `"cache_write_tokens":0,"reasoning_tokens":5}`, 1), true},
		"success 0":             {head + `"status":"success","exit_code":0,` + tail, true},
		"success 1":             {head + `"status":"success","exit_code":1,` + tail, false},
		"error 1":               {head + `"status":"error","exit_code":1,` + errObj + tail, true},
		"error 7":               {head + `"status":"error","exit_code":7,` + errObj + tail, true},
		"error 4":               {head + `"status":"error","exit_code":4,` + errObj + tail, false},
		"error 0":               {head + `"status":"error","exit_code":0,` + errObj + tail, false},
		"limit 4":               {head + `"status":"limit","exit_code":4,` + errObj + tail, true},
		"limit 1":               {head + `"status":"limit","exit_code":1,` + errObj + tail, false},
		"denied 3":              {head + `"status":"denied","exit_code":3,` + errObj + tail, true},
		"denied 4":              {head + `"status":"denied","exit_code":4,` + errObj + tail, false},
		"deferred with pending": {head + `"status":"deferred","exit_code":3,` + errObj + pending + tail, true},
		"deferred, no pending":  {head + `"status":"deferred","exit_code":3,` + errObj + tail, false},
		"deferred, empty":       {head + `"status":"deferred","exit_code":3,` + errObj + `"pending":[],` + tail, false},
		"deferred 1":            {head + `"status":"deferred","exit_code":1,` + errObj + pending + tail, false},
		"interrupted 130":       {head + `"status":"interrupted","exit_code":130,` + errObj + tail, true},
		"interrupted 143":       {head + `"status":"interrupted","exit_code":143,` + errObj + tail, true},
		"interrupted 1":         {head + `"status":"interrupted","exit_code":1,` + errObj + tail, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(tc.line)))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); (err == nil) != tc.valid {
				t.Errorf("valid = %v, want %v: %v", err == nil, tc.valid, err)
			}
		})
	}
}

package eventstest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/rubichan/rubichan/run/events"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaURL is where the compiler files the embedded schema; nothing is
// fetched from it.
const schemaURL = "https://github.com/rubichan/rubichan/docs/events.schema.json"

// Validator validates events against the schema [events.Schema] returns,
// with formats (date-time) asserted, and stricter than it: the published
// schema lets fields be added within a schema_version, while rubichan's
// own output must hold no field the schema does not name (every object
// schema is closed here). It is safe for concurrent use.
type Validator struct {
	sch  *jsonschema.Schema
	defs map[string]*jsonschema.Schema // by event type, for plain errors
}

// NewValidator compiles the embedded schema.
func NewValidator() (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(events.Schema()))
	if err != nil {
		return nil, fmt.Errorf("eventstest: parse schema: %w", err)
	}
	closeObjects(doc)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("eventstest: add schema: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("eventstest: compile schema: %w", err)
	}
	v := &Validator{sch: sch, defs: map[string]*jsonschema.Schema{}}
	for _, typ := range events.Types() {
		if v.defs[typ], err = c.Compile(schemaURL + "#/$defs/" + typ); err != nil {
			return nil, fmt.Errorf("eventstest: compile schema of %s: %w", typ, err)
		}
	}
	return v, nil
}

// Event is one decoded event.
type Event map[string]any

// Type returns the event's "type".
func (e Event) Type() string { s, _ := e["type"].(string); return s }

// Validate checks one event, given as its JSON text.
func (v *Validator) Validate(line []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return fmt.Errorf("not JSON: %v: %q", err, line)
	}
	if m, ok := inst.(map[string]any); ok {
		if def := v.defs[fmt.Sprint(m["type"])]; def != nil {
			if err := def.Validate(inst); err != nil {
				return fmt.Errorf("invalid event %s:\n%v", line, err)
			}
		}
	}
	if err := v.sch.Validate(inst); err != nil {
		return fmt.Errorf("invalid event %s:\n%v", line, err)
	}
	return nil
}

// Stream checks a whole stdout of --output stream-json and returns its
// events: every line is a valid event ending in a newline; there is
// exactly one result and it is the last line; init, when present, is the
// first; every event has the same session_id; ts never goes back.
func (v *Validator) Stream(out []byte) ([]Event, error) { return v.stream(out, false) }

// ChatStream checks the stdout of a line-mode chat with --output
// stream-json as [Validator.Stream] does, except that each run ends with
// its own result: results may come before the last line (which is still
// one).
func (v *Validator) ChatStream(out []byte) ([]Event, error) { return v.stream(out, true) }

func (v *Validator) stream(out []byte, chat bool) ([]Event, error) {
	if len(out) == 0 {
		return nil, fmt.Errorf("no output: want at least a result")
	}
	if out[len(out)-1] != '\n' {
		return nil, fmt.Errorf("the output does not end with a newline: %q", tail(out))
	}
	var evs []Event
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if err := v.Validate(sc.Bytes()); err != nil {
			return evs, fmt.Errorf("line %d: %w", len(evs)+1, err)
		}
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return evs, fmt.Errorf("line %d: %w", len(evs)+1, err)
		}
		evs = append(evs, ev)
	}
	if err := sc.Err(); err != nil {
		return evs, err
	}
	return evs, checkOrder(evs, chat)
}

func checkOrder(evs []Event, chat bool) error {
	for i, ev := range evs {
		switch {
		case ev.Type() == "result" && i != len(evs)-1 && !chat:
			return fmt.Errorf("line %d: a result before the last line", i+1)
		case ev.Type() == "init" && i != 0:
			return fmt.Errorf("line %d: init after the first line", i+1)
		case ev["session_id"] != evs[0]["session_id"]:
			return fmt.Errorf("line %d: session_id %v, the first line has %v", i+1, ev["session_id"], evs[0]["session_id"])
		case i > 0 && ev["ts"].(string) < evs[i-1]["ts"].(string):
			return fmt.Errorf("line %d: ts %v before the line above's %v", i+1, ev["ts"], evs[i-1]["ts"])
		}
	}
	if last := evs[len(evs)-1]; last.Type() != "result" {
		return fmt.Errorf("the last line is a %s, not a result", last.Type())
	}
	return nil
}

func tail(b []byte) []byte {
	if len(b) > 80 {
		return b[len(b)-80:]
	}
	return b
}

// closeObjects sets additionalProperties false on every object schema
// with properties under v, the schema's decoded document.
func closeObjects(v any) {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t["properties"]; ok && t["type"] == "object" {
			if _, set := t["additionalProperties"]; !set {
				t["additionalProperties"] = false
			}
		}
		for _, x := range t {
			closeObjects(x)
		}
	case []any:
		for _, x := range t {
			closeObjects(x)
		}
	}
}

package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestTools(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{"a.txt": "x\n"})
	var names []string
	for _, tool := range Tools(ws, Options{}) {
		spec := tool.Spec()
		names = append(names, spec.Name)
		if len(spec.Description) < 100 {
			t.Errorf("%s: description too short: %q", spec.Name, spec.Description)
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(spec.Schema, &schema); err != nil {
			t.Errorf("%s: schema is not JSON: %v", spec.Name, err)
			continue
		}
		if schema.Type != "object" {
			t.Errorf("%s: schema type %q", spec.Name, schema.Type)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", spec.Name, r)
			}
		}
		for name := range schema.Properties {
			if !strings.Contains(spec.Description, "`"+name+"`") {
				t.Errorf("%s: description does not explain %q", spec.Name, name)
			}
		}
	}
	if got := strings.Join(names, ","); got != "read,write,edit,bash,grep,glob,ls" {
		t.Errorf("tools %s", got)
	}
}

// TestToolsShareTracker checks that the registry wires one tracker through
// read, write and edit.
func TestToolsShareTracker(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{"f.txt": "one\n"})
	tools := Tools(ws, Options{})
	call(t, tools[0], obj{"path": "f.txt"})
	mkTree(t, ws.Root(), map[string]string{"f.txt": "changed by someone\n"})
	if res := call(t, tools[2], obj{"path": "f.txt", "old_string": "someone", "new_string": "me"}); !res.IsError {
		t.Errorf("edit through the registry missed the stale file: %q", res.Content)
	}
}

func TestToolsFilter(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{"ok.txt": "needle\n", "deny/x.txt": "needle\n"})
	var asked []string
	filter := func(p string) bool { asked = append(asked, p); return !strings.HasPrefix(p, "deny/") }
	res := call(t, toolNamed(t, Tools(ws, Options{ReadFilter: filter}), "grep"), obj{"pattern": "needle"})
	if res.Meta.Skipped != 1 || strings.Contains(res.Content, "deny/") {
		t.Errorf("grep with filter: %+v", res)
	}
	if strings.Join(asked, ",") != "deny/x.txt,ok.txt" {
		t.Errorf("filter asked about %v", asked)
	}
}

// toolNamed returns the tool called name from tools.
func toolNamed(t *testing.T, tools []Tool, name string) Tool {
	t.Helper()
	for _, tool := range tools {
		if tool.Spec().Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

type panicky struct{ Tool }

func (panicky) Spec() Spec { return Spec{Name: "boom"} }
func (panicky) Run(context.Context, json.RawMessage) (Result, error) {
	var m map[string]int
	//lint:ignore SA5000 the write to a nil map is the runtime panic under test
	m["x"] = 1
	return Result{}, nil
}

type failing struct{ panicky }

func (failing) Run(context.Context, json.RawMessage) (Result, error) {
	return Result{}, errors.New("infrastructure down")
}

func TestSafeRun(t *testing.T) {
	t.Parallel()
	res, err := SafeRun(context.Background(), panicky{}, nil)
	if err != nil {
		t.Fatalf("panic became a Go error: %v", err)
	}
	if !res.IsError || !strings.Contains(res.Content, "the boom tool failed internally (panic: assignment to entry in nil map)") {
		t.Errorf("result %+v", res)
	}
	if _, err := SafeRun(context.Background(), failing{}, nil); err == nil || err.Error() != "infrastructure down" {
		t.Errorf("Go error not passed through: %v", err)
	}
	ws := newWS(t, map[string]string{"a": "a\n"})
	if res, err := SafeRun(context.Background(), NewRead(ws, NewReadTracker()), json.RawMessage(`{"path":"a"}`)); err != nil || res.IsError {
		t.Errorf("normal call through SafeRun: %+v %v", res, err)
	}
}

func TestSafeEffects(t *testing.T) {
	t.Parallel()
	if _, err := SafeEffects(panicky{}, nil); err == nil || !strings.Contains(err.Error(), "the boom tool failed internally") {
		t.Errorf("SafeEffects on a panicking tool: %v", err)
	}
	ws := newWS(t, map[string]string{"a": "a"})
	eff, err := SafeEffects(NewRead(ws, NewReadTracker()), json.RawMessage(`{"path":"a"}`))
	if err != nil || eff.Kind != EffectRead || eff.Paths[0] != (PathRef{"a", "a"}) {
		t.Errorf("SafeEffects(read a) = %+v, %v", eff, err)
	}
}

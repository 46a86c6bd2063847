package events_test

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/events"
)

// TestReadmeNamesTheSchema keeps README's machine-output section from
// lagging the schema: it must name, in backquotes, every event type, every
// field (nested ones too), and every value an enum allows (the statuses,
// the decisions, the error types).
func TestReadmeNamesTheSchema(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	start := strings.Index(readme, "## Machine output")
	end := strings.Index(readme[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("README has no Machine output section")
	}
	section := readme[start : start+1+end]
	var schema struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(events.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	seen := map[string]bool{}
	var walk func(raw json.RawMessage)
	walk = func(raw json.RawMessage) {
		var n map[string]json.RawMessage
		if json.Unmarshal(raw, &n) != nil {
			var list []json.RawMessage
			if json.Unmarshal(raw, &list) == nil {
				for _, e := range list {
					walk(e)
				}
			}
			return
		}
		if ref, ok := n["$ref"]; ok {
			var r string
			json.Unmarshal(ref, &r)
			if def, ok := strings.CutPrefix(r, "#/$defs/"); ok && !seen[def] {
				seen[def] = true
				walk(schema.Defs[def])
			}
		}
		if props, ok := n["properties"]; ok {
			var p map[string]json.RawMessage
			json.Unmarshal(props, &p)
			for k, v := range p {
				names[k] = true
				walk(v)
			}
		}
		if enum, ok := n["enum"]; ok {
			var vals []any
			json.Unmarshal(enum, &vals)
			for _, v := range vals {
				if s, ok := v.(string); ok {
					names[s] = true
				}
			}
		}
		for _, k := range []string{"items", "oneOf", "anyOf", "allOf", "additionalProperties"} {
			if v, ok := n[k]; ok {
				walk(v)
			}
		}
	}
	for _, typ := range events.Types() {
		names[typ] = true
		seen[typ] = true
		def, ok := schema.Defs[typ]
		if !ok {
			t.Fatalf("schema has no definition of %s", typ)
		}
		walk(def)
	}
	var missing []string
	for n := range names {
		if !strings.Contains(section, "`"+n+"`") {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(names) < 50 {
		t.Fatalf("only %d names found in the schema: the walk is broken", len(names))
	}
	if len(missing) > 0 {
		t.Errorf("README's Machine output section does not name (in backquotes): %s", strings.Join(missing, ", "))
	}
}

package run

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/exit"
)

// TestDocACPZedSnippet: docs/acp.md's Zed settings are the shape of Zed's
// documented custom agent (agent_servers.NAME with type "custom",
// command, args, env), start `rubichan acp`, and the flags its text puts
// in args are ones `rubichan acp` accepts.
func TestDocACPZedSnippet(t *testing.T) {
	doc := readDoc(t, "docs/acp.md")
	blocks := fences(doc, "json")
	if len(blocks) == 0 {
		t.Fatal("docs/acp.md: no json block")
	}
	var settings struct {
		AgentServers map[string]map[string]json.RawMessage `json:"agent_servers"`
	}
	dec := json.NewDecoder(strings.NewReader(blocks[0]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&settings); err != nil {
		t.Fatalf("docs/acp.md's Zed settings: %v", err)
	}
	entry, ok := settings.AgentServers["rubichan"]
	if !ok {
		t.Fatalf("no agent_servers.rubichan in %s", blocks[0])
	}
	var typ, command string
	var args []string
	var env map[string]string
	for key, dst := range map[string]any{"type": &typ, "command": &command, "args": &args, "env": &env} {
		if err := json.Unmarshal(entry[key], dst); err != nil {
			t.Errorf("agent_servers.rubichan.%s: %v", key, err)
		}
	}
	if len(entry) != 4 {
		t.Errorf("agent_servers.rubichan has keys %v, want type, command, args, env", keys(entry))
	}
	if typ != "custom" || command != "rubichan" || len(args) != 1 || args[0] != "acp" {
		t.Errorf("agent_servers.rubichan: type %q, command %q, args %q; want custom, rubichan, [acp]", typ, command, args)
	}
	m := regexp.MustCompile("for example `(\\[\"acp\".*?\\])`").FindStringSubmatch(strings.ReplaceAll(doc, "\n", " "))
	if m == nil {
		t.Fatal("docs/acp.md: no example of args")
	}
	if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
		t.Fatalf("docs/acp.md's args example %s: %v", m[1], err)
	}
	// The flags parse: the process then waits for the editor, here an
	// empty stdin, and ends cleanly.
	var out, errOut bytes.Buffer
	code := runMain(context.Background(), append([]string{"rubichan"}, args...), strings.NewReader(""), &out, &errOut, fakeEnv(map[string]string{"ANTHROPIC_API_KEY": "k"}))
	if code != exit.OK {
		t.Errorf("rubichan %q: exit %d, stderr %q", args, code, errOut.String())
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

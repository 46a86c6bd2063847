package agent

import (
	"bytes"
	"encoding/json"

	"github.com/rubichan/rubichan/toolkit"
)

// HookInput returns the tool_input a hook gets for a call: the arguments
// as the tool decodes them, encoded again canonically — keys sorted, no
// escapes but those JSON requires, so `"\u0067en/x"` reads "gen/x" — and,
// for a file tool, its path replaced by the path the call acts on:
// workspace-relative with ./, .. and symlinks resolved (absolute in
// another root). A hook that matches on the text of its input then sees
// what the tool will do, whatever shape the model gave the path. An input
// that does not decode (never the case for a call that reached the hooks)
// is passed as it came.
func HookInput(input json.RawMessage, eff toolkit.Effects) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	var args map[string]any
	if dec.Decode(&args) != nil || args == nil {
		return input
	}
	if p, ok := args["path"].(string); ok && (eff.Kind == toolkit.EffectRead || eff.Kind == toolkit.EffectWrite) && len(eff.Paths) == 1 {
		if r := eff.Paths[0].Resolved; r != "" {
			p = r
		} else if r := eff.Paths[0].Requested; r != "" {
			p = r
		}
		args["path"] = p
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(args) != nil {
		return input
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

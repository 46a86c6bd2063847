package run

import (
	"strings"
	"testing"
)

// TestParseHookOutput checks what a before_tool hook's stdout decides, in
// rubichan's short form and in Claude Code's hookSpecificOutput form.
func TestParseHookOutput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, stdout string
		deny         bool
		reason       string
		updated      string
		err          string
	}{
		{"empty", "", false, "", "", ""},
		{"plain text is a log line", "checked 3 files\n", false, "", "", ""},
		{"deny", `{"decision":"deny","reason":"no"}`, true, "no", "", ""},
		{"claude block", `{"decision":"block","reason":"nope"}`, true, "nope", "", ""},
		{"claude permissionDecision", `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"why"}}`, true, "why", "", ""},
		{"deny without reason", `{"decision":"deny"}`, true, "(the hook gave no reason)", "", ""},
		{"approve goes on", `{"decision":"approve"}`, false, "", "", ""},
		{"updated_input", `{"updated_input":{"command":"ls"}}`, false, "", `{"command":"ls"}`, ""},
		{"claude updatedInput", `{"hookSpecificOutput":{"updatedInput":{"path":"a"}}}`, false, "", `{"path":"a"}`, ""},
		{"null updated_input", `{"updated_input":null}`, false, "", "", ""},
		{"updated_input not an object", `{"updated_input":[1]}`, false, "", "", "not a JSON object"},
		{"broken JSON", `{"decision":`, false, "", "", "not a valid JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, err := parseHookOutput(c.stdout)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.denies() != c.deny || c.deny && out.reason() != c.reason || string(out.updated()) != c.updated {
				t.Errorf("deny %v reason %q updated %s, want %v %q %s", out.denies(), out.reason(), out.updated(), c.deny, c.reason, c.updated)
			}
		})
	}
}

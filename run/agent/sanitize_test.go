package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	in := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.TextBlock("x"),
		llm.ToolUseBlock("a", "read", json.RawMessage(`{"path":"a"}`)),
		llm.ToolUseBlock("b", "read", json.RawMessage(`{"path":`)),
		llm.ToolUseBlock("c", "read", json.RawMessage(`[1]`)),
	}}
	out := sanitize(in)
	got := []string{string(out.Content[1].Input), string(out.Content[2].Input), string(out.Content[3].Input)}
	if strings.Join(got, " ") != `{"path":"a"} {} {}` {
		t.Errorf("sanitized inputs %q", got)
	}
	if string(in.Content[2].Input) != `{"path":` {
		t.Errorf("sanitize changed its argument")
	}
}

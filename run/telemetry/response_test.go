package telemetry_test

import (
	"context"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/telemetry/otlptest"
)

// TestChatResponseIdentity: the chat span names the response the
// provider made (gen_ai.response.id) and the model that made it
// (gen_ai.response.model), which may differ from the model asked (an
// alias resolved to a dated model); a stream that did not name its model
// leaves the one asked.
func TestChatResponseIdentity(t *testing.T) {
	for name, tc := range map[string]struct {
		resp              *agent.ResponseInfo
		wantID, wantModel string
	}{
		"named":         {&agent.ResponseInfo{ID: "msg_01abc", Model: "claude-haiku-4-5-20251001"}, "msg_01abc", "claude-haiku-4-5-20251001"},
		"model unnamed": {&agent.ResponseInfo{ID: "chatcmpl-1"}, "chatcmpl-1", "claude-haiku-4-5"},
		"no response":   {nil, "", "claude-haiku-4-5"},
	} {
		t.Run(name, func(t *testing.T) {
			rec := otlptest.New()
			defer rec.Close()
			tel := start(t, rec, map[string]string{}, nil)
			err := tel.Around(context.Background(), agent.Op{Kind: agent.OpRequest, Turn: 1, Model: "claude-haiku-4-5"}, func(context.Context) error {
				tel.Observe(agent.Event{Kind: agent.EventMessageDone, Turn: 1, Usage: &llm.Usage{InputTokens: 1}, Stop: llm.StopEndTurn, Response: tc.resp})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if w := tel.Close(); w != "" {
				t.Fatal(w)
			}
			for _, s := range rec.Spans() {
				if s.Name != "chat claude-haiku-4-5" {
					continue
				}
				if s.Attrs["gen_ai.response.id"] != tc.wantID || s.Attrs["gen_ai.response.model"] != tc.wantModel {
					t.Errorf("response id %q model %q, want %q %q", s.Attrs["gen_ai.response.id"], s.Attrs["gen_ai.response.model"], tc.wantID, tc.wantModel)
				}
				return
			}
			t.Fatalf("no chat span in %s", rec.Tree())
		})
	}
}

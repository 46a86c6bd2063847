package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/toolkit"
)

type opKey struct{}

// recordingAround records each op with the events emitted while it ran,
// and hands its operation a context that names the op.
type recordingAround struct {
	log  []string
	open string // the op running now; "" between ops
}

func (a *recordingAround) Around(ctx context.Context, op agent.Op, do func(context.Context) error) error {
	name := fmt.Sprintf("op%d/turn%d", op.Kind, op.Turn)
	if op.Call != nil {
		name += "/" + op.Call.ID
	}
	a.log = append(a.log, "start "+name)
	a.open = name
	err := do(context.WithValue(ctx, opKey{}, name))
	a.open = ""
	a.log = append(a.log, fmt.Sprintf("end %s err=%v", name, err != nil))
	return err
}

// ctxTool reports the op its context names.
type ctxTool struct{ agenttest.FakeTool }

func (c *ctxTool) Run(ctx context.Context, _ json.RawMessage) (toolkit.Result, error) {
	name, _ := ctx.Value(opKey{}).(string)
	return toolkit.Result{Content: "ctx " + name}, nil
}

// TestAroundWrapsEachOperation: each model request and each tool call
// runs inside the caller's Around, their events are emitted while it
// runs, and the tool gets the context Around gave.
func TestAroundWrapsEachOperation(t *testing.T) {
	t.Parallel()
	rec := &recordingAround{}
	tool := &ctxTool{agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute}}
	r := agenttest.Run(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{agenttest.Call("c1", "bash", `{"command":"a"}`), agenttest.Call("c2", "bash", `{"command":"b"}`)}},
		{Text: []string{"done"}},
	}}, agent.Options{Around: rec, Emit: func(ev agent.Event) {
		if ev.Kind != agent.EventHistory && ev.Kind != agent.EventTextDelta {
			rec.log = append(rec.log, fmt.Sprintf("  %s in %q", ev.Kind, rec.open))
		}
	}}, tool)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	want := []string{
		"start op1/turn1", `  TurnStart in "op1/turn1"`, `  MessageDone in "op1/turn1"`, "end op1/turn1 err=false",
		"start op2/turn1/c1", `  ToolCall in "op2/turn1/c1"`, `  ToolAllowed in "op2/turn1/c1"`, `  ToolResult in "op2/turn1/c1"`, "end op2/turn1/c1 err=false",
		"start op2/turn1/c2", `  ToolCall in "op2/turn1/c2"`, `  ToolAllowed in "op2/turn1/c2"`, `  ToolResult in "op2/turn1/c2"`, "end op2/turn1/c2 err=false",
		"start op1/turn2", `  TurnStart in "op1/turn2"`, `  MessageDone in "op1/turn2"`, "end op1/turn2 err=false",
	}
	got := slices.DeleteFunc(slices.Clone(rec.log), func(s string) bool { return s == `  TurnDone in ""` })
	if !slices.Equal(got, want) {
		t.Errorf("ops and events:\n%s\nwant:\n%s", fmt.Sprint(got), fmt.Sprint(want))
	}
	res := r.Kinds(agent.EventToolResult)
	if len(res) != 2 || res[0].Result.Content != "ctx op2/turn1/c1" || res[1].Result.Content != "ctx op2/turn1/c2" {
		t.Errorf("the tools did not run in Around's context: %+v", res)
	}
}

// TestAroundSeesTheFailure: a request that fails reaches Around as its
// error (a span records it).
func TestAroundSeesTheFailure(t *testing.T) {
	t.Parallel()
	rec := &recordingAround{}
	r := agenttest.Run(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{{Fault: &llmtest.Fault{Status: 400, Type: "invalid_request_error", Message: "bad"}}}},
		agent.Options{Around: rec})
	if r.Err == nil {
		t.Fatal("the run succeeded")
	}
	if !slices.Contains(rec.log, "end op1/turn1 err=true") {
		t.Errorf("Around did not see the failure: %v", rec.log)
	}
}

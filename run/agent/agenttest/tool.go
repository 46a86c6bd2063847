package agenttest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/toolkit"
)

// FakeTool is a tool whose effects and results the test chooses. Its
// effects come from the "command" and "path" arguments; the path "bad"
// is outside the workspace.
type FakeTool struct {
	Name string
	Kind toolkit.EffectKind
	// Result, when set, answers each run; nil: "ran NAME ARGS".
	Result func(args json.RawMessage) (toolkit.Result, error)

	mu   sync.Mutex
	runs []string
}

// Spec is the tool's spec: NAME, "a fake NAME", any object.
func (f *FakeTool) Spec() toolkit.Spec {
	return toolkit.Spec{Name: f.Name, Description: "a fake " + f.Name, Schema: json.RawMessage(`{"type":"object"}`)}
}

// Effects decodes the command and path arguments.
func (f *FakeTool) Effects(args json.RawMessage) (toolkit.Effects, error) {
	var a struct {
		Command string `json:"command"`
		Path    string `json:"path"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return toolkit.Effects{}, err
	}
	if a.Path == "bad" {
		return toolkit.Effects{}, errors.New("path bad is outside the workspace")
	}
	return toolkit.Effects{Kind: f.Kind, Command: a.Command, Paths: []toolkit.PathRef{{Requested: a.Path, Resolved: a.Path}}}, nil
}

// Run records the arguments and answers with Result.
func (f *FakeTool) Run(ctx context.Context, args json.RawMessage) (toolkit.Result, error) {
	f.mu.Lock()
	f.runs = append(f.runs, string(args))
	f.mu.Unlock()
	if f.Result != nil {
		return f.Result(args)
	}
	return toolkit.Result{Content: "ran " + f.Name + " " + string(args)}, nil
}

// RanWith lists the arguments of the runs so far, in order.
func (f *FakeTool) RanWith() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.runs...)
}

// FakeClock makes retries instant.
type FakeClock struct{}

// Now is the Unix epoch.
func (FakeClock) Now() time.Time { return time.Unix(0, 0) }

// Sleep returns at once: the context's error, if any.
func (FakeClock) Sleep(ctx context.Context, d time.Duration) error {
	return ctx.Err()
}

// JudgeBy is a judge that allows everything but the commands it is told
// to deny or to ask about.
func JudgeBy(deny, ask map[string]bool) agent.Judge {
	return func(tool string, eff toolkit.Effects) agent.Verdict {
		switch {
		case deny[eff.Command]:
			return agent.Verdict{Kind: agent.VerdictDeny, Rule: "no-net", Fact: eff.Command, Reason: "no network", Message: "Policy denied this call: " + eff.Command}
		case ask[eff.Command]:
			return agent.Verdict{Kind: agent.VerdictAsk, Rule: "defaults.decision", Fact: eff.Command, Message: "Policy refused this call: " + eff.Command}
		}
		return agent.Verdict{Kind: agent.VerdictAllow, Rule: "all"}
	}
}

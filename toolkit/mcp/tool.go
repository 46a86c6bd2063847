package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rubichan/rubichan/toolkit"
)

// tool is one MCP server's tool as a [toolkit.Tool].
type tool struct {
	srv    *server
	name   string // the server's name for it
	policy string // SERVER/TOOL
	spec   toolkit.Spec
	// readOnly is the server's claim that the tool only reads.
	readOnly bool
}

func (t *tool) Spec() toolkit.Spec { return t.spec }

// Effects reports an mcp call named SERVER/TOOL. Arguments must be a JSON
// object (or empty).
func (t *tool) Effects(args json.RawMessage) (toolkit.Effects, error) {
	if _, err := decodeArgs(args); err != nil {
		return toolkit.Effects{}, err
	}
	return toolkit.Effects{Kind: toolkit.EffectMCP, Tool: t.policy, Summary: t.policy, ReadOnlyHint: t.readOnly}, nil
}

// decodeArgs checks that args is a JSON object and returns it; empty
// arguments are "{}".
func decodeArgs(args json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage("{}"), nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return nil, fmt.Errorf("arguments must be a JSON object: %v", err)
	}
	return trimmed, nil
}

// Run calls the tool with the arguments as given. Every problem the model
// or the server caused is an error result: a server error, isError, the
// call timeout (the request is cancelled), a server that stopped.
func (t *tool) Run(ctx context.Context, args json.RawMessage) (toolkit.Result, error) {
	a, err := decodeArgs(args)
	if err != nil {
		return errResult(err.Error()), nil
	}
	sess, why := t.srv.session(ctx)
	if sess == nil {
		return errResult(why + "; its tools cannot be called in this run"), nil
	}
	timeout := t.srv.cfg.callTimeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := sess.CallTool(cctx, &sdk.CallToolParams{Name: t.name, Arguments: a})
	if err != nil {
		return t.callError(ctx, cctx, err, timeout), nil
	}
	text, truncated := toolkit.CapOutput(resultText(res), 0)
	return toolkit.Result{Content: text, IsError: res.IsError, Meta: toolkit.Meta{Truncated: truncated}}, nil
}

// callError turns a failed call into the result the model sees.
func (t *tool) callError(ctx, cctx context.Context, err error, timeout time.Duration) toolkit.Result {
	switch {
	case ctx.Err() != nil:
		return errResult(fmt.Sprintf("the call of %s was interrupted: %v", t.policy, context.Cause(ctx)))
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return errResult(fmt.Sprintf("the MCP server %s did not answer the call of %s within %s (its call_timeout); the request was cancelled", t.srv.cfg.Name, t.name, timeout))
	}
	t.srv.mu.Lock()
	ended := t.srv.ended
	t.srv.mu.Unlock()
	// A connection error often comes before the session sees its end.
	select {
	case <-ended:
		t.srv.awaitExit(endWait)
		t.srv.mu.Lock()
		why := t.srv.deathLocked()
		t.srv.mu.Unlock()
		return errResult(why + " during the call of " + t.name)
	case <-time.After(endWait):
	}
	t.srv.mu.Lock()
	over := t.srv.over.take()
	t.srv.mu.Unlock()
	if over != "" {
		return errResult(fmt.Sprintf("the MCP server %s's answer to the call of %s was refused: %s", t.srv.cfg.Name, t.name, over))
	}
	return errResult(fmt.Sprintf("the MCP server %s refused the call of %s: %v", t.srv.cfg.Name, t.name, err))
}

// endWait bounds how long a failed call waits to learn whether the server
// ended.
const endWait = time.Second

func errResult(msg string) toolkit.Result { return toolkit.Result{Content: msg, IsError: true} }

package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
)

// errCancelled is the cause of a prompt session/cancel stopped.
var errCancelled = errors.New("acp: the client cancelled the prompt turn")

// session is one ACP session: its engine and the prompt turn running.
type session struct {
	srv *Server
	id  string
	cwd string
	eng Engine

	mu      sync.Mutex
	stop    context.CancelCauseFunc // the running prompt's; nil when none runs
	done    chan struct{}           // closed when the running prompt has ended
	closed  bool
	lastRun llm.StopReason // the last model response's stop reason
	used    int64          // the tokens of the last request: prompt and answer
	calls   map[string]*callState
}

// prompt runs one prompt turn: the engine once, its events as updates,
// then a usage_update, and the stop reason.
func (ss *session) prompt(ctx context.Context, blocks []contentBlock) (any, error) {
	text := promptText(blocks)
	if strings.TrimSpace(text) == "" {
		return nil, errorf(codeInvalidParams, "acp: session/prompt: the prompt has no text")
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	ss.mu.Lock()
	switch {
	case ss.closed:
		ss.mu.Unlock()
		return nil, errorf(codeNotFound, "acp: session %q is closed", ss.id)
	case ss.stop != nil:
		ss.mu.Unlock()
		return nil, errorf(codeInvalidRequest, "acp: session %q is already running a prompt", ss.id)
	}
	done := make(chan struct{})
	defer close(done) // after the last use of the engine
	ss.stop, ss.done, ss.lastRun, ss.calls = stop, done, "", map[string]*callState{}
	ss.mu.Unlock()
	err := ss.eng.Prompt(ctx, text)
	ss.mu.Lock()
	ss.stop = nil
	last := ss.lastRun
	ss.mu.Unlock()
	ss.sendUsage()
	if errors.Is(context.Cause(ctx), errCancelled) {
		return promptResponse{StopReason: stopCancelled}, nil
	}
	reason, err := stopReason(err, last)
	if err != nil {
		return nil, errorf(codeInternal, "%v", err)
	}
	return promptResponse{StopReason: reason}, nil
}

// stopReason maps a run's outcome to the prompt's stop reason; an error
// that is none of them is the request's error.
func stopReason(err error, last llm.StopReason) (string, error) {
	var lim *agent.LimitError
	var stop *agent.StopError
	switch {
	case errors.As(err, &lim):
		return stopMaxTurns, nil
	case errors.As(err, &stop):
		return stopEndTurn, nil
	case err != nil:
		return "", err
	case last == llm.StopMaxTokens:
		return stopMaxTokens, nil
	case last == llm.StopRefusal:
		return stopRefusal, nil
	}
	return stopEndTurn, nil
}

// promptText is the prompt's text: its text blocks, and each resource
// link as the path or URI it names.
func promptText(blocks []contentBlock) string {
	var b strings.Builder
	for _, c := range blocks {
		switch c.Type {
		case "text":
			b.WriteString(c.Text)
		case "resource_link":
			fmt.Fprintf(&b, " @%s ", strings.TrimPrefix(c.URI, "file://"))
		}
	}
	return b.String()
}

// cancel stops the running prompt turn, as Ctrl-C stops a line: every
// tool call still gets its result.
func (ss *session) cancel() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.stop != nil {
		ss.stop(errCancelled)
	}
}

// close stops the running prompt, waits for it to end (its calls get
// their results, written to the session) and closes the engine.
func (ss *session) close() {
	ss.mu.Lock()
	if ss.stop != nil {
		ss.stop(errCancelled)
	}
	running := ss.done // the last prompt's: closed once it has ended, its usage_update sent
	already := ss.closed
	ss.closed = true
	ss.mu.Unlock()
	if running != nil {
		<-running
	}
	if !already && ss.eng != nil {
		if err := ss.eng.Close(); err != nil {
			fmt.Fprintf(ss.srv.opt.Notes, "rubichan acp: session %s: %v\n", ss.id, err)
		}
	}
}

// update sends one session/update notification.
func (ss *session) update(u any) {
	if err := ss.srv.conn.notify("session/update", sessionNotification{SessionID: ss.id, Update: u}); err != nil {
		fmt.Fprintf(ss.srv.opt.Notes, "rubichan acp: %v\n", err)
	}
}

// sendUsage sends the usage_update that ends every prompt turn.
func (ss *session) sendUsage() {
	u := ss.eng.Usage()
	ss.mu.Lock()
	up := usageUpdate{SessionUpdate: "usage_update", Used: ss.used, Size: u.Window}
	ss.mu.Unlock()
	if u.CostKnown {
		up.Cost = &cost{Amount: u.CostUSD, Currency: "USD"}
	}
	ss.update(up)
}

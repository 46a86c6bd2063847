package run

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/skills"
)

// chat is a line-mode session: the stack a headless run opens, kept for
// every line, and what the chat adds — the line reader, the terminal the
// approvals are asked on, the session's run numbers. It is used from one
// goroutine.
type chat struct {
	cfg            execConfig
	env            environment
	st             *runStack
	stdout, stderr io.Writer
	person         bool // stdin and stderr are terminals

	in       *lineInput
	ask      *ttyAsker // nil: "ask" resolves as in a headless run
	intr     <-chan struct{}
	verifier *verifier

	runNo    int // the session's number of the next run
	runs     int // runs this process made
	lastErr  error
	lastLine string
	edits    []fileEdit   // what this chat's tools changed, for /diff
	skill    skills.Skill // chosen with /skill for the next line; zero: none
}

// fileEdit is one change a write or edit call made, as its diff.
type fileEdit struct {
	files []string
	diff  string
}

// observe keeps what the chat shows later: the changes of its tools.
func (c *chat) observe(ev Event) {
	if ev.Kind == EventToolResult && ev.Result != nil && len(ev.Result.Changed) > 0 && !ev.Result.IsError {
		c.edits = append(c.edits, fileEdit{files: ev.Result.Changed, diff: ev.Result.Diff})
	}
}

func newChat(cfg execConfig, env environment, st *runStack, in *lineInput, stdout, stderr io.Writer, person bool, ask *ttyAsker) *chat {
	c := &chat{cfg: cfg, env: env, st: st, stdout: stdout, stderr: stderr, person: person, in: in,
		ask: ask, verifier: st.verifier, runNo: 1}
	if st.plan.Loaded() != nil {
		c.runNo = len(st.plan.Loaded().Runs) + 1
	}
	st.sinks.observe = c.observe
	return c
}

// chatAsker opens, for a person at a terminal, the terminal a chat asks
// its approvals on, when the stack has the run's approver: the loop is
// built with it.
type chatAsker struct {
	stderr io.Writer
	colors bool
	person bool
	tty    *ttyAsker // nil until open found a terminal
}

// open is [stackInput.newAsker]: nil when nobody can be asked.
func (a *chatAsker) open(ap *approver) agent.Asker {
	if !a.person {
		return nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	a.tty = newTTYAsker(tty, a.stderr, ap, a.colors)
	return askSeam{a.tty}
}

// close ends the chat: the traffic's cassette, the terminal. It returns
// the cassette's error, already shown, for the exit code.
func (c *chat) close() error {
	defer c.ask.close()
	notice := func(s string) { c.st.sinks.emit(Event{Kind: EventNotice, Text: s}) }
	if err := c.st.tr.Finish(nil, notice); err != nil {
		c.note("rubichan: %v", err)
		return reportedError{Err: err}
	}
	return nil
}

// runLine takes one line to the end of its run, as exec takes its prompt:
// the run's own limits (turns, tool calls, timeout), the chat's caps,
// --verify, the closing summary and the run's result. Ctrl-C cancels the
// run alone; the calls it left get error results, so the conversation
// stays valid for the next line.
func (c *chat) runLine(ctx context.Context, text string) {
	c.lastLine = text
	text = c.withSkill(text)
	l, sinks := c.st.loop, c.st.sinks
	start := time.Now()
	if c.runs > 0 {
		c.st.sess.NextRun(c.header(start, text), c.runNo)
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	runCtx, cancelTimeout := withRunTimeout(runCtx, c.cfg.Timeout)
	defer cancelTimeout()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-c.intr:
			cancel(errRunInterrupted)
		case <-done:
		}
	}()
	history, open := l.Messages(), []llm.Block(nil)
	if c.runs == 0 {
		history, open = c.st.plan.Conversation(c.cfg.Resolved.Type)
	}
	runErr := l.Resume(runCtx, history, open, text)
	err := finishRun(runErr, l, sinks.text, start, sinks.emit, runEnd{Verifier: c.verifier, Structured: c.st.structured})
	c.endRun(err)
}

// endRun writes the run's result (with --output json or stream-json),
// reopens the session log for what follows, and keeps the run's error
// for the exit code: a run Ctrl-C stopped ends with 130.
func (c *chat) endRun(err error) {
	c.runs++
	c.runNo++
	code, err := chatOutcome(err)
	if js := c.st.sinks.js; js != nil {
		js.EndRun(err, code)
	}
	c.st.sess.Reopen()
	c.lastErr = err
}

// chatOutcome is err with its exit code, a signal (Ctrl-C, SIGTERM) as
// the status it ends the process with.
func chatOutcome(err error) (int, error) {
	code := exitCode(err)
	var sig SignalError
	if errors.As(err, &sig) {
		code = sig.ExitCode()
		err = reportedError{Err: exit.CodeError{Code: code, Err: sig}}
	}
	return code, err
}

// endChat writes, with --output json or stream-json, the result of a chat
// that made no run (its input ended at once, or held only commands), so
// that every stream ends with a result: no turns, the chat's exit code,
// and the usage and cost of what it spent outside runs (a /compact).
func (c *chat) endChat(err error) {
	js := c.st.sinks.js
	if js == nil || c.runs > 0 {
		return
	}
	code, err := chatOutcome(err)
	cost, known := c.st.budget.Cost()
	sum := &Summary{ExitCode: code, Usage: c.st.budget.Spent(), CostUSD: cost, CostKnown: known}
	js.FinishWith(sum, err, code)
}

// header is the session's "run" line of a run after the first.
func (c *chat) header(start time.Time, prompt string) sessionHeader {
	st := c.st
	return sessionHeader{Start: start, Workspace: st.ws.Root(), Provider: c.cfg.Provider, API: c.cfg.Resolved.Type,
		Model: st.loop.Model(), Policy: st.pol.Name(), PolicyFile: st.pol.File(), Prompt: prompt}
}

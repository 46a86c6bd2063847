package linemode

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/run/skills"
)

// chat is a line-mode session: the stack a headless run opens, kept for
// every line, and what the chat adds — the line reader, the terminal the
// approvals are asked on, the session's run numbers. It is used from one
// goroutine.
type chat struct {
	o      Options
	st     *harness.Run
	sinks  *sink.Fan
	stderr io.Writer

	in    *Input
	ask   *ttyAsker // nil: "ask" resolves as in a headless run
	intr  <-chan struct{}
	edits *editLog

	runNo    int // the session's number of the next run
	runs     int // runs this process made
	lastErr  error
	lastLine string
	skill    skills.Skill // chosen with /skill for the next line; zero: none
}

// fileEdit is one change a write or edit call made, as its diff.
type fileEdit struct {
	files []string
	diff  string
}

// editLog keeps what the chat shows later: the changes of its tools. The
// sinks call observe from the goroutines that emit; the chat reads the
// list between runs, when none emits.
type editLog struct {
	list []fileEdit
}

// observe is the sinks' [sink.Options.Observe].
func (e *editLog) observe(ev agent.Event) {
	if ev.Kind == agent.EventToolResult && ev.Result != nil && len(ev.Result.Changed) > 0 && !ev.Result.IsError {
		e.list = append(e.list, fileEdit{files: ev.Result.Changed, diff: ev.Result.Diff})
	}
}

func newChat(o Options, st *harness.Run, sinks *sink.Fan, in *Input, stderr io.Writer, ask *ttyAsker, edits *editLog) *chat {
	c := &chat{o: o, st: st, sinks: sinks, stderr: stderr, in: in, ask: ask, edits: edits, runNo: 1}
	if st.Plan.Loaded() != nil {
		c.runNo = len(st.Plan.Loaded().Runs) + 1
	}
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

// open is [Options.Open]'s newAsker: nil when nobody can be asked.
func (a *chatAsker) open(ap *harness.Approver) agent.Asker {
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
	notice := func(s string) { c.sinks.Emit(agent.Event{Kind: agent.EventNotice, Text: s}) }
	if err := c.st.Traffic.Finish(nil, notice); err != nil {
		c.note("rubichan: %v", err)
		return exit.Reported{Err: err}
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
	l := c.st.Agent
	start := time.Now()
	if c.runs > 0 {
		c.st.Session.NextRun(c.header(start, text), c.runNo)
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	runCtx, cancelTimeout := harness.WithRunTimeout(runCtx, c.o.Timeout)
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
		history, open = c.st.Plan.Conversation(c.o.API)
	}
	runErr := l.Resume(runCtx, history, open, text)
	err := harness.Finish(runErr, l, c.sinks.Text(), start, c.sinks.Emit, harness.RunEnd{Verifier: c.st.Verifier, Structured: c.st.Structured})
	c.endRun(err)
}

// endRun writes the run's result (with --output json or stream-json),
// reopens the session log for what follows, and keeps the run's error
// for the exit code: a run Ctrl-C stopped ends with 130.
func (c *chat) endRun(err error) {
	c.runs++
	c.runNo++
	code, err := chatOutcome(err)
	if js := c.sinks.JSON(); js != nil {
		js.EndRun(err, code)
	}
	c.st.Session.Reopen()
	c.lastErr = err
}

// chatOutcome is err with its exit code, a signal (Ctrl-C, SIGTERM) as
// the status it ends the process with.
func chatOutcome(err error) (int, error) {
	code := exit.Code(err)
	var sig exit.SignalError
	if errors.As(err, &sig) {
		code = sig.ExitCode()
		err = exit.Reported{Err: exit.CodeError{Code: code, Err: sig}}
	}
	return code, err
}

// endChat writes, with --output json or stream-json, the result of a chat
// that made no run (its input ended at once, or held only commands), so
// that every stream ends with a result: no turns, the chat's exit code,
// and the usage and cost of what it spent outside runs (a /compact).
func (c *chat) endChat(err error) {
	js := c.sinks.JSON()
	if js == nil || c.runs > 0 {
		return
	}
	code, err := chatOutcome(err)
	cost, known := c.st.Budget.Cost()
	sum := &agent.Summary{ExitCode: code, Usage: c.st.Budget.Spent(), CostUSD: cost, CostKnown: known}
	js.FinishWith(sum, err, code)
}

// header is the session's "run" line of a run after the first.
func (c *chat) header(start time.Time, prompt string) sink.SessionHeader {
	st := c.st
	return sink.SessionHeader{Start: start, Workspace: st.WorkDir(), Provider: c.o.Provider, API: c.o.API,
		Model: st.Agent.Model(), Policy: st.Policy.Name(), PolicyFile: st.Policy.File(), Prompt: prompt}
}

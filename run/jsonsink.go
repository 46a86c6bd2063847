package run

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/session"
)

// jsonSink renders a run as machine output on stdout (see package
// [events]): with stream (--output stream-json) every event as a JSON
// line as it happens; without (--output json) only the result object, at
// the end. In both modes nothing else reaches its writer, and the result
// is always the last line: [jsonSink.finish] writes it once, whatever
// ended the run, also when it ended before the loop began.
//
// Events before init (notes about the configuration, the spilled stdin)
// wait for it; a run that ends before init writes its result alone.
//
// It is safe for concurrent use: notices may come from another goroutine.
type jsonSink struct {
	mu        sync.Mutex
	out       io.Writer
	enc       *events.Encoder
	sessionID string
	stream    bool
	thinking  bool      // --include-thinking
	red       *redactor // secrets hidden; the deltas come redacted ([runSinks.redacted])
	start     time.Time
	now       func() time.Time
	// price is the cost of one request's usage; false when unknown.
	price func(llm.Usage) (float64, bool)
	// onError learns the first write error as a [stdoutError], so the run
	// can stop: nobody reads its output.
	onError func(error)

	inited, finished bool
	pending          []events.Event
	err              error

	lastText    string
	changed     []string
	sum         *Summary
	sessionPath string
	input       bytes.Buffer // scratch for compacting tool input
}

func newJSONSink(w io.Writer, stream bool, sessionID string, now func() time.Time) *jsonSink {
	if now == nil {
		now = time.Now
	}
	return &jsonSink{out: w, enc: events.NewEncoder(w, sessionID, now), sessionID: sessionID, stream: stream, start: now(), now: now}
}

// write encodes one event; after a failed write nothing more is written.
func (s *jsonSink) write(ev events.Event) {
	if s.err != nil {
		return
	}
	if err := s.enc.Encode(ev); err != nil {
		s.err = stdoutError{Err: err}
		if s.onError != nil {
			s.onError(s.err)
		}
	}
}

// emit writes ev in stream mode, holding it back until init.
func (s *jsonSink) emit(ev events.Event) {
	switch {
	case !s.stream:
	case !s.inited:
		s.pending = append(s.pending, ev)
	default:
		s.write(ev)
	}
}

// init writes the init event and what waited for it.
func (s *jsonSink) init(ev events.Init) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inited || s.finished {
		return
	}
	s.inited = true
	if !s.stream {
		return
	}
	s.write(ev)
	for _, p := range s.pending {
		s.write(p)
	}
	s.pending = nil
}

// setSession names the session log for the result.
func (s *jsonSink) setSession(path string) {
	s.mu.Lock()
	s.sessionPath = path
	s.mu.Unlock()
}

// setSessionID makes the events carry id, the session's: before init,
// when no event has been written yet.
func (s *jsonSink) setSessionID(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == s.sessionID || s.inited {
		return
	}
	s.sessionID = id
	s.enc = events.NewEncoder(s.out, id, s.now)
}

func (s *jsonSink) handle(ev Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return
	}
	switch ev.Kind {
	case EventTextDelta:
		if s.stream && s.inited {
			s.write(events.Text{Turn: ev.Turn, Delta: ev.Text})
		}
	case EventThinkingDelta:
		if s.thinking && s.stream && s.inited {
			s.write(events.Thinking{Turn: ev.Turn, Delta: ev.Text})
		}
	case EventNotice:
		s.emit(events.Notice{Message: s.red.Redact(ev.Text)})
	case EventTurnStart:
		s.emit(events.TurnStart{Turn: ev.Turn})
	case EventMessageDone:
		s.lastText = ev.Text
		s.emit(s.message(ev))
	case EventStreamCut:
		s.emit(events.StreamCut{Turn: ev.Turn})
	case EventRetry:
		s.emit(s.retry(ev.Retry))
	case EventToolCall:
		s.emit(events.ToolCall{ID: ev.Tool.ID, Name: ev.Tool.Name, Input: s.toolInput(ev.Tool.Input)})
	case EventToolAllowed:
		a := ev.Allow
		s.emit(events.PolicyDecision{ID: ev.Tool.ID, Decision: events.DecisionAllow, Rule: a.Rule, Fact: s.red.Redact(a.Fact), Reason: a.Reason})
	case EventToolDenied:
		s.emit(denialEvent(ev.Tool.ID, ev.Denial, s.red))
	case EventToolResult:
		s.emit(s.toolResult(ev))
	case EventHook:
		s.emit(hookEvent(ev.Hook, s.red))
	case EventCompaction:
		s.emit(compactionEvent(ev.Compaction))
	case EventSubquery:
		s.emit(subqueryEvent(ev.Subquery))
	case EventVerify:
		v := ev.Verify
		s.emit(events.Verify{Command: s.red.Redact(v.Command), Attempt: v.Attempt, MaxAttempts: v.Max, Passed: v.Passed,
			ExitCode: v.ExitCode, DurationMS: v.Duration.Milliseconds(), Output: s.red.Redact(v.Output)})
	case EventTurnDone:
		s.sum = ev.Summary
	}
}

func (s *jsonSink) message(ev Event) events.Message {
	m := events.Message{Turn: ev.Turn, Text: s.red.Redact(ev.Text), StopReason: string(ev.Stop)}
	if ev.Usage != nil {
		m.Usage = usageEvent(*ev.Usage)
		if s.price != nil {
			if c, ok := s.price(*ev.Usage); ok {
				m.CostUSD = &c
			}
		}
	}
	return m
}

func (s *jsonSink) retry(r *RetryInfo) events.Retry {
	e := events.RetryError{Type: events.ErrNetwork, Message: s.red.Redact(r.Reason)}
	if r.Err != nil {
		typ, _ := errorKind(r.Err)
		e.Type, e.Message = typ, s.red.Redact(r.Err.Error())
		if st := apiStatus(r.Err); st != 0 {
			e.Status = &st
		}
	}
	return events.Retry{Attempt: r.Attempt, WaitMS: r.Wait.Milliseconds(), Error: e}
}

// hookEvent is the hook event of one hook run, its message without secrets.
func hookEvent(h *HookInfo, red *redactor) events.Hook {
	e := events.Hook{Name: h.Name, Event: h.Event, ExitCode: h.ExitCode, DurationMS: h.Duration.Milliseconds(),
		Decision: h.Decision, Reason: red.Redact(h.Reason)}
	if h.Tool != "" {
		e.ID, e.Tool = ptr(h.ID), ptr(h.Tool)
	}
	return e
}

func denialEvent(id string, d *DenialInfo, red *redactor) events.PolicyDecision {
	ev := events.PolicyDecision{ID: id, Decision: events.DecisionDeny, Rule: d.Rule, Fact: red.Redact(d.Fact), Reason: d.Reason}
	if d.Ask || d.Pending {
		ev.Decision, ev.ResolvedAs = events.DecisionAsk, events.DecisionDeny
		if d.Abort {
			ev.ResolvedAs = events.ResolvedAbort
		}
		if d.Pending {
			ev.ResolvedAs = events.ResolvedDefer
		}
	}
	return ev
}

// toolInput is a call's arguments as one line of JSON: compacted when
// valid, else a JSON string of the bytes as sent.
func (s *jsonSink) toolInput(raw json.RawMessage) json.RawMessage {
	s.input.Reset()
	if json.Valid(raw) && json.Compact(&s.input, []byte(s.red.Redact(string(raw)))) == nil {
		return bytes.Clone(s.input.Bytes())
	}
	b, _ := json.Marshal(strings.ToValidUTF8(s.red.Redact(string(raw)), "\uFFFD"))
	return b
}

func (s *jsonSink) toolResult(ev Event) events.ToolResult {
	r := ev.Result
	content, cut := session.CapUTF8(s.red.Redact(r.Content), events.ContentMax)
	out := events.ToolResult{ID: ev.Tool.ID, IsError: r.IsError, ExitCode: r.ExitCode, DurationMS: r.Duration.Milliseconds(),
		Content: content, Truncated: cut, FilesChanged: append([]string{}, r.Changed...)}
	if r.Diff != "" { // write, edit
		diff, dcut := session.CapUTF8(s.red.Redact(r.Diff), events.DiffMax)
		out.Diff, out.Truncated = &diff, cut || dcut
	}
	for _, f := range r.Changed {
		if !slices.Contains(s.changed, f) {
			s.changed = append(s.changed, f)
		}
	}
	return out
}

// patchEvent is the result's patch; nil without --patch.
func patchEvent(pi *PatchInfo) *events.Patch {
	if pi == nil {
		return nil
	}
	p := &events.Patch{Path: pi.Path, SHA256: pi.SHA256, DirtyBase: pi.DirtyBase, Files: pi.Files, Partial: pi.Partial}
	if pi.BaseCommit != "" {
		p.BaseCommit = &pi.BaseCommit
	}
	return p
}

// finish writes the result of a run that ended with err and exit code
// code, once; later calls do nothing. It returns the first write error.
func (s *jsonSink) finish(err error, code int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return s.err
	}
	s.finished = true
	s.write(s.result(err, code))
	return s.err
}

// result is the result object of a run that ended with err and code.
func (s *jsonSink) result(err error, code int) events.Result {
	res := events.Result{ExitCode: code, FinalText: s.red.Redact(s.lastText), FilesChanged: append([]string{}, s.changed...)}
	slices.Sort(res.FilesChanged)
	res.Status, res.Error = outcome(err, code)
	if res.Error != nil {
		res.Error.Message = s.red.Redact(res.Error.Message)
	}
	res.DurationMS = s.now().Sub(s.start).Milliseconds()
	if sum := s.sum; sum != nil {
		res.NumTurns, res.NumToolCalls, res.Denials = sum.Turns, sum.ToolCalls, sum.Denials
		res.Usage = usageEvent(sum.Usage)
		if sum.CostKnown {
			res.CostUSD = &sum.CostUSD
		}
		res.Verified, res.Patch = sum.Verified, patchEvent(sum.Patch)
		if len(sum.Pending) > 0 && code == exitPolicy {
			res.Status = events.StatusDeferred
			for _, p := range sum.Pending {
				ep := events.Pending{ID: p.ID, Tool: p.Tool,
					Fact: s.red.Redact(p.Fact), Rule: s.red.Redact(p.Rule), Diff: s.red.Redact(p.Diff)}
				for _, f := range p.Facts {
					ep.Facts = append(ep.Facts, events.PendingFact{Fact: s.red.Redact(f.Fact), Rule: s.red.Redact(f.Rule)})
				}
				res.Pending = append(res.Pending, ep)
			}
		}
	}
	if s.sessionPath != "" {
		res.SessionPath = &s.sessionPath
	}
	return res
}

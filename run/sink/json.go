package sink

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/session"
)

// JSON renders a run as machine output on stdout (see package
// [events]): with stream (--output stream-json) every event as a JSON
// line as it happens; without (--output json) only the result object, at
// the end. In both modes nothing else reaches its writer, and the result
// is always the last line: [JSON.Finish] writes it once, whatever
// ended the run, also when it ended before the loop began.
//
// Events before init (notes about the configuration, the spilled stdin)
// wait for it; a run that ends before init writes its result alone.
//
// It is safe for concurrent use: notices may come from another goroutine.
type JSON struct {
	mu        sync.Mutex
	out       io.Writer
	enc       *events.Encoder
	sessionID string
	stream    bool
	thinking  bool            // --include-thinking
	red       *agent.Redactor // secrets hidden; the deltas come redacted ([Fan])
	start     time.Time
	now       func() time.Time
	// onError learns the first write error as an [exit.StdoutError], so the run
	// can stop: nobody reads its output.
	onError func(error)

	inited, finished bool
	pending          []events.Event
	err              error

	lastText    string
	changed     []string
	sum         *agent.Summary
	sessionPath string
	input       bytes.Buffer // scratch for compacting tool input
}

// NewJSON returns a JSON sink writing to w: every event as it happens
// with stream, the result alone without. sessionID is what the events
// carry; now is the clock (nil: time.Now).
func NewJSON(w io.Writer, stream bool, sessionID string, now func() time.Time) *JSON {
	if now == nil {
		now = time.Now
	}
	return &JSON{out: w, enc: events.NewEncoder(w, sessionID, now), sessionID: sessionID, stream: stream, start: now(), now: now}
}

// write encodes one event; after a failed write nothing more is written.
func (s *JSON) write(ev events.Event) {
	if s.err != nil {
		return
	}
	if err := s.enc.Encode(ev); err != nil {
		s.err = exit.StdoutError{Err: err}
		if s.onError != nil {
			s.onError(s.err)
		}
	}
}

// emit writes ev in stream mode, holding it back until init.
func (s *JSON) emit(ev events.Event) {
	switch {
	case !s.stream:
	case !s.inited:
		s.pending = append(s.pending, ev)
	default:
		s.write(ev)
	}
}

// Init writes the init event and what waited for it.
func (s *JSON) Init(ev events.Init) {
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

// SetSession names the session log for the result.
func (s *JSON) SetSession(path string) {
	s.mu.Lock()
	s.sessionPath = path
	s.mu.Unlock()
}

// SetSessionID makes the events carry id, the session's: before init,
// when no event has been written yet.
func (s *JSON) SetSessionID(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == s.sessionID || s.inited {
		return
	}
	s.sessionID = id
	s.enc = events.NewEncoder(s.out, id, s.now)
}

// Handle renders ev.
func (s *JSON) Handle(ev agent.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return
	}
	switch ev.Kind {
	case agent.EventTextDelta:
		if s.stream && s.inited {
			s.write(events.Text{Turn: ev.Turn, Delta: ev.Text})
		}
	case agent.EventThinkingDelta:
		if s.thinking && s.stream && s.inited {
			s.write(events.Thinking{Turn: ev.Turn, Delta: ev.Text})
		}
	case agent.EventNotice:
		s.emit(events.Notice{Message: s.red.Redact(ev.Text)})
	case agent.EventTurnStart:
		s.emit(events.TurnStart{Turn: ev.Turn})
	case agent.EventMessageDone:
		s.lastText = ev.Text
		s.emit(s.message(ev))
	case agent.EventStreamCut:
		s.emit(events.StreamCut{Turn: ev.Turn})
	case agent.EventRetry:
		s.emit(s.retry(ev.Retry))
	case agent.EventToolCall:
		s.emit(events.ToolCall{ID: ev.Tool.ID, Name: ev.Tool.Name, Input: s.toolInput(ev.Tool.Input)})
	case agent.EventToolAllowed:
		a := ev.Allow
		s.emit(events.PolicyDecision{ID: ev.Tool.ID, Decision: events.DecisionAllow, Rule: a.Rule, Fact: s.red.Redact(a.Fact), Reason: s.red.Redact(a.Reason)})
	case agent.EventToolDenied:
		s.emit(denialEvent(ev.Tool.ID, ev.Denial, s.red))
	case agent.EventToolResult:
		s.emit(s.toolResult(ev))
	case agent.EventHook:
		s.emit(hookEvent(ev.Hook, s.red))
	case agent.EventCompaction:
		s.emit(CompactionEvent(ev.Compaction))
	case agent.EventSubquery:
		s.emit(SubqueryEvent(ev.Subquery))
	case agent.EventVerify:
		v := ev.Verify
		s.emit(events.Verify{Command: s.red.Redact(v.Command), Attempt: v.Attempt, MaxAttempts: v.Max, Passed: v.Passed,
			ExitCode: v.ExitCode, DurationMS: v.Duration.Milliseconds(), Output: s.red.Redact(v.Output)})
	case agent.EventTurnDone:
		s.sum = ev.Summary
	}
}

func (s *JSON) message(ev agent.Event) events.Message {
	m := events.Message{Turn: ev.Turn, Text: s.red.Redact(ev.Text), StopReason: string(ev.Stop)}
	if ev.Usage != nil {
		m.Usage = UsageEvent(*ev.Usage)
		if ev.Cost != nil {
			c := *ev.Cost
			m.CostUSD = &c
		}
	}
	return m
}

func (s *JSON) retry(r *agent.RetryInfo) events.Retry {
	e := events.RetryError{Type: events.ErrNetwork, Message: s.red.Redact(r.Reason)}
	if r.Err != nil {
		typ, _ := exit.Kind(r.Err)
		e.Type, e.Message = typ, s.red.Redact(r.Err.Error())
		if st := exit.APIStatus(r.Err); st != 0 {
			e.Status = &st
		}
	}
	return events.Retry{Attempt: r.Attempt, WaitMS: r.Wait.Milliseconds(), Error: e}
}

// hookEvent is the hook event of one hook run, its message without secrets.
func hookEvent(h *agent.HookInfo, red *agent.Redactor) events.Hook {
	e := events.Hook{Name: h.Name, Event: h.Event, ExitCode: h.ExitCode, DurationMS: h.Duration.Milliseconds(),
		Decision: h.Decision, Reason: red.Redact(h.Reason)}
	if h.Tool != "" {
		e.ID, e.Tool = session.Ptr(h.ID), session.Ptr(h.Tool)
	}
	return e
}

func denialEvent(id string, d *agent.DenialInfo, red *agent.Redactor) events.PolicyDecision {
	ev := events.PolicyDecision{ID: id, Decision: events.DecisionDeny, Rule: d.Rule, Fact: red.Redact(d.Fact), Reason: red.Redact(d.Reason)}
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
// valid, else a JSON string of the bytes as sent. A secret the arguments
// spell with JSON escapes is redacted too ([agent.Redactor.RedactJSON]).
func (s *JSON) toolInput(raw json.RawMessage) json.RawMessage {
	s.input.Reset()
	if json.Valid(raw) && json.Compact(&s.input, s.red.RedactJSON(raw)) == nil {
		return bytes.Clone(s.input.Bytes())
	}
	b, _ := json.Marshal(strings.ToValidUTF8(s.red.Redact(string(raw)), "\uFFFD"))
	return b
}

func (s *JSON) toolResult(ev agent.Event) events.ToolResult {
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
func patchEvent(pi *agent.PatchInfo) *events.Patch {
	if pi == nil {
		return nil
	}
	p := &events.Patch{Path: pi.Path, SHA256: pi.SHA256, DirtyBase: pi.DirtyBase, Files: pi.Files, Partial: pi.Partial}
	if pi.BaseCommit != "" {
		p.BaseCommit = &pi.BaseCommit
	}
	return p
}

// Finish writes the result of a run that ended with err and exit code
// code, once; later calls do nothing. It returns the first write error.
func (s *JSON) Finish(err error, code int) error {
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
func (s *JSON) result(err error, code int) events.Result {
	res := events.Result{ExitCode: code, FinalText: s.red.Redact(s.lastText), FilesChanged: append([]string{}, s.changed...)}
	slices.Sort(res.FilesChanged)
	res.Status, res.Error = exit.Outcome(err, code)
	if res.Error != nil {
		res.Error.Message = s.red.Redact(res.Error.Message)
	}
	res.DurationMS = s.now().Sub(s.start).Milliseconds()
	if sum := s.sum; sum != nil {
		res.NumTurns, res.NumToolCalls, res.Denials = sum.Turns, sum.ToolCalls, sum.Denials
		res.Usage = UsageEvent(sum.Usage)
		if sum.CostKnown {
			res.CostUSD = &sum.CostUSD
		}
		res.Verified, res.Patch = sum.Verified, patchEvent(sum.Patch)
		res.StructuredOutput = sum.StructuredOutput
		res.TraceID = sum.TraceID
		if len(sum.Pending) > 0 && code == exit.Policy {
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

// FinishWith is [JSON.Finish] with sum as the tally, for a result
// no run's closing event gave one to.
func (s *JSON) FinishWith(sum *agent.Summary, err error, code int) {
	s.mu.Lock()
	if !s.finished {
		s.sum = sum
	}
	s.mu.Unlock()
	s.Finish(err, code)
}

// EndRun writes the result of one run of a chat and starts the next:
// init was written once, and each run ends with its own result.
func (s *JSON) EndRun(err error, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return
	}
	s.write(s.result(err, code))
	s.lastText, s.changed, s.sum, s.start = "", nil, nil, s.now()
}

// JSONRun is what a JSON sink learns once the run's arguments are parsed:
// it is made before (it must write a result for a usage error).
type JSONRun struct {
	Thinking bool            // --include-thinking: reasoning deltas too
	Redact   *agent.Redactor // secrets hidden; the deltas come redacted ([Fan])
	// OnError learns the first write error as an [exit.StdoutError], so
	// the run can stop.
	OnError func(error)
}

// Begin sets what the run's arguments say, before the first event.
func (s *JSON) Begin(r JSONRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.thinking, s.red, s.onError = r.Thinking, r.Redact, r.OnError
}

// SessionID is the id the events carry.
func (s *JSON) SessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionID
}

// Stream reports whether the sink writes stream-json (every event as it
// happens) rather than json (the result object alone).
func (s *JSON) Stream() bool { return s.stream }

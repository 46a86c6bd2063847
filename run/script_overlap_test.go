package run

import (
	"bufio"
	"encoding/json"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// span is when a call's tool ran, from its tool_result event: the event's
// time stamp is the end, minus duration_ms the start (both in whole
// milliseconds, so either end may be off by 1 ms).
type span struct{ start, end time.Time }

// toolSpans reads the tool_result events of stream-json on stdout, by
// call id.
func toolSpans(ts *testscript.TestScript) map[string]span {
	out := map[string]span{}
	sc := bufio.NewScanner(strings.NewReader(ts.ReadFile("stdout")))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type       string    `json:"type"`
			TS         time.Time `json:"ts"`
			ID         string    `json:"id"`
			DurationMS int64     `json:"duration_ms"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type != "tool_result" {
			continue
		}
		out[ev.ID] = span{start: ev.TS.Add(-time.Duration(ev.DurationMS) * time.Millisecond), end: ev.TS}
	}
	return out
}

// spansOf returns the spans of the calls named, failing on an unknown one.
func spansOf(ts *testscript.TestScript, ids []string) []span {
	all := toolSpans(ts)
	var out []span
	for _, id := range ids {
		s, ok := all[id]
		if !ok {
			ts.Fatalf("no tool_result event for call %s", id)
		}
		out = append(out, s)
	}
	return out
}

// cmdOverlap checks, from the stream-json events on stdout, that the
// calls named ran at once: some moment lies inside every one of their
// spans (the latest start before the earliest end, by more than the
// 2 ms the rounding can take). overlap ID ID...
func cmdOverlap(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: overlap ID ID...")
	}
	spans := spansOf(ts, args)
	latest, earliest := spans[0].start, spans[0].end
	for _, s := range spans[1:] {
		if s.start.After(latest) {
			latest = s.start
		}
		if s.end.Before(earliest) {
			earliest = s.end
		}
	}
	if earliest.Sub(latest) <= 2*time.Millisecond {
		ts.Fatalf("calls %v did not run at once: latest start %s, earliest end %s", args, latest.Format(time.StampMilli), earliest.Format(time.StampMilli))
	}
}

// cmdRanBefore checks that call A had ended when call B started (within
// the 2 ms the rounding can take). ranbefore A B
func cmdRanBefore(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: ranbefore A B")
	}
	s := spansOf(ts, args)
	if s[0].end.Sub(s[1].start) > 2*time.Millisecond {
		ts.Fatalf("call %s ended at %s, after call %s started at %s", args[0], s[0].end.Format(time.StampMilli), args[1], s[1].start.Format(time.StampMilli))
	}
}

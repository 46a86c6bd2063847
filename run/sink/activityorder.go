package sink

import "github.com/rubichan/rubichan/run/agent"

// callOrder keeps the activity lines of a message's tool calls in call
// order when the engine runs several at once and reports their results as
// each finishes: a result waits until the results of the calls announced
// before it are shown. Not safe for concurrent use (the [Activity] holds
// its lock).
type callOrder struct {
	open []string               // the calls announced, whose results are not shown yet
	held map[string]agent.Event // results that came before an earlier call's
	// together are the open calls announced while another was open:
	// their result lines name them.
	together map[string]bool
}

// announce notes a call whose result is to come.
func (o *callOrder) announce(id string) {
	if len(o.open) > 0 {
		if o.together == nil {
			o.together = map[string]bool{}
		}
		o.together[id] = true
		for _, x := range o.open {
			o.together[x] = true
		}
	}
	o.open = append(o.open, id)
}

// named reports whether the result line of call id names it: it was
// open together with another call.
func (o *callOrder) named(id string) bool { return o.together[id] }

// done forgets call id once its result line is written.
func (o *callOrder) done(id string) { delete(o.together, id) }

// result returns the results to show now, in call order: none while an
// earlier call's result is still to come.
func (o *callOrder) result(ev agent.Event) []agent.Event {
	if len(o.open) == 0 || ev.Tool == nil || o.open[0] != ev.Tool.ID {
		if ev.Tool == nil || !o.isOpen(ev.Tool.ID) {
			return []agent.Event{ev}
		}
		if o.held == nil {
			o.held = map[string]agent.Event{}
		}
		o.held[ev.Tool.ID] = ev
		return nil
	}
	out := []agent.Event{ev}
	o.open = o.open[1:]
	for len(o.open) > 0 {
		next, ok := o.held[o.open[0]]
		if !ok {
			break
		}
		delete(o.held, o.open[0])
		out = append(out, next)
		o.open = o.open[1:]
	}
	return out
}

// flush returns every result held, in call order, and forgets the calls
// still open (a call left pending gets no result in this run).
func (o *callOrder) flush() []agent.Event {
	var out []agent.Event
	for _, id := range o.open {
		if ev, ok := o.held[id]; ok {
			out = append(out, ev)
		}
	}
	o.open, o.held = nil, nil
	return out
}

func (o *callOrder) isOpen(id string) bool {
	for _, x := range o.open {
		if x == id {
			return true
		}
	}
	return false
}

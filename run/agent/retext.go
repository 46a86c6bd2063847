package agent

// retext keeps one answer coherent through retries of one request: after
// a stream cut it holds back the retried answer's text while it repeats
// what was already shown, and passes on only what extends it. When the
// retried text departs from what was shown, the shown text is void: the
// caller reports a stream cut and gets the retried text so far, whole.
//
// A retext belongs to one request and is used from one goroutine.
type retext struct {
	shown   string // text of this request that reached the sinks
	attempt string // text of the current attempt
	replay  bool   // the current attempt has not yet passed the shown text
}

// delta takes a piece of the current attempt's text and returns what to
// show; diverged reports that the attempt departed from the shown text, so
// out is the attempt's whole text so far and the shown text is void.
func (r *retext) delta(t string) (out string, diverged bool) {
	prev := len(r.attempt)
	r.attempt += t
	if !r.replay {
		r.shown += t
		return t, false
	}
	n := min(len(r.attempt), len(r.shown))
	if r.attempt[prev:n] != r.shown[prev:n] {
		return r.diverge(), true
	}
	if len(r.attempt) <= len(r.shown) {
		return "", false
	}
	out = r.attempt[len(r.shown):]
	r.shown, r.replay = r.attempt, false
	return out, false
}

// retry starts the next attempt: its text is checked against what was
// shown.
func (r *retext) retry() {
	r.attempt = ""
	r.replay = r.shown != ""
}

// done ends an attempt that succeeded; an answer that stopped inside the
// shown text departs from it (diverged, out is its whole text).
func (r *retext) done() (out string, diverged bool) {
	if r.replay && len(r.attempt) < len(r.shown) {
		return r.diverge(), true
	}
	return "", false
}

func (r *retext) diverge() string {
	r.shown, r.replay = r.attempt, false
	return r.attempt
}

package agent

// retextMax is the most shown text a [retext] keeps to compare a retry
// with. An answer cut after more than this was shown is not compared: its
// retry departs at once (a stream cut, then its text whole), so a long
// answer costs a bounded amount of memory, not a copy of itself.
const retextMax = 1 << 20

// retext keeps one answer coherent through retries of one request: after
// a stream cut it holds back the retried answer's text while it repeats
// what was already shown, and passes on only what extends it. When the
// retried text departs from what was shown, or more than [retextMax] bytes
// were shown, the shown text is void: the caller reports a stream cut and
// gets the retried text so far, whole.
//
// A retext belongs to one request and is used from one goroutine.
type retext struct {
	shown   []byte // text of this request that reached the sinks, while at most retextMax bytes
	n       int    // length of the shown text
	attempt []byte // text of the current attempt, kept while it replays the shown text
	replay  bool   // the current attempt has not yet passed the shown text

	// The continuation of a cut answer (see retext_continue.go).
	other bool   // an attempt streamed a block other than text: the answer is not continued
	base  string // the shown text the current attempt continues; "": not a continuation
	ws    string // the shown text's trailing whitespace, left out of the prefill, not yet matched
	skip  int    // bytes of the continuation's text dropped as matching ws
}

// delta takes a piece of the current attempt's text and returns what to
// show; diverged reports that the attempt departed from the shown text, so
// out is the attempt's whole text so far and the shown text is void.
func (r *retext) delta(t string) (out string, diverged bool) {
	if r.base != "" {
		t = r.trim(t)
	}
	if !r.replay {
		r.keep(t)
		return t, false
	}
	if r.n > len(r.shown) { // the shown text was not kept: it cannot be compared
		r.attempt = append(r.attempt, t...)
		return r.diverge(), true
	}
	prev := len(r.attempt)
	r.attempt = append(r.attempt, t...)
	m := min(len(r.attempt), r.n)
	if string(r.attempt[prev:m]) != string(r.shown[prev:m]) {
		return r.diverge(), true
	}
	if len(r.attempt) <= r.n {
		return "", false
	}
	out = string(r.attempt[r.n:])
	r.pass()
	return out, false
}

// keep adds t to the shown text, dropping the text (not its length) once
// it passes retextMax.
func (r *retext) keep(t string) {
	r.n += len(t)
	if r.n > retextMax {
		r.shown = nil
		return
	}
	r.shown = append(r.shown, t...)
}

// retry starts the next attempt: its text is checked against what was
// shown, unless it continues the shown text from prefill (the text
// [retext.prefill] returned; "": not a continuation).
func (r *retext) retry(prefill string) {
	r.attempt, r.skip = nil, 0
	r.replay = r.n > 0 && prefill == ""
	r.base, r.ws = "", ""
	if prefill != "" {
		r.base, r.ws = string(r.shown), string(r.shown[len(prefill):])
	}
}

// done ends an attempt that succeeded; an answer that stopped inside the
// shown text departs from it (diverged, out is its whole text).
func (r *retext) done() (out string, diverged bool) {
	if r.replay && len(r.attempt) < r.n {
		return r.diverge(), true
	}
	return "", false
}

// diverge voids the shown text: the attempt's text so far is shown
// instead, and returned.
func (r *retext) diverge() string {
	out := string(r.attempt)
	r.pass()
	return out
}

// pass makes the attempt's text the shown text and ends the replay.
func (r *retext) pass() {
	r.shown, r.n, r.replay = r.attempt, len(r.attempt), false
	r.attempt = nil
	if r.n > retextMax {
		r.shown = nil
	}
}

package telemetry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rubichan/rubichan/run/agent"
)

// flushState is what [Run.Flush] leaves for [Run.Close]: the end of the
// flush bound, which Close keeps to, and whether the run's one warning
// was given.
type flushState struct {
	deadline time.Time // zero: no Flush yet
	warned   bool
}

// Flush ends the run's span with sum's figures and sends what is
// buffered, spans and metrics, within the flush bound: the front end
// calls it before it shows the closing summary, so that the summary (and
// the result event) can count a trace that could not be sent. It returns
// the one-line warning to show then ("" when all went). [Run.Close],
// which still stops the exporters, keeps to the same bound and gives no
// second warning.
func (r *Run) Flush(sum *agent.Summary) string {
	if r == nil {
		return ""
	}
	r.mu.Lock()
	r.turnDone(sum)
	if !r.ended {
		r.ended = true
		r.root.End()
	}
	r.end.deadline = time.Now().Add(r.s.Flush)
	r.mu.Unlock()
	ctx, cancel := context.WithDeadline(context.Background(), r.end.deadline)
	defer cancel()
	terr := r.tp.ForceFlush(ctx)
	merr := r.mp.ForceFlush(ctx)
	return r.warning(terr, merr)
}

// flushContext is the context of Close's shutdown: within the bound
// Flush started, else a bound of its own.
func (r *Run) flushContext() (context.Context, context.CancelFunc) {
	r.mu.Lock()
	d := r.end.deadline
	r.mu.Unlock()
	if d.IsZero() {
		return context.WithTimeout(context.Background(), r.s.Flush)
	}
	return context.WithDeadline(context.Background(), d)
}

// warning is the run's one warning line when an export failed or a flush
// or shutdown did not finish ("" when all went, or when it was given
// already).
func (r *Run) warning(terr, merr error) string {
	if n := r.exp.failed.Load(); n == 0 && terr == nil && merr == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.end.warned {
		return ""
	}
	r.end.warned = true
	why := errors.Join(r.exp.err(), terr, merr)
	return fmt.Sprintf("telemetry: could not send the run's trace %s to %s within %s: %v", r.TraceID(), shownURL(r.s.TracesURL), r.s.Flush, r.info.Redact(oneLine(why)))
}

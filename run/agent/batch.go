package agent

import (
	"context"
	"fmt"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/toolkit"
)

// ran is one call of a batch as its tool finished.
type ran struct {
	r    *runnable
	res  toolkit.Result
	span timeSpan
	err  error
}

// runBatch runs admitted read-only calls at once, at most [Options.Parallel]
// of them, started in call order. Only their tools run concurrently: as
// each finishes, this goroutine runs its after_tool hooks, one at a time,
// records its result in its place and reports it ([EventToolResult]).
// A call not yet started when the run's context ends is not run; every
// call gets its result. The error, if any, is the first of the calls'
// to arrive, and ends the run once the batch is done.
func (l *Agent) runBatch(ctx context.Context, batch []*runnable, results []llm.Block) error {
	if len(batch) == 1 {
		r := batch[0]
		res, span, err := l.execute(ctx, r)
		l.answer(results, r.idx, r.call.ID, r.info, res, span)
		return l.ended(ctx, err)
	}
	done := make(chan ran, len(batch))
	next := 0
	start := func() {
		r := batch[next]
		next++
		if ctx.Err() != nil {
			done <- ran{r: r, err: errRunEnded}
			return
		}
		go func() {
			res, span, err := l.runTool(ctx, r)
			done <- ran{r, res, span, err}
		}()
	}
	for next < len(batch) && next < l.parallel() {
		start()
	}
	var stop error
	for range batch {
		d := <-done
		if next < len(batch) {
			start()
		}
		switch {
		case !d.span.ran:
			d.res = l.notRun(d.r.info, fmt.Sprintf(notRunStopped, stopReason(l.contextError(ctx))))
		case d.err == nil:
			d.res = l.afterTool(ctx, d.r, d.res)
		}
		l.answer(results, d.r.idx, d.r.call.ID, d.r.info, d.res, d.span)
		if stop == nil {
			stop = l.ended(ctx, d.err)
		}
	}
	return stop
}

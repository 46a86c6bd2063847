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

// runningOp is an operation ([Around]) under way on a goroutine of its
// own, for a call run at once with others: its do has started with ctx,
// and end ends it with the call's error once the call is answered.
type runningOp struct {
	ctx context.Context
	end func(error)
}

// startOp starts op through [Options.Around] on a goroutine of its own and
// returns once do runs: the spans of calls run at once overlap as the
// calls do, while their events are emitted on the loop's goroutine.
func (l *Agent) startOp(ctx context.Context, op Op) runningOp {
	if l.cfg.Around == nil {
		return runningOp{ctx: ctx, end: func(error) {}}
	}
	ready, finish, done := make(chan context.Context, 1), make(chan error, 1), make(chan struct{})
	go func() {
		defer close(done)
		_ = l.cfg.Around.Around(ctx, op, func(c context.Context) error {
			ready <- c
			return <-finish
		})
	}()
	return runningOp{ctx: <-ready, end: func(err error) {
		finish <- err
		<-done
	}}
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
		res, span, err := l.execute(r.op.ctx, r)
		l.answer(results, r.idx, r.call.ID, r.info, res, span)
		r.op.end(err)
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
			res, span, err := l.runTool(r.op.ctx, r)
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
			d.res = l.afterTool(d.r.op.ctx, d.r, d.res)
		}
		l.answer(results, d.r.idx, d.r.call.ID, d.r.info, d.res, d.span)
		d.r.op.end(d.err)
		if stop == nil {
			stop = l.ended(ctx, d.err)
		}
	}
	return stop
}

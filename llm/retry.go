package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryPolicy says how often and how long [Retry] tries again.
//
// Waits grow exponentially with full jitter: before retry n the wait is a
// random duration in [0, min(MaxDelay, BaseDelay·2ⁿ⁻¹)], raised to the
// error's [APIError.RetryAfter] when the provider asked for longer. Retry
// gives up when MaxAttempts calls have failed or when the next wait would
// end after MaxTotal since the first call started.
type RetryPolicy struct {
	MaxAttempts int           // calls in all, including the first; < 1 means 1
	BaseDelay   time.Duration // ceiling of the first wait
	MaxDelay    time.Duration // largest ceiling of any wait (retry-after may exceed it)
	MaxTotal    time.Duration // time budget for all attempts and waits; 0 means none

	// Retryable decides which errors are retried; nil means [IsRetryable].
	Retryable func(error) bool
	// Jitter returns the wait for a ceiling; nil means uniformly random in
	// [0, ceiling]. Tests set it to get a fixed schedule.
	Jitter func(ceiling time.Duration) time.Duration
}

// DefaultRetryPolicy returns 5 attempts, waits starting at 1 s and capped at
// 30 s each, and at most 2 minutes in all.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: 30 * time.Second, MaxTotal: 2 * time.Minute}
}

// RetryNotice describes a retry about to happen, for the caller to report
// ("retrying in 4s (429 rate limit)").
type RetryNotice struct {
	Attempt int           // the attempt that failed, from 1
	Wait    time.Duration // how long Retry waits before the next attempt
	Err     error         // the failure
}

// Clock is the time source of [Retry]; tests use a fake one.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx ends, returning ctx's error then.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock returns the real clock.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Retry calls fn until it succeeds, fails with an error p does not retry,
// or the policy's attempts or time budget are used up. Before each retry it
// calls onRetry (if not nil) and waits on clk (nil means [SystemClock]).
//
// It returns nil on success; the error of the last attempt when it was not
// retryable; the last error wrapped with the attempt count when it gave up;
// or the context's cause when ctx ended, which is never retried.
func Retry(ctx context.Context, p RetryPolicy, clk Clock, fn func(context.Context) error, onRetry func(RetryNotice)) error {
	if clk == nil {
		clk = SystemClock()
	}
	retryable := p.Retryable
	if retryable == nil {
		retryable = IsRetryable
	}
	jitter := p.Jitter
	if jitter == nil {
		jitter = fullJitter(rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())))
	}
	start := clk.Now()
	for attempt := 1; ; attempt++ {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if isContextErr(err) || !retryable(err) {
			return err
		}
		if attempt >= p.MaxAttempts {
			return giveUp(attempt, err)
		}
		wait := jitter(backoffCeiling(p, attempt))
		var ae *APIError
		if errors.As(err, &ae) && ae.RetryAfter > wait {
			wait = ae.RetryAfter
		}
		if p.MaxTotal > 0 && clk.Now().Add(wait).Sub(start) > p.MaxTotal {
			return giveUp(attempt, err)
		}
		if onRetry != nil {
			onRetry(RetryNotice{Attempt: attempt, Wait: wait, Err: err})
		}
		if err := clk.Sleep(ctx, wait); err != nil {
			return context.Cause(ctx)
		}
	}
}

// backoffCeiling returns min(MaxDelay, BaseDelay·2^(attempt-1)).
func backoffCeiling(p RetryPolicy, attempt int) time.Duration {
	d := p.BaseDelay
	for i := 1; i < attempt; i++ {
		if (p.MaxDelay > 0 && d >= p.MaxDelay) || d > time.Hour {
			break
		}
		d *= 2
	}
	if p.MaxDelay > 0 && d > p.MaxDelay {
		d = p.MaxDelay
	}
	return d
}

// fullJitter returns a jitter drawing uniformly from [0, ceiling] with r;
// a [Retry] call owns its r, so no lock is needed.
func fullJitter(r *rand.Rand) func(time.Duration) time.Duration {
	return func(ceiling time.Duration) time.Duration {
		if ceiling <= 0 {
			return 0
		}
		return time.Duration(r.Int64N(int64(ceiling) + 1))
	}
}

func giveUp(attempts int, err error) error {
	if attempts <= 1 {
		return err
	}
	return fmt.Errorf("llm: giving up after %d attempts: %w", attempts, err)
}

package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// fakeClock advances only when Retry sleeps, and records each sleep.
type fakeClock struct {
	now    time.Time
	sleeps []time.Duration
	// onSleep, if set, runs at each sleep (e.g. to cancel the context).
	onSleep func()
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.sleeps = append(c.sleeps, d)
	if c.onSleep != nil {
		c.onSleep()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.now = c.now.Add(d)
	return nil
}

// maxJitter makes the schedule deterministic: always the ceiling.
func maxJitter(d time.Duration) time.Duration { return d }

// failing returns an fn that fails with errs in turn and then succeeds, and
// a pointer to its call count.
func failing(errs ...error) (func(context.Context) error, *int) {
	n := 0
	return func(context.Context) error {
		n++
		if n <= len(errs) {
			return errs[n-1]
		}
		return nil
	}, &n
}

func rateLimit(after time.Duration) error {
	return &APIError{Provider: "anthropic", Kind: KindRateLimit, StatusCode: 429, Retryable: true, RetryAfter: after}
}

var (
	errServer = &APIError{Provider: "openai", Kind: KindServer, StatusCode: 500, Retryable: true}
	errAuth   = &APIError{Provider: "openai", Kind: KindAuth, StatusCode: 401}
)

func TestRetrySchedule(t *testing.T) {
	t.Parallel()
	policy := DefaultRetryPolicy()
	policy.Jitter = maxJitter
	tests := map[string]struct {
		policy    RetryPolicy
		errs      []error
		calls     int
		sleeps    []time.Duration
		wantErr   error  // errors.Is target; nil means success
		wantMsg   string // substring of the error
		noRetries bool
	}{
		"success first": {policy: policy, calls: 1},
		"exponential": {policy: policy, errs: []error{errServer, errServer, errServer}, calls: 4,
			sleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		"gives up after max attempts": {policy: policy, errs: []error{errServer, errServer, errServer, errServer, errServer, errServer}, calls: 5,
			sleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}, wantErr: errServer, wantMsg: "giving up after 5 attempts"},
		"capped at max delay": {
			policy: RetryPolicy{MaxAttempts: 8, BaseDelay: 10 * time.Second, MaxDelay: 30 * time.Second, Jitter: maxJitter},
			errs:   []error{errServer, errServer, errServer, errServer}, calls: 5,
			sleeps: []time.Duration{10 * time.Second, 20 * time.Second, 30 * time.Second, 30 * time.Second}},
		"retry-after is a floor": {policy: policy, errs: []error{rateLimit(7 * time.Second), rateLimit(100 * time.Millisecond)}, calls: 3,
			sleeps: []time.Duration{7 * time.Second, 2 * time.Second}},
		"total budget": {
			policy: RetryPolicy{MaxAttempts: 10, BaseDelay: 20 * time.Second, MaxDelay: 60 * time.Second, MaxTotal: 50 * time.Second, Jitter: maxJitter},
			errs:   []error{errServer, errServer, errServer}, calls: 2,
			sleeps: []time.Duration{20 * time.Second}, wantErr: errServer, wantMsg: "giving up after 2 attempts"},
		"total budget reached exactly": {
			policy: RetryPolicy{MaxAttempts: 10, BaseDelay: 20 * time.Second, MaxDelay: 60 * time.Second, MaxTotal: time.Minute, Jitter: maxJitter},
			errs:   []error{errServer, errServer}, calls: 3,
			sleeps: []time.Duration{20 * time.Second, 40 * time.Second}},
		"retry-after beyond budget": {policy: policy, errs: []error{rateLimit(5 * time.Minute)}, calls: 1, wantMsg: "rate limit"},
		"fatal not retried":         {policy: policy, errs: []error{errServer, errAuth}, calls: 2, sleeps: []time.Duration{time.Second}, wantErr: errAuth},
		"plain error":               {policy: policy, errs: []error{errors.New("boom")}, calls: 1, wantMsg: "boom"},
		"context error":             {policy: policy, errs: []error{fmt.Errorf("x: %w", context.DeadlineExceeded)}, calls: 1, wantErr: context.DeadlineExceeded},
		"partial not retried":       {policy: policy, errs: []error{&APIError{Kind: KindStreamCut, Retryable: true, Partial: true}}, calls: 1, wantMsg: "stream cut"},
		"custom retryable retries partial": {
			policy: RetryPolicy{MaxAttempts: 3, BaseDelay: time.Second, Jitter: maxJitter, Retryable: func(err error) bool {
				var e *APIError
				return errors.As(err, &e) && e.Retryable
			}},
			errs: []error{&APIError{Kind: KindStreamCut, Retryable: true, Partial: true}}, calls: 2, sleeps: []time.Duration{time.Second}},
		"zero attempts means one": {policy: RetryPolicy{}, errs: []error{errServer}, calls: 1, wantErr: errServer},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clk := &fakeClock{now: time.Unix(1e9, 0)}
			fn, calls := failing(tc.errs...)
			var notices []RetryNotice
			err := Retry(context.Background(), tc.policy, clk, fn, func(n RetryNotice) { notices = append(notices, n) })
			if *calls != tc.calls {
				t.Errorf("calls = %d, want %d", *calls, tc.calls)
			}
			if fmt.Sprint(clk.sleeps) != fmt.Sprint(tc.sleeps) {
				t.Errorf("sleeps = %v, want %v", clk.sleeps, tc.sleeps)
			}
			if len(notices) != len(tc.sleeps) {
				t.Fatalf("notices = %+v, want one per sleep", notices)
			}
			for i, n := range notices {
				if n.Attempt != i+1 || n.Wait != tc.sleeps[i] || n.Err != tc.errs[i] {
					t.Errorf("notice %d = %+v", i, n)
				}
			}
			switch {
			case tc.wantErr == nil && tc.wantMsg == "":
				if err != nil {
					t.Fatalf("err = %v", err)
				}
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if tc.wantMsg != "" && (err == nil || !strings.Contains(err.Error(), tc.wantMsg)) {
				t.Errorf("err = %v, want it to contain %q", err, tc.wantMsg)
			}
		})
	}
}

func TestRetryCancelledWhileWaiting(t *testing.T) {
	t.Parallel()
	cause := errors.New("interrupted by signal")
	ctx, cancel := context.WithCancelCause(context.Background())
	clk := &fakeClock{now: time.Unix(0, 0), onSleep: func() { cancel(cause) }}
	fn, calls := failing(errServer, errServer)
	err := Retry(ctx, DefaultRetryPolicy(), clk, fn, nil)
	if !errors.Is(err, cause) || *calls != 1 {
		t.Fatalf("err = %v after %d calls, want the cancel cause after 1", err, *calls)
	}
}

func TestRetryCancelledDuringCall(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := Retry(ctx, DefaultRetryPolicy(), &fakeClock{}, func(context.Context) error {
		n++
		cancel()
		return errServer // a retryable error, but the context ended
	}, nil)
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Fatalf("err = %v after %d calls", err, n)
	}
}

// TestFullJitterDistribution draws many waits from a seeded source and
// checks they stay in [0, ceiling] and spread evenly across it: each tenth
// of the interval gets close to a tenth of the draws, and both ends are
// reached. A jitter stuck at 0, at the ceiling or at half of it fails.
func TestFullJitterDistribution(t *testing.T) {
	t.Parallel()
	const ceiling, draws, bins = time.Second, 10000, 10
	jitter := fullJitter(rand.New(rand.NewPCG(1, 2)))
	var count [bins]int
	lo, hi := ceiling, time.Duration(0)
	for i := 0; i < draws; i++ {
		d := jitter(ceiling)
		if d < 0 || d > ceiling {
			t.Fatalf("jitter %v out of [0, %v]", d, ceiling)
		}
		lo, hi = min(lo, d), max(hi, d)
		count[min(int(d*bins/ceiling), bins-1)]++
	}
	for i, n := range count {
		// Expected 1000 per bin, standard deviation 30: ±200 never trips by chance.
		if n < draws/bins-200 || n > draws/bins+200 {
			t.Errorf("bin %d of %d holds %d of %d draws: %v", i, bins, n, draws, count)
		}
	}
	if lo > ceiling/100 || hi < ceiling-ceiling/100 {
		t.Errorf("draws span [%v, %v], want close to [0, %v]", lo, hi, ceiling)
	}
	if d := jitter(0); d != 0 {
		t.Errorf("jitter of 0 = %v", d)
	}
}

func TestSystemClockSleepCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SystemClock().Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep = %v", err)
	}
	if err := SystemClock().Sleep(context.Background(), time.Nanosecond); err != nil {
		t.Fatalf("Sleep = %v", err)
	}
}

// TestRetryDefaultJitter checks that a policy without Jitter waits random
// durations within each ceiling, not the ceiling or 0 every time.
func TestRetryDefaultJitter(t *testing.T) {
	t.Parallel()
	const attempts = 40
	errs := make([]error, attempts-1)
	for i := range errs {
		errs[i] = errServer
	}
	fn, _ := failing(errs...)
	clk := &fakeClock{}
	p := RetryPolicy{MaxAttempts: attempts, BaseDelay: time.Second, MaxDelay: time.Second}
	if err := Retry(context.Background(), p, clk, fn, nil); err != nil {
		t.Fatal(err)
	}
	distinct := map[time.Duration]bool{}
	for _, d := range clk.sleeps {
		if d < 0 || d > time.Second {
			t.Fatalf("wait %v out of [0, 1s]", d)
		}
		distinct[d] = true
	}
	// 39 draws from a billion values: a repeat is all but impossible.
	if len(clk.sleeps) != attempts-1 || len(distinct) < attempts-2 {
		t.Fatalf("%d waits, %d distinct: %v", len(clk.sleeps), len(distinct), clk.sleeps)
	}
}

package agent

import (
	"context"

	"github.com/rubichan/rubichan/llm"
)

// Client is what the engine needs of a model client: one streamed answer
// per request. *llm.AnthropicClient, *llm.OpenAIClient and
// *llm.ResponsesClient implement it.
type Client interface {
	Stream(ctx context.Context, req llm.Request) (*llm.Stream, error)
}

// CompleteOptions say how [Complete] retries and what it tells its caller.
// Every callback is optional and is called on the goroutine that called
// Complete.
type CompleteOptions struct {
	// Retry says which failures are retried, how often and how long
	// Complete waits; its Retryable nil means [llm.IsRetryable], so a
	// stream cut after content arrived is not retried unless the caller
	// says so (the loop then continues the printed answer).
	Retry llm.RetryPolicy
	// Clock is the time source of the retry waits; nil: the system clock.
	Clock llm.Clock
	// OnEvent gets each event of each attempt's stream as it arrives.
	OnEvent func(llm.Event)
	// OnAttempt is called after each attempt whose stream opened, failed
	// or not, with the usage the stream reported and its error (nil on
	// success). A request that failed before a stream opened (an HTTP
	// error status) reported no usage and is not passed. A non-nil return
	// ends Complete with that error, unwrapped and never retried (a budget
	// the attempt used up).
	OnAttempt func(u llm.Usage, err error) error
	// OnRetry is called before each retry's wait, with the failure and
	// the wait, for the caller to report.
	OnRetry func(llm.RetryNotice)
	// Prepare, when set, gives the request each attempt sends, from the
	// request Complete was given (a retry that continues a cut answer).
	Prepare func(llm.Request) llm.Request
}

// Completion is the answer [Complete] got.
type Completion struct {
	Message llm.Message
	Stop    llm.StopReason
	Usage   llm.Usage // the attempt that succeeded
	Total   llm.Usage // every attempt's, the failed ones included
}

// Complete streams one model answer to req, retrying transient failures
// as o.Retry says. It returns the answer, or the error of the attempt
// that ended the retries as [llm.Retry] returns it (or OnAttempt's); on an
// error only Total is set.
func Complete(ctx context.Context, c Client, req llm.Request, o CompleteOptions) (Completion, error) {
	var out Completion
	policy := o.Retry
	retryable := policy.Retryable
	if retryable == nil {
		retryable = llm.IsRetryable
	}
	policy.Retryable = func(err error) bool {
		if _, ok := err.(stopError); ok {
			return false
		}
		return retryable(err)
	}
	attempt := func(ctx context.Context) error {
		r := req
		if o.Prepare != nil {
			r = o.Prepare(req)
		}
		s, err := c.Stream(ctx, r)
		if err != nil {
			return err
		}
		defer s.Close()
		for s.Next() {
			if o.OnEvent != nil {
				o.OnEvent(s.Current())
			}
		}
		u, err := s.Usage(), s.Err()
		out.Total = out.Total.Add(u)
		if o.OnAttempt != nil {
			if serr := o.OnAttempt(u, err); serr != nil {
				return stopError{serr}
			}
		}
		if err != nil {
			return err
		}
		out.Message, out.Stop, out.Usage = s.Message(), s.StopReason(), u
		return nil
	}
	err := llm.Retry(ctx, policy, o.Clock, attempt, o.OnRetry)
	if se, ok := err.(stopError); ok {
		err = se.err
	}
	if err != nil {
		return Completion{Total: out.Total}, err
	}
	return out, nil
}

// stopError carries OnAttempt's error through [llm.Retry], which returns
// an error it does not retry as it is.
type stopError struct{ err error }

func (e stopError) Error() string { return e.err.Error() }

func (e stopError) Unwrap() error { return e.err }

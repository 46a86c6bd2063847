package agent

import (
	"sync"

	"github.com/rubichan/rubichan/llm"
)

// Budget tracks what one run has spent against its token and cost caps
// (--max-tokens-total, --max-cost). Every error it returns for a cap is a
// [*BudgetError] (or, for the sub-queries' count, a [*QueriesError]). The loop calls [Budget.BeforeRequest]
// before each model request and [Budget.AfterRequest] with the request's
// final usage after it. Sub-queries, which the run's commands send while
// a tool runs, reserve their estimate before they are sent and settle it
// after (see budget_sub.go). A Budget is safe for concurrent use.
type Budget struct {
	mu        sync.Mutex
	maxTokens int64
	maxCost   float64
	// model, price and priced are those of the model requests are made
	// to now (see [Budget.SetModel]); models keeps each model's spend.
	model  string
	price  Price
	priced bool
	prices PriceFunc // nil: no model has a price
	models []modelSpend

	spent    llm.Usage
	last     llm.Usage
	requests int

	sub sideSpend // the sub-queries'
}

// BudgetLimits are the caps of a [Budget]; zero: none.
type BudgetLimits struct {
	MaxTokens int64   // all tokens counted: input, output and cache
	MaxCost   float64 // USD
}

// NewBudget returns the budget of a run of model under limits, priced by
// prices (nil: no model has a price). A cost cap on a model without a known
// price is a [*BudgetError] with its Model set (the command layer makes it
// a usage error, exit 2): a cap that cannot be enforced must not look like
// one.
func NewBudget(limits BudgetLimits, model string, prices PriceFunc) (*Budget, error) {
	b := &Budget{maxTokens: limits.MaxTokens, maxCost: limits.MaxCost, model: model, prices: prices}
	b.price, b.priced = b.lookup(model)
	b.current()
	if b.maxCost > 0 && !b.priced {
		return nil, &BudgetError{Limit: "max_cost", Max: b.maxCost, Model: model}
	}
	return b, nil
}

// lookup returns model's price, and false when it is not known.
func (b *Budget) lookup(model string) (Price, bool) {
	if b.prices == nil {
		return Price{}, false
	}
	return b.prices(model)
}

// BeforeRequest returns an error when the next request would pass a
// cap. The next request is estimated to cost what the last one did: it
// sends at least everything the last one sent and received, so this errs on
// the side of stopping. The first request is always allowed. A nil Budget
// has no caps.
func (b *Budget) BeforeRequest() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sub.tripped != nil {
		return b.sub.tripped
	}
	if b.requests == 0 {
		return nil
	}
	return b.check(b.last)
}

// AfterRequest adds the usage of a finished request and returns an error
// when the run has passed a cap.
func (b *Budget) AfterRequest(u llm.Usage) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.add(u, true)
	b.last = u
	return b.check(llm.Usage{})
}

// AfterFailedAttempt adds the usage an attempt reported before it failed
// (an Anthropic stream reports its input tokens when it starts, and a cut
// or error later does not refund them) and returns an error when
// retrying would pass a cap. The retry sends the same request again, so it
// is estimated at the larger of the last finished request and this
// attempt's usage, field by field. The failed attempt is not a finished
// request: it changes neither [Budget.Requests] nor the estimate of
// [Budget.BeforeRequest]. A nil Budget has no caps.
func (b *Budget) AfterFailedAttempt(u llm.Usage) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.add(u, false)
	return b.check(maxUsage(b.last, u))
}

// maxUsage returns the larger of a and b in each field.
func maxUsage(a, b llm.Usage) llm.Usage {
	return llm.Usage{
		InputTokens:         max(a.InputTokens, b.InputTokens),
		OutputTokens:        max(a.OutputTokens, b.OutputTokens),
		CacheCreationTokens: max(a.CacheCreationTokens, b.CacheCreationTokens),
		CacheReadTokens:     max(a.CacheReadTokens, b.CacheReadTokens),
	}
}

// check compares spent (the sub-queries' and their reservations
// included) plus next against the caps. The caller holds b.mu.
func (b *Budget) check(next llm.Usage) error {
	return b.checkPlus(next, 0, 0)
}

// checkPlus is check with a sub-query's estimate added: tokens and cost
// at its own model's price.
func (b *Budget) checkPlus(next llm.Usage, extraTokens int64, extraCost float64) error {
	if b.maxTokens > 0 {
		spent := float64(int64(b.spent.Total()+b.sub.usage.Total()) + b.sub.reservedTokens)
		total := spent + float64(next.Total()) + float64(extraTokens)
		if total > float64(b.maxTokens) {
			return b.limitErr("max_tokens_total", spent, total, float64(b.maxTokens))
		}
	}
	if b.maxCost > 0 && b.priced {
		own, _ := b.spentCost()
		spent := own + b.sub.cost + b.sub.reservedCost
		total := spent + b.price.Cost(next) + extraCost
		// A relative epsilon keeps float rounding from stopping a run that
		// lands exactly on its cap.
		if total > b.maxCost*(1+1e-9) {
			return b.limitErr("max_cost", spent, total, b.maxCost)
		}
	}
	return nil
}

// limitErr is the error of a cap reached: limit at max, spent so far, and
// total with the next request (Projected, when it is more than spent).
func (b *Budget) limitErr(limit string, spent, total, max float64) error {
	e := &BudgetError{Limit: limit, Spent: spent, Max: max}
	if total > spent {
		e.Projected = total
	}
	return e
}

// Spent returns the usage counted so far, the sub-queries' included.
func (b *Budget) Spent() llm.Usage {
	if b == nil {
		return llm.Usage{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent.Add(b.sub.usage)
}

// Requests returns the number of requests counted so far.
func (b *Budget) Requests() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.requests
}

// Cost returns the USD cost so far, each model's requests at that model's
// price and the sub-queries' included, and false when the price of a
// model used (or, before any request, of the model) or of a sub-query's
// model is not known.
func (b *Budget) Cost() (float64, bool) {
	c, unknown := b.cost()
	return c, unknown == ""
}

// cost is [Budget.Cost] with, when the cost is unknown, why.
func (b *Budget) cost() (float64, string) {
	if b == nil {
		return 0, "cost unknown"
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	own, unpriced := b.spentCost()
	if len(unpriced) > 0 || b.sub.unpriced {
		return 0, unknownCost(unpriced)
	}
	return own + b.sub.cost, ""
}

// CostSummary formats the cost for the closing summary line: "$0.0123", or
// "cost unknown" naming the models without a price.
func (b *Budget) CostSummary() string {
	c, unknown := b.cost()
	if unknown != "" {
		return unknown
	}
	return FormatUSD(c)
}

// RequestCost returns the USD cost of one request's usage at the price of
// the model requests are made to now, and false when it is not known.
func (b *Budget) RequestCost(u llm.Usage) (float64, bool) {
	if b == nil {
		return 0, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.priced {
		return 0, false
	}
	return b.price.Cost(u), true
}

// AfterSideRequest adds the usage of a request that is no turn (a
// compaction's summary) and returns an error when the run has passed a
// cap. It leaves the estimate of the next turn's request alone.
func (b *Budget) AfterSideRequest(u llm.Usage) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.add(u, false)
	return b.check(llm.Usage{})
}

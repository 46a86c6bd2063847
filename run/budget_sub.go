package run

import (
	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
)

// sideSpend is what the sub-queries of a run have spent and hold
// reserved: their tokens, and their cost at their own model's price.
type sideSpend struct {
	usage          llm.Usage
	cost           float64
	unpriced       bool // a sub-query's model had no price
	count          int  // sub-queries sent
	reservedTokens int64
	reservedCost   float64
	// tripped is the limit a sub-query reached: every later sub-query is
	// refused with it, and the run stops with it at its next request.
	tripped error
}

// subEstimate is what a sub-query is expected to cost before it is sent.
type subEstimate struct {
	tokens int64
	cost   float64
}

// estimateSub estimates a sub-query: its input as sent and maxOut output
// tokens, at price (zero cost when unpriced).
func estimateSub(inputTokens, maxOut int, price config.Price, priced bool) subEstimate {
	u := llm.Usage{InputTokens: inputTokens, OutputTokens: maxOut}
	e := subEstimate{tokens: int64(u.Total())}
	if priced {
		e.cost = priceCost(price, u)
	}
	return e
}

// reserveSub admits a sub-query when the run's caps leave room for its
// estimate on top of what was spent and what the sub-queries in flight
// hold, and at most maxQueries sub-queries (0: none) were sent before.
// The first refusal trips the budget: it is returned by every later
// reserveSub and by [Budget.BeforeRequest], so the run ends (exit 4).
func (b *Budget) reserveSub(e subEstimate, maxQueries int) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sub.tripped != nil {
		return b.sub.tripped
	}
	if maxQueries > 0 && b.sub.count >= maxQueries {
		b.sub.tripped = maxQueriesError(maxQueries)
		return b.sub.tripped
	}
	if err := b.checkPlus(llm.Usage{}, e.tokens, e.cost); err != nil {
		b.sub.tripped = err
		return err
	}
	b.sub.count++
	b.sub.reservedTokens += e.tokens
	b.sub.reservedCost += e.cost
	return nil
}

// settleSub replaces a sub-query's reservation by what it used, at
// price (priced false: its cost is unknown). When the run has now passed
// a cap it trips the budget: later sub-queries and the run's next request
// get the limit error.
func (b *Budget) settleSub(e subEstimate, used llm.Usage, price config.Price, priced bool) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sub.reservedTokens -= e.tokens
	b.sub.reservedCost -= e.cost
	b.sub.usage = b.sub.usage.Add(used)
	if priced {
		b.sub.cost += priceCost(price, used)
	} else {
		b.sub.unpriced = true
	}
	if err := b.check(llm.Usage{}); err != nil && b.sub.tripped == nil {
		b.sub.tripped = err
	}
}

// subTotals returns the sub-queries' count and tokens.
func (b *Budget) subTotals() (int, llm.Usage) {
	if b == nil {
		return 0, llm.Usage{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sub.count, b.sub.usage
}

// maxQueriesError is the limit of --max-queries.
func maxQueriesError(n int) error {
	return exit.CodeError{Code: exit.Limit, Err: &queriesError{Max: n}}
}

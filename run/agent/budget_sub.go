package agent

import "github.com/rubichan/rubichan/llm"

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

// SubEstimate is what a sub-query is expected to cost before it is sent.
type SubEstimate struct {
	Tokens int64
	Cost   float64 // USD, at the sub-query's model's price; zero when unpriced
}

// EstimateSub estimates a sub-query: its input as sent and maxOut output
// tokens, at price (zero cost when unpriced).
func EstimateSub(inputTokens, maxOut int, price Price, priced bool) SubEstimate {
	u := llm.Usage{InputTokens: inputTokens, OutputTokens: maxOut}
	e := SubEstimate{Tokens: int64(u.Total())}
	if priced {
		e.Cost = price.Cost(u)
	}
	return e
}

// Reserve admits a sub-query when the run's caps leave room for its
// estimate on top of what was spent and what the sub-queries in flight
// hold, and at most maxQueries sub-queries (0: none) were sent before.
// The first refusal trips the budget: it is returned by every later
// Reserve and by [Budget.BeforeRequest], so the run ends. The error is a
// [*BudgetError] or a [*QueriesError].
func (b *Budget) Reserve(e SubEstimate, maxQueries int) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sub.tripped != nil {
		return b.sub.tripped
	}
	if maxQueries > 0 && b.sub.count >= maxQueries {
		b.sub.tripped = &QueriesError{Max: maxQueries}
		return b.sub.tripped
	}
	if err := b.checkPlus(llm.Usage{}, e.Tokens, e.Cost); err != nil {
		b.sub.tripped = err
		return err
	}
	b.sub.count++
	b.sub.reservedTokens += e.Tokens
	b.sub.reservedCost += e.Cost
	return nil
}

// Settle replaces a sub-query's reservation by what it used, at
// price (priced false: its cost is unknown). When the run has now passed
// a cap it trips the budget: later sub-queries and the run's next request
// get the limit error.
func (b *Budget) Settle(e SubEstimate, used llm.Usage, price Price, priced bool) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sub.reservedTokens -= e.Tokens
	b.sub.reservedCost -= e.Cost
	b.sub.usage = b.sub.usage.Add(used)
	if priced {
		b.sub.cost += price.Cost(used)
	} else {
		b.sub.unpriced = true
	}
	if err := b.check(llm.Usage{}); err != nil && b.sub.tripped == nil {
		b.sub.tripped = err
	}
}

// SubTotals returns the sub-queries' count and tokens.
func (b *Budget) SubTotals() (int, llm.Usage) {
	if b == nil {
		return 0, llm.Usage{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sub.count, b.sub.usage
}

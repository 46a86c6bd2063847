package agent

import (
	"strings"

	"github.com/rubichan/rubichan/llm"
)

// modelSpend is what the requests to one model spent, priced at that
// model's price: a chat can change its model (/model), and each request
// costs what its own model charges.
type modelSpend struct {
	name     string
	price    Price
	priced   bool
	usage    llm.Usage
	requests int
}

// used reports whether a request to the model was made or attempted.
func (m *modelSpend) used() bool { return m.requests > 0 || m.usage != (llm.Usage{}) }

// ModelSpend is what one model's requests spent so far, for line mode's
// /cost.
type ModelSpend struct {
	Model    string
	Usage    llm.Usage
	Requests int
	// CostUSD is the usage at the model's price; CostKnown is false when
	// the model has no price.
	CostUSD   float64
	CostKnown bool
}

// SetModel prices the requests from now on at model's price (from the
// budget's [PriceFunc]); what was spent before stays priced at the model
// that spent it. The caps stay as they were: a cost cap is the caller's
// to keep to one priced model.
func (b *Budget) SetModel(model string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.model = model
	b.price, b.priced = b.lookup(model)
	b.current()
}

// current returns the spend of the model requests are made to now,
// adding it on its first use. The caller holds b.mu.
func (b *Budget) current() *modelSpend {
	for i := range b.models {
		if b.models[i].name == b.model {
			return &b.models[i]
		}
	}
	b.models = append(b.models, modelSpend{name: b.model, price: b.price, priced: b.priced})
	return &b.models[len(b.models)-1]
}

// add counts u, spent by the current model in a finished request
// (request true) or in an attempt or a request that is no turn. The
// caller holds b.mu.
func (b *Budget) add(u llm.Usage, request bool) {
	b.spent = b.spent.Add(u)
	m := b.current()
	m.usage = m.usage.Add(u)
	if request {
		b.requests++
		m.requests++
	}
}

// spentCost is the cost of the models' requests, each at its own
// model's price (the sub-queries' apart), and the models with usage but
// no price. The caller holds b.mu.
func (b *Budget) spentCost() (float64, []string) {
	var cost float64
	var unpriced []string
	for _, m := range b.models {
		switch {
		case m.priced:
			cost += m.price.Cost(m.usage)
		case m.used():
			unpriced = append(unpriced, m.name)
		}
	}
	if len(unpriced) == 0 && !b.priced && !b.anyUsed() {
		unpriced = append(unpriced, b.model) // nothing spent yet, at no known price
	}
	return cost, unpriced
}

// anyUsed reports whether a model was used. The caller holds b.mu.
func (b *Budget) anyUsed() bool {
	for _, m := range b.models {
		if m.used() {
			return true
		}
	}
	return false
}

// ByModel returns what each model used so far spent, in the order they
// were first used, without the sub-queries'.
func (b *Budget) ByModel() []ModelSpend {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []ModelSpend
	for _, m := range b.models {
		if !m.used() {
			continue
		}
		s := ModelSpend{Model: m.name, Usage: m.usage, Requests: m.requests, CostKnown: m.priced}
		if m.priced {
			s.CostUSD = m.price.Cost(m.usage)
		}
		out = append(out, s)
	}
	return out
}

// unknownCost says why a cost is unknown: the models without a price, or
// a sub-query's.
func unknownCost(models []string) string {
	if len(models) == 0 {
		return "cost unknown (no price for a sub-query's model)"
	}
	return "cost unknown (no price for " + strings.Join(models, ", ") + ")"
}

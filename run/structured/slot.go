package structured

import (
	"context"
	"encoding/json"

	"github.com/rubichan/rubichan/run/agent"
)

// Slot holds the run's [Check], which line mode's /schema sets and
// clears between lines (an [agent.Verifier] all the same): an empty Slot
// passes every answer and has no output.
type Slot struct{ check *Check }

// NewSlot returns a Slot holding c (nil: empty).
func NewSlot(c *Check) *Slot { return &Slot{check: c} }

// Set puts c in the slot for the next runs; nil empties it.
func (s *Slot) Set(c *Check) { s.check = c }

// On reports whether the slot holds a check.
func (s *Slot) On() bool { return s != nil && s.check != nil }

// Verify checks the final answer with the slot's check, if any.
func (s *Slot) Verify(ctx context.Context, attempt int, final agent.Final) (agent.Verification, error) {
	if s.check == nil {
		return agent.Verification{Passed: true}, nil
	}
	return s.check.Verify(ctx, attempt, final)
}

// Output is the check's answer of the last run; nil for an empty or nil
// slot.
func (s *Slot) Output() json.RawMessage {
	if !s.On() {
		return nil
	}
	return s.check.Output()
}

// Reset forgets the last run's answer.
func (s *Slot) Reset() {
	if s.On() {
		s.check.Reset()
	}
}

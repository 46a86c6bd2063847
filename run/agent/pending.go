package agent

import "encoding/json"

// Pending is a tool call a deferred run left for a person to approve or
// deny: its id, tool and arguments, the fact the judge matched, the rule
// that asked, every fact that needs approval, and the diff a write or edit
// would make. The session file records it as its own type, field for field.
type Pending struct {
	ID   string
	Tool string
	Fact string
	Rule string
	// Facts are all the facts of the call that need approval, in the
	// order the judge found them, when there are more than one; an
	// approval of the call covers these and nothing else. Nil for a call
	// of one fact, Fact.
	Facts []PendingFact
	Diff  string
	Input json.RawMessage
}

// PendingFact is one fact of a pending call that needs approval, as
// "kind: value", and the rule that asked.
type PendingFact struct {
	Fact string
	Rule string
}

// Asked returns the facts of the call that need approval: Facts, or the
// one Fact of a call of one fact.
func (p Pending) Asked() []PendingFact {
	if len(p.Facts) > 0 {
		return p.Facts
	}
	return []PendingFact{{Fact: p.Fact, Rule: p.Rule}}
}

// Approval is a person's answer to one call an earlier run deferred
// (--approve, --deny-pending).
type Approval struct {
	Approve bool
	// Facts are the facts the person was shown and approved: the approval
	// holds for them alone.
	Facts []PendingFact
	// Legacy says Facts is the call's one fact as [Verdict.Fact] names it:
	// a call of one fact, or one recorded before pending calls listed all
	// their facts. Such an approval covers a call of that one fact only.
	Legacy bool
}

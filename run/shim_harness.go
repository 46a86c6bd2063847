package run

import (
	"io"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/harness"
)

// Transitional shims (issue 31, step 3c): the composition root of a run
// moved to [harness]; these names keep the files of run that have not
// moved yet compiling unchanged. Phase 4 of the split deletes this file.

// policySource is [harness.PolicySource].
type policySource = harness.PolicySource

// loadPolicy is [harness.LoadPolicy].
func loadPolicy(src policySource, notes io.Writer) (*policy.Policy, error) {
	return harness.LoadPolicy(src, notes)
}

// linkCount is [harness.LinkCount].
func linkCount(abs string) int { return harness.LinkCount(abs) }

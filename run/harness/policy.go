package harness

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
)

// workspacePolicyFile is where a workspace keeps its own policy.
const workspacePolicyFile = ".rubichan/policy.toml"

// PolicySource says where to find the policy for a run. Every field is a
// plain value from the command line, so `exec`, line mode and `policy
// check` resolve the policy the same way.
type PolicySource struct {
	// Dir is the workspace root; "" means the current directory.
	Dir string
	// File is the --policy file; "" when not given.
	File string
	// Allow and Deny are the --allow and --deny rules, CLASS:PATTERN.
	Allow, Deny []string
	// TrustWorkspace is --trust-workspace.
	TrustWorkspace bool
	// Reads are the folders outside the workspace a run makes readable:
	// its skills' ([SkillGrants]).
	Reads []policy.ReadGrant
	// Headless is true for `exec` (and `policy check`, which answers as
	// exec would), false for line mode with a person at a terminal.
	Headless bool
}

// LoadPolicy resolves the policy for a run:
//
//  1. the --policy file, when given;
//  2. else .rubichan/policy.toml in the workspace, when it exists and is
//     trusted: always in line mode, only with --trust-workspace in a
//     headless run, because a pull request can edit it. An untrusted one is
//     ignored with a note on notes;
//  3. else the built-in default policy;
//
// then the --allow and --deny rules are added. The policy comes back bound
// to the workspace root ([policy.Policy.InWorkspace] with the directory as
// given, which also learns its name with symlinks evaluated, the form the
// file tools report).
// Its warnings are written on notes, each line prefixed "rubichan: policy:".
//
// Every failure is a usage error (exit 2): an unreadable or invalid policy
// file, a bad command-line rule, a workspace that does not exist.
func LoadPolicy(src PolicySource, notes io.Writer) (*policy.Policy, error) {
	if notes == nil {
		notes = io.Discard
	}
	dir := src.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, exit.Usagef("workspace %s: %v", dir, err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, exit.Usagef("workspace %s: %v", dir, err)
	}

	var p *policy.Policy
	wsFile := filepath.Join(root, filepath.FromSlash(workspacePolicyFile))
	_, statErr := os.Stat(wsFile)
	switch {
	case src.File != "":
		p, err = policy.Load(src.File)
	case statErr == nil && (src.TrustWorkspace || !src.Headless):
		p, err = policy.Load(wsFile)
	case statErr == nil:
		fmt.Fprintf(notes, "rubichan: note: ignoring %s in the workspace (a checkout may be untrusted); pass --trust-workspace to use it\n", workspacePolicyFile)
		p = policy.Default()
	case errors.Is(statErr, fs.ErrNotExist):
		p = policy.Default()
	default:
		return nil, exit.Usagef("policy: %v", statErr)
	}
	if err != nil {
		return nil, exit.UsageError{Err: err}
	}
	if p, err = p.WithRules(src.Allow, src.Deny); err != nil {
		return nil, exit.UsageError{Err: err}
	}
	if p, err = p.WithReads(src.Reads...); err != nil {
		return nil, exit.UsageError{Err: err}
	}
	for _, w := range p.Warnings() {
		fmt.Fprintf(notes, "rubichan: policy: warning: %s\n", agent.Shown(w))
	}
	return p.InWorkspace(abs), nil
}

// Package policy decides whether one tool call may run: allow, ask or deny,
// with the rule, the fact and the reason that made the decision.
//
// A policy comes from a TOML file ([Load], [Parse]), the built-in default
// ([Default]) and rules given on the command line ([Policy.WithRules]). A tool
// call reaches the package as an [Action]: a tool class (read, write, shell)
// plus the paths it touches or the command it runs. [Policy.Decide] turns the
// action into facts — every path, every simple command of a shell command
// (parsed with mvdan.cc/sh under both the POSIX and the bash dialect), every
// redirect target, background job and construct the analysis cannot read —
// and gives each fact the strictest decision of the rules that match it
// (deny > ask > allow), else the tool class fallback, else the default. The
// call's decision is its strictest fact.
//
// The package fails closed: anything it cannot fully read (a parse failure,
// an expansion, control flow, an unknown class) is never allowed. Some guards
// hold whatever the file says: paths outside the workspace need an absolute
// allow rule, paths with control characters are denied, and the policy file
// itself cannot be written.
//
// A [Policy] is immutable once built and safe for concurrent use. A [Session]
// adds the line-mode runner's approvals on top of it.
//
// The package knows nothing of the tools or the runner: callers translate
// their calls into an [Action] and the [Result] back into events.
package policy

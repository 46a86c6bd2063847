package policy

import (
	"strings"
)

// What lifts a refusal. A refused call either has narrow --allow rules
// that would let it through ([Policy.AllowRules]), or it says in words
// that no rule can, why, and what else there is.

// Alternatives a refusal no rule can lift names, where they exist.
const (
	altDefer    = "--on-ask defer lets a person approve it in a later run"
	altAllowAll = "--allow-all allows it inside the OS sandbox, for a disposable environment"
)

// remedy returns the sentence that ends a refusal no --allow rule can
// lift ("no rule can allow this: …"), or "" when every refused fact could
// be allowed by a rule (the caller then names those rules).
func remedy(facts []Fact, decided Fact) string {
	if decided.Decision == Allow {
		return ""
	}
	var stuck *Fact
	for i := range facts {
		if facts[i].Decision != Allow && allowSpec(facts[i]) == "" {
			stuck = &facts[i]
			break
		}
	}
	if stuck == nil {
		return ""
	}
	f := *stuck
	switch {
	case f.Rule == RuleOpaque:
		return "no rule can allow this: the analysis cannot fully read " + shorten(f.Value, 120) +
			", and no rule allows what it cannot read; write the command without it (a plain word for the " +
			"expansion, one call per step), or " + altDefer + ", or " + altAllowAll
	case f.Rule == RuleSecrets:
		return "no rule can allow this: the built-in secret denials refuse " + shorten(f.Value, 120) +
			" whatever the rules say (the grep tool leaves such files out of a search); read another file"
	case f.Rule == RuleGuard && strings.Contains(f.Reason, "no absolute allow rule names it"):
		return "no rule for the workspace can allow this: " + shorten(f.Value, 120) + " lies outside it, and only " +
			"an absolute allow rule naming it in the policy file does (which opens it to the agent)"
	case f.Rule == RuleGuard && f.Decision == Ask:
		return "no rule can allow this: " + f.Reason + " (a guard no policy loosens); " + altDefer
	case f.Rule == RuleGuard: // a denial: nobody can approve it either
		return "no rule can allow this: " + f.Reason + " (a guard no policy loosens, and no person can approve)"
	case f.Rule == RuleSessionDeny:
		return "no rule can allow this: a person denied it for the rest of the session"
	case f.Decision == Deny && !fallbackRule(f.Rule) && !strings.HasPrefix(f.Rule, "shell."):
		return "no --allow rule can allow this: rule " + f.Rule + " denies it, and a deny rule wins over every " +
			"allow, --allow-all included; change the policy file"
	case f.Rule == "shell.redirects":
		return "no rule can allow this: the policy's [shell] redirects = \"deny\" refuses every file redirect; " +
			"write the command without it"
	case f.Rule == "shell.background":
		return "no rule can allow this: the policy's [shell] background setting refuses jobs started with &; " +
			"run the command in the foreground"
	case f.Kind == FactRead || f.Kind == FactWrite:
		return "no single --allow rule can name this: " + shorten(f.Value, 120) + " stands for several paths (" +
			f.Reason + "); allow them in the policy file, or " + altDefer
	}
	return "no --allow rule can allow this: " + f.Reason + "; " + altDefer + ", or " + altAllowAll
}

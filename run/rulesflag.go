package run

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/rubichan/rubichan/policy"
	"github.com/urfave/cli/v2"
)

// ruleFlag returns the rules of --allow or --deny (name). Each flag value
// is one rule, never split on commas (a pattern may hold one), but a
// value holds one rule per line: RUBICHAN_ALLOW and RUBICHAN_DENY are
// one variable each, so several rules come in one value, one a line (a
// CI step's env: block writes them as a YAML block). Blank lines are
// skipped. A rule that looks like several joined by a comma
// ("write:src/**,shell:go test *") draws a warning on stderr: it is
// taken as one rule, which is rarely what was meant.
func ruleFlag(c *cli.Context, name string) []string {
	rules := splitRules(c.StringSlice(name))
	for _, rule := range rules {
		warnJoinedRule(c.App.ErrWriter, name, rule)
	}
	return rules
}

// splitRules returns the rules of the values of --allow or --deny: each
// non-blank line of each value, trimmed.
func splitRules(values []string) []string {
	var out []string
	for _, v := range values {
		for _, line := range strings.Split(v, "\n") {
			if rule := strings.TrimSpace(line); rule != "" {
				out = append(out, rule)
			}
		}
	}
	return out
}

// joinedRule finds ", CLASS:" after a rule's own class.
var joinedRule = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`,\s*([a-z]+)\s*:`) })

// warnJoinedRule warns when rule, given with --name, holds a comma
// followed by a tool class and a colon.
func warnJoinedRule(w io.Writer, name, rule string) {
	if w == nil {
		return
	}
	for _, m := range joinedRule().FindAllStringSubmatch(rule, -1) {
		if _, err := policy.ParseClass(m[1]); err == nil {
			fmt.Fprintf(w, "rubichan: warning: --%s (%s) %q looks like several rules joined by a comma: give one rule per line (in %s) or repeat --%s; it is taken as one rule\n",
				name, envName(name), rule, envName(name), name)
			return
		}
	}
}

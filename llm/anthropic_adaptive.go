package llm

import (
	"strconv"
	"strings"
)

// adaptiveThinking reports whether model takes thinking {"type":"adaptive"}
// (with output_config.effort) rather than the budget form: Claude 4.6 and
// later, and the Mythos models. On 4.6 the budget form is deprecated; the
// Claude 5 family and Opus 4.7 refuse it. A name without a version keeps
// the budget form, which every model before 4.6 needs.
//
// Model ids put the version after the family (claude-sonnet-4-6,
// claude-opus-5, us.anthropic.claude-opus-4-6-v1:0) or before it
// (claude-3-7-sonnet-20250219); the first number is the major version, the
// next one the minor, and an eight-digit date is not a version.
func adaptiveThinking(model string) bool {
	m := strings.ToLower(model)
	i := strings.LastIndex(m, "claude")
	if i < 0 {
		return false
	}
	m = m[i+len("claude"):]
	if strings.Contains(m, "mythos") {
		return true
	}
	major, minor := -1, 0
	for _, tok := range strings.FieldsFunc(m, func(r rune) bool { return r == '-' || r == '.' || r == ':' || r == '@' || r == '_' }) {
		n, err := strconv.Atoi(tok)
		if err != nil || len(tok) >= 8 {
			continue
		}
		if major < 0 {
			major = n
			continue
		}
		minor = n
		break
	}
	return major >= 5 || (major == 4 && minor >= 6)
}

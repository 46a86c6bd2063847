package mcp

import (
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/rubichan/rubichan/toolkit"
)

// minSecretLen is the shortest value treated as a secret: shorter ones
// ("1", "true") would wreck the text they are replaced in and protect
// nothing. The run's redactor has the same floor.
const minSecretLen = 8

// redactedMark replaces a secret in what this package reports.
const redactedMark = "[REDACTED]"

// Secrets returns the credentials the servers are configured with, as
// they are sent: the value of every header, with $NAME expanded (and its
// last word, the token of "Bearer TOKEN"), and the expanded value of every
// env entry that is a credential — its name looks like one
// ([toolkit.LooksSecret]: KEY, TOKEN, SECRET, PASSWORD, PASSWD or
// CREDENTIAL) or its value names a variable whose name does. A run hides
// them wherever it hides its key; a plain env value (a directory, a mode)
// stays visible. Values shorter than 8 bytes are left out.
func Secrets(servers []ServerConfig, opts Options) []string {
	var out []string
	add := func(v string) {
		if len(v) >= minSecretLen && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	environ := expandable(&opts)
	for _, s := range servers {
		for _, k := range sortedKeys(s.Headers) {
			v := expand(s.Headers[k], environ)
			add(v)
			if f := strings.Fields(v); len(f) > 1 {
				add(f[len(f)-1])
			}
		}
		for _, k := range sortedKeys(s.Env) {
			if toolkit.LooksSecret(k) || slices.ContainsFunc(referenced(s.Env[k]), toolkit.LooksSecret) {
				add(expand(s.Env[k], environ))
			}
		}
	}
	// A longer secret goes first, in case it contains a shorter one.
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// referenced lists the variables $NAME and ${NAME} in s names.
func referenced(s string) []string {
	var names []string
	os.Expand(s, func(name string) string {
		names = append(names, name)
		return ""
	})
	return names
}

// redactSecrets returns s with every secret replaced by [redactedMark].
func redactSecrets(s string, secrets []string) string {
	for _, sec := range secrets {
		s = strings.ReplaceAll(s, sec, redactedMark)
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

package run

import (
	"fmt"
	"github.com/rubichan/rubichan/run/exit"
	"strings"
)

// closest returns the candidate nearest to word by edit distance
// (insertions, deletions, substitutions and swaps of two neighbours each
// count one, as git's and Go's suggestions do), or "" when none is near
// enough: within a quarter of word's length, and at least one edit.
func closest(word string, candidates []string) string {
	best, bestD := "", max(1, len(word)/4)+1
	for _, c := range candidates {
		if d := editDistance(word, c); d < bestD && d > 0 {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance of a and b, on
// bytes (command and flag names are ASCII).
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// unknownCommandError is the usage error for a first word that names no
// command: a near command's name, opencode's `run` pointed to exec, or
// else the words as exec's prompt.
func unknownCommandError(words, commands []string) error {
	first := words[0]
	if first == "run" {
		prompt := strings.Join(words[1:], " ")
		if prompt == "" {
			prompt = "PROMPT"
		}
		return exit.Usagef("unknown command %q; to give the agent a task, run: rubichan exec %q", first, prompt)
	}
	if !strings.ContainsAny(first, " \t\n") {
		if c := closest(first, commands); c != "" {
			return exit.Usagef("unknown command %q; did you mean rubichan %s?", first, c)
		}
	}
	return exit.Usagef("unknown command %q; to give the agent a task, run: rubichan exec %q", first, first)
}

// flagSuggestion is the hint after "unknown flag": a near flag's name, or
// nothing; whole is a message that replaces "unknown flag" (-i's place).
func flagSuggestion(cmd, flag string, names []string) (hint string, whole bool) {
	name, _, _ := strings.Cut(strings.TrimLeft(flag, "-"), "=")
	if flag == "-i" || flag == "--interactive" {
		return fmt.Sprintf("%s is line mode, not a flag of %s: run rubichan -i (chat's flags go after it)", flag, cmd), true
	}
	var long []string
	for _, n := range names {
		if len(n) > 1 {
			long = append(long, n)
		}
	}
	if len(name) > 1 {
		if c := closest(name, long); c != "" {
			return "did you mean --" + c + "?", false
		}
	}
	return "", false
}

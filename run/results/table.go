package results

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
)

// WriteTable writes one line per task — its directory, status, exit code,
// turns, tool calls, denials, tokens in and out, cost and patch — then a
// total line and the tasks per exit code.
func WriteTable(w io.Writer, entries []Entry, s Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATUS\tEXIT\tTURNS\tTOOLS\tDENIALS\tIN\tOUT\tCOST\tPATCH")
	for _, e := range entries {
		r := e.Result
		if r == nil {
			fmt.Fprintf(tw, "%s\tno result (%s)\t-\t-\t-\t-\t-\t-\t-\t-\n", printable(e.Task), printable(e.Err.Error()))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", printable(e.Task), printable(r.Status), r.ExitCode, r.NumTurns,
			r.NumToolCalls, r.Denials, r.Usage.InputTokens, r.Usage.OutputTokens, cost(r.CostUSD), patchCell(e))
	}
	total := fmt.Sprintf("$%.4f", s.CostUSD)
	if s.CostUnknown > 0 {
		total += fmt.Sprintf(" (+%d unknown)", s.CostUnknown)
	}
	fmt.Fprintf(tw, "total %d\t\t\t\t\t\t%d\t%d\t%s\t%d\n", s.Tasks, s.Tokens.Input, s.Tokens.Output, total, s.Patches)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "by exit code: %s\n", byCode(s.ByExitCode))
	return err
}

// printable is s with its control characters (escape codes of a hostile
// result or directory name, tabs that would break the columns) quoted.
func printable(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

func cost(c *float64) string {
	if c == nil {
		return "?"
	}
	return fmt.Sprintf("$%.4f", *c)
}

func patchCell(e Entry) string {
	p := e.Result.Patch
	switch {
	case p == nil:
		return "-"
	case p.Partial:
		return files(p.Files) + " (partial)"
	}
	return files(p.Files)
}

func files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return strconv.Itoa(n) + " files"
}

// byCode lists the counts in the order of the codes ("none" last).
func byCode(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		na, errA := strconv.Atoi(a)
		nb, errB := strconv.Atoi(b)
		switch {
		case errA == nil && errB == nil:
			return na - nb
		case errA == nil:
			return -1
		case errB == nil:
			return 1
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

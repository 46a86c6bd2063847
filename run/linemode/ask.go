package linemode

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/fatih/color"
	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/toolkit"
)

// Rule names of a person's answers given once (y, n); "always" answers
// are the policy session's [policy.RuleSession] and [policy.RuleSessionDeny].
const (
	ruleTerminalAllow = "your answer"
	ruleTerminalDeny  = "your answer"
)

// ttyAsker asks a person at the terminal about a call the policy marks
// "ask": it shows the tool, its arguments in short and, for a write or an
// edit, the diff it would make, and reads the answer from the terminal
// (/dev/tty), whatever standard input is: one key where the terminal
// allows (Linux), else a line. Its colors are
// explicit [color.Color] values, on only when stderr is a terminal and
// NO_COLOR is unset.
type ttyAsker struct {
	tty       *os.File
	r         *bufio.Reader
	out       io.Writer
	ap        *harness.Approver
	add, del  *color.Color
	hunk, hdr *color.Color
}

func newTTYAsker(tty *os.File, out io.Writer, ap *harness.Approver, colors bool) *ttyAsker {
	a := &ttyAsker{tty: tty, r: bufio.NewReader(tty), out: out, ap: ap,
		add: color.New(color.FgGreen), del: color.New(color.FgRed), hunk: color.New(color.FgCyan), hdr: color.New(color.Bold)}
	for _, c := range []*color.Color{a.add, a.del, a.hunk, a.hdr} {
		if colors {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return a
}

// close closes the terminal; a nil ttyAsker does nothing.
func (a *ttyAsker) close() {
	if a != nil {
		a.tty.Close()
	}
}

// ask is the loop's [agent.Options.Ask]: it returns the agent.Verdict to act on.
// As a line, Enter alone is no; as a key it asks again. A Ctrl-C (the
// run's context ending) is no as well, and the loop then stops the run.
func (a *ttyAsker) ask(ctx context.Context, call llm.Block, eff toolkit.Effects, v agent.Verdict) agent.Verdict {
	a.hdr.Fprintf(a.out, "? %s: %s\n", agent.Shown(call.Name), sink.Whole(eff.Summary))
	fmt.Fprintf(a.out, "  needs approval: %s (rule %s", sink.Whole(v.Fact), agent.Shown(v.Rule))
	if v.Reason != "" {
		fmt.Fprintf(a.out, ": %s", agent.Shown(v.Reason))
	}
	fmt.Fprintln(a.out, ")")
	if d := harness.PreviewDiff(call, eff); d != "" {
		a.printDiff(d)
	}
	result, _ := v.Detail.(policy.Result) // the judge's policy result; zero for the runner's own verdicts
	always := a.ap.Session() != nil && policy.Approvable(result)
	prompt, choices := "allow? [y]es / [n]o › ", "y or n"
	if always {
		prompt, choices = "allow? [y]es / [n]o / [a]lways this exact one / [d]eny always › ", "y, n, a or d"
		a.printSessionFacts(result)
	}
	// Single keys from before the prompt is drawn to the answer: a key
	// pressed as the prompt appears is neither echoed by the terminal
	// nor lost to a mode switch.
	restore, keys := keyMode(int(a.tty.Fd()))
	if keys {
		defer restore()
	}
	for {
		fmt.Fprint(a.out, prompt)
		ans, err := a.readAnswer(ctx, keys)
		if err != nil {
			fmt.Fprintln(a.out)
			return refusedVerdict(v, ruleTerminalDeny, "you said no")
		}
		if verdict, ok := a.answer(ans, keys, always, result, v); ok {
			return verdict
		}
		switch {
		case keys && strings.TrimSpace(ans) == "":
			// Enter alone (or a key that shows nothing): ask again.
		case keys:
			fmt.Fprintf(a.out, "  answer %s\n", choices)
		default:
			fmt.Fprintf(a.out, "  answer %s, then Enter\n", choices)
		}
	}
}

// answer is the verdict of an answer, ok false when it is none: an
// unknown one, "a" or "d" where only yes or no is offered, or, with
// single keys, Enter alone (it asks again; as a line it is no).
func (a *ttyAsker) answer(ans string, keys, always bool, result policy.Result, v agent.Verdict) (agent.Verdict, bool) {
	switch strings.ToLower(strings.TrimSpace(ans)) {
	case "y", "yes":
		return agent.Verdict{Kind: agent.VerdictAllow, Rule: ruleTerminalAllow, Fact: v.Fact, Reason: "you said yes"}, true
	case "":
		if !keys {
			return refusedVerdict(v, ruleTerminalDeny, "you said no"), true
		}
	case "n", "no":
		return refusedVerdict(v, ruleTerminalDeny, "you said no"), true
	case "a", "always":
		if always && a.ap.Session().Approve(result) == nil {
			return agent.Verdict{Kind: agent.VerdictAllow, Rule: policy.RuleSession, Fact: v.Fact, Reason: "you said always, for this session"}, true
		}
	case "d", "deny":
		if always && a.ap.Session().DenyAlways(result) == nil {
			return refusedVerdict(v, policy.RuleSessionDeny, "you said deny always, for this session"), true
		}
	}
	return agent.Verdict{}, false
}

// printSessionFacts says what "always" and "deny always" would record
// when that is more than the one fact shown: each part of a compound
// command, answered on its own for the rest of the chat.
func (a *ttyAsker) printSessionFacts(r policy.Result) {
	facts := policy.SessionFacts(r)
	if len(facts) < 2 {
		return
	}
	fmt.Fprintln(a.out, "  always allows each of these on its own (deny always denies each):")
	for _, f := range facts {
		fmt.Fprintf(a.out, "    %s\n", sink.Whole(f.String()))
	}
}

// refusedVerdict is a person's no: the model is told, and not to retry.
func refusedVerdict(v agent.Verdict, rule, reason string) agent.Verdict {
	return agent.Verdict{Kind: agent.VerdictDeny, Rule: rule, Fact: v.Fact, Reason: reason,
		Message: fmt.Sprintf("The person at the terminal refused this call: %s. Do not retry it or a variant; "+
			"take another approach, or stop and ask them what they want.", v.Fact)}
}

// readAnswer reads one answer from the terminal, a key (shown after the
// prompt, then a new line) when keys is set, else a line; it gives up
// when ctx ends (Ctrl-C), the read then cut by a deadline. Ctrl-D is no
// answer: io.EOF.
func (a *ttyAsker) readAnswer(ctx context.Context, keys bool) (string, error) {
	stop := context.AfterFunc(ctx, func() { a.tty.SetReadDeadline(time.Now()) })
	defer a.tty.SetReadDeadline(time.Time{})
	var line string
	var err error
	if keys {
		line, err = a.readKey()
	} else {
		line, err = a.r.ReadString('\n')
	}
	stop()
	if ctx.Err() != nil {
		return "", context.Cause(ctx)
	}
	if err != nil && line == "" {
		return "", err
	}
	return line, nil
}

// readKey reads one key, the terminal in single-key mode (the asker puts
// it there before the prompt), and shows it: a printable key after the
// prompt, any other as the new line that ends the prompt.
func (a *ttyAsker) readKey() (string, error) {
	b, err := a.r.ReadByte()
	_, _ = a.r.Discard(a.r.Buffered()) // keys typed past the answer
	switch {
	case err != nil:
		return "", err
	case b == 4: // Ctrl-D
		return "", io.EOF
	case b > ' ' && b < 0x7f:
		fmt.Fprintf(a.out, "%c\n", b)
		return string(b), nil
	}
	fmt.Fprintln(a.out)
	return "", nil
}

// printDiff shows a unified diff, its lines colored by kind and their
// control characters shown ([shown]): the file and the new text are the
// workspace's and the model's.
func (a *ttyAsker) printDiff(d string) {
	for _, line := range strings.Split(strings.TrimRight(agent.Shown(d), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			a.hdr.Fprintln(a.out, "  "+line)
		case strings.HasPrefix(line, "@@"):
			a.hunk.Fprintln(a.out, "  "+line)
		case strings.HasPrefix(line, "+"):
			a.add.Fprintln(a.out, "  "+line)
		case strings.HasPrefix(line, "-"):
			a.del.Fprintln(a.out, "  "+line)
		default:
			fmt.Fprintln(a.out, "  "+line)
		}
	}
}

// askSeam asks on the chat's terminal through [agent.Asker].
type askSeam struct{ a *ttyAsker }

// Ask asks the person (see [ttyAsker.ask]).
func (s askSeam) Ask(ctx context.Context, call llm.Block, eff toolkit.Effects, v agent.Verdict) agent.Verdict {
	return s.a.ask(ctx, call, eff, v)
}

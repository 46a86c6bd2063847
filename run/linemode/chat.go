package linemode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/run/structured"
	"golang.org/x/term"
)

// Options is what line mode needs from the command that starts it: the
// streams, what was decided from the flags, and how to open the run's
// sinks and stack (the command layer's assembly, which line mode does
// not know).
type Options struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Person         bool        // stdin and stderr are terminals: [PersonPresent]
	Input          *Input      // the input [StartPrompt] returned; nil: Run makes one
	Interrupts     *Interrupts // nil: a SIGINT cancels ctx, also in line mode
	HistoryPath    string      // see [HistoryPath]; "": no history file
	Secrets        []string    // the run's secrets, which the history must not keep
	Colors         bool        // the approval question's colours
	JSON           *sink.JSON  // the result stream (--output json, stream-json); nil: text
	Timeout        time.Duration
	ModelLocked    bool   // --max-cost is priced at the chat's model: /model refuses
	Provider, API  string // the provider and its API type, for the session's run lines

	// NewSinks makes the chat's sinks writing on stderr (the line
	// editor's writer); observe sees every event after the sinks, and
	// stop learns a failed write on stdout.
	NewSinks func(stderr io.Writer, observe func(agent.Event), stop func(error)) *sink.Fan
	// Open opens the run ([harness.Open]) on fan: newAsker, given the run's
	// approver, returns the asker of calls that need approval (nil: none).
	// On an error it has closed what it opened.
	Open func(ctx context.Context, fan *sink.Fan, stderr io.Writer, newAsker func(*harness.Approver) agent.Asker) (*harness.Run, error)
	// CompactFor is the compaction of a model, for /model.
	CompactFor func(model string, emit func(agent.Event)) agent.Compact
	// StructuredPlan is how the run's provider is asked for a schema at a
	// model, for /schema; Dir is where /schema reads a schema file from,
	// SchemaRetries its --json-schema-retries.
	StructuredPlan func(s *structured.Schema, model string) structured.Plan
	Dir            string
	SchemaRetries  int
}

// StartPrompt shows the first prompt at once, for a person who will type
// the first line while the rest opens, and returns the input reading it;
// what is written meanwhile on the input's [Input.Writer] goes above the
// prompt. No raw terminal before main catches SIGTERM (intr says when):
// a signal's default action would leave it raw.
func StartPrompt(stdin io.Reader, stderr io.Writer, historyPath string, intr *Interrupts) *Input {
	in := newLineInput(stdin, stderr, true, historyPath, nil)
	intr.AwaitListening()
	in.next(Prompt)
	return in
}

// PersonPresent reports whether a person is at a terminal: standard
// input and standard error are both terminals.
func PersonPresent(stdin io.Reader, stderr io.Writer) bool {
	f, ok := stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && sink.IsTerminal(stderr)
}

// Run is line mode: the run's stack opened once, then a run per line
// until the input ends, /quit, or a second Ctrl-C at the prompt. It
// returns the last run's error, which gives the exit code.
func Run(ctx context.Context, o Options) error {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	red := agent.NewRedactor(o.Secrets)
	in := o.Input
	if in == nil {
		in = newLineInput(o.Stdin, o.Stderr, o.Person, o.HistoryPath, red)
	}
	in.know(red)
	defer in.Close()
	stderr := in.Writer(o.Stderr)
	edits := &editLog{}
	sinks := o.NewSinks(stderr, edits.observe, stop)
	defer sinks.Close()
	ask := &chatAsker{stderr: stderr, colors: o.Colors, person: o.Person}
	st, err := o.Open(ctx, sinks, stderr, ask.open)
	if err != nil {
		ask.tty.close()
		if o.JSON != nil {
			o.JSON.Finish(err, exit.Code(err))
		}
		return err
	}
	defer st.Close()
	if o.Person && o.JSON == nil {
		// What the person talks to, and where to look next.
		fmt.Fprintf(stderr, "rubichan · model %s · policy: %s · /help for commands\n", agent.Shown(st.Agent.Model()), agent.Shown(st.Policy.Name()))
	}
	o.Interrupts.AwaitListening() // before the first run writes on stdout (see Interrupts)
	c := newChat(o, st, sinks, in, stderr, ask.tty, edits)
	err = c.run(ctx)
	if cerr := c.close(); err == nil {
		err = cerr // the cassette could not be written
	}
	c.endChat(err)
	return err
}

// errChatEnd is how a chat ends at the end of its input (a pipe's end,
// Ctrl-D) or at /quit; errChatQuit is a second Ctrl-C, which also drops
// a message being typed.
var (
	errChatEnd  = errors.New("chat ended")
	errChatQuit = errors.New("chat quit")
)

// run reads and runs lines until the chat ends. A message the input's end
// cut short (inside a block) is still run; one a second Ctrl-C cut short
// is dropped.
func (c *chat) run(ctx context.Context) error {
	intr, release := c.o.Interrupts.claim()
	defer release()
	c.intr = intr
	if first := strings.TrimSpace(c.st.Input.Text); first != "" {
		c.runLine(ctx, first)
	}
	for ctx.Err() == nil {
		msg, err := c.readMessage(ctx)
		if errors.Is(err, errChatQuit) {
			break
		}
		if err != nil && !errors.Is(err, errChatEnd) {
			return err
		}
		if c.handle(ctx, msg) || err != nil {
			break
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return c.lastErr
}

// handle runs one message, or the command it is; it reports whether the
// chat ends (/quit).
func (c *chat) handle(ctx context.Context, msg string) bool {
	switch {
	case strings.TrimSpace(msg) == "":
		return false
	case strings.HasPrefix(msg, "/") && !strings.Contains(strings.TrimSpace(msg), "\n"):
		return c.command(ctx, strings.TrimSpace(msg))
	}
	c.runLine(ctx, msg)
	return false
}

// note writes a line of the chat's own on stderr (the commands' output),
// its control characters shown ([shown]): it may name tools, files and
// rules that come from servers, the workspace and the model.
func (c *chat) note(format string, args ...any) {
	io.WriteString(c.stderr, agent.Shown(fmt.Sprintf(format, args...))+"\n")
}

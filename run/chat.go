package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

const chatUsageText = `rubichan chat [flags] [PROMPT...]
   rubichan -i [flags] [PROMPT...]

   Line mode: the prompt, if given, is the first line; then each line you
   type (or each line of standard input) is one run of the agent, and the
   conversation goes on from one line to the next. A line ending in \ goes
   on on the next line; a line """ starts and ends a block. /help lists the
   commands. Ctrl-C stops the running turn; Ctrl-D ends the chat.`

const chatDescription = `Examples:
   rubichan -i
   rubichan chat --model claude-sonnet-4-5 "read the README and summarise it"
   printf 'list the Go files\nnow count their lines\n' | rubichan chat --allow 'shell:wc *'
   rubichan -i --continue

Limits: --max-turns, --timeout and --max-tool-calls apply to each line's run;
--max-cost and --max-tokens-total to the whole chat. At the end of input the
exit code is that of the last run.`

// chatCommand is `rubichan chat`, also reached as `rubichan -i`: exec's
// flags, the same loop, a line at a time.
func chatCommand(stdin io.Reader, env environment) *cli.Command {
	return &cli.Command{
		Name:        "chat",
		Usage:       "line mode: talk with the agent a line at a time (also: rubichan -i)",
		UsageText:   chatUsageText,
		Description: chatDescription,
		Flags:       execFlags(),
		Action: func(c *cli.Context) error {
			person := personPresent(stdin, c.App.ErrWriter)
			if person && !c.IsSet("trust-workspace") {
				// A person is there: the workspace's .rubichan/ files
				// are theirs to trust (DESIGN: workspace trust).
				_ = c.Set("trust-workspace", "true")
			}
			in := firstPrompt(c, stdin, env, person)
			cfg, err := configFromContext(c, env)
			if err == nil {
				err = cfg.checkChat()
			}
			if err != nil {
				in.close()
				return err
			}
			return runChat(c.Context, cfg, stdin, c.App.Writer, c.App.ErrWriter, env, person, in)
		},
	}
}

// firstPrompt shows the first prompt at once when a person will type the
// first line (no prompt in the arguments, text output), and returns the
// line input reading it: the configuration is read and the run's stack
// opened while the person types, what they say meanwhile goes above the
// prompt (c's error writer goes through the line editor from here on),
// and the line waits for them. Otherwise it returns nil.
func firstPrompt(c *cli.Context, stdin io.Reader, env environment, person bool) *lineInput {
	if !person || c.String("output") != outputText || strings.TrimSpace(strings.Join(c.Args().Slice(), " ")) != "" {
		return nil
	}
	in := newLineInput(stdin, c.App.ErrWriter, true, historyPath(env), nil)
	c.App.ErrWriter = in.writer(c.App.ErrWriter)
	// No raw terminal before main catches SIGTERM (it has by now, as a
	// rule): a signal's default action would leave it raw.
	env.interrupts.awaitListening()
	in.next(promptMain)
	runtime.Gosched() // let the read draw the prompt before the rest takes this thread
	return in
}

// personPresent reports whether a person is at a terminal: standard
// input and standard error are both terminals.
func personPresent(stdin io.Reader, stderr io.Writer) bool {
	f, ok := stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && isTerminal(stderr)
}

// checkChat refuses the exec flags that make no sense a line at a time.
func (cfg execConfig) checkChat() error {
	switch {
	case cfg.Patch != "":
		return usagef("chat: --patch is for one headless run; use rubichan exec --patch")
	case cfg.answering():
		return usagef("chat: --approve and --deny-pending answer a deferred run; use rubichan exec --resume")
	case cfg.Output == outputFinal:
		return usagef("chat: --output final is for one run; use text, json or stream-json")
	case cfg.LastMessage != "":
		return usagef("chat: --output-last-message is for one run; use rubichan exec -o FILE")
	case cfg.PromptFile != "":
		return usagef("chat: --prompt-file is for one run; give the first line as arguments")
	}
	return nil
}

// runChat is line mode: the run's stack opened once (policy, workspace,
// session, tools, loop, as exec opens it), then a run per line until the
// input ends, /quit, or a second Ctrl-C at the prompt. It returns the
// last run's error, which gives the exit code.
func runChat(ctx context.Context, cfg execConfig, stdin io.Reader, stdout, stderr io.Writer, env environment, person bool, in *lineInput) error {
	start := time.Now()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var js *jsonSink
	if cfg.Output == outputJSON || cfg.Output == outputStreamJSON {
		js = newJSONSink(newJSONShown(stdout), cfg.Output == outputStreamJSON, newSessionID(start), nil)
	}
	if cfg.OnAsk == "defer" {
		// A chat cannot leave a call open: the next line must find the
		// conversation valid.
		cfg.OnAsk = "deny"
	}
	cfg.chat = true
	red := newRedactor(cfg.secrets(env))
	if in == nil {
		in = newLineInput(stdin, stderr, person, historyPath(env), red)
	}
	in.know(red)
	defer in.close()
	stderr = in.writer(stderr)
	sinks := newRunSinks(cfg, js, stdout, stderr, env, stop)
	defer sinks.close()
	ask := &chatAsker{stderr: stderr, colors: colorEnabled(cfg.Color, true, env.LookupEnv), person: person}
	st, err := openStack(ctx, &cfg, stackInput{chat: true, start: start, newAsker: ask.open}, stdout, stderr, env, sinks)
	if err != nil {
		ask.tty.close()
		if js != nil {
			js.Finish(err, exitCode(err))
		}
		return err
	}
	defer st.close()
	if person && js == nil {
		// What the person talks to, and where to look next.
		fmt.Fprintf(stderr, "rubichan · model %s · policy: %s · /help for commands\n", shown(st.loop.Model()), shown(st.pol.Name()))
	}
	env.interrupts.awaitListening() // before the first run writes on stdout (see Interrupts)
	c := newChat(cfg, env, st, in, stdout, stderr, person, ask.tty)
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
	intr, release := c.env.interrupts.claim()
	defer release()
	c.intr = intr
	if first := strings.TrimSpace(c.st.in.Text); first != "" {
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
	io.WriteString(c.stderr, shown(fmt.Sprintf(format, args...))+"\n")
}

package run

import (
	"context"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/linemode"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/urfave/cli/v2"
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
// flags, the same loop, a line at a time (see [linemode]).
func chatCommand(stdin io.Reader, env environment) *cli.Command {
	return &cli.Command{
		Name:        "chat",
		Usage:       "line mode: talk with the agent a line at a time (also: rubichan -i)",
		UsageText:   chatUsageText,
		Description: chatDescription,
		Flags:       execFlags(),
		Action: func(c *cli.Context) error {
			person := linemode.PersonPresent(stdin, c.App.ErrWriter)
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
				in.Close()
				return err
			}
			return runChat(c.Context, cfg.forLineMode(), stdin, c.App.Writer, c.App.ErrWriter, env, person, in)
		},
	}
}

// firstPrompt shows the first prompt at once when a person will type the
// first line (no prompt in the arguments, text output), and returns the
// line input reading it: the configuration is read and the run's stack
// opened while the person types, what they say meanwhile goes above the
// prompt (c's error writer goes through the line editor from here on),
// and the line waits for them. Otherwise it returns nil.
func firstPrompt(c *cli.Context, stdin io.Reader, env environment, person bool) *linemode.Input {
	if !person || c.String("output") != outputText || strings.TrimSpace(strings.Join(c.Args().Slice(), " ")) != "" {
		return nil
	}
	in := linemode.StartPrompt(stdin, c.App.ErrWriter, linemode.HistoryPath(env.LookupEnv), env.interrupts)
	c.App.ErrWriter = in.Writer(c.App.ErrWriter)
	runtime.Gosched() // let the read draw the prompt before the rest takes this thread
	return in
}

// checkChat refuses the exec flags that make no sense a line at a time.
func (cfg execConfig) checkChat() error {
	switch {
	case cfg.Patch != "":
		return exit.Usagef("chat: --patch is for one headless run; use rubichan exec --patch")
	case cfg.answering():
		return exit.Usagef("chat: --approve and --deny-pending answer a deferred run; use rubichan exec --resume")
	case cfg.Output == outputFinal:
		return exit.Usagef("chat: --output final is for one run; use text, json or stream-json")
	case cfg.LastMessage != "":
		return exit.Usagef("chat: --output-last-message is for one run; use rubichan exec -o FILE")
	case cfg.PromptFile != "":
		return exit.Usagef("chat: --prompt-file is for one run; give the first line as arguments")
	}
	return nil
}

// forLineMode is cfg as line mode runs it, decided once before anything
// is opened: a chat cannot leave a call open (the next line must find
// the conversation valid), so "defer" asks are denied; and the approver
// keeps the person's session answers.
func (cfg execConfig) forLineMode() execConfig {
	if cfg.OnAsk == "defer" {
		cfg.OnAsk = "deny"
	}
	cfg.chat = true
	return cfg
}

// runChat is line mode ([linemode.Run]) over the run's stack, opened
// once as exec opens it (policy, workspace, session, tools, loop).
func runChat(ctx context.Context, cfg execConfig, stdin io.Reader, stdout, stderr io.Writer, env environment, person bool, in *linemode.Input) error {
	start := time.Now()
	s := cfg.settings()
	var js *sink.JSON
	if cfg.Output == outputJSON || cfg.Output == outputStreamJSON {
		js = sink.NewJSON(sink.NewJSONShown(stdout), cfg.Output == outputStreamJSON, sink.NewSessionID(start), nil)
	}
	// One trace per chat session: the session's run span, every line's
	// requests and tool calls under it, flushed when the chat ends.
	tel, endTelemetry := startTelemetry(ctx, cfg, env, stderr)
	defer endTelemetry()
	return linemode.Run(ctx, linemode.Options{
		Stdin: stdin, Stdout: stdout, Stderr: stderr, Person: person, Input: in, Interrupts: env.interrupts,
		HistoryPath: linemode.HistoryPath(env.LookupEnv), Secrets: s.Secrets(env.Env, s.Dir),
		Colors: sink.ColorEnabled(cfg.Color, true, env.LookupEnv), JSON: js, Timeout: s.Limits().Timeout,
		ModelLocked: s.Limits().MaxCost > 0, Provider: s.Provider.Name, API: s.Provider.Type,
		NewSinks: func(stderr io.Writer, observe func(agent.Event), stop func(error)) *sink.Fan {
			opt := cfg.sinkOptions(js, env, stop)
			opt.Observe = observe
			if tel != nil {
				opt.Observe = func(ev agent.Event) { observe(ev); tel.Observe(ev) }
			}
			return sink.New(stdout, stderr, opt)
		},
		Open: func(ctx context.Context, fan *sink.Fan, stderr io.Writer, newAsker func(*harness.Approver) agent.Asker) (*harness.Run, error) {
			return harness.Open(ctx, s, harness.OpenOptions{Stdout: stdout, Stderr: stderr, Env: env.Env, Sinks: fan,
				Start: start, Build: sinkBuild(), NewAsker: newAsker, Telemetry: tel})
		},
		CompactFor:     func(model string, emit func(agent.Event)) agent.Compact { return harness.CompactFor(s, model, emit) },
		StructuredPlan: s.StructuredPlan, Dir: s.Dir, SchemaRetries: s.JSONSchemaRetries,
	})
}

package linemode

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rubichan/rubichan/run/agent"
	"golang.org/x/term"
)

// The prompts of line mode, on stderr when a person types: Prompt for a
// message, promptMore for the lines that go on with it.
const (
	Prompt     = "› "
	promptMore = "… "
)

// errCtrlC is a Ctrl-C typed at the prompt of a terminal in raw mode,
// where it is a key, not a signal.
var errCtrlC = errors.New("ctrl-c")

// errInputClosed is a read asked for after the chat gave the terminal
// back.
var errInputClosed = errors.New("line input closed")

// lineResult is one line read: its text without the newline, whether it
// came in a bracketed paste, or why there is none.
type lineResult struct {
	line   string
	pasted bool
	err    error
}

// Input reads the chat's lines: on a terminal with golang.org/x/term's
// line editor (history, bracketed paste), else plain lines from the pipe or
// file, with no prompt, no echo and no escape codes. A line is read only
// when the chat asks for one, in a goroutine of its own, so that Ctrl-C
// at the prompt is seen while the read blocks; a read left waiting is
// taken up by the next request.
type Input struct {
	plain   *bufio.Reader // nil on a terminal
	term    *term.Terminal
	fd      int
	keys    *ctrlCReader
	out     io.Writer
	mu      sync.Mutex
	raw     *term.State // the terminal's state before raw mode, while a read has it raw
	closed  bool        // close gave the terminal back: no read may take it again
	hist    *history
	pending chan lineResult
}

// newLineInput reads stdin as a person's terminal (person) or as plain
// lines. red is the run's secrets, which history lines must not hold;
// when nil (the prompt shows before they are known), a line entered waits
// for [Input.know].
func newLineInput(stdin io.Reader, stderr io.Writer, person bool, histPath string, red *agent.Redactor) *Input {
	in := &Input{}
	f, isFile := stdin.(*os.File)
	if !person || !isFile {
		in.plain = bufio.NewReader(stdin)
		return in
	}
	in.fd = int(f.Fd())
	in.keys = &ctrlCReader{r: f}
	in.out = stderr
	in.hist = loadHistory(histPath, red)
	in.newTerminal()
	return in
}

// newTerminal starts a line editor. After a Ctrl-C the editor is made
// anew: x/term's keeps the Ctrl-C among its unread keys and would end the
// next line with it again; the line being typed is dropped, as a shell
// drops it.
func (in *Input) newTerminal() {
	in.term = term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{in.keys, in.out}, Prompt)
	in.term.History = in.hist
	in.term.SetBracketedPasteMode(true)
}

// close turns bracketed paste off again and gives the terminal back as
// it was, also when the chat ends while a read has it in raw mode (a
// stack that failed to open under the first prompt): the prompt is
// erased then, so that what follows starts a clean line.
func (in *Input) Close() {
	if in == nil || in.plain != nil {
		return
	}
	in.hist.know(nil, false) // a chat that ended before knowing its secrets writes no history
	in.mu.Lock()
	defer in.mu.Unlock()
	in.closed = true
	if in.raw != nil {
		io.WriteString(in.out, "\r\x1b[K")
	}
	io.WriteString(in.out, "\x1b[?2004l")
	if in.raw != nil {
		term.Restore(in.fd, in.raw)
		in.raw = nil
	}
}

// know gives the history the run's secrets, once they are known.
func (in *Input) know(red *agent.Redactor) {
	if in.hist != nil {
		in.hist.know(red, true)
	}
}

// writer returns w (the chat's stderr) for what the chat writes while a
// line may be being typed: while the line editor has the terminal, a
// write goes through it, which puts the text above the prompt and the
// line typed so far and draws them again (in raw mode a bare newline
// would not return the cursor). Otherwise it goes to w as it is.
func (in *Input) Writer(w io.Writer) io.Writer {
	if pw, ok := w.(*promptWriter); in.plain != nil || ok && pw.in == in {
		return w
	}
	return &promptWriter{in: in, w: w}
}

// promptWriter is [Input.writer]'s writer.
type promptWriter struct {
	in *Input
	w  io.Writer
}

func (p *promptWriter) Write(b []byte) (int, error) {
	p.in.mu.Lock()
	defer p.in.mu.Unlock()
	if p.in.raw != nil {
		return p.in.term.Write(b)
	}
	return p.w.Write(b)
}

// Fd is that of the writer beneath, so that whether it is a terminal can
// be told (^uintptr(0), no file, when it has none).
func (p *promptWriter) Fd() uintptr {
	if f, ok := p.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// next starts reading a line, unless a read is under way, and returns the
// channel its result comes on; the caller calls done once it took it.
func (in *Input) next(prompt string) <-chan lineResult {
	if in.pending == nil {
		ch := make(chan lineResult, 1)
		in.pending = ch
		go func() { ch <- in.read(prompt) }()
	}
	return in.pending
}

// done says the pending read's result was taken.
func (in *Input) done() { in.pending = nil }

func (in *Input) read(prompt string) lineResult {
	if in.plain != nil {
		line, err := in.plain.ReadString('\n')
		if err == io.EOF && line != "" {
			err = nil // the last line had no newline
		}
		return lineResult{line: strings.TrimRight(line, "\r\n"), err: err}
	}
	if err := in.makeRaw(); err != nil {
		return lineResult{err: err}
	}
	defer in.restore()
	in.term.SetPrompt(prompt)
	in.keys.seen = false
	line, err := in.term.ReadLine()
	switch {
	case errors.Is(err, term.ErrPasteIndicator):
		return lineResult{line: line, pasted: true}
	case err == io.EOF && in.keys.seen:
		in.mu.Lock() // promptWriter uses the editor under the lock
		// What was typed is dropped: so is its line on the screen,
		// and the notice that follows starts a clean line.
		io.WriteString(in.out, "\r\x1b[K")
		in.newTerminal()
		in.mu.Unlock()
		return lineResult{err: errCtrlC}
	}
	return lineResult{line: line, err: err}
}

// makeRaw puts the terminal in raw mode for the line editor.
func (in *Input) makeRaw() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return errInputClosed
	}
	old, err := term.MakeRaw(in.fd)
	in.raw = old
	return err
}

// restore gives the terminal its state from before makeRaw.
func (in *Input) restore() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.raw != nil {
		term.Restore(in.fd, in.raw)
		in.raw = nil
	}
}

// ctrlCReader notes a Ctrl-C among the keys read: x/term's editor ends
// the line with io.EOF for it as for Ctrl-D.
type ctrlCReader struct {
	r    io.Reader
	seen bool
}

func (c *ctrlCReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if bytes.IndexByte(p[:n], 3) >= 0 {
		c.seen = true
	}
	return n, err
}

// readLine waits for a line, handling Ctrl-C at the prompt: the first
// prints a hint, a second one quits the chat (errChatQuit, status 0).
// Ctrl-D and the end of the input end it too (errChatEnd), but what a
// message had so far is still sent then.
func (c *chat) readLine(ctx context.Context, prompt string) (lineResult, error) {
	interrupts := 0
	atPrompt := func() bool {
		interrupts++
		if interrupts >= 2 {
			c.lastErr = nil
			return true
		}
		if prompt == promptMore {
			c.note("(press Ctrl-C again to quit without sending; Ctrl-D sends what you typed)")
		} else {
			c.note("(press Ctrl-C again or Ctrl-D to quit)")
		}
		return false
	}
	for {
		select {
		case r := <-c.in.next(prompt):
			c.in.done()
			switch {
			case errors.Is(r.err, errCtrlC):
				if atPrompt() {
					return r, errChatQuit
				}
				continue
			case r.err == io.EOF:
				return r, errChatEnd
			}
			return r, r.err
		case <-c.intr:
			if atPrompt() {
				return lineResult{}, errChatQuit
			}
		case <-ctx.Done():
			return lineResult{}, context.Cause(ctx)
		}
	}
}

// readMessage reads one message: a line; a line ending in \ and the ones
// that go on from it; a block between two """ lines; or a pasted block
// with the line typed after it. When the input ends inside one, what came
// is returned with errChatEnd; a second Ctrl-C returns errChatQuit and
// no message.
func (c *chat) readMessage(ctx context.Context) (string, error) {
	r, err := c.readLine(ctx, Prompt)
	if err != nil {
		return "", err
	}
	var lines []string
	switch {
	case r.pasted:
		lines = append(lines, r.line)
		for r.pasted && err == nil {
			r, err = c.readLine(ctx, promptMore)
			lines = append(lines, r.line)
		}
	case strings.TrimSpace(r.line) == `"""`:
		for {
			r, err = c.readLine(ctx, promptMore)
			if err != nil || strings.TrimSpace(r.line) == `"""` {
				break
			}
			lines = append(lines, r.line)
		}
	default:
		for err == nil && strings.HasSuffix(r.line, `\`) {
			lines = append(lines, strings.TrimSuffix(r.line, `\`))
			r, err = c.readLine(ctx, promptMore)
		}
		lines = append(lines, r.line)
	}
	if err != nil && !errors.Is(err, errChatEnd) {
		// A second Ctrl-C inside a block quits: nothing is sent.
		return "", err
	}
	// The input may end inside a block (the end of a pipe, Ctrl-D):
	// what came is still the message, and the chat ends after it.
	return strings.Join(lines, "\n"), err
}

// HistoryPath is $XDG_STATE_HOME/rubichan/history, or
// ~/.local/state/rubichan/history; "" when neither is known.
func HistoryPath(lookupEnv func(string) (string, bool)) string {
	if d, ok := lookupEnv("XDG_STATE_HOME"); ok && filepath.IsAbs(d) {
		return filepath.Join(d, "rubichan", "history")
	}
	if h, ok := lookupEnv("HOME"); ok && h != "" {
		return filepath.Join(h, ".local", "state", "rubichan", "history")
	}
	return ""
}

package input

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rubichan/rubichan/run/exit"
)

// Input defaults.
const (
	defaultInlineMax  = 256 << 10       // stdin above this is spilled to a file
	defaultStdinMax   = 10 << 30        // stdin above this stops the run
	defaultStdinWait  = 3 * time.Second // silence before the "waiting for stdin" notice
	maxPromptFileSize = 1 << 20         // a --prompt-file larger than this is refused
)

// Options says where the task comes from.
type Options struct {
	Args       []string // prompt words; a single "-" means "the prompt is stdin"
	PromptFile string   // read the prompt from this file
	NoStdin    bool     // never read stdin
	InlineMax  int64    // stdin above this many bytes is spilled; 0: defaultInlineMax
	// StdinMax is the most stdin read; more is a usage error. 0 means
	// defaultStdinMax. A spill is also held to the free space of its
	// file system less a margin (see spillCap).
	StdinMax int64
	Wait     time.Duration // notice after this much stdin silence; 0: defaultStdinWait
	TempDir  string        // parent of the spill directory; "": os.TempDir
	// Notice receives one-line notes for stderr (the "waiting for stdin"
	// message). It may be called from another goroutine.
	Notice func(string)
	// OnSpillDir, when set, learns the spill directory as soon as it is
	// created; if it returns false the spill is abandoned and removed.
	OnSpillDir func(dir string) bool
	// Optional says a run may have no prompt at all (a resumed run that
	// answers deferred calls): no input is then an empty Text.
	Optional bool
}

// Input is the first user message of a run and the spilled stdin file, if any.
type Input struct {
	Text  string
	Spill *Spill // nil unless stdin was too large to inline
}

// Close removes the spilled stdin file, if any.
func (in *Input) Close() error {
	if in.Spill == nil {
		return nil
	}
	return in.Spill.Remove()
}

// StdinUsable reports whether r is standard input worth reading: a pipe or
// a regular file, never a terminal or /dev/null. A reader that is not a
// file (a test buffer) counts as a pipe; nil does not.
func StdinUsable(r io.Reader) bool {
	if r == nil {
		return false
	}
	st, ok := r.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return true
	}
	fi, err := st.Stat()
	if err != nil {
		return false
	}
	m := fi.Mode()
	return m&fs.ModeNamedPipe != 0 || m.IsRegular()
}

// Read assembles the first user message from the prompt (arguments,
// --prompt-file or "-") and standard input. With both, stdin comes first as
// a <stdin> block; with stdin alone it is the prompt; with neither, it is a
// usage error. Stdin above the inline limit is streamed to a private file
// and described instead of included; the caller must Close the result.
func Read(stdin io.Reader, opt Options) (*Input, error) {
	if opt.InlineMax <= 0 {
		opt.InlineMax = defaultInlineMax
	}
	if opt.Wait <= 0 {
		opt.Wait = defaultStdinWait
	}
	if opt.StdinMax <= 0 {
		opt.StdinMax = defaultStdinMax
	}
	prompt, fromStdin, err := promptText(opt)
	if err != nil {
		return nil, err
	}
	useStdin := !opt.NoStdin && StdinUsable(stdin)
	if fromStdin && !useStdin {
		if opt.NoStdin {
			return nil, exit.Usagef(`the prompt "-" means standard input, but --no-stdin was given`)
		}
		return nil, exit.Usagef(`the prompt "-" means standard input, but stdin is not a pipe or a file`)
	}

	in := &Input{}
	var data string
	if useStdin {
		r := stdin
		if prompt != "" {
			r = newWaitNotifier(stdin, opt.Wait, opt.Notice)
		}
		data, in.Spill, err = readStdin(r, opt)
		if c, ok := r.(*waitNotifier); ok {
			c.stop()
		}
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(data) == "" {
			// Blank stdin (`printf '\n' | rubichan exec`) is no input:
			// as the prompt, every provider would reject it.
			data = ""
		}
	}

	switch {
	case in.Spill != nil && prompt != "":
		in.Text = in.Spill.describe() + "\n\n" + prompt
	case in.Spill != nil:
		in.Text = in.Spill.describe()
	case data != "" && prompt != "":
		in.Text = "<stdin>\n" + withNewline(data) + "</stdin>\n\n" + prompt
	case data != "":
		in.Text = data
	case prompt != "":
		in.Text = prompt
	case fromStdin:
		return nil, exit.Usagef(`the prompt "-" means standard input, but stdin was empty or blank`)
	case opt.Optional:
		return in, nil
	default:
		return nil, exit.Usagef(`no prompt: give it as arguments, with --prompt-file, or on standard input`)
	}
	return in, nil
}

// ReadContext is [Read] that gives up when ctx ends, with ctx's cause: a
// read from a pipe cannot be interrupted, so it runs aside, and a spill
// directory it created is removed when the run does not wait for it.
func ReadContext(ctx context.Context, stdin io.Reader, opt Options) (*Input, error) {
	var mu sync.Mutex
	var spillDir string
	abandoned := false
	opt.OnSpillDir = func(dir string) bool {
		mu.Lock()
		defer mu.Unlock()
		spillDir = dir
		return !abandoned
	}
	type result struct {
		in  *Input
		err error
	}
	done := make(chan result, 1)
	go func() {
		in, err := Read(stdin, opt)
		done <- result{in, err}
	}()
	select {
	case r := <-done:
		return r.in, r.err
	case <-ctx.Done():
		mu.Lock()
		abandoned = true
		if spillDir != "" {
			os.RemoveAll(spillDir)
		}
		mu.Unlock()
		return nil, context.Cause(ctx)
	}
}

// promptText returns the prompt from the arguments or --prompt-file, and
// whether the prompt is stdin itself ("-").
func promptText(opt Options) (prompt string, fromStdin bool, err error) {
	args := strings.TrimSpace(strings.Join(opt.Args, " "))
	if len(opt.Args) == 1 && opt.Args[0] == "-" {
		if opt.PromptFile != "" {
			return "", false, exit.Usagef(`give the prompt either as "-" or with --prompt-file, not both`)
		}
		return "", true, nil
	}
	for _, a := range opt.Args {
		if a == "-" {
			return "", false, exit.Usagef(`"-" (the prompt is stdin) must be the only prompt word`)
		}
	}
	if opt.PromptFile == "" {
		return args, false, nil
	}
	if args != "" {
		return "", false, exit.Usagef("give the prompt either as arguments or with --prompt-file, not both")
	}
	b, err := readPromptFile(opt.PromptFile)
	if err != nil {
		return "", false, err
	}
	prompt = strings.TrimSpace(b)
	if prompt == "" {
		// Most likely a step before failed to write it; stdin alone is
		// not meant to become the task.
		return "", false, exit.Usagef("--prompt-file %s is empty", opt.PromptFile)
	}
	return prompt, false, nil
}

func readPromptFile(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", exit.Usagef("--prompt-file: %v", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPromptFileSize+1))
	if err != nil {
		return "", exit.Usagef("--prompt-file: %v", err)
	}
	if len(b) > maxPromptFileSize {
		return "", exit.Usagef("--prompt-file %s is larger than %d bytes; pipe it on stdin instead", name, maxPromptFileSize)
	}
	return string(b), nil
}

// readStdin reads r whole when it fits in inlineMax bytes; otherwise it
// streams all of it to a spill file and returns that instead.
func readStdin(r io.Reader, opt Options) (string, *Spill, error) {
	head, err := io.ReadAll(io.LimitReader(r, opt.InlineMax+1))
	if err != nil {
		return "", nil, fmt.Errorf("run: read stdin: %w", err)
	}
	if int64(len(head)) > opt.StdinMax {
		return "", nil, stdinTooLarge(opt.StdinMax, false)
	}
	if int64(len(head)) <= opt.InlineMax {
		return string(head), nil, nil
	}
	s, err := spillStdin(head, r, opt.TempDir, opt.StdinMax, opt.OnSpillDir)
	if err != nil {
		return "", nil, err
	}
	return "", s, nil
}

// waitNotifier wraps stdin and calls notice once if the first Read has not
// returned after a delay, so a prompt given as an argument with an idle pipe
// on stdin says why rubichan waits instead of hanging silently.
type waitNotifier struct {
	r     io.Reader
	timer *time.Timer
	once  sync.Once
}

func newWaitNotifier(r io.Reader, wait time.Duration, notice func(string)) *waitNotifier {
	w := &waitNotifier{r: r}
	if notice != nil {
		w.timer = time.AfterFunc(wait, func() {
			notice(fmt.Sprintf("waiting for standard input (nothing after %s); pass --no-stdin to run without it", wait))
		})
	}
	return w
}

func (w *waitNotifier) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 || err != nil {
		w.stop()
	}
	return n, err
}

func (w *waitNotifier) stop() {
	w.once.Do(func() {
		if w.timer != nil {
			w.timer.Stop()
		}
	})
}

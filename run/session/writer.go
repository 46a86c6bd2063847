package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// RedactedMark replaces a secret wherever a session records text.
const RedactedMark = "[REDACTED]"

// Writer appends lines to one session file. Each line goes to the file in
// one write, so a crash loses at most the line being written; after a
// failed write the file is cut back to its last whole line and the writer
// stops with one warning. It holds an exclusive lock on the file (see
// [ErrInUse]) until [Writer.Close].
//
// Every string it writes passes through its secrets: their values never
// reach the file. A Writer is not safe for concurrent use.
type Writer struct {
	f       *os.File
	path    string
	warn    io.Writer
	secrets []string

	size   int64 // bytes of whole lines in the file
	failed bool
	buf    bytes.Buffer
}

// Options say what a [Writer] hides and where it warns.
type Options struct {
	// Secrets are replaced by [RedactedMark]; the caller filters out
	// values too short to be secrets and puts longer ones first.
	Secrets []string
	Warn    io.Writer // nil: io.Discard
}

// Create creates the session file path, which must not exist (an error
// wrapping [fs.ErrExist] if it does), and locks it.
func Create(path string, opt Options) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("session: lock %s: %w", path, err)
	}
	return newWriter(f, path, 0, opt), nil
}

// Append opens the existing session file path to add a run to it. It
// fails at once with an [*InUseError] when another process holds the
// file. A torn last line (a killed writer) is cut off first, so that the
// next line starts on a line of its own.
func Append(path string, opt Options) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, &InUseError{Path: path, PID: lastPID(path)}
		}
		return nil, fmt.Errorf("session: lock %s: %w", path, err)
	}
	size, err := wholeSize(f)
	if err == nil {
		err = f.Truncate(size)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("session: %s: %w", path, err)
	}
	return newWriter(f, path, size, opt), nil
}

func newWriter(f *os.File, path string, size int64, opt Options) *Writer {
	w := &Writer{f: f, path: path, warn: opt.Warn, size: size}
	if w.warn == nil {
		w.warn = io.Discard
	}
	for _, s := range opt.Secrets {
		if s != "" {
			w.secrets = append(w.secrets, s)
		}
	}
	return w
}

// wholeSize returns the length of f up to and including its last newline.
func wholeSize(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	end := fi.Size()
	var buf [4096]byte
	for end > 0 {
		n := int64(len(buf))
		if n > end {
			n = end
		}
		if _, err := f.ReadAt(buf[:n], end-n); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// InUseError says another process holds a session file.
type InUseError struct {
	Path string
	PID  int // 0 when unknown
}

// Error says which session is in use, and by which process when known.
func (e *InUseError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("session %s is in use by PID %d", e.Path, e.PID)
	}
	return fmt.Sprintf("session %s is in use by another process", e.Path)
}

// Path returns the file's path.
func (w *Writer) Path() string { return w.path }

// Failed reports whether a write failed and the writer stopped.
func (w *Writer) Failed() bool { return w.failed }

// Write appends one line. Its secrets are replaced first; a line that
// still holds one in a form that could not be cut out (across a JSON
// escape) is replaced by a line saying so.
func (w *Writer) Write(l *Line) {
	if w.failed || w.f == nil {
		return
	}
	line, err := w.encode(l)
	if err != nil {
		w.fail(err)
		return
	}
	n, err := w.f.Write(line)
	if err != nil {
		if n > 0 {
			w.f.Truncate(w.size)
		}
		w.fail(err)
		return
	}
	w.size += int64(n)
}

// WriteRaw appends whole lines as they are, in one write: the lines of a
// session being copied (--fork), which were redacted when first written.
func (w *Writer) WriteRaw(lines []byte) error {
	if w.failed || w.f == nil {
		return errors.New("session: not writable")
	}
	if len(lines) == 0 {
		return nil
	}
	if lines[len(lines)-1] != '\n' {
		return errors.New("session: a raw write must end a line")
	}
	n, err := w.f.Write(lines)
	if err != nil {
		if n > 0 {
			w.f.Truncate(w.size)
		}
		w.fail(err)
		return err
	}
	w.size += int64(n)
	return nil
}

// Sync flushes the file to disk; a failure stops the writer.
func (w *Writer) Sync() error {
	if w.failed || w.f == nil {
		return errors.New("session: not written")
	}
	if err := w.f.Sync(); err != nil {
		w.fail(err)
		return err
	}
	return nil
}

// Close syncs and closes the file and releases its lock.
func (w *Writer) Close() error {
	if w == nil || w.f == nil {
		return nil
	}
	f := w.f
	w.f = nil
	serr := f.Sync()
	if err := f.Close(); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if serr != nil {
		return fmt.Errorf("session: %w", serr)
	}
	return nil
}

// File returns the open file, for tests that make it fail.
func (w *Writer) File() *os.File { return w.f }

func (w *Writer) fail(err error) {
	w.failed = true
	fmt.Fprintf(w.warn, "rubichan: warning: session log %s is incomplete: %v\n", w.path, err)
}

// encode renders one line as JSON with its secrets replaced.
func (w *Writer) encode(l *Line) ([]byte, error) {
	w.capInput(l)
	w.redactLine(l)
	l.capFields()
	w.buf.Reset()
	enc := json.NewEncoder(&w.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		return nil, fmt.Errorf("session: encode %s line: %w", l.Type, err)
	}
	for _, sec := range w.secrets {
		if bytes.Contains(w.buf.Bytes(), []byte(sec)) {
			w.buf.Reset()
			enc.Encode(Line{Type: l.Type, Time: l.Time, Turn: l.Turn, Redacted: "the line held a secret in a form that could not be cut out"})
			break
		}
	}
	return w.buf.Bytes(), nil
}

// capInput cuts a tool call's input over [InputMax], after removing the
// secrets from it as text (a secret across the cut would otherwise leave
// its start in the line).
func (w *Writer) capInput(l *Line) {
	if raw, ok := l.Input.(json.RawMessage); ok && len(raw) > InputMax {
		str := w.redact(string(raw))
		l.cutField("input", &str, InputMax)
		if l.Truncated != nil {
			l.Truncated["input"] = len(raw) // as the model sent it
		}
		l.Input = str
	}
}

// redactLine replaces the secrets in every string of l.
func (w *Writer) redactLine(l *Line) {
	if l.Input != nil {
		// Decoded even with no secrets: malformed raw JSON becomes a string.
		l.Input = w.redactValue(l.Input)
	}
	if len(w.secrets) == 0 {
		return
	}
	for _, p := range []*string{&l.Workspace, &l.Policy, &l.PolicyFile, &l.ID, &l.Name, &l.Decision, &l.Rule, &l.Fact, &l.Reason, &l.Diff, &l.Error} {
		*p = w.redact(*p)
	}
	for _, p := range []*string{l.Prompt, l.Output, l.Text} {
		if p != nil {
			*p = w.redact(*p)
		}
	}
	for i, c := range l.Changed {
		l.Changed[i] = w.redact(c)
	}
	for i := range l.Parts {
		l.Parts[i].Text = w.redact(l.Parts[i].Text)
	}
	for i := range l.Content {
		w.redactBlock(&l.Content[i])
	}
	for i := range l.Pending {
		p := &l.Pending[i]
		p.Fact, p.Rule, p.Diff = w.redact(p.Fact), w.redact(p.Rule), w.redact(p.Diff)
		if p.Facts != nil {
			facts := make([]PendingFact, len(p.Facts))
			for j, f := range p.Facts {
				facts[j] = PendingFact{Fact: w.redact(f.Fact), Rule: w.redact(f.Rule)}
			}
			p.Facts = facts
		}
		p.Input = w.redactRaw(p.Input)
	}
}

func (w *Writer) redactBlock(b *Block) {
	b.Text, b.Name, b.ID, b.ToolUseID = w.redact(b.Text), w.redact(b.Name), w.redact(b.ID), w.redact(b.ToolUseID)
	if b.Content != nil {
		b.Content = Ptr(w.redact(*b.Content))
	}
	b.Input = w.redactRaw(b.Input)
}

// redactRaw keeps raw JSON byte for byte unless a secret shows in it,
// plain or escaped.
func (w *Writer) redactRaw(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || len(w.secrets) == 0 {
		return raw
	}
	if !w.holds(string(raw)) && !bytes.Contains(raw, []byte(`\`)) {
		return raw
	}
	var plain any
	if json.Unmarshal(raw, &plain) != nil {
		b, _ := json.Marshal(w.redact(string(raw)))
		return b
	}
	before, _ := json.Marshal(plain)
	after, err := json.Marshal(w.redactValue(raw))
	if err != nil {
		return json.RawMessage(`{}`)
	}
	if bytes.Equal(before, after) {
		return raw
	}
	return after
}

func (w *Writer) holds(s string) bool {
	for _, sec := range w.secrets {
		if strings.Contains(s, sec) {
			return true
		}
	}
	return false
}

func (w *Writer) redact(s string) string {
	for _, sec := range w.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, RedactedMark)
		}
	}
	return s
}

// redactValue returns a decoded JSON value with every secret in its
// strings and keys replaced. Raw JSON is decoded first; raw bytes that are
// not JSON (a malformed tool call) become a string.
func (w *Writer) redactValue(v any) any {
	switch v := v.(type) {
	case string:
		return w.redact(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = w.redactValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[w.redact(k)] = w.redactValue(e)
		}
		return out
	case json.RawMessage:
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		var dv any
		if err := d.Decode(&dv); err != nil || d.More() {
			return w.redact(string(v))
		}
		return w.redactValue(dv)
	default:
		return v
	}
}

// isExist reports whether err says a file exists.
func isExist(err error) bool { return errors.Is(err, fs.ErrExist) }

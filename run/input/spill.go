package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rubichan/rubichan/run/exit"
)

// Preview sizes of a spilled stdin.
const (
	previewLines = 20
	previewBytes = 2 << 10
)

// Spill is standard input too large to give the model inline, streamed to a
// file in a private temporary directory. The model gets its size, a head and
// a tail preview and its path, which the file tools may read.
type Spill struct {
	Dir   string // the private directory, opened as a read-only extra root
	Path  string // the file inside Dir
	Size  int64  // bytes
	Lines int64  // newline-terminated lines, plus a final unterminated one
	head  string
	tail  string
}

// spillStdin writes head and then the rest of r to a new file in a private
// directory under tempDir, never holding more than a small buffer of r in
// memory. onDir, if set, learns the directory at once and may abandon the
// spill. On error nothing is left behind.
//
// At most limit bytes are taken, fewer when the file system has less free
// space (see spillCap); past that the spill fails with a usage error and is
// removed.
func spillStdin(head []byte, r io.Reader, tempDir string, limit int64, onDir func(string) bool) (s *Spill, err error) {
	dir, err := os.MkdirTemp(tempDir, "rubichan-stdin-")
	if err != nil {
		return nil, fmt.Errorf("run: spill stdin: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	if onDir != nil && !onDir(dir) {
		return nil, errors.New("run: spill stdin: abandoned")
	}
	path := filepath.Join(dir, "stdin.txt")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("run: spill stdin: %w", err)
	}
	limit, byDisk := spillCap(dir, limit)
	st := &spillStats{}
	w := io.MultiWriter(f, st)
	if _, err = w.Write(head); err == nil {
		var n int64
		n, err = io.Copy(w, io.LimitReader(r, limit-int64(len(head))+1))
		if err == nil && int64(len(head))+n > limit {
			err = stdinTooLarge(limit, byDisk)
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	var ue exit.UsageError
	if err != nil && !errors.As(err, &ue) {
		return nil, fmt.Errorf("run: spill stdin: %w", err)
	}
	if err != nil {
		return nil, err
	}
	s = &Spill{Dir: dir, Path: path, Size: st.size, Lines: st.lines}
	if st.size > 0 && st.last != '\n' {
		s.Lines++
	}
	s.head = headLines(head)
	s.tail = tailLines(st.tail())
	return s, nil
}

// Remove deletes the spill file and its directory.
func (s *Spill) Remove() error {
	return os.RemoveAll(s.Dir)
}

// describe is what the model reads instead of the spilled input.
func (s *Spill) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<stdin path=%q bytes=\"%d\" lines=\"%d\">\n", s.Path, s.Size, s.Lines)
	lines := "lines"
	if s.Lines == 1 {
		lines = "line"
	}
	fmt.Fprintf(&b, "Standard input is too large to include (%s, %d %s). It is saved at %s; "+
		"use the read tool (with offset and limit), grep or glob on that path to explore it.\n",
		FormatBytes(s.Size), s.Lines, lines, s.Path)
	fmt.Fprintf(&b, "--- first lines ---\n%s", withNewline(s.head))
	fmt.Fprintf(&b, "--- last lines ---\n%s", withNewline(s.tail))
	b.WriteString("</stdin>")
	return b.String()
}

// spillStats counts bytes and lines and keeps the last bytes written.
type spillStats struct {
	size  int64
	lines int64
	last  byte
	ring  [2 * previewBytes]byte
}

func (st *spillStats) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	st.lines += int64(bytes.Count(p, []byte{'\n'}))
	// The byte at stream offset o lives at ring[o % len(ring)].
	n := len(st.ring)
	src, start := p, st.size
	if len(src) > n {
		start += int64(len(src) - n)
		src = src[len(src)-n:]
	}
	off := int(start % int64(n))
	k := copy(st.ring[off:], src)
	copy(st.ring[:], src[k:])
	st.size += int64(len(p))
	st.last = p[len(p)-1]
	return len(p), nil
}

// tail returns up to the ring's size of the last bytes written, in order.
func (st *spillStats) tail() []byte {
	n := int64(len(st.ring))
	if st.size <= n {
		return append([]byte(nil), st.ring[:st.size]...)
	}
	off := st.size % n
	out := make([]byte, 0, n)
	out = append(out, st.ring[off:]...)
	return append(out, st.ring[:off]...)
}

// headLines returns the first previewLines lines of b, at most previewBytes.
func headLines(b []byte) string {
	if len(b) > previewBytes {
		b = b[:previewBytes]
	}
	lines := bytes.SplitAfter(b, []byte{'\n'})
	if len(lines) > previewLines {
		lines = lines[:previewLines]
	}
	return strings.ToValidUTF8(string(bytes.Join(lines, nil)), "\uFFFD")
}

// tailLines returns the last previewLines lines of b, at most previewBytes,
// starting at a line boundary when one is in reach.
func tailLines(b []byte) string {
	if len(b) > previewBytes {
		b = b[len(b)-previewBytes:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	lines := bytes.SplitAfter(b, []byte{'\n'})
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > previewLines {
		lines = lines[len(lines)-previewLines:]
	}
	return strings.ToValidUTF8(string(bytes.Join(lines, nil)), "\uFFFD")
}

// FormatBytes renders a size as 812 B, 5.0 MB, 1.0 GB.
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGTPE"[exp])
}

// spillMargin is the free space a spill leaves on its file system: a tenth
// of what is free, at most 1 GB, so that the workspace, the session log and
// the commands the agent runs still have room.
func spillMargin(free int64) int64 { return min(free/10, 1<<30) }

// spillCap returns the most a spill in dir may take: limit, or the free
// space of dir's file system less spillMargin when that is smaller
// (byDisk then says so).
func spillCap(dir string, limit int64) (int64, bool) {
	free, ok := freeSpace(dir)
	if !ok {
		return limit, false
	}
	if room := free - spillMargin(free); room < limit {
		return max(room, 0), true
	}
	return limit, false
}

// stdinTooLarge is the usage error of stdin past its cap.
func stdinTooLarge(limit int64, byDisk bool) error {
	if byDisk {
		return exit.Usagef("standard input is larger than the %s the spill directory's file system can take (its free space less a margin); nothing was sent to the model. Pass a smaller input, or set TMPDIR to a larger file system", FormatBytes(limit))
	}
	return exit.Usagef("standard input is larger than --stdin-max %s; nothing was sent to the model. Pass a smaller input or raise --stdin-max", FormatBytes(limit))
}

package mcp

import (
	"bufio"
	"bytes"
	"io"
	"sync"
)

// skippedKeep is how much of the first skipped line is kept to be shown.
const skippedKeep = 200

// jsonLines reads a stdio server's stdout and passes on only its JSON
// lines, those whose first non-blank byte is '{' or '[': a line before or
// between the JSON-RPC messages (a banner such as "Server starting…",
// which real servers print) is skipped and counted, as the reference
// TypeScript client skips it, instead of ending the session. It is safe
// for one reader and any number of [jsonLines.Skipped] callers.
type jsonLines struct {
	rc      io.ReadCloser
	r       *bufio.Reader
	pending []byte

	mu      sync.Mutex
	skipped int
	first   string
}

func newJSONLines(rc io.ReadCloser) *jsonLines {
	return &jsonLines{rc: rc, r: bufio.NewReaderSize(rc, 64<<10)}
}

// Close closes the server's stdout.
func (j *jsonLines) Close() error { return j.rc.Close() }

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.pending) == 0 {
		line, err := j.r.ReadBytes('\n')
		if len(line) > 0 {
			if t := bytes.TrimLeft(line, " \t\r"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
				j.pending = line
			} else if len(bytes.TrimSpace(line)) > 0 {
				j.skip(line)
			}
		}
		if len(j.pending) == 0 && err != nil {
			return 0, err
		}
	}
	n := copy(p, j.pending)
	j.pending = j.pending[n:]
	return n, nil
}

func (j *jsonLines) skip(line []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.skipped == 0 {
		s := string(bytes.TrimSpace(line))
		if len(s) > skippedKeep {
			s = s[:skippedKeep] + "…"
		}
		j.first = s
	}
	j.skipped++
}

// Skipped returns how many lines were skipped and the first of them.
func (j *jsonLines) Skipped() (int, string) {
	if j == nil {
		return 0, ""
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.skipped, j.first
}

package ptytest

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"sync"
	"time"
)

// Screen is what a program wrote on its terminal, copied from the
// terminal's master side by CopyFrom. It is safe for concurrent use.
type Screen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
	timeout time.Duration
}

// NewScreen returns an empty screen whose Await gives up after timeout.
func NewScreen(timeout time.Duration) *Screen {
	return &Screen{changed: make(chan struct{}, 1), timeout: timeout}
}

// CopyFrom copies what f yields onto the screen until its read fails.
func (s *Screen) CopyFrom(f *os.File) {
	b := make([]byte, 4096)
	for {
		n, err := f.Read(b)
		s.mu.Lock()
		s.buf.Write(b[:n])
		s.mu.Unlock()
		select {
		case s.changed <- struct{}{}:
		default:
		}
		if err != nil {
			return // EIO once the program closed the terminal
		}
	}
}

// Text is everything on the screen so far.
func (s *Screen) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// Await waits until the screen after from matches re and returns where
// the match ends.
func (s *Screen) Await(re *regexp.Regexp, from int) (int, error) {
	deadline := time.After(s.timeout)
	for {
		text := s.Text()
		if loc := re.FindStringIndex(text[from:]); loc != nil {
			return from + loc[1], nil
		}
		select {
		case <-s.changed:
		case <-deadline:
			return from, fmt.Errorf("no %q on the terminal after:\n%s", re, text[from:])
		}
	}
}

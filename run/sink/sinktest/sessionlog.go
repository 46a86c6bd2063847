package sinktest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/sink"
)

// FixedClock returns a clock that starts at t and moves 1ms per call.
func FixedClock(t time.Time) func() time.Time {
	return func() time.Time {
		t = t.Add(time.Millisecond)
		return t
	}
}

// SessionStart is the start time of the sessions NewSession opens.
func SessionStart() time.Time {
	return time.Date(2026, 11, 21, 13, 50, 1, 234e6, time.FixedZone("CET", 3600))
}

// NewSession opens a session with [sink.OpenSession] in a fresh directory
// and returns it with its directory and the warnings and notes it writes.
func NewSession(t *testing.T, secrets []string, prompt string) (s *sink.SessionLog, dir string, warn, notes *bytes.Buffer) {
	t.Helper()
	return NewSessionWith(t, sink.OpenSession, secrets, prompt)
}

// NewSessionWith is [NewSession] with open in place of [sink.OpenSession]
// (a command's opener that adds its build to the header).
func NewSessionWith(t *testing.T, open func(sink.SessionOptions, sink.SessionHeader) *sink.SessionLog, secrets []string, prompt string) (s *sink.SessionLog, dir string, warn, notes *bytes.Buffer) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "a", "sessions")
	warn, notes = &bytes.Buffer{}, &bytes.Buffer{}
	s = open(sink.SessionOptions{Dir: dir, Secrets: secrets, Warn: warn, Notes: notes, Now: FixedClock(SessionStart())},
		sink.SessionHeader{Start: SessionStart(), Workspace: "/w", Provider: "anthropic", Model: "m", Policy: "built-in default policy", Prompt: prompt})
	if s == nil {
		t.Fatalf("openSession failed: %s", warn)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir, warn, notes
}

// ReadSession returns the lines of s's file, each checked by SessionLines.
func ReadSession(t *testing.T, s *sink.SessionLog) []string {
	t.Helper()
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines, err := SessionLines(data)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// SessionLines splits a session file into its lines and checks that each
// is a whole JSON object with a type and a time.
func SessionLines(data []byte) ([]string, error) {
	if len(data) == 0 {
		return nil, errors.New("sinktest: empty session file")
	}
	if data[len(data)-1] != '\n' {
		return nil, errors.New("sinktest: the session file does not end with a newline")
	}
	var lines []string
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			return nil, fmt.Errorf("sinktest: line %d is not a JSON object: %w: %s", i+1, err, l)
		}
		if _, ok := obj["type"].(string); !ok {
			return nil, fmt.Errorf("sinktest: line %d has no type: %s", i+1, l)
		}
		if _, ok := obj["time"].(string); !ok {
			return nil, fmt.Errorf("sinktest: line %d has no time: %s", i+1, l)
		}
		lines = append(lines, l)
	}
	return lines, nil
}

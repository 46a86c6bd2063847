package run

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// TestQueryAnswerShowsControlsOnATerminal: `rubichan query` by itself
// prints the model's answer as exec does: on a terminal with its control
// characters shown, to a pipe byte for byte.
func TestQueryAnswerShowsControlsOnATerminal(t *testing.T) {
	t.Parallel()
	master, slave, err := openPty()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	var errw bytes.Buffer
	err = runQuery(context.Background(), queryOptions{Prompt: "p"}, &fakeAsker{}, strings.NewReader("q"+hostile), slave, &errw)
	slave.Close()
	if err != nil {
		t.Fatalf("runQuery: %v (%s)", err, errw.String())
	}
	got, _ := io.ReadAll(master) // EIO once the slave is closed and drained
	// The terminal turns each "\n" into "\r\n" itself.
	out := strings.ReplaceAll(string(got), "\r\n", "\n")
	if problem := escapedOK(out); problem != "" {
		t.Errorf("terminal output %s:\n%s", problem, jsonQuote(out))
	}

	var pipe bytes.Buffer
	if err := runQuery(context.Background(), queryOptions{Prompt: "p"}, &fakeAsker{}, strings.NewReader("q"+hostile), &pipe, &errw); err != nil {
		t.Fatalf("runQuery: %v", err)
	}
	if want := "a" + hostile + "\n"; pipe.String() != want {
		t.Errorf("piped output %q, want %q", pipe.String(), want)
	}
}

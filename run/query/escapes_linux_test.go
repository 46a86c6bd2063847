package query

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/internal/ptytest"
)

// TestQueryAnswerShowsControlsOnATerminal: `rubichan query` by itself
// prints the model's answer as exec does: on a terminal with its control
// characters shown, to a pipe byte for byte.
func TestQueryAnswerShowsControlsOnATerminal(t *testing.T) {
	t.Parallel()
	master, slave, err := ptytest.OpenPty()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	var errw bytes.Buffer
	err = run(context.Background(), Options{Prompt: "p"}, &fakeAsker{}, strings.NewReader("q"+ptytest.Hostile), slave, &errw)
	slave.Close()
	if err != nil {
		t.Fatalf("run: %v (%s)", err, errw.String())
	}
	got, _ := io.ReadAll(master) // EIO once the slave is closed and drained
	// The terminal turns each "\n" into "\r\n" itself.
	out := strings.ReplaceAll(string(got), "\r\n", "\n")
	if problem := ptytest.EscapedOK(out); problem != "" {
		t.Errorf("terminal output %s:\n%s", problem, ptytest.JSONQuote(out))
	}

	var pipe bytes.Buffer
	if err := run(context.Background(), Options{Prompt: "p"}, &fakeAsker{}, strings.NewReader("q"+ptytest.Hostile), &pipe, &errw); err != nil {
		t.Fatalf("run: %v", err)
	}
	if want := "a" + ptytest.Hostile + "\n"; pipe.String() != want {
		t.Errorf("piped output %q, want %q", pipe.String(), want)
	}
}

package run

import (
	"strings"
	"testing"
)

// A terminal on stdin is a person, not input: it is never read, so a
// prompt alone is the task and "-" is refused.
func TestStdinTerminalIsNotInput(t *testing.T) {
	t.Parallel()
	master, slave, err := openPty()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	if stdinUsable(slave) {
		t.Fatal("stdinUsable(terminal) = true")
	}
	in, err := readInput(slave, inputOptions{Args: []string{"fix", "it"}})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if in.Text != "fix it" {
		t.Errorf("text = %q, want the prompt alone", in.Text)
	}
	if _, err := readInput(slave, inputOptions{Args: []string{"-"}}); err == nil || !strings.Contains(err.Error(), "not a pipe or a file") {
		t.Errorf(`readInput("-") on a terminal: %v`, err)
	}
}

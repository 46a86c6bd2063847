package input

import (
	"strings"
	"testing"

	"github.com/creack/pty"
)

// A terminal on stdin is a person, not input: it is never read, so a
// prompt alone is the task and "-" is refused.
func TestStdinTerminalIsNotInput(t *testing.T) {
	t.Parallel()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	if StdinUsable(slave) {
		t.Fatal("StdinUsable(terminal) = true")
	}
	in, err := Read(slave, Options{Args: []string{"fix", "it"}})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if in.Text != "fix it" {
		t.Errorf("text = %q, want the prompt alone", in.Text)
	}
	if _, err := Read(slave, Options{Args: []string{"-"}}); err == nil || !strings.Contains(err.Error(), "not a pipe or a file") {
		t.Errorf(`Read("-") on a terminal: %v`, err)
	}
}

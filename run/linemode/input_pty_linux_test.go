package linemode

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/internal/ptytest"
	"golang.org/x/sys/unix"
)

// What the chat writes while the line editor has the terminal (the stack
// opening under the first prompt) goes above the prompt, which is drawn
// again; closing the input then erases the prompt and gives the terminal
// back cooked, and no later read takes it raw again.
func TestLineInputUnderThePrompt(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	screen := ptytest.NewScreen(20 * time.Second)
	go screen.CopyFrom(ptmx)
	cooked := func() bool {
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		return tio.Lflag&(unix.ICANON|unix.ECHO) == unix.ICANON|unix.ECHO
	}
	if !cooked() {
		t.Fatal("the new terminal is not cooked")
	}
	in := newLineInput(tty, tty, true, "", agent.NewRedactor(nil))
	in.next(Prompt)
	at, err := screen.Await(regexp.MustCompile(Prompt), 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(in.Writer(tty), "the stack says something\n")
	if _, err := screen.Await(regexp.MustCompile(`\x1b\[K`+"the stack says something\r\n"+Prompt), at); err != nil {
		t.Fatalf("the note is not above a redrawn prompt: %v", err)
	}
	if cooked() {
		t.Fatal("the editor has the terminal, but it is cooked")
	}
	in.Close()
	if _, err := screen.Await(regexp.MustCompile(Prompt+`\r\x1b\[K\x1b\[\?2004l$`), at); err != nil {
		t.Fatalf("the prompt is not erased at close: %v", err)
	}
	if !cooked() {
		t.Fatal("close left the terminal raw")
	}
	in.done()
	select {
	case r := <-in.next(Prompt):
		if r.err != errInputClosed {
			t.Fatalf("a read after close: %v, want errInputClosed", r.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a read after close is waiting for a line: it took the terminal again")
	}
	if !cooked() {
		t.Fatal("a read after close made the terminal raw")
	}
}

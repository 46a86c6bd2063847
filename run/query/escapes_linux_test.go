package query

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// hostile holds what a model may put in text that reaches a terminal: a
// clear-screen CSI, an OSC 52 clipboard write ended by BEL, a bare
// carriage return (which hides what came before on the line), a C1 CSI as
// a character and as a raw byte. (run's escapes_test.go has the same.)
const hostile = "H\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07over\rwrite\u009b31m\x9bend"

// escapedOK reports what is wrong with out, text shown on a terminal that
// carried hostile: a control character written raw, or hostile not shown
// at all (its first escape must be visible, as \x1b[2J).
func escapedOK(out string) string {
	for _, raw := range []string{"\x1b", "\x07", "\r", "\u009b"} {
		if strings.Contains(out, raw) {
			return "holds " + jsonQuote(raw) + " raw"
		}
	}
	if !utf8.ValidString(out) {
		return "holds an invalid byte"
	}
	if !strings.Contains(out, `\x1b[2J`) {
		return "does not show the escapes"
	}
	return ""
}

func jsonQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// openPty opens a new pseudo-terminal pair (as run's script tests do).
func openPty() (master, slave *os.File, err error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	master = os.NewFile(uintptr(fd), "/dev/ptmx")
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("unlock pty: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("pty number: %w", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

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
	err = run(context.Background(), Options{Prompt: "p"}, &fakeAsker{}, strings.NewReader("q"+hostile), slave, &errw)
	slave.Close()
	if err != nil {
		t.Fatalf("run: %v (%s)", err, errw.String())
	}
	got, _ := io.ReadAll(master) // EIO once the slave is closed and drained
	// The terminal turns each "\n" into "\r\n" itself.
	out := strings.ReplaceAll(string(got), "\r\n", "\n")
	if problem := escapedOK(out); problem != "" {
		t.Errorf("terminal output %s:\n%s", problem, jsonQuote(out))
	}

	var pipe bytes.Buffer
	if err := run(context.Background(), Options{Prompt: "p"}, &fakeAsker{}, strings.NewReader("q"+hostile), &pipe, &errw); err != nil {
		t.Fatalf("run: %v", err)
	}
	if want := "a" + hostile + "\n"; pipe.String() != want {
		t.Errorf("piped output %q, want %q", pipe.String(), want)
	}
}

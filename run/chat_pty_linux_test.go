package run

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rubichan/rubichan/run/internal/ptytest"
)

// ptyDialogTimeout bounds each expect and the program's exit.
const ptyDialogTimeout = 20 * time.Second

// cmdPtyChat runs PROGRAM with its standard input and error on a
// pseudo-terminal that is its controlling terminal (so /dev/tty is it, as
// for a person in a shell) and its stdout on a pipe, plays the dialogue in
// DIALOG, and checks the exit code: ptychat CODE DIALOG PROGRAM [ARGS...].
// The dialogue has one step a line: `expect REGEXP` waits until the
// terminal shows a match after the previous one; `send TEXT` types TEXT
// and Enter; `key ctrl-c|ctrl-d` types the key; `wait FILE` waits until
// FILE exists. The terminal's output
// becomes the script's stderr (\r\n as \n), the program's stdout its
// stdout.
func cmdPtyChat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: ptychat CODE DIALOG PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	ptmx, tty, err := pty.Open()
	ts.Check(err)
	defer ptmx.Close()
	cmd := programCmd(ts, args[2], args[3:]...)
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stderr, cmd.Stdout = tty, tty, &stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	err = cmd.Start()
	tty.Close()
	ts.Check(err)
	screen := ptytest.NewScreen(ptyDialogTimeout)
	go screen.CopyFrom(ptmx)
	dialogErr := playDialog(ptmx, screen, ts.ReadFile(args[1]), ts.MkAbs)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(ptyDialogTimeout):
		cmd.Process.Kill()
		werr = <-exited
		dialogErr = fmt.Errorf("the program did not exit; %v", dialogErr)
	}
	fmt.Fprint(ts.Stdout(), stdout.String())
	fmt.Fprint(ts.Stderr(), strings.ReplaceAll(screen.Text(), "\r\n", "\n"))
	if dialogErr != nil {
		ts.Fatalf("dialogue: %v", dialogErr)
	}
	if got := exitCodeOf(ts, werr); got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// playDialog types and waits as the dialogue says.
func playDialog(ptmx *os.File, screen *ptytest.Screen, dialog string, abs func(string) string) error {
	seen := 0
	for _, step := range strings.Split(strings.TrimSpace(dialog), "\n") {
		verb, arg, _ := strings.Cut(strings.TrimSpace(step), " ")
		switch verb {
		case "expect":
			re, err := regexp.Compile(arg)
			if err != nil {
				return err
			}
			n, err := screen.Await(re, seen)
			if err != nil {
				return err
			}
			seen = n
		case "send":
			if _, err := ptmx.WriteString(arg + "\r"); err != nil {
				return err
			}
		case "type": // keys without Enter
			if _, err := ptmx.WriteString(arg); err != nil {
				return err
			}
		case "key":
			keys := map[string]string{"ctrl-c": "\x03", "ctrl-d": "\x04"}
			k, ok := keys[arg]
			if !ok {
				return fmt.Errorf("key %q: not one of ctrl-c, ctrl-d", arg)
			}
			if _, err := ptmx.WriteString(k); err != nil {
				return err
			}
		case "wait":
			if err := awaitFile(abs(arg)); err != nil {
				return err
			}
		case "", "#":
		default:
			return fmt.Errorf("unknown step %q", step)
		}
	}
	return nil
}

// awaitFile waits until the file at path exists.
func awaitFile(path string) error {
	deadline := time.Now().Add(ptyDialogTimeout)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("%s never appeared", path)
}

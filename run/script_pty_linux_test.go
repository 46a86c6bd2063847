package run

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rubichan/rubichan/run/internal/ptytest"
)

// ptyScriptCmds are the script commands that need a Linux pseudo-terminal.
func ptyScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){"ptystderr": cmdPtyStderr, "ptychat": cmdPtyChat}
}

// cmdPtyStderr runs PROGRAM with its stderr on a pseudo-terminal (so it is
// a terminal, as in an interactive shell) and its stdout on a pipe, and
// checks the exit code: ptystderr CODE PROGRAM [ARGS...]. What the program
// wrote on the terminal becomes the script's stderr.
func cmdPtyStderr(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: ptystderr CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	master, slave, err := ptytest.OpenPty()
	ts.Check(err)
	defer master.Close()

	cmd := programCmd(ts, args[1], args[2:]...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, slave
	err = cmd.Start()
	slave.Close()
	ts.Check(err)
	var term bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&term, master) // ends with EIO once the program has closed the terminal
		close(copied)
	}()
	err = cmd.Wait()
	<-copied
	got := exitCodeOf(ts, err)
	fmt.Fprint(ts.Stdout(), stdout.String())
	// The terminal turns each \n into \r\n.
	fmt.Fprint(ts.Stderr(), strings.ReplaceAll(term.String(), "\r\n", "\n"))
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

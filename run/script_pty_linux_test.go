package run

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
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
	master, slave, err := openPty()
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

// openPty opens a new pseudo-terminal pair.
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

//go:build unix

package toolkit

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// nonblocking reports whether f's descriptor has O_NONBLOCK, read
// without changing it (f.Fd would make it blocking).
func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	var ferr error
	if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, syscall.F_GETFL, 0) }); err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	return flags&syscall.O_NONBLOCK != 0
}

// TestOutputPipe: the end a command writes to is blocking (its status
// flags are the command's: a full pipe must make it wait, not fail with
// EAGAIN), and the end the tool reads is the runtime poller's, so a read
// can be given a deadline; what is written comes out, then EOF once the
// writer is closed.
func TestOutputPipe(t *testing.T) {
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if nonblocking(t, w) {
		t.Error("the write end is non-blocking; a command would get EAGAIN on a full pipe")
	}
	if err := r.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		t.Errorf("the read end takes no deadline (%v): it is not in the runtime's poller", err)
	} else if _, err := r.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a read of an empty pipe past its deadline: %v, want a deadline error", err)
	}
	_ = r.SetReadDeadline(time.Time{})
	if _, err := w.Write([]byte("out")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got, err := io.ReadAll(r); string(got) != "out" || err != nil {
		t.Errorf("read %q, %v; want out and EOF", got, err)
	}
}

package toolkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"
)

// testProbe runs `__toolkit-test-probe OP ARG...` and returns its exit
// code: 0 when the call succeeded, 13 when it was refused (EACCES, EPERM,
// EROFS, ENETUNREACH: the sandbox), 1 otherwise; the error goes to
// stderr. The ops: chmod MODE(octal) PATH, chown PATH (to its own owner),
// utime PATH, setxattr PATH, udp HOST:PORT (one datagram), dns HOST:PORT
// (a lookup from that server), unix ADDR (connect; @name is abstract).
func testProbe(args []string, stderr io.Writer) int {
	err := errors.New("usage: " + testProbeCommand + " OP ARG...")
	switch {
	case len(args) == 3 && args[0] == "chmod":
		var mode uint64
		if mode, err = strconv.ParseUint(args[1], 8, 32); err == nil {
			err = os.Chmod(args[2], os.FileMode(mode&0o777)|unixModeBits(mode))
		}
	case len(args) == 2 && args[0] == "chown":
		var st syscall.Stat_t
		if err = syscall.Stat(args[1], &st); err == nil {
			err = os.Chown(args[1], int(st.Uid), int(st.Gid))
		}
	case len(args) == 2 && args[0] == "utime":
		old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
		err = os.Chtimes(args[1], old, old)
	case len(args) == 2 && args[0] == "setxattr":
		err = syscall.Setxattr(args[1], "user.rubichan", []byte("x"), 0)
	case len(args) == 2 && args[0] == "udp":
		var c net.Conn
		if c, err = net.Dial("udp", args[1]); err == nil {
			_, err = c.Write([]byte("escaped"))
			c.Close()
		}
	case len(args) == 2 && args[0] == "dns":
		// A DNS query for rubichan.invalid, to the server at HOST:PORT.
		r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp", args[1])
		}}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err = r.LookupHost(ctx, "rubichan.invalid")
		cancel()
	case len(args) == 2 && args[0] == "unix":
		var c net.Conn
		if c, err = net.Dial("unix", args[1]); err == nil {
			c.Close()
		}
	}
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, err)
	for _, refused := range []error{syscall.EACCES, syscall.EPERM, syscall.EROFS, syscall.ENETUNREACH} {
		if errors.Is(err, refused) {
			return 13
		}
	}
	return 1
}

// unixModeBits maps the setuid, setgid and sticky bits of an octal mode
// to their os.FileMode flags.
func unixModeBits(mode uint64) os.FileMode {
	var m os.FileMode
	if mode&0o4000 != 0 {
		m |= os.ModeSetuid
	}
	if mode&0o2000 != 0 {
		m |= os.ModeSetgid
	}
	if mode&0o1000 != 0 {
		m |= os.ModeSticky
	}
	return m
}

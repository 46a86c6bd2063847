package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// controlFD is the spawner's control socket, handed to it as its first
// extra file.
const controlFD = 3

// retrimAfter is the command after which the spawner drops its
// program's pages from its resident set once more: the first commands
// fault in code only they run (the first use of the poller, of fmt, of
// the pidfd path); what later commands use comes back.
const retrimAfter = 1

// maxRequest bounds one request's JSON (a command, its environment).
const maxRequest = 16 << 20

// Serve is the spawner mode: args are the arguments after
// [ServeCommand]. It confines its own process once — every capability
// dropped, no_new_privs, the Landlock rules — on a thread it never
// leaves, reports "ok" (or the error) on the control socket, and then
// starts a command for each request on it until the socket is closed,
// when it kills the process groups of the commands still running. A
// failure to confine ends it with exit code 126: it never starts a
// command unconfined.
func Serve(args []string, stderr io.Writer) int {
	// Every command is forked from this thread, whose credentials the
	// child inherits (see confineAndExec).
	runtime.LockOSThread()
	// Commands inherit their three descriptors, never the control socket
	// nor what rubichan itself inherited (best effort: Linux >= 5.11).
	_ = unix.CloseRange(controlFD, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	syscall.CloseOnExec(controlFD)
	// What start-up left resident of the program is not needed to
	// serve: its pages leave the resident set (before confinement, which
	// may hide /proc), before the answer — trimmed later, the first
	// command's fork would find them, and while vfork's child shares the
	// spawner's memory a plain sum of the run's resident sets counts it
	// twice (29.9 MB against 24 MB). The initialisation's garbage is not
	// collected first: that collection took 1–1.8 ms of every run's first
	// command (the first of a process faults the collector in and starts
	// its workers) and left the spawner no smaller once it serves.
	TrimResident()
	r, _, err := parseRules(args)
	if err == nil {
		err = confineThread(r)
	}
	if err == nil {
		// Commands cannot read its memory nor its /proc files.
		err = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	}
	if err != nil {
		_, _ = syscall.Write(controlFD, []byte("rubichan sandbox: "+err.Error()))
		fmt.Fprintf(stderr, "rubichan sandbox: %v\n", err)
		return 126
	}
	if _, err := syscall.Write(controlFD, []byte("ok")); err != nil {
		return 1
	}
	if err := serve(controlFD); err != nil {
		fmt.Fprintf(stderr, "rubichan sandbox: spawner: %v\n", err)
		return 1
	}
	return 0
}

// server is the spawner's state, owned by its one thread: an epoll set
// over the control socket and, for each command still running, its
// stream socket and its pidfd. It runs on the thread it confined, because
// Landlock gives each thread its own domain and, from ABI 6 on, lets a
// thread signal only processes of its own domain: the commands it forks.
type server struct {
	ep     int
	ctrl   int
	fds    map[int]*child // by stream socket and by pidfd
	live   map[int]*child // by pid
	buf    []byte         // each request is read into it (see readRequest)
	served int            // commands reaped
}

// child is one started command, the leader of its own session.
type child struct {
	pid, pidfd int
	conn       *os.File // nil once the client has gone
	exited     bool     // the leader is a zombie: its pid, and the group id, are still reserved
	told       bool     // the client has its status
	finishing  bool     // the client has read the output to its end: reap once exited
	reaped     bool     // its pid may be reused: never signal the group again
}

// signal sends sig to the child's process group while its leader is not
// reaped.
func (c *child) signal(sig syscall.Signal) {
	if !c.reaped {
		_ = syscall.Kill(-c.pid, sig)
	}
}

// serve runs the server until the control socket closes.
func serve(ctrl int) error {
	if err := syscall.SetNonblock(ctrl, false); err != nil {
		return err
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	s := &server{ep: ep, ctrl: ctrl, fds: map[int]*child{}, live: map[int]*child{}}
	if err := s.watch(ctrl); err != nil {
		return err
	}
	events := make([]unix.EpollEvent, 16)
	for {
		n, err := unix.EpollWait(ep, events, -1)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			s.killAll()
			return err
		}
		for _, ev := range events[:n] {
			if !s.handle(int(ev.Fd)) {
				s.killAll()
				return nil
			}
		}
	}
}

func (s *server) watch(fd int) error {
	return unix.EpollCtl(s.ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)})
}

func (s *server) unwatch(fd int) {
	_ = unix.EpollCtl(s.ep, unix.EPOLL_CTL_DEL, fd, nil)
	delete(s.fds, fd)
}

// handle serves one ready descriptor; false when the control socket has
// closed.
func (s *server) handle(fd int) bool {
	if fd == s.ctrl {
		return s.request()
	}
	c := s.fds[fd]
	switch {
	case c == nil:
	case fd == c.pidfd:
		c.exited = true
		s.unwatch(c.pidfd)
		if c.finishing || c.conn == nil {
			s.reap(c)
		} else {
			// The client learns the status now, while the zombie keeps
			// the group; it asks to reap once it has read the output.
			// (A status that cannot be read now comes with the reap.)
			if st, ok := peekStatus(c.pid); ok {
				s.tell(c, st)
			}
		}
	case c.conn != nil:
		s.signals(c)
	}
	return true
}

// request takes one request from the control socket: a message of one
// byte carrying four descriptors, stdin, stdout, stderr and the command's
// own stream socket, on which the request's JSON follows (a 4-byte length
// first) and the answers go back.
func (s *server) request() bool {
	var b [1]byte
	oob := make([]byte, syscall.CmsgSpace(4*4))
	n, oobn, _, _, err := syscall.Recvmsg(s.ctrl, b[:], oob, syscall.MSG_CMSG_CLOEXEC)
	if errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN) {
		return true
	}
	if err != nil || n == 0 && oobn == 0 {
		return false
	}
	fds := receivedFDs(oob[:oobn])
	if len(fds) != 4 {
		closeFDs(fds)
		return true
	}
	s.spawn(fds)
	return true
}

// receivedFDs returns the descriptors of a control message.
func receivedFDs(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if f, err := syscall.ParseUnixRights(&m); err == nil {
			fds = append(fds, f...)
		}
	}
	return fds
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		_ = syscall.Close(fd)
	}
}

// spawn starts one command from the request on fds[3] with fds[0:3] as
// its standard descriptors.
func (s *server) spawn(fds []int) {
	conn := os.NewFile(uintptr(fds[3]), "command")
	req, err := readRequest(conn, &s.buf)
	pid, pidfd := 0, -1
	if err == nil {
		pid, err = syscall.ForkExec(req.Path, req.Args, &syscall.ProcAttr{
			Dir: req.Dir, Env: req.Env, Files: []uintptr{uintptr(fds[0]), uintptr(fds[1]), uintptr(fds[2])},
			Sys: &syscall.SysProcAttr{Setsid: true, PidFD: &pidfd},
		})
	}
	closeFDs(fds[:3])
	if err == nil && pidfd < 0 {
		err = errors.New("no pidfd for the command")
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_, _ = syscall.Wait4(pid, nil, 0, nil)
	}
	if err != nil {
		_, _ = conn.WriteString("error " + err.Error() + "\n")
		conn.Close()
		return
	}
	c := &child{pid: pid, pidfd: pidfd, conn: conn}
	s.live[pid] = c
	s.fds[pidfd], s.fds[fds[3]] = c, c
	_ = s.watch(pidfd)
	_ = s.watch(fds[3])
	_, _ = conn.WriteString("pid " + strconv.Itoa(pid) + "\n")
}

// readRequest reads a length-prefixed [SpawnRequest] (see wire.go), in
// one read when it fits in the first buffer: *reuse, 8 KB, made on first
// use and kept (the strings decoded are copies); a larger request gets a
// buffer of its own.
func readRequest(r io.Reader, reuse *[]byte) (SpawnRequest, error) {
	var req SpawnRequest
	if len(*reuse) < 8<<10 {
		*reuse = make([]byte, 8<<10)
	}
	buf := *reuse
	n, err := io.ReadAtLeast(r, buf, 4)
	if err != nil {
		return req, fmt.Errorf("read request: %w", err)
	}
	size := int(binary.BigEndian.Uint32(buf))
	if size > maxRequest || n > 4+size {
		return req, fmt.Errorf("request of %d bytes is too big, or followed by more", size)
	}
	if 4+size > len(buf) {
		buf = append(buf[:n], make([]byte, 4+size-n)...)
	}
	if _, err := io.ReadFull(r, buf[n:4+size]); err != nil {
		return req, fmt.Errorf("read request: %w", err)
	}
	req, err = decodeRequest(buf[4 : 4+size])
	if err != nil {
		return req, fmt.Errorf("decode request: %w", err)
	}
	if len(req.Args) == 0 {
		req.Args = []string{req.Path}
	}
	return req, nil
}

// signals reads requests (one byte each) from c's stream: a signal's
// number to send to its group, or 0 — the client has read the command's
// output to its end — to reap it once it has exited. At end of stream,
// the client gone, the group is killed.
func (s *server) signals(c *child) {
	var b [64]byte
	n, err := c.conn.Read(b[:])
	for _, sig := range b[:max(n, 0)] {
		if sig != 0 {
			c.signal(syscall.Signal(sig))
		} else if c.finishing = true; c.exited {
			s.reap(c)
			return
		}
	}
	if n == 0 || err != nil {
		c.signal(syscall.SIGKILL)
		s.unwatch(int(c.conn.Fd()))
		c.conn.Close()
		c.conn = nil
		if c.exited {
			s.reap(c)
		}
	}
}

// tell sends c's status to its client, once.
func (s *server) tell(c *child, st Status) {
	if c.conn != nil && !c.told {
		c.told = true
		fmt.Fprintf(c.conn, "exit %d %s\n", st.Code, st.Signal)
	}
}

// peekStatus is how the exited leader pid ended, read without reaping it
// (waitid with WNOWAIT); false when it cannot be read.
func peekStatus(pid int) (Status, bool) {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
	for errors.Is(err, syscall.EINTR) {
		err = unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
	}
	if err != nil {
		return Status{}, false
	}
	code, status := childStatus(&info)
	if code == cldExited {
		return Status{Code: int(status)}, true
	}
	return Status{Code: -1, Signal: syscall.Signal(status).String()}, true
}

// reap reaps c, whose leader has exited: first it kills what c left in
// its group while the zombie keeps the group id, then it sends the
// status, if the client does not have it yet, and "reaped", as the bash
// tool does with the commands it starts itself.
func (s *server) reap(c *child) {
	c.signal(syscall.SIGKILL)
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(c.pid, &ws, 0, nil)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	c.reaped = true
	_ = syscall.Close(c.pidfd)
	delete(s.live, c.pid)
	st := Status{Code: ws.ExitStatus()}
	if ws.Signaled() {
		st = Status{Code: -1, Signal: ws.Signal().String()}
	}
	s.tell(c, st)
	if c.conn != nil {
		_, _ = c.conn.WriteString("reaped\n")
		s.unwatch(int(c.conn.Fd()))
		c.conn.Close()
		c.conn = nil
	}
	if s.served++; s.served == retrimAfter {
		TrimResident()
	}
}

// killAll kills the groups of the commands still running.
func (s *server) killAll() {
	for _, c := range s.live {
		c.signal(syscall.SIGKILL)
	}
}

// parseStatus reads the "exit CODE [SIGNAL]" line of serveChild.
func parseStatus(line string) (Status, error) {
	var st Status
	var rest string
	n, _ := fmt.Sscanf(line, "exit %d %s", &st.Code, &rest)
	if n < 1 {
		return st, fmt.Errorf("sandbox: bad status %q", line)
	}
	st.Signal = rest
	return st, nil
}

// parsePid reads the "pid N" or "error MESSAGE" line of spawn.
func parsePid(line string) (int, error) {
	if msg, ok := strings.CutPrefix(line, "error "); ok {
		return 0, errors.New(msg)
	}
	if s, ok := strings.CutPrefix(line, "pid "); ok {
		return strconv.Atoi(s)
	}
	return 0, fmt.Errorf("sandbox: bad answer %q", line)
}

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// Spawner is a sandbox helper that stays: started once per run in the
// [ServeCommand] mode, it confines itself once with the run's [Rules]
// (which are the same for every command of a run) and then starts each
// command it is given, already confined, in its own session and process
// group. This saves every command the start-up of a rubichan process
// ([HelperCommand] costs one exec of rubichan per command).
//
// The commands are its children, not the caller's: the caller signals
// their groups through [Process.Signal] and learns how they ended from
// [Process.Wait]. Descendants that detach from the group and lose their
// parent still go to the caller if it is a child subreaper.
//
// A Spawner is safe for concurrent use.
type Spawner struct {
	cmd  *exec.Cmd
	mu   sync.Mutex // guards ctrl's writes and closed
	ctrl *net.UnixConn
	done bool
}

// StartSpawner starts exe (rubichan itself) as the spawner confined by
// r, and returns once it is confined. start starts the command (nil:
// [exec.Cmd.Start]); a caller that reaps orphans uses it to know the
// spawner as its own. An error means no spawner runs: the caller must not
// run its commands unconfined (the one-shot helper, [Rules.Argv], fails
// closed in the same way).
func StartSpawner(exe string, r Rules, start func(*exec.Cmd) error) (*Spawner, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: spawner socket: %w", err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "spawner")
	ctrl, err := unixConn(fds[0])
	if err != nil {
		theirs.Close()
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Args = append([]string{"rubichan", ServeCommand}, r.flags()...)
	// Two Ps, whatever the machine: one thread serves (see Serve), and on
	// a many-core machine one P per core only adds threads and collector
	// workers to its start. Not one: with a single P, each wait of the
	// serving thread in epoll_wait past 20 µs has the runtime's monitor
	// take the P back and start a spinning thread to look for work, and the
	// wait's end take it again — 18 context switches a command against
	// 13–14 with two (a spawner serving 200 commands), and the sandbox's
	// part of a call 0.56 → 0.48 ms on average (BenchmarkShellTurns, five
	// runs each, alternated); one P saved 0.9 ms once, at its start. Its
	// commands get the environment of their requests, not this.
	cmd.Env = []string{"GOMAXPROCS=2"}
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.SysProcAttr = r.Namespaces(nil)
	if start == nil {
		start = (*exec.Cmd).Start
	}
	err = start(cmd)
	theirs.Close()
	if err != nil {
		ctrl.Close()
		return nil, fmt.Errorf("sandbox: start spawner: %w", err)
	}
	s := &Spawner{cmd: cmd, ctrl: ctrl}
	buf := make([]byte, 4096)
	n, err := ctrl.Read(buf)
	if err == nil && string(buf[:n]) != "ok" {
		err = errors.New(string(buf[:n]))
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("sandbox: spawner: %w", err)
	}
	return s, nil
}

// unixConn wraps the socket fd, which it takes over.
func unixConn(fd int) (*net.UnixConn, error) {
	f := os.NewFile(uintptr(fd), "socket")
	defer f.Close() // FileConn holds its own copy
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("sandbox: socket: %w", err)
	}
	return c.(*net.UnixConn), nil
}

// commandSocket returns the two ends of a command's stream socket: ours,
// in the runtime's poller, and theirs, blocking, for the spawner. Ours is
// a file, not a [net.UnixConn]: net.FileConn copies the descriptor and
// asks the kernel what kind of socket it is, seven system calls a command
// for a socket this process only reads lines from and writes bytes to.
func commandSocket() (ours *os.File, theirs int, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, -1, fmt.Errorf("sandbox: spawn: %w", err)
	}
	// The two ends have status flags of their own: the spawner's stays
	// blocking. NewFile puts a non-blocking descriptor in the poller.
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return nil, -1, fmt.Errorf("sandbox: spawn: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "command"), fds[1], nil
}

// Pid is the spawner's process id.
func (s *Spawner) Pid() int { return s.cmd.Process.Pid }

// Close stops the spawner, which kills the process groups of the
// commands still running, and waits for it to exit.
func (s *Spawner) Close() error {
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return nil
	}
	s.done = true
	s.ctrl.Close()
	s.mu.Unlock()
	return s.cmd.Wait()
}

// Process is a command a [Spawner] started. Signal may be called
// concurrently with Wait.
type Process struct {
	// Pid is the command's process id, which is also its process group
	// and session id.
	Pid  int
	conn *os.File // the command's stream socket (see commandSocket)
	rd   *bufio.Reader
	mu   sync.Mutex
}

// Spawn starts req's command, confined, and returns once it runs. An
// error wrapping [ErrSpawnerClosed] means the spawner is gone (closed, or
// died); another says why the command could not be started, as exec
// would.
func (s *Spawner) Spawn(req SpawnRequest) (*Process, error) {
	if req.Stdin == nil || req.Stdout == nil || req.Stderr == nil {
		return nil, errors.New("sandbox: spawn: stdin, stdout and stderr are required")
	}
	body := appendRequest(nil, req)
	conn, theirs, err := commandSocket()
	if err != nil {
		return nil, err
	}
	rights := syscall.UnixRights(int(req.Stdin.Fd()), int(req.Stdout.Fd()), int(req.Stderr.Fd()), theirs)
	s.mu.Lock()
	if s.done {
		err = ErrSpawnerClosed
	} else {
		_, _, err = s.ctrl.WriteMsgUnix([]byte{'s'}, rights, nil)
	}
	s.mu.Unlock()
	syscall.Close(theirs)
	if err == nil {
		// One write: the length, then the request.
		_, err = conn.Write(body)
	}
	p := &Process{conn: conn, rd: bufio.NewReader(conn)}
	if err != nil && !errors.Is(err, ErrSpawnerClosed) {
		err = fmt.Errorf("%w (%v)", ErrSpawnerClosed, err)
	}
	if err == nil {
		l := p.line()
		if l == "" {
			err = ErrSpawnerClosed
		} else {
			p.Pid, err = parsePid(l)
		}
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("sandbox: spawn %s: %w", req.Path, err)
	}
	return p, nil
}

// line reads one answer of the spawner; "" when it is gone.
func (p *Process) line() string {
	l, err := p.rd.ReadString('\n')
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(l, "\n")
}

// Signal sends sig (not 0) to the command's process group, unless the
// command has ended and been reaped (the spawner does it, so that a
// reused pid is never signalled).
func (p *Process) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.conn.Write([]byte{byte(sig)})
	return err
}

// Terminate asks the command's process group to stop: SIGTERM, and
// SIGCONT so that stopped members see it.
func (p *Process) Terminate() error {
	return errors.Join(p.Signal(syscall.SIGTERM), p.Signal(syscall.SIGCONT))
}

// Kill kills the command's process group (SIGKILL).
func (p *Process) Kill() error { return p.Signal(syscall.SIGKILL) }

// Wait waits for the command to exit, after which the spawner has killed
// whatever it left in its process group and reaped it, and returns how it
// ended: [Process.Status] and then [Process.Settled]. Until Wait is
// called, the command's leftovers live on after it exits (and may hold
// its output open): a caller reads the command's output to its end
// first, then waits, as with [exec.Cmd]. Call it once; it releases the
// process.
func (p *Process) Wait() (Status, error) {
	st, err := p.Status()
	if err != nil {
		return st, err
	}
	return st, p.Settled()
}

// Status tells the spawner that the command's output has been read to
// its end — it may now kill whatever the command left in its group and
// reap it — and returns how the command ended as soon as it has exited:
// the spawner sends the status when the command exits, so a caller that
// read the output to its end finds it there, without a round trip.
// Settled must follow.
func (p *Process) Status() (st Status, err error) {
	defer func() {
		if err != nil {
			p.conn.Close() // released: no Settled follows a failure
		}
	}()
	if err := p.Signal(0); err != nil {
		return Status{}, fmt.Errorf("%w (%v)", ErrSpawnerClosed, err)
	}
	l := p.line()
	if l == "" {
		return Status{}, ErrSpawnerClosed
	}
	return parseStatus(l)
}

// Settled waits, after [Process.Status], until the spawner has killed
// what the command left in its process group and reaped it, and releases
// the process. A caller that does not need that before it goes on (the
// bash tool answers the model first) calls it on a goroutine of its own.
func (p *Process) Settled() error {
	defer p.conn.Close()
	if l := p.line(); l != "reaped" {
		return fmt.Errorf("%w (no reaped answer: %q)", ErrSpawnerClosed, l)
	}
	return nil
}

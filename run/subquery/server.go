package subquery

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Handler answers one sub-query. It is called concurrently, once per
// request; ctx ends when the run stops or the client goes away. peer is
// the client's process id, 0 when the platform cannot tell.
type Handler func(ctx context.Context, peer int, req Request) Response

// Server serves sub-queries on a Unix socket. Its methods are safe for
// concurrent use.
type Server struct {
	ln      *net.UnixListener
	path    string
	owner   int    // the process whose descendants may connect
	tmpDir  string // a directory Listen made for the socket; Close removes it
	token   string // every request must carry it
	handler Handler
	limits  limits
	pending chan struct{} // a slot for each connection waiting for its hello

	mu       sync.Mutex
	inflight map[int]int // client pid → requests being handled
	conns    map[net.Conn]struct{}
	closed   bool
	gone     chan struct{} // closed when Close has finished
	wg       sync.WaitGroup
}

// socketName is the socket's file name in its directory.
const socketName = "query.sock"

// maxSocketPath is what a sockaddr_un holds, less the NUL, on every
// platform rubichan runs on.
const maxSocketPath = 103

// Listen makes the socket in dir, which must be a directory only the
// current user can enter (the run's private temporary directory). When
// dir's path is too long for a socket, a private directory under /tmp is
// made for it; Close removes it.
func Listen(dir string, h Handler) (*Server, error) {
	return listen(dir, h, defaultLimits())
}

// limits bound the connections that have not shown the token yet.
type limits struct {
	// helloTimeout is how long a new connection has to send its hello
	// line; one that has not is refused and closed.
	helloTimeout time.Duration
	// maxPending is how many connections may wait for their hello at
	// once; further ones wait in the listen queue, unread.
	maxPending int
}

// defaultLimits: a client sends its hello as it connects, so 5 s is far
// above what one takes even on a loaded machine, and 16 connections at
// once (each holding at most maxHello bytes) are more than a fan-out opens.
func defaultLimits() limits { return limits{helloTimeout: 5 * time.Second, maxPending: 16} }

func listen(dir string, h Handler, lim limits) (*Server, error) {
	path, tmp := filepath.Join(dir, socketName), ""
	if len(path) > maxSocketPath {
		d, err := os.MkdirTemp("/tmp", "rubichan-q-")
		if err != nil {
			return nil, fmt.Errorf("subquery: socket directory: %w", err)
		}
		path, tmp = filepath.Join(d, socketName), d
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err == nil {
		ln.SetUnlinkOnClose(true)
		if err = os.Chmod(path, 0o600); err != nil {
			ln.Close()
		}
	}
	if err != nil {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return nil, fmt.Errorf("subquery: listen: %w", err)
	}
	return &Server{ln: ln, path: path, owner: os.Getpid(), tmpDir: tmp, token: rand.Text(), handler: h,
		limits: lim, pending: make(chan struct{}, lim.maxPending),
		inflight: map[int]int{}, conns: map[net.Conn]struct{}{}, gone: make(chan struct{})}, nil
}

// Path returns the socket's path, for [SocketEnv].
func (s *Server) Path() string { return s.path }

// Token returns the token every request must carry, for [TokenEnv]: 26
// random base32 characters, made by Listen.
func (s *Server) Token() string { return s.token }

// errNoToken refuses a request without the run's token.
var errNoToken = &Error{Code: CodeRefused, Message: "refused: the request does not carry the run's token (" + TokenEnv +
	"): only the commands of the run's bash tool may ask"}

// Serve accepts connections until ctx ends or Close is called; it
// returns when the listener is closed. Requests still being handled when
// ctx ends see their context end. A connection is accepted only when
// fewer than the limit of connections wait for their hello (see
// [Server.hello]); the others wait in the listen queue.
func (s *Server) Serve(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	for {
		s.pending <- struct{}{} // freed once the connection's hello is read, or refused
		c, err := s.ln.AcceptUnix()
		if err != nil {
			<-s.pending
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return
		}
		if !s.track(c) {
			<-s.pending
			c.Close()
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.untrack(c)
			s.serveConn(ctx, c)
		}()
	}
}

// Close stops the server: no new connection is accepted, the open ones
// are closed, and it waits for their handlers to return. Every caller
// waits, not only the first.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.gone
		return nil
	}
	defer close(s.gone)
	s.closed = true
	err := s.ln.Close()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	if s.tmpDir != "" {
		os.RemoveAll(s.tmpDir)
	}
	return err
}

func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) untrack(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	c.Close()
}

// serveConn answers the requests of one connection in order. A client
// that goes away cancels the request being handled.
func (s *Server) serveConn(ctx context.Context, c *net.UnixConn) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pid, between, err := s.authorize(c)
	rest, ok := s.hello(c)
	<-s.pending
	if err == nil && !ok {
		err = errNoToken
	}
	if err != nil {
		// The client reads the reason even if its request, sent after
		// its hello, meets the closed socket.
		_ = writeLine(c, Response{Error: &Error{Code: CodeRefused, Message: err.Error()}})
		return
	}
	reqs := make(chan Request)
	go func() {
		defer cancel()
		defer close(reqs)
		lr := newLineReader(rest)
		for {
			var req Request
			if err := lr.next(&req); err != nil {
				return
			}
			select {
			case reqs <- req:
			case <-ctx.Done():
				return
			}
		}
	}()
	for req := range reqs {
		resp := Response{Error: errNoToken}
		if subtle.ConstantTimeCompare([]byte(req.Token), []byte(s.token)) == 1 {
			req.Token = ""
			if err := s.enter(pid, between); err != nil {
				resp = Response{Error: &Error{Code: CodeRefused, Message: err.Error()}}
			} else {
				resp = s.handler(ctx, pid, req)
				s.leave(pid)
			}
		}
		if writeLine(c, resp) != nil {
			return
		}
	}
}

// hello reads the connection's first line, the [hello] carrying the
// run's token, before anything else: at most maxHello bytes, within the
// hello deadline. It reports whether the token is the run's, and returns
// the connection's reader from the end of the line.
func (s *Server) hello(c *net.UnixConn) (io.Reader, bool) {
	c.SetReadDeadline(time.Now().Add(s.limits.helloTimeout))
	br := bufio.NewReaderSize(c, maxHello)
	line, err := br.ReadSlice('\n')
	if err != nil {
		return nil, false
	}
	var h hello
	if json.Unmarshal(line, &h) != nil || subtle.ConstantTimeCompare([]byte(h.Token), []byte(s.token)) != 1 {
		return nil, false
	}
	c.SetReadDeadline(time.Time{})
	buffered, _ := br.Peek(br.Buffered())
	return io.MultiReader(bytes.NewReader(bytes.Clone(buffered)), c), true
}

// enter counts a request of pid in flight, unless a process between pid
// and the server's (its ancestors below the owner) has one: asked at each
// request, not only when the client connected, since the ancestor's
// sub-query may have started since.
func (s *Server) enter(pid int, between []int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range between {
		if s.inflight[p] > 0 {
			return errNested
		}
	}
	s.inflight[pid]++
	return nil
}

// errNested refuses a sub-query asked under another.
var errNested = errors.New("refused: a sub-query cannot start sub-queries of its own (depth 1)")

func (s *Server) leave(pid int) {
	s.mu.Lock()
	if s.inflight[pid]--; s.inflight[pid] <= 0 {
		delete(s.inflight, pid)
	}
	s.mu.Unlock()
}

// authorize checks the peer of c (where the platform tells it): it must
// descend from the server's process. It returns the peer's pid (0 when
// unknown) and the processes between the two, which [Server.enter]
// checks at each request: none may have a sub-query in flight (a
// sub-query cannot start sub-queries).
func (s *Server) authorize(c *net.UnixConn) (pid int, between []int, err error) {
	pid, ok := peerPID(c)
	if !ok {
		return 0, nil, nil
	}
	chain, err := ancestors(pid)
	if err != nil {
		return pid, nil, fmt.Errorf("refused: cannot tell who is asking: %v", err)
	}
	if pid == s.owner {
		return pid, nil, nil
	}
	for i, p := range chain[1:] {
		if p == s.owner {
			between = chain[1 : i+2] // the owner too, as ever
			if err := s.enter(pid, between); err != nil {
				return pid, nil, err
			}
			s.leave(pid)
			return pid, between, nil
		}
	}
	return pid, nil, errors.New("refused: the process asking is not a descendant of the run")
}

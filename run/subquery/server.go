package subquery

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
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

	mu       sync.Mutex
	inflight map[int]int // client pid → requests being handled
	conns    map[net.Conn]struct{}
	closed   bool
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
		inflight: map[int]int{}, conns: map[net.Conn]struct{}{}}, nil
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
// ctx ends see their context end.
func (s *Server) Serve(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return
		}
		if !s.track(c) {
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
// are closed, and it waits for their handlers to return.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
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
	pid, err := s.authorize(c)
	if err != nil {
		// Read the request first, so that the client's write does not
		// fail on a closed socket and it gets the reason.
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		var req Request
		_ = newLineReader(c).next(&req)
		_ = writeLine(c, Response{Error: &Error{Code: CodeRefused, Message: err.Error()}})
		return
	}
	reqs := make(chan Request)
	go func() {
		defer cancel()
		defer close(reqs)
		lr := newLineReader(c)
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
			s.enter(pid)
			resp = s.handler(ctx, pid, req)
			s.leave(pid)
		}
		if writeLine(c, resp) != nil {
			return
		}
	}
}

func (s *Server) enter(pid int) {
	s.mu.Lock()
	s.inflight[pid]++
	s.mu.Unlock()
}

func (s *Server) leave(pid int) {
	s.mu.Lock()
	if s.inflight[pid]--; s.inflight[pid] <= 0 {
		delete(s.inflight, pid)
	}
	s.mu.Unlock()
}

// authorize checks the peer of c (where the platform tells it): it must
// descend from the server's process, and no process between them may be
// a client with a sub-query in flight (a sub-query cannot start
// sub-queries). It returns the peer's pid, 0 when unknown.
func (s *Server) authorize(c *net.UnixConn) (int, error) {
	pid, ok := peerPID(c)
	if !ok {
		return 0, nil
	}
	chain, err := ancestors(pid)
	if err != nil {
		return pid, fmt.Errorf("refused: cannot tell who is asking: %v", err)
	}
	if pid == s.owner {
		return pid, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range chain[1:] {
		if s.inflight[p] > 0 {
			return pid, errors.New("refused: a sub-query cannot start sub-queries of its own (depth 1)")
		}
		if p == s.owner {
			return pid, nil
		}
	}
	return pid, errors.New("refused: the process asking is not a descendant of the run")
}

package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sessions "github.com/rubichan/rubichan/run/session"
)

// Options configures a [Server].
type Options struct {
	// Open opens a session's engine (required).
	Open Opener
	// Version is rubichan's version, for agentInfo.
	Version string
	// Notes receives the server's own notes (stderr); nil: none.
	Notes io.Writer
	// List lists rubichan's sessions for session/list (required).
	List Lister
	// PermissionTimeout bounds the wait for a permission answer; past it
	// the call gets the headless behaviour (on_ask). 0: no limit.
	PermissionTimeout time.Duration
}

// Server serves ACP on one connection. Its methods are safe for
// concurrent use; Serve is called once.
type Server struct {
	opt  Options
	conn *conn

	mu       sync.Mutex
	sessions map[string]*session
	inited   bool
}

// NewServer returns a server writing its messages on w.
func NewServer(w io.Writer, opt Options) *Server {
	if opt.Notes == nil {
		opt.Notes = io.Discard
	}
	return &Server{opt: opt, conn: newConn(w), sessions: map[string]*session{}}
}

// Serve reads requests from r until it ends or ctx does, then stops the
// running prompts, waits for them and closes every session.
func (s *Server) Serve(ctx context.Context, r io.Reader) error {
	ctx, cancel := context.WithCancelCause(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel(errors.New("acp: the client went away"))
		wg.Wait()
		s.closeAll()
	}()
	readErr := make(chan error, 1)
	go func() {
		readErr <- readMessages(r, func(m message) {
			switch {
			case m.Method == "initialize" && m.ID != nil:
				// In order: what follows it finds the connection initialized.
				res, err := s.handle(ctx, m)
				s.conn.reply(m.ID, res, err)
			case m.Method != "" && m.ID != nil:
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := s.handle(ctx, m)
					s.conn.reply(m.ID, res, err)
				}()
			case m.Method != "":
				s.notification(m)
			case m.ID != nil:
				if !s.conn.deliver(m) {
					fmt.Fprintf(s.opt.Notes, "rubichan acp: a response to no request (id %s)\n", m.ID)
				}
			default:
				s.conn.reply(json.RawMessage("null"), nil, errorf(codeInvalidRequest, "acp: neither a request, a notification nor a response"))
			}
		}, func(err error) {
			s.conn.reply(json.RawMessage("null"), nil, errorf(codeParse, "acp: not a JSON-RPC 2.0 message: %v", err))
		})
	}()
	select {
	case err := <-readErr:
		return err
	case <-ctx.Done():
		return nil
	}
}

// handle answers one request.
func (s *Server) handle(ctx context.Context, m message) (any, error) {
	switch m.Method {
	case "initialize":
		return s.initialize(m.Params)
	case "authenticate":
		return nil, errorf(codeInvalidParams, "acp: rubichan offers no authentication methods: set the provider's API key in the environment rubichan acp starts in")
	}
	switch m.Method {
	case "session/new", "session/load", "session/resume", "session/list", "session/prompt", "session/close",
		"session/set_config_option":
	default:
		return nil, errorf(codeNoMethod, "acp: no method %q", m.Method)
	}
	if !s.initialized() {
		return nil, errorf(codeInvalidRequest, "acp: %s before initialize", m.Method)
	}
	switch m.Method {
	case "session/new":
		return s.newSession(ctx, m.Params)
	case "session/load":
		return s.loadSession(ctx, m.Params, true)
	case "session/resume":
		return s.loadSession(ctx, m.Params, false)
	case "session/list":
		return s.listSessions(m.Params)
	case "session/set_config_option":
		return s.setConfig(m.Params)
	case "session/prompt":
		var req promptRequest
		if err := decode(m.Params, &req); err != nil {
			return nil, err
		}
		ss, err := s.session(req.SessionID)
		if err != nil {
			return nil, err
		}
		return ss.prompt(ctx, req.Prompt)
	}
	return s.closeSession(m.Params)
}

// notification acts on one notification: session/cancel; others are
// ignored, as the protocol allows.
func (s *Server) notification(m message) {
	if m.Method != "session/cancel" {
		return
	}
	var req sessionRequest
	if decode(m.Params, &req) != nil {
		return
	}
	if ss, err := s.session(req.SessionID); err == nil {
		ss.cancel()
	}
}

// decode reads a request's params; bad ones are an invalid params error.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 {
		return errorf(codeInvalidParams, "acp: missing params")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return errorf(codeInvalidParams, "acp: bad params: %v", err)
	}
	return nil
}

func (s *Server) initialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inited
}

// initialize negotiates the version (rubichan speaks 1: a client asking
// for another gets 1, and may disconnect) and advertises exactly what
// rubichan implements.
func (s *Server) initialize(params json.RawMessage) (any, error) {
	var req initializeRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if req.ProtocolVersion == nil || *req.ProtocolVersion < 0 {
		return nil, errorf(codeInvalidParams, "acp: initialize: protocolVersion is required")
	}
	s.mu.Lock()
	s.inited = true
	s.mu.Unlock()
	return initializeResponse{
		ProtocolVersion: ProtocolVersion,
		AgentCapabilities: agentCapabilities{
			LoadSession:     true,
			MCPCapabilities: mcpCapabilities{HTTP: true},
			SessionCapabilities: sessionCapabilities{Close: &struct{}{}, List: &struct{}{},
				Resume: &struct{}{}},
		},
		AuthMethods: []json.RawMessage{},
		AgentInfo:   implementation{Name: "rubichan", Title: "rubichan", Version: s.opt.Version},
	}, nil
}

// newSession opens an engine in the client's cwd.
func (s *Server) newSession(ctx context.Context, params json.RawMessage) (any, error) {
	var req newSessionRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	ss, err := s.open(ctx, req, "")
	if err != nil {
		return nil, err
	}
	return newSessionResponse{SessionID: ss.id, ConfigOptions: ss.configOptions()}, nil
}

// loadSession opens an engine that continues one of rubichan's sessions:
// session/load replays its conversation as updates first, session/resume
// does not.
func (s *Server) loadSession(ctx context.Context, params json.RawMessage, replay bool) (any, error) {
	var req newSessionRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if req.SessionID == "" {
		return nil, errorf(codeInvalidParams, "acp: sessionId is required")
	}
	// An id as session/list gives it, never a path: the engine resumes a
	// path as --resume does, reading and appending to any file.
	if err := sessions.CheckID(req.SessionID); err != nil {
		return nil, errorf(codeInvalidParams, "acp: %v", err)
	}
	if strings.HasSuffix(req.SessionID, sessions.Ext) {
		return nil, errorf(codeInvalidParams, "acp: session id %q: an id as session/list gives it, not a file name", req.SessionID)
	}
	if _, err := s.session(req.SessionID); err == nil {
		return nil, errorf(codeInvalidRequest, "acp: session %q is already open", req.SessionID)
	}
	ss, err := s.open(ctx, req, req.SessionID)
	if err != nil {
		return nil, err
	}
	if replay {
		ss.replay(ss.eng.History())
	}
	return loadSessionResponse{ConfigOptions: ss.configOptions()}, nil
}

// open opens and registers a session's engine; resume names the session
// it continues ("" for a new one).
func (s *Server) open(ctx context.Context, req newSessionRequest, resume string) (*session, error) {
	if !filepath.IsAbs(req.Cwd) {
		return nil, errorf(codeInvalidParams, "acp: cwd %q is not an absolute path", req.Cwd)
	}
	servers, err := mcpServers(req.MCPServers)
	if err != nil {
		return nil, err
	}
	ss := &session{srv: s, cwd: req.Cwd}
	eng, err := s.opt.Open(ctx, OpenOptions{Cwd: req.Cwd, MCPServers: servers, Resume: resume, Emit: ss.emit, Asker: ss.asker})
	if err != nil {
		return nil, openError(err)
	}
	ss.eng = eng
	s.mu.Lock()
	defer s.mu.Unlock()
	ss.id = eng.ID()
	if resume != "" {
		ss.id = resume // the client's name for it
	}
	s.sessions[ss.id] = ss
	return ss, nil
}

// listSessions is session/list: rubichan's sessions, of the cwd asked
// for or all, in one page.
func (s *Server) listSessions(params json.RawMessage) (any, error) {
	var req struct {
		Cwd string `json:"cwd"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, errorf(codeInvalidParams, "acp: bad params: %v", err)
		}
	}
	list, err := s.opt.List(req.Cwd)
	if err != nil {
		return nil, errorf(codeInternal, "%v", err)
	}
	out := listSessionsResponse{Sessions: []sessionInfo{}}
	for _, si := range list {
		out.Sessions = append(out.Sessions, sessionInfo{SessionID: si.ID, Cwd: si.Cwd, Title: si.Title, UpdatedAt: si.UpdatedAt})
	}
	return out, nil
}

// openError is the JSON-RPC error of a session that could not open: a
// missing API key asks the client to authenticate, in words.
func openError(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "needs an API key") || strings.Contains(msg, "no model provider") {
		return &rpcError{Code: codeAuthRequired, Message: msg}
	}
	return &rpcError{Code: codeInternal, Message: msg}
}

// mcpServers converts the client's servers; an SSE server is refused
// (rubichan speaks stdio and streamable HTTP).
func mcpServers(in []mcpServer) ([]MCPServer, error) {
	var out []MCPServer
	for _, m := range in {
		srv := MCPServer{Name: m.Name, Command: m.Command, Args: m.Args, URL: m.URL}
		switch m.Type {
		case "", "stdio":
			if m.Command == "" {
				return nil, errorf(codeInvalidParams, "acp: MCP server %q: no command", m.Name)
			}
			srv.Env = pairs(m.Env)
		case "http":
			srv.Headers = pairs(m.Headers)
		default:
			return nil, errorf(codeInvalidParams, "acp: MCP server %q: transport %q is not supported (stdio and http are)", m.Name, m.Type)
		}
		out = append(out, srv)
	}
	return out, nil
}

func pairs(in []nameText) map[string]string {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]string, len(in))
	for _, p := range in {
		out[p.Name] = p.Value
	}
	return out
}

// session returns the open session id.
func (s *Server) session(id string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[id]
	if !ok {
		return nil, errorf(codeNotFound, "acp: no session %q", id)
	}
	return ss, nil
}

// closeSession stops a session's running prompt and closes it.
func (s *Server) closeSession(params json.RawMessage) (any, error) {
	var req sessionRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	ss, err := s.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	delete(s.sessions, req.SessionID)
	s.mu.Unlock()
	ss.close()
	return struct{}{}, nil
}

// closeAll closes every session at the end of the connection.
func (s *Server) closeAll() {
	s.mu.Lock()
	all := s.sessions
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	for _, ss := range all {
		ss.close()
	}
}

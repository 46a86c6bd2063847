package mcp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rubichan/rubichan/toolkit"
)

// Manager holds a run's servers from start-up to [Manager.Close]. Its
// methods are safe for concurrent use.
type Manager struct {
	servers []*server
	status  []Status
	tools   []toolkit.Tool
}

// Start starts every server concurrently and waits until each is ready
// (its tools listed), failed or timed out (its startup timeout), or ctx
// ends. The ready servers' tools are offered in the order of servers, then
// of the server's list; a tool whose model name another one already has,
// or whose input schema the model APIs would reject, is left out with a
// note in its server's [Status]. Call [Manager.Close] when the run ends,
// whatever Start found.
func Start(ctx context.Context, servers []ServerConfig, opts Options) *Manager {
	m := &Manager{status: make([]Status, len(servers))}
	var wg sync.WaitGroup
	listed := make([][]toolEntry, len(servers))
	for i, cfg := range servers {
		s := newServer(cfg, &opts)
		m.servers = append(m.servers, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.status[i], listed[i] = s.start(ctx)
		}()
	}
	wg.Wait()
	m.offer(listed)
	return m
}

// toolEntry is one listed tool before it is offered.
type toolEntry struct {
	name, description string
	schema            any
	readOnly          bool // the server's readOnlyHint
}

// start connects to the server and lists its tools, within its startup
// timeout.
func (s *server) start(ctx context.Context) (Status, []toolEntry) {
	st := Status{Name: s.cfg.Name, Transport: s.cfg.Kind(), Required: s.cfg.Required, Tools: []ToolInfo{}}
	begin := time.Now()
	cctx, cancel := context.WithTimeout(ctx, s.cfg.startupTimeout())
	defer cancel()
	err := s.connect(cctx)
	var tools []toolEntry
	if err == nil {
		var listed []*sdk.Tool
		listed, err = s.listTools(cctx)
		for _, t := range listed {
			tools = append(tools, toolEntry{name: t.Name, description: t.Description, schema: t.InputSchema,
				readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint})
		}
	}
	st.Startup = time.Since(begin)
	switch {
	case err == nil:
		st.State = StateReady
	case errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		st.State, st.Reason = StateTimeout, fmt.Sprintf("not ready within %s (startup_timeout)", s.cfg.startupTimeout())
	default:
		// The reason may quote the server (its stderr, an HTTP error):
		// its own credentials are hidden, as a run hides its key.
		st.State, st.Reason = StateFailed, oneLine(redactSecrets(err.Error(), Secrets([]ServerConfig{s.cfg}, *s.opts)))
	}
	// A program that could not be started at all is not the sandbox's doing.
	var notFound *exec.Error
	if st.State != StateReady && s.cfg.Kind() == "stdio" && s.opts.StartHint != nil && !errors.As(err, &notFound) {
		if hint := s.opts.StartHint(s.cfg); hint != "" {
			st.Reason += "; " + hint
		}
	}
	if n, first := s.skippedLines(); n > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("skipped %d line(s) on stdout that were not JSON-RPC, the first: %q", n, first))
	}
	if st.State != StateReady {
		s.close()
	}
	return st, tools
}

// skippedLines is how many lines the server's stdout had that were not
// JSON-RPC, and the first; 0 for a server without a process.
func (s *server) skippedLines() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return 0, ""
	}
	return s.proc.out.Skipped()
}

// offer builds the tools of the ready servers.
func (m *Manager) offer(listed [][]toolEntry) {
	seen := map[string]string{} // model name → SERVER/TOOL
	for i, s := range m.servers {
		st := &m.status[i]
		if st.State != StateReady {
			continue
		}
		for _, e := range listed[i] {
			if len(s.cfg.Tools) > 0 && !slices.Contains(s.cfg.Tools, e.name) {
				continue
			}
			pol := s.cfg.Name + "/" + e.name
			name := ToolName(s.cfg.Name, e.name)
			if other, ok := seen[name]; ok {
				st.Notes = append(st.Notes, fmt.Sprintf("tool %s left out: its name %s is taken by %s", e.name, name, other))
				continue
			}
			schema, note, err := inputSchema(e.schema)
			if err != nil {
				st.Notes = append(st.Notes, fmt.Sprintf("tool %s left out: %v", e.name, err))
				continue
			}
			if note != "" {
				st.Notes = append(st.Notes, "tool "+e.name+": "+note)
			}
			seen[name] = pol
			desc := strings.TrimSpace(e.description)
			if desc == "" {
				desc = "The " + e.name + " tool of the MCP server " + s.cfg.Name + "."
			}
			m.tools = append(m.tools, &tool{srv: s, name: e.name, policy: pol, readOnly: e.readOnly,
				spec: toolkit.Spec{Name: name, Description: desc, Schema: schema}})
			st.Tools = append(st.Tools, ToolInfo{Name: name, Policy: pol})
		}
	}
}

// Tools returns the tools of the ready servers, to offer to the model.
// A nil Manager has none.
func (m *Manager) Tools() []toolkit.Tool {
	if m == nil {
		return nil
	}
	return slices.Clone(m.tools)
}

// Status returns every server's state after start-up, in the order given.
func (m *Manager) Status() []Status { return slices.Clone(m.status) }

// NotReady returns the statuses of the servers that are not ready.
func (m *Manager) NotReady() []Status {
	var out []Status
	for _, st := range m.status {
		if st.State != StateReady {
			out = append(out, st)
		}
	}
	return out
}

// Close stops every server, concurrently, and returns when all are
// stopped (each stop is bounded). Calls after Close fail.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close()
		}()
	}
	wg.Wait()
}

// Probe starts the servers, returns their statuses and stops them: a
// health check for `rubichan doctor`.
func Probe(ctx context.Context, servers []ServerConfig, opts Options) []Status {
	m := Start(ctx, servers, opts)
	defer m.Close()
	return m.Status()
}

// Summary is one line per server that is not ready ("NAME: failed: REASON"),
// empty when all are ready.
func Summary(sts []Status) []string {
	var out []string
	for _, st := range sts {
		if st.State != StateReady {
			out = append(out, fmt.Sprintf("MCP server %s %s: %s", st.Name, st.State, st.Reason))
		}
	}
	return out
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/input"
	"github.com/rubichan/rubichan/run/subquery"
	"github.com/rubichan/rubichan/toolkit"
)

// Sub-query bounds: the output a sub-query may write unless it asks for
// another cap, and the most material one file range may carry.
const (
	SubqueryMaxTokens   = 4096
	SubqueryMaterialMax = 16 << 20
)

// SubqueryOptions are a run's sub-query settings.
type SubqueryOptions struct {
	Model       string // the sub-model
	Prices      map[string]config.Price
	MaxCost     float64 // the run's --max-cost: a model without a price is refused under it
	Concurrency int
	MaxQueries  int
}

// Subqueries serves the sub-queries of one run: it admits each against
// the run's limits (the budget, --max-queries), runs at most
// Concurrency at once, reads file ranges the read policy allows, asks
// the model with the run's client and reports every one as an
// [agent.EventSubquery]. It is safe for concurrent use.
type Subqueries struct {
	opt    SubqueryOptions
	client agent.Client
	budget *agent.Budget
	emit   func(agent.Event)
	retry  llm.RetryPolicy
	clock  llm.Clock
	gate   *fileGate
	slots  chan struct{}
}

// handle answers one request from a command of the run.
func (s *Subqueries) handle(ctx context.Context, _ int, req subquery.Request) subquery.Response {
	start := time.Now()
	info := &agent.SubqueryInfo{Model: req.Model, Traceparent: req.Traceparent}
	if info.Model == "" {
		info.Model = s.opt.Model
	}
	resp, used := s.answer(ctx, req, info)
	info.Duration = time.Since(start)
	resp.Model, resp.DurationMS = info.Model, info.Duration.Milliseconds()
	if resp.Error == nil || used != (llm.Usage{}) {
		info.Usage = used
		resp.Usage = subquery.Usage{InputTokens: used.InputTokens, OutputTokens: used.OutputTokens,
			CacheReadTokens: used.CacheReadTokens, CacheWriteTokens: used.CacheCreationTokens}
		if p, _, ok := config.LookupPrice(s.opt.Prices, info.Model); ok {
			info.CostUSD, info.CostKnown = agent.Price(p).Cost(used), true
			c := info.CostUSD
			resp.CostUSD = &c
		}
	}
	switch {
	case resp.Error == nil:
		info.Status = agent.SubqueryOK
	case resp.Error.Code == subquery.CodeProvider:
		info.Status, info.Error = agent.SubqueryError, resp.Error.Message
	case resp.Error.Code == subquery.CodeInterrupted:
		return resp // the run is ending: nothing was sent
	default:
		info.Status, info.Error = agent.SubqueryRefused, resp.Error.Message
	}
	s.emit(agent.Event{Kind: agent.EventSubquery, Subquery: info})
	return resp
}

// answer admits, sends and settles one sub-query. It returns the usage
// of what was sent (zero when nothing was).
func (s *Subqueries) answer(ctx context.Context, req subquery.Request, info *agent.SubqueryInfo) (subquery.Response, llm.Usage) {
	fail := func(code, format string, args ...any) (subquery.Response, llm.Usage) {
		return subquery.Response{Error: &subquery.Error{Code: code, Message: fmt.Sprintf(format, args...)}}, llm.Usage{}
	}
	if ctx.Err() != nil {
		return fail(subquery.CodeInterrupted, "the run is ending")
	}
	if strings.TrimSpace(req.Prompt) == "" {
		return fail(subquery.CodeRefused, "a sub-query needs a prompt")
	}
	price, _, priced := config.LookupPrice(s.opt.Prices, info.Model)
	if !priced && s.opt.MaxCost > 0 {
		return fail(subquery.CodeRefused, "model %q has no price, so --max-cost cannot be enforced for it; add [prices.%q] to a config file", info.Model, info.Model)
	}
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-ctx.Done():
		return fail(subquery.CodeInterrupted, "the run is ending")
	}
	material, err := s.material(req)
	if err != nil {
		return fail(subquery.CodeRefused, "%v", err)
	}
	maxOut := req.MaxTokens
	if maxOut <= 0 {
		maxOut = SubqueryMaxTokens
	}
	info.InputBytes = int64(len(material) + len(req.Prompt) + len(req.System))
	est := agent.EstimateSub(int(info.InputBytes/4)+16, maxOut, agent.Price(price), priced)
	if err := s.budget.Reserve(est, s.opt.MaxQueries); err != nil {
		return fail(subquery.CodeLimit, "%v", err) // a *agent.BudgetError or *agent.QueriesError
	}
	text, used, err := s.ask(ctx, llm.Request{Model: info.Model, System: req.System, MaxTokens: maxOut,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: SubqueryBlocks(material, req.Prompt)}}})
	s.budget.Settle(est, used, agent.Price(price), priced)
	if err != nil {
		if ctx.Err() != nil {
			r, _ := fail(subquery.CodeInterrupted, "the run is ending")
			return r, used
		}
		r, _ := fail(subquery.CodeProvider, "model request failed: %v", err)
		return r, used
	}
	return subquery.Response{Text: text}, used
}

// SubqueryBlocks is the user message of a sub-query: the material, if
// any, in an <input> block, then the prompt.
func SubqueryBlocks(material []byte, prompt string) []llm.Block {
	if len(material) == 0 {
		return []llm.Block{llm.TextBlock(prompt)}
	}
	in := "<input>\n" + strings.ToValidUTF8(string(material), "\uFFFD")
	if !strings.HasSuffix(in, "\n") {
		in += "\n"
	}
	return []llm.Block{llm.TextBlock(in + "</input>"), llm.TextBlock(prompt)}
}

// material returns a request's input: its text, or the file range.
func (s *Subqueries) material(req subquery.Request) ([]byte, error) {
	if req.File == "" {
		if len(req.Input) > SubqueryMaterialMax {
			return nil, fmt.Errorf("the input is larger than %s", input.FormatBytes(SubqueryMaterialMax))
		}
		return []byte(req.Input), nil
	}
	if req.Input != "" {
		return nil, errors.New("a sub-query has either input or a file, not both")
	}
	if req.Offset < 0 || req.Length <= 0 || req.Length > SubqueryMaterialMax {
		return nil, fmt.Errorf("a file range needs an offset of at least 0 and a length of 1 byte to %s", input.FormatBytes(SubqueryMaterialMax))
	}
	return s.gate.read(req.File, req.Offset, req.Length)
}

// ask sends one request without tools, retrying transient failures as
// the loop does, and returns the answer's text and the usage of every
// attempt.
func (s *Subqueries) ask(ctx context.Context, req llm.Request) (string, llm.Usage, error) {
	c, err := agent.Complete(ctx, s.client, req, agent.CompleteOptions{Retry: s.retry, Clock: s.clock})
	return c.Message.Text(), c.Total, err
}

// fileGate reads the file ranges of sub-queries: a file is read only
// when it lies in the workspace's roots (the spill directory is one) and
// the read policy allows it, as for the read tool. It is safe for
// concurrent use.
type fileGate struct {
	ws    *toolkit.Workspace
	judge agent.Judge

	mu      sync.Mutex
	allowed map[string]toolkit.PathRef // requested path → the reference the policy allowed
}

// read returns n bytes of path from off (fewer at the end of the file). It
// reads the file the policy judged, following no symlink: a link swapped
// in since fails, and a FIFO or device is refused, never waited on.
func (g *fileGate) read(path string, off, n int64) ([]byte, error) {
	ref, err := g.check(path)
	if err != nil {
		return nil, err
	}
	return g.ws.ReadRange(ref, off, n)
}

// check returns the reference of a file the policy lets sub-queries read,
// or why not.
func (g *fileGate) check(path string) (toolkit.PathRef, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ref, ok := g.allowed[path]; ok {
		return ref, nil
	}
	ref, err := g.ws.Resolve(path)
	if err != nil {
		return toolkit.PathRef{}, err
	}
	v := g.judge("read", toolkit.Effects{Kind: toolkit.EffectRead, Paths: []toolkit.PathRef{ref}, Summary: path})
	if v.Kind != agent.VerdictAllow {
		return toolkit.PathRef{}, fmt.Errorf("the policy does not let sub-queries read %s (%s)", path, v.Rule)
	}
	if g.allowed == nil {
		g.allowed = map[string]toolkit.PathRef{}
	}
	g.allowed[path] = ref
	return ref, nil
}

// SubqueryHost is the sub-query socket of one run: listening from
// before the tools are built (their environment names it), serving from
// when the loop's budget and sinks exist.
type SubqueryHost struct {
	srv  *subquery.Server
	bin  string // the private directory of the link to the running binary; "" without one
	svc  *Subqueries
	done chan struct{}
}

// ListenSubqueries makes the run's sub-query socket in its private
// temporary directory; nil under --no-subqueries.
func ListenSubqueries(s Settings, tempDir string) (*SubqueryHost, error) {
	if s.Subqueries.Off || s.Config == nil || tempDir == "" {
		return nil, nil
	}
	h := &SubqueryHost{done: make(chan struct{})}
	srv, err := subquery.Listen(tempDir, func(ctx context.Context, peer int, req subquery.Request) subquery.Response {
		return h.svc.handle(ctx, peer, req)
	})
	if err != nil {
		return nil, fmt.Errorf("run: sub-query socket: %w", err)
	}
	h.srv = srv
	// Without a path to itself (a deleted binary) the commands find
	// rubichan on PATH, if at all.
	if exe, err := os.Executable(); err == nil {
		if h.bin, err = selfLinkDir(exe); err != nil {
			srv.Close()
			return nil, err
		}
	}
	return h, nil
}

// Path is the socket's path, "" without one.
func (h *SubqueryHost) Path() string {
	if h == nil {
		return ""
	}
	return h.srv.Path()
}

// Token is the token its requests carry, "" when there is no socket.
func (h *SubqueryHost) Token() string {
	if h == nil {
		return ""
	}
	return h.srv.Token()
}

// Serve answers sub-queries with svc until ctx ends or close.
func (h *SubqueryHost) Serve(ctx context.Context, svc *Subqueries) {
	if h == nil {
		return
	}
	h.svc = svc
	go func() {
		defer close(h.done)
		h.srv.Serve(ctx)
	}()
}

// Close stops the socket and waits for the sub-queries in flight.
func (h *SubqueryHost) Close() {
	if h == nil {
		return
	}
	h.srv.Close()
	if h.svc != nil {
		<-h.done
	}
	if h.bin != "" {
		os.RemoveAll(h.bin)
	}
}

// SubqueryConfig are what the sub-query service takes of a run's
// settings.
type SubqueryConfig struct {
	Options  SubqueryOptions
	Provider config.ResolvedProvider // the run's provider, which answers them
	Limits   llm.StreamLimits        // its stream's limits
}

// NewSubqueries is the sub-query service of a headless run: the run's
// provider and budget, its read policy for file ranges.
func NewSubqueries(qs SubqueryConfig, ws *toolkit.Workspace, j agent.Judge, budget *agent.Budget, tr *Traffic, emit func(agent.Event)) *Subqueries {
	return &Subqueries{
		opt:    qs.Options,
		client: NewProviderClient(qs.Provider, qs.Limits, tr.HTTPClient),
		budget: budget, emit: emit, retry: llm.DefaultRetryPolicy(), clock: tr.Clock,
		gate:  &fileGate{ws: ws, judge: j},
		slots: make(chan struct{}, max(qs.Options.Concurrency, 1)),
	}
}

// WithQuerySocket is env without an inherited sub-query socket and token,
// and with the run's, if any, and the link to the running binary first on
// PATH (see [SelfEnv]).
func WithQuerySocket(env []string, q *SubqueryHost) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !strings.HasPrefix(kv, subquery.SocketEnv+"=") && !strings.HasPrefix(kv, subquery.TokenEnv+"=") {
			out = append(out, kv)
		}
	}
	if path := q.Path(); path != "" {
		out = append(out, subquery.SocketEnv+"="+path, subquery.TokenEnv+"="+q.Token())
		if q.bin != "" {
			out = withSelfOnPath(out, q.bin)
		}
	}
	return out
}

package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/subquery"
	"github.com/rubichan/rubichan/toolkit"
)

// Sub-query bounds: the output a sub-query may write unless it asks for
// another cap, and the most material one file range may carry.
const (
	subqueryMaxTokens   = 4096
	subqueryMaterialMax = 16 << 20
)

// subqueryOptions are a run's sub-query settings.
type subqueryOptions struct {
	Model       string // the sub-model
	Prices      map[string]config.Price
	MaxCost     float64 // the run's --max-cost: a model without a price is refused under it
	Concurrency int
	MaxQueries  int
}

// subqueries serves the sub-queries of one run: it admits each against
// the run's limits (the budget, --max-queries), runs at most
// Concurrency at once, reads file ranges the read policy allows, asks
// the model with the run's client and reports every one as an
// [EventSubquery]. It is safe for concurrent use.
type subqueries struct {
	opt    subqueryOptions
	client streamer
	budget *Budget
	emit   func(Event)
	retry  llm.RetryPolicy
	clock  llm.Clock
	gate   *fileGate
	slots  chan struct{}
}

// handle answers one request from a command of the run.
func (s *subqueries) handle(ctx context.Context, _ int, req subquery.Request) subquery.Response {
	start := time.Now()
	info := &SubqueryInfo{Model: req.Model}
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
		info.Status = subqueryOK
	case resp.Error.Code == subquery.CodeProvider:
		info.Status, info.Error = subqueryError, resp.Error.Message
	case resp.Error.Code == subquery.CodeInterrupted:
		return resp // the run is ending: nothing was sent
	default:
		info.Status, info.Error = subqueryRefused, resp.Error.Message
	}
	s.emit(Event{Kind: EventSubquery, Subquery: info})
	return resp
}

// answer admits, sends and settles one sub-query. It returns the usage
// of what was sent (zero when nothing was).
func (s *subqueries) answer(ctx context.Context, req subquery.Request, info *SubqueryInfo) (subquery.Response, llm.Usage) {
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
		maxOut = subqueryMaxTokens
	}
	info.InputBytes = int64(len(material) + len(req.Prompt) + len(req.System))
	est := agent.EstimateSub(int(info.InputBytes/4)+16, maxOut, agent.Price(price), priced)
	if err := s.budget.Reserve(est, s.opt.MaxQueries); err != nil {
		return fail(subquery.CodeLimit, "%v", err) // a *agent.BudgetError or *agent.QueriesError
	}
	text, used, err := s.ask(ctx, llm.Request{Model: info.Model, System: req.System, MaxTokens: maxOut,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: subqueryBlocks(material, req.Prompt)}}})
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

// subqueryBlocks is the user message of a sub-query: the material, if
// any, in an <input> block, then the prompt.
func subqueryBlocks(material []byte, prompt string) []llm.Block {
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
func (s *subqueries) material(req subquery.Request) ([]byte, error) {
	if req.File == "" {
		if len(req.Input) > subqueryMaterialMax {
			return nil, fmt.Errorf("the input is larger than %s", formatBytes(subqueryMaterialMax))
		}
		return []byte(req.Input), nil
	}
	if req.Input != "" {
		return nil, errors.New("a sub-query has either input or a file, not both")
	}
	if req.Offset < 0 || req.Length <= 0 || req.Length > subqueryMaterialMax {
		return nil, fmt.Errorf("a file range needs an offset of at least 0 and a length of 1 byte to %s", formatBytes(subqueryMaterialMax))
	}
	return s.gate.read(req.File, req.Offset, req.Length)
}

// ask sends one request without tools, retrying transient failures as
// the loop does, and returns the answer's text and the usage of every
// attempt.
func (s *subqueries) ask(ctx context.Context, req llm.Request) (string, llm.Usage, error) {
	c, err := agent.Complete(ctx, s.client, req, agent.CompleteOptions{Retry: s.retry, Clock: s.clock})
	return c.Message.Text(), c.Total, err
}

// fileGate reads the file ranges of sub-queries: a file is read only
// when it lies in the workspace's roots (the spill directory is one) and
// the read policy allows it, as for the read tool. It is safe for
// concurrent use.
type fileGate struct {
	ws    *toolkit.Workspace
	judge judge

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
	if v.Kind != verdictAllow {
		return toolkit.PathRef{}, fmt.Errorf("the policy does not let sub-queries read %s (%s)", path, v.Rule)
	}
	if g.allowed == nil {
		g.allowed = map[string]toolkit.PathRef{}
	}
	g.allowed[path] = ref
	return ref, nil
}

// subqueryHost is the sub-query socket of one run: listening from
// before the tools are built (their environment names it), serving from
// when the loop's budget and sinks exist.
type subqueryHost struct {
	srv  *subquery.Server
	svc  *subqueries
	done chan struct{}
}

// listenSubqueries makes the run's sub-query socket in its private
// temporary directory; nil under --no-subqueries.
func listenSubqueries(cfg execConfig, tempDir string) (*subqueryHost, error) {
	if cfg.NoSubqueries || cfg.Settings == nil || tempDir == "" {
		return nil, nil
	}
	h := &subqueryHost{done: make(chan struct{})}
	srv, err := subquery.Listen(tempDir, func(ctx context.Context, peer int, req subquery.Request) subquery.Response {
		return h.svc.handle(ctx, peer, req)
	})
	if err != nil {
		return nil, fmt.Errorf("run: sub-query socket: %w", err)
	}
	h.srv = srv
	return h, nil
}

// path is the socket's path, "" without one.
func (h *subqueryHost) path() string {
	if h == nil {
		return ""
	}
	return h.srv.Path()
}

// token is the token its requests carry, "" when there is no socket.
func (h *subqueryHost) token() string {
	if h == nil {
		return ""
	}
	return h.srv.Token()
}

// serve answers sub-queries with svc until ctx ends or close.
func (h *subqueryHost) serve(ctx context.Context, svc *subqueries) {
	if h == nil {
		return
	}
	h.svc = svc
	go func() {
		defer close(h.done)
		h.srv.Serve(ctx)
	}()
}

// close stops the socket and waits for the sub-queries in flight.
func (h *subqueryHost) close() {
	if h == nil {
		return
	}
	h.srv.Close()
	if h.svc != nil {
		<-h.done
	}
}

// subquerySettings are what the sub-query service takes of a run's
// settings.
type subquerySettings struct {
	Options  subqueryOptions
	Provider config.ResolvedProvider // the run's provider, which answers them
	Limits   llm.StreamLimits        // its stream's limits
}

// subquerySettings returns the run's sub-query settings.
func (cfg execConfig) subquerySettings() subquerySettings {
	q := cfg.Settings.Query
	return subquerySettings{
		Options: subqueryOptions{Model: cfg.Resolved.SubModel, Prices: cfg.Settings.Prices, MaxCost: cfg.Settings.Limits.MaxCost,
			Concurrency: max(q.Concurrency, 1), MaxQueries: q.MaxQueries},
		Provider: cfg.Resolved, Limits: streamLimits(cfg.Settings),
	}
}

// newSubqueries is the sub-query service of a headless run: the run's
// provider and budget, its read policy for file ranges.
func newSubqueries(qs subquerySettings, ws *toolkit.Workspace, j judge, budget *Budget, tr *traffic, emit func(Event)) *subqueries {
	return &subqueries{
		opt:    qs.Options,
		client: newProviderClient(qs.Provider, qs.Limits, tr.HTTPClient),
		budget: budget, emit: emit, retry: llm.DefaultRetryPolicy(), clock: tr.Clock,
		gate:  &fileGate{ws: ws, judge: j},
		slots: make(chan struct{}, max(qs.Options.Concurrency, 1)),
	}
}

// keyVars are the provider key variables no command started by the run
// sees.
func (cfg execConfig) keyVars() []string {
	return runKeyVars(cfg.KeyVar, cfg.Settings)
}

// childDropEnv is what the run's other commands — hooks, --verify, MCP
// servers — do not see: the key variables and the sub-query socket and
// token, which only the bash tool's commands get (through
// [withQuerySocket]).
func (cfg execConfig) childDropEnv() []string {
	return childDropEnv(cfg.keyVars())
}

// withQuerySocket is env without an inherited sub-query socket and token,
// and with the run's, if any.
func withQuerySocket(env []string, q *subqueryHost) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !strings.HasPrefix(kv, subquery.SocketEnv+"=") && !strings.HasPrefix(kv, subquery.TokenEnv+"=") {
			out = append(out, kv)
		}
	}
	if path := q.path(); path != "" {
		out = append(out, subquery.SocketEnv+"="+path, subquery.TokenEnv+"="+q.token())
	}
	return out
}

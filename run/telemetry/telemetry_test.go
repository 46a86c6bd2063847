package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/run/telemetry"
	"github.com/rubichan/rubichan/run/telemetry/otlptest"
	"github.com/rubichan/rubichan/toolkit"
)

const ciParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// start begins a run's telemetry against rec with settings of env.
func start(t *testing.T, rec *otlptest.Receiver, env map[string]string, redact func(string) string) *telemetry.Run {
	t.Helper()
	env["OTEL_EXPORTER_OTLP_ENDPOINT"] = rec.URL
	s := telemetry.Resolve(func(k string) string { return env[k] }, telemetry.Config{})
	r, err := telemetry.Start(context.Background(), s, telemetry.Info{Version: "v9.9.9", Provider: "anthropic", Model: "test-model", Redact: redact})
	if err != nil || r == nil {
		t.Fatalf("start: %v, %v", r, err)
	}
	return r
}

// envTool reports the TRACEPARENT its call would give a command.
type envTool struct {
	agenttest.FakeTool
	tel *telemetry.Run
}

func (e *envTool) Run(ctx context.Context, _ json.RawMessage) (toolkit.Result, error) {
	code := 0
	return toolkit.Result{Content: strings.Join(e.tel.Env(ctx), " "), Meta: toolkit.Meta{ExitCode: &code}}, nil
}

// TestSpanTree: a run with two tool calls, a denial and a retry is one
// trace joined to the CI's TRACEPARENT: the run span, a chat span per
// request (the retry an event of it), an execute_tool span per call
// with the policy's decision, and a command's TRACEPARENT names its
// execute_tool span.
func TestSpanTree(t *testing.T) {
	rec := otlptest.New()
	defer rec.Close()
	tel := start(t, rec, map[string]string{"TRACEPARENT": ciParent}, nil)
	bash := &envTool{agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute}, tel}
	write := &agenttest.FakeTool{Name: "write", Kind: toolkit.EffectWrite}
	r := agenttest.Run(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{Fault: &llmtest.Fault{Status: 529, Type: "overloaded_error", Message: "busy"}},
		{ToolCalls: []llmtest.ToolCall{agenttest.Call("c1", "bash", `{"command":"go test"}`), agenttest.Call("c2", "bash", `{"command":"ls"}`), agenttest.Call("c3", "write", `{"path":"x"}`)},
			Usage: llmtest.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 50}},
		{Text: []string{"done"}},
	}}, agent.Options{Around: tel, Emit: tel.Observe, Judge: func(tool string, _ toolkit.Effects) agent.Verdict {
		if tool == "write" {
			return agent.Verdict{Kind: agent.VerdictDeny, Rule: "tools.write", Fact: "x", Message: "no writes"}
		}
		return agent.Verdict{Kind: agent.VerdictAllow, Rule: "tools.bash"}
	}}, bash, write)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	sum := r.Agent.Summary(time.Now())
	tel.Observe(agent.Event{Kind: agent.EventTurnDone, Summary: sum})
	tel.SetConversation("sess-1")
	if w := tel.Close(); w != "" {
		t.Fatal(w)
	}
	want := `invoke_agent rubichan rubichan.exit_code=0 (parent 00f067aa0ba902b7)
  chat test-model event:retry
  execute_tool bash rubichan.exit_code=0 rubichan.policy.decision=allow
  execute_tool bash rubichan.exit_code=0 rubichan.policy.decision=allow
  execute_tool write rubichan.policy.decision=deny
  chat test-model
`
	if got := rec.Tree("rubichan.exit_code", "rubichan.policy.decision"); got != want {
		t.Errorf("span tree:\n%s\nwant:\n%s", got, want)
	}
	spans := rec.Spans()
	byName := func(name, callID string) otlptest.Span {
		for _, s := range spans {
			if s.Name == name && (callID == "" || s.Attrs["gen_ai.tool.call.id"] == callID) {
				return s
			}
		}
		t.Fatalf("no span %s %s", name, callID)
		return otlptest.Span{}
	}
	root := byName("invoke_agent rubichan", "")
	for _, s := range spans {
		if s.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" {
			t.Errorf("%s is in trace %s, not the CI's", s.Name, s.TraceID)
		}
	}
	wantAttrs := map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "rubichan", "gen_ai.agent.version": "v9.9.9",
		"gen_ai.conversation.id": "sess-1", "rubichan.outcome": "success", "gen_ai.provider.name": "anthropic"}
	for k, v := range wantAttrs {
		if root.Attrs[k] != v {
			t.Errorf("run span %s = %q, want %q", k, root.Attrs[k], v)
		}
	}
	chat := byName("chat test-model", "")
	for k, v := range map[string]string{"gen_ai.operation.name": "chat", "gen_ai.request.model": "test-model", "gen_ai.response.model": "test-model",
		"gen_ai.usage.input_tokens": "150", "gen_ai.usage.output_tokens": "20", "gen_ai.usage.cache_read.input_tokens": "50",
		"gen_ai.response.finish_reasons": "[tool_use]"} {
		if chat.Attrs[k] != v {
			t.Errorf("chat span %s = %q, want %q", k, chat.Attrs[k], v)
		}
	}
	if chat.Kind != "CLIENT" {
		t.Errorf("chat span kind %s", chat.Kind)
	}
	c1 := byName("execute_tool bash", "c1")
	if c1.Attrs["gen_ai.tool.type"] != "function" || c1.Attrs["rubichan.exit_code"] != "0" || c1.Attrs["rubichan.policy.rule"] == "" {
		t.Errorf("execute_tool attributes: %v", c1.Attrs)
	}
	if d := byName("execute_tool write", "c3"); d.Attrs["rubichan.policy.rule"] == "" {
		t.Errorf("denied call without its rule: %v", d.Attrs)
	}
	// The command's TRACEPARENT names its own execute_tool span.
	res := r.Kinds(agent.EventToolResult)
	if wantTP := "TRACEPARENT=00-4bf92f3577b34da6a3ce929d0e0e4736-" + c1.SpanID + "-01"; len(res) == 0 || res[0].Result.Content != wantTP {
		t.Errorf("the command got %q, want %q", res[0].Result.Content, wantTP)
	}
	if c1.ParentID != root.SpanID {
		t.Errorf("execute_tool's parent %s, want the run's %s", c1.ParentID, root.SpanID)
	}
	for _, m := range []string{"gen_ai.client.token.usage", "gen_ai.client.operation.duration", "rubichan.tool.duration"} {
		if !slices.Contains(rec.Metrics(), m) {
			t.Errorf("metric %s not exported: %v", m, rec.Metrics())
		}
	}
}

// TestContentCapture: without OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
// no message text leaves in the export; with it, the text leaves
// redacted, and the secret never does.
func TestContentCapture(t *testing.T) {
	const secret = "sk-live-SECRET123"
	for _, capture := range []bool{false, true} {
		rec := otlptest.New()
		env := map[string]string{}
		if capture {
			env["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"
		}
		tel := start(t, rec, env, func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") })
		bash := &agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute, Result: func(json.RawMessage) (toolkit.Result, error) {
			return toolkit.Result{Content: "tool output with " + secret}, nil
		}}
		r := agenttest.Run(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{agenttest.Call("c1", "bash", `{"command":"echo `+secret+` zebra-arg"}`)}},
			{Text: []string{"the model says " + secret + " giraffe-text"}},
		}}, agent.Options{Around: tel, Emit: tel.Observe,
			Redact: agent.NewRedactor([]string{secret})}, bash)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		if w := tel.Close(); w != "" {
			t.Fatal(w)
		}
		raw := rec.Raw()
		rec.Close()
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("capture=%v: the secret left in the export", capture)
		}
		for _, text := range []string{"giraffe-text", "zebra-arg", "tool output with"} {
			if got := bytes.Contains(raw, []byte(text)); got != capture {
				t.Errorf("capture=%v: %q in the export: %v", capture, text, got)
			}
		}
		if capture && !bytes.Contains(raw, []byte("[REDACTED]")) {
			t.Errorf("capture on: no redacted text in the export")
		}
	}
}

// TestCollectorDown: a collector that refuses, or never answers, costs
// at most the flush bound and one warning.
func TestCollectorDown(t *testing.T) {
	for name, url := range downCollectors(t) {
		t.Run(name, func(t *testing.T) {
			tel := startDown(t, url)
			begin := time.Now()
			w := tel.Close()
			if took := time.Since(begin); took > 2*time.Second {
				t.Errorf("the flush took %s with a bound of 300ms", took)
			}
			if !strings.HasPrefix(w, "telemetry: could not send the run's trace ") || strings.Contains(w, "\n") {
				t.Errorf("warning %q", w)
			}
		})
	}
}

// TestOffIsNil: off, Start makes nothing and the nil Run does nothing.
func TestOffIsNil(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"no endpoint":  {},
		"sdk disabled": {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"},
	} {
		s := telemetry.Resolve(func(k string) string { return env[k] }, telemetry.Config{})
		tel, err := telemetry.Start(context.Background(), s, telemetry.Info{})
		if tel != nil || err != nil {
			t.Errorf("%s: telemetry started: %v %v", name, tel, err)
		}
		ran := false
		_ = tel.Around(context.Background(), agent.Op{Kind: agent.OpRequest}, func(context.Context) error { ran = true; return nil })
		if !ran || tel.Env(context.Background()) != nil || tel.TraceID() != "" || tel.Close() != "" {
			t.Errorf("%s: the nil Run is not inert", name)
		}
	}
}

// TestPropagateToProviders: a model request carries the traceparent of
// its chat span only when [telemetry] propagate_to_providers says so.
func TestPropagateToProviders(t *testing.T) {
	rec := otlptest.New()
	defer rec.Close()
	var got []string
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("traceparent"))
	}))
	defer provider.Close()
	for _, propagate := range []bool{false, true} {
		s := telemetry.Resolve(func(k string) string {
			return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rec.URL, "TRACEPARENT": ciParent}[k]
		}, telemetry.Config{PropagateToProviders: propagate})
		tel, err := telemetry.Start(context.Background(), s, telemetry.Info{Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		hc := tel.Client(nil)
		if hc == nil {
			hc = http.DefaultClient // off: the llm client's default
		}
		_ = tel.Around(context.Background(), agent.Op{Kind: agent.OpRequest, Model: "m"}, func(ctx context.Context) error {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, provider.URL, nil)
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			return resp.Body.Close()
		})
		tel.Close()
	}
	if len(got) != 2 || got[0] != "" || !strings.HasPrefix(got[1], "00-4bf92f3577b34da6a3ce929d0e0e4736-") || got[1] == ciParent {
		t.Errorf("traceparent headers sent: %q, want none, then the chat span's", got)
	}
}

// TestHookSpans: a finished hook is a span under its tool call's span; a
// stop hook under the run's.
func TestHookSpans(t *testing.T) {
	rec := otlptest.New()
	defer rec.Close()
	tel := start(t, rec, map[string]string{}, nil)
	code := 0
	call := &agent.ToolCallInfo{ID: "c1", Name: "bash"}
	_ = tel.Around(context.Background(), agent.Op{Kind: agent.OpToolCall, Call: call}, func(context.Context) error {
		tel.Observe(agent.Event{Kind: agent.EventHook, Hook: &agent.HookInfo{Name: "lint", Event: "before_tool", Tool: "bash", ID: "c1", ExitCode: &code, Duration: time.Millisecond, Decision: "allow"}})
		return nil
	})
	tel.Observe(agent.Event{Kind: agent.EventHook, Hook: &agent.HookInfo{Name: "tests", Event: "stop", Decision: "finish", ExitCode: &code}})
	if w := tel.Close(); w != "" {
		t.Fatal(w)
	}
	want := `invoke_agent rubichan
  execute_tool bash
    hook lint rubichan.hook.event=before_tool
  hook tests rubichan.hook.event=stop
`
	if got := rec.Tree("rubichan.hook.event"); got != want {
		t.Errorf("span tree:\n%s\nwant:\n%s", got, want)
	}
}

// TestCollectorURLCredentials: an endpoint that carries credentials in
// its URL (user:password@, a token as the user, ?api_key=) is shown in
// the collector-down warning without them; the warning goes to stderr
// and CI logs.
func TestCollectorURLCredentials(t *testing.T) {
	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	refused.Close() // nothing listens there now
	host := strings.TrimPrefix(refused.URL, "http://")
	for name, env := range map[string]map[string]string{
		"password": {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://user:pw-s3cr3t@" + host},
		"token":    {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://tok-s3cr3t@" + host + "/v1/traces"},
		"query":    {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://" + host + "/v1/traces?api_key=key-s3cr3t&x=1"},
	} {
		t.Run(name, func(t *testing.T) {
			s := telemetry.Resolve(func(k string) string { return env[k] }, telemetry.Config{FlushTimeout: 300 * time.Millisecond})
			tel, err := telemetry.Start(context.Background(), s, telemetry.Info{Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			w := tel.Close()
			if !strings.HasPrefix(w, "telemetry: could not send the run's trace ") || strings.Contains(w, "s3cr3t") {
				t.Errorf("warning %q", w)
			}
		})
	}
}

// TestBadEndpoint: an endpoint that is not an http(s) URL turns telemetry
// off with an error that does not repeat it (it may carry credentials).
// The SDK would log the URL on stderr itself and send the spans to
// https://localhost:4318 instead, to whatever listens there.
func TestBadEndpoint(t *testing.T) {
	for _, raw := range []string{
		"http://user:pw-s3cr3t@127.0.0.1:1/v1/traces\x7f",
		"ht tp://tok-s3cr3t@x/",
		"http://[::1:tok-s3cr3t",
		"ftp://tok-s3cr3t@127.0.0.1/",
		"tok-s3cr3t",
	} {
		s := telemetry.Resolve(func(k string) string {
			return map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": raw}[k]
		}, telemetry.Config{FlushTimeout: 300 * time.Millisecond})
		tel, err := telemetry.Start(context.Background(), s, telemetry.Info{Model: "m"})
		if tel != nil {
			tel.Close()
		}
		if tel != nil || err == nil || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%q: run %v, error %v; want no run and an error without the URL", raw, tel != nil, err)
		}
	}
}

// downCollectors returns the URLs of two collectors that are down: one
// that takes the request and never answers ("silent"), one where nothing
// listens ("refused"). Both live on 127.0.0.1 and end with the test.
func downCollectors(t *testing.T) map[string]string {
	t.Helper()
	quit := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	}))
	t.Cleanup(silent.Close)
	t.Cleanup(func() { close(quit) }) // cleanups run last-in first-out: quit first
	refused := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	refused.Close() // nothing listens there now
	return map[string]string{"silent": silent.URL, "refused": refused.URL}
}

// startDown begins a run's telemetry against the collector at url (one
// of [downCollectors]), with a flush bound of 300 ms.
func startDown(t *testing.T, url string) *telemetry.Run {
	t.Helper()
	s := telemetry.Resolve(func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url}[k]
	}, telemetry.Config{FlushTimeout: 300 * time.Millisecond})
	tel, err := telemetry.Start(context.Background(), s, telemetry.Info{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return tel
}

// TestErrorStatusContent: a provider's error message may quote the
// request (here, a prompt it found too long); without content capture
// the chat span's status tells the failure by its class, status and type
// only, with it the message too.
func TestErrorStatusContent(t *testing.T) {
	for _, capture := range []bool{false, true} {
		rec := otlptest.New()
		env := map[string]string{}
		if capture {
			env["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"
		}
		tel := start(t, rec, env, nil)
		r := agenttest.Run(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
			{Fault: &llmtest.Fault{Status: 400, Type: "invalid_request_error", Message: "prompt 'okapi-prompt-text' is too long"}},
		}}, agent.Options{Around: tel, Emit: tel.Observe})
		if r.Err == nil {
			t.Fatal("the run did not fail")
		}
		if w := tel.Close(); w != "" {
			t.Fatal(w)
		}
		raw := rec.Raw()
		rec.Close()
		if got := bytes.Contains(raw, []byte("okapi-prompt-text")); got != capture {
			t.Errorf("capture=%v: the request's text in the export: %v", capture, got)
		}
		if !bytes.Contains(raw, []byte("HTTP 400 invalid_request_error")) {
			t.Errorf("capture=%v: the span's status does not tell the failure", capture)
		}
	}
}

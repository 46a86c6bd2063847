package llmtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Valid minimal requests of each protocol.
const (
	antReq     = `{"model":"claude","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	oaiReq     = `{"model":"gpt","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`
	oaiNoUsage = `{"model":"gpt","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	respReq    = `{"model":"gpt-5","stream":true,"store":false,"input":[{"type":"message","role":"user","content":"hi"}]}`
)

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", "k1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

// dataLines returns the data fields of an SSE body.
func dataLines(body string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestServerProtocolsAndRecording(t *testing.T) {
	t.Parallel()
	turn := Turn{Text: []string{"hel", "lo"}, ToolCalls: []ToolCall{{Name: "ls", Args: []string{`{"p":`, `1}`}}}}
	srv := NewServer(Script{Turns: []Turn{turn, turn, turn}})
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "reqs")
	if err := srv.RecordTo(dir); err != nil {
		t.Fatal(err)
	}

	resp, body := post(t, srv.URL()+"/v1/messages", antReq)
	if resp.StatusCode != 200 || resp.Header.Get("content-type") != "text/event-stream" {
		t.Fatalf("anthropic: %d %s", resp.StatusCode, resp.Header.Get("content-type"))
	}
	for _, want := range []string{"event: message_start", "event: ping", `"text":"hel","type":"text_delta"`,
		`"partial_json":"{\"p\":"`, `"stop_reason":"tool_use"`, "event: message_stop", `"id":"call_1_0"`} {
		if !strings.Contains(body, want) {
			t.Errorf("anthropic stream lacks %s:\n%s", want, body)
		}
	}

	_, body = post(t, srv.URL()+"/v1/chat/completions", oaiReq)
	lines := dataLines(body)
	if len(lines) == 0 || lines[len(lines)-1] != "[DONE]" {
		t.Fatalf("openai stream does not end in [DONE]:\n%s", body)
	}
	for _, want := range []string{`"content":"hel"`, `"arguments":"1}"`, `"finish_reason":"tool_calls"`, `"choices":[]`, `"model":"gpt"`} {
		if !strings.Contains(body, want) {
			t.Errorf("openai stream lacks %s:\n%s", want, body)
		}
	}

	_, body = post(t, srv.URL()+"/chat/completions", oaiNoUsage)
	if strings.Contains(body, `"usage"`) {
		t.Errorf("usage sent though not asked for:\n%s", body)
	}

	resp, body = post(t, srv.URL()+"/v1/messages", antReq)
	if resp.StatusCode != 500 || !strings.Contains(body, "request 4 asks for turn 4 but the script has 3") {
		t.Errorf("extra request: %d %s", resp.StatusCode, body)
	}

	reqs := srv.Requests()
	if len(reqs) != 4 || reqs[0].Path != "/v1/messages" || reqs[1].Path != "/v1/chat/completions" ||
		reqs[0].Header.Get("x-api-key") != "k1" || string(reqs[0].Body) != antReq {
		t.Fatalf("requests = %+v", reqs)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "request-002.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Method  string              `json:"method"`
		Path    string              `json:"path"`
		Headers map[string][]string `json:"headers"`
		Body    struct {
			Model string `json:"model"`
		} `json:"body"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Method != "POST" || rec.Path != "/v1/chat/completions" || rec.Body.Model != "gpt" || rec.Headers["X-Api-Key"][0] != "k1" {
		t.Errorf("recorded request = %s", raw)
	}
	if _, err := os.Stat(filepath.Join(dir, "request-004.json")); err != nil {
		t.Errorf("extra request not recorded: %v", err)
	}
}

func TestServerResponsesWire(t *testing.T) {
	t.Parallel()
	srv := NewServer(Script{Turns: []Turn{
		{Thinking: []string{"plan"}, Text: []string{"hel", "lo"}, ToolCalls: []ToolCall{{Name: "ls", Args: []string{`{"p":`, `1}`}}},
			Usage: Usage{InputTokens: 10, OutputTokens: 4, CacheReadTokens: 6}},
		{Text: []string{"cut"}, Stop: "max_tokens"},
		{Fault: &Fault{ErrorEvent: true, Type: "rate_limit_exceeded", Message: "slow down"}},
	}})
	defer srv.Close()
	resp, body := post(t, srv.URL()+"/v1/responses", respReq)
	if resp.StatusCode != 200 || resp.Header.Get("content-type") != "text/event-stream" {
		t.Fatalf("responses: %d %s", resp.StatusCode, body)
	}
	for _, want := range []string{"event: response.created", `"type":"response.reasoning_summary_text.delta"`,
		`"encrypted_content":"enc_llmtest_1"`, `"delta":"hel"`, `"type":"response.function_call_arguments.delta"`,
		`"call_id":"call_1_0"`, `"cached_tokens":6`, `"input_tokens":16`, "event: response.completed", `"sequence_number":0`} {
		if !strings.Contains(body, want) {
			t.Errorf("responses stream lacks %s:\n%s", want, body)
		}
	}
	if _, body = post(t, srv.URL()+"/responses", respReq); !strings.Contains(body, `"reason":"max_output_tokens"`) ||
		!strings.Contains(body, "event: response.incomplete") {
		t.Errorf("max_tokens turn:\n%s", body)
	}
	if _, body = post(t, srv.URL()+"/v1/responses", respReq); !strings.Contains(body, `"code":"rate_limit_exceeded"`) ||
		!strings.Contains(body, "event: error") {
		t.Errorf("error event turn:\n%s", body)
	}
}

func TestServerStatusFault(t *testing.T) {
	t.Parallel()
	srv := NewServer(Script{Turns: []Turn{
		{Fault: &Fault{Status: 429, Headers: map[string]string{"retry-after": "2"}}},
		{Fault: &Fault{Status: 503, Body: "down"}},
	}})
	defer srv.Close()
	resp, body := post(t, srv.URL()+"/v1/messages", antReq)
	if resp.StatusCode != 429 || resp.Header.Get("retry-after") != "2" ||
		body != `{"error":{"message":"Too Many Requests","type":"rate_limit_error"},"type":"error"}`+"\n" {
		t.Errorf("429: %d %q", resp.StatusCode, body)
	}
	resp, body = post(t, srv.URL()+"/chat/completions", oaiReq)
	if resp.StatusCode != 503 || body != "down" {
		t.Errorf("503: %d %q", resp.StatusCode, body)
	}
	resp, _ = post(t, srv.URL()+"/v2/other", antReq)
	if resp.StatusCode != 404 {
		t.Errorf("unknown path: %d", resp.StatusCode)
	}
}

func TestServerStreamFaults(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		fault   Fault
		path    string
		want    []string // substrings of the body
		notWant []string
	}{
		"malformed anthropic": {Fault{After: 1, Malformed: true}, "/v1/messages",
			[]string{`"text":"a"`, "data: {\"malformed\n", `"text":"b"`, "message_stop"}, nil},
		"truncate openai": {Fault{After: 1, Truncate: true}, "/chat/completions",
			[]string{`"content":"a"`}, []string{`"content":"b"`, "finish_reason\":\"stop", "[DONE]"}},
		"error event anthropic": {Fault{After: 2, ErrorEvent: true, Type: "overloaded_error", Message: "busy"}, "/v1/messages",
			[]string{"event: error", `"type":"overloaded_error"`, `"text":"b"`}, []string{"message_stop"}},
		"error event openai after all": {Fault{After: 9, ErrorEvent: true}, "/chat/completions",
			[]string{`"content":"b"`, `"error":{"code":"api_error","message":"llmtest: scripted error event"`}, []string{"[DONE]"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := tc.fault
			srv := NewServer(Script{Turns: []Turn{{Text: []string{"a", "b"}, Fault: &f}}})
			defer srv.Close()
			req := antReq
			if tc.path != "/v1/messages" {
				req = oaiReq
			}
			_, body := post(t, srv.URL()+tc.path, req)
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("body lacks %q:\n%s", w, body)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(body, w) {
					t.Errorf("body has %q:\n%s", w, body)
				}
			}
		})
	}
}

func TestServerContextWindow(t *testing.T) {
	t.Parallel()
	srv := NewServer(Script{ContextWindow: 100, Summary: &Turn{Text: []string{"sum"}},
		Turns: []Turn{{Text: []string{"ok"}}}})
	defer srv.Close()
	post := func(body string) (int, string) {
		resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	long := `{"model":"m","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"` + strings.Repeat("x", 400) + `"}]}`
	code, body := post(long)
	if code != 400 || !strings.Contains(body, "prompt is too long: ") || !strings.Contains(body, `\u003e 100 maximum`) {
		t.Fatalf("over the window: %d %s", code, body)
	}
	// No tools: the summary turn, which takes no turn of the script.
	code, body = post(`{"model":"m","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
	if code != 200 || !strings.Contains(body, `"sum"`) {
		t.Fatalf("summary: %d %s", code, body)
	}
	code, body = post(`{"model":"m","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t","input_schema":{"type":"object"}}]}`)
	if code != 200 || !strings.Contains(body, `"ok"`) || !strings.Contains(body, `"input_tokens":`) {
		t.Fatalf("turn: %d %s", code, body)
	}
}

// A lean server answers a request its checks would refuse, and keeps the
// requests without their bodies; before Lean the same request is refused.
func TestServerLean(t *testing.T) {
	t.Parallel()
	srv := NewServer(Script{Turns: []Turn{{Text: []string{"hi"}}}})
	defer srv.Close()
	noMax := `{"model":"claude","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	if resp, body := post(t, srv.URL()+"/v1/messages", noMax); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("checked: %d %q, want 400", resp.StatusCode, body)
	}
	srv.Lean()
	resp, body := post(t, srv.URL()+"/v1/messages", noMax)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"text":"hi"`) {
		t.Fatalf("lean: %d %q, want the turn", resp.StatusCode, body)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[0].Body) == 0 || reqs[1].Body != nil {
		t.Errorf("bodies kept: %d requests, %d and %d bytes; want the first only", len(reqs), len(reqs[0].Body), len(reqs[1].Body))
	}
}

// A lean server reads each request into a buffer it reuses: a short
// request after a long one is read alone, and requests at once each get
// a buffer of their own.
func TestServerLeanReusesItsBuffers(t *testing.T) {
	t.Parallel()
	var turns Script
	for range 20 {
		turns.Turns = append(turns.Turns, Turn{Text: []string{"a", "b"}, Delay: Duration(time.Millisecond)})
	}
	srv := NewServer(turns)
	defer srv.Close()
	srv.Lean()
	body := func(model string, size int) string {
		return `{"model":"` + model + `","max_tokens":5,"messages":[{"role":"user","content":"` + strings.Repeat("x", size) + `"}]}`
	}
	if _, got := post(t, srv.URL()+"/v1/messages", body("m-long", 64<<10)); !strings.Contains(got, `"model":"m-long"`) {
		t.Fatalf("long request: %q", got)
	}
	if _, got := post(t, srv.URL()+"/v1/messages", body("m-short", 1)); !strings.Contains(got, `"model":"m-short"`) {
		t.Errorf("a short request after a long one: %q, want its own model", got)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for i := range 8 {
		wg.Go(func() {
			model := fmt.Sprintf("m-%d", i)
			resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(body(model, i<<10)))
			if err != nil {
				errs <- err.Error()
				return
			}
			defer resp.Body.Close()
			if got, _ := io.ReadAll(resp.Body); !strings.Contains(string(got), `"model":"`+model+`"`) {
				errs <- fmt.Sprintf("%s: %q", model, got)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("requests at once, want each its own model: %s", e)
	}
}

// A lean server reads of a request only the members its answer echoes —
// the model, and for OpenAI's chat the stream options, wherever they are
// — and stops there: a conversation after them is not decoded, so an
// unfinished one does not keep it from answering.
func TestServerLeanReadsOnlyWhatItEchoes(t *testing.T) {
	t.Parallel()
	turns := Script{Turns: []Turn{{Text: []string{"a"}}, {Text: []string{"b"}}, {Text: []string{"c"}}, {Text: []string{"d"}}}}
	srv := NewServer(turns)
	defer srv.Close()
	srv.Lean()
	cut := `{"model":"claude-x","max_tokens":5,"messages":[{"role":"user","content":"hi"`
	if _, body := post(t, srv.URL()+"/v1/messages", cut); !strings.Contains(body, `"model":"claude-x"`) {
		t.Errorf("anthropic, body cut after the model: %q, want the model echoed", body)
	}
	usage := `{"messages":[{"role":"user","content":"hi"}],"model":"gpt-x","stream_options":{"include_usage":true}}`
	_, body := post(t, srv.URL()+"/v1/chat/completions", usage)
	if data := dataLines(body); !strings.Contains(body, `"model":"gpt-x"`) || len(data) < 2 || !strings.Contains(data[len(data)-2], `"usage"`) {
		t.Errorf("openai, options after the conversation: %q, want the model and a usage chunk", body)
	}
	_, body = post(t, srv.URL()+"/v1/chat/completions", `{"model":"gpt-y","stream":true,"messages":[{"role":"user","content":"hi"`)
	if !strings.Contains(body, `"model":"gpt-y"`) || strings.Contains(body, `"usage"`) {
		t.Errorf("openai, body cut before any stream options: %q, want the model, no usage chunk", body)
	}

}

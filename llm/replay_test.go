package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under ../testdata/sse")

// captured is one request a replay server received.
type captured struct {
	path   string
	header http.Header
	body   []byte
}

// replayServer serves recording as a text/event-stream, flushing after each
// event, and sends the request it got on the returned channel.
func replayServer(t *testing.T, recording []byte) (*httptest.Server, <-chan captured) {
	t.Helper()
	reqs := make(chan captured, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		select {
		case reqs <- captured{path: r.URL.Path, header: r.Header.Clone(), body: body}:
		default:
			t.Errorf("more than one request")
		}
		w.Header().Set("content-type", "text/event-stream")
		for _, ev := range bytes.SplitAfter(recording, []byte("\n\n")) {
			_, _ = w.Write(ev)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

// sendRecorded streams req through c to a replay server of the recording
// under ../testdata/sse, reads the stream to its end, and returns the
// request the server got.
func sendRecorded(t *testing.T, recording string, c func(url string) streamer, req Request) captured {
	t.Helper()
	srv, reqs := replayServer(t, readFile(t, filepath.Join("..", "testdata", "sse", recording)))
	s, err := c(srv.URL).Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	drain(t, s)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return <-reqs
}

// goldenBlock, goldenEvent and goldenResult are the readable JSON form of
// a replayed stream.
type goldenBlock struct {
	Kind      string `json:"kind"`
	Text      string `json:"text,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Input     string `json:"input,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	Content   string `json:"content,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
}

type goldenEvent struct {
	Kind       string       `json:"kind"`
	Text       string       `json:"text,omitempty"`
	ToolUse    *goldenBlock `json:"tool_use,omitempty"`
	Usage      *Usage       `json:"usage,omitempty"`
	StopReason StopReason   `json:"stop_reason,omitempty"`
}

type goldenError struct {
	Kind        string `json:"kind"`
	Status      int    `json:"status,omitempty"`
	Type        string `json:"type,omitempty"`
	Error       string `json:"error"`
	Partial     bool   `json:"partial"`
	IsRetryable bool   `json:"is_retryable"`
}

type goldenResult struct {
	Events     []goldenEvent `json:"events"`
	Message    []goldenBlock `json:"message"`
	Usage      Usage         `json:"usage"`
	StopReason StopReason    `json:"stop_reason"`
	Err        *goldenError  `json:"err"`
}

func toGoldenBlock(b Block) goldenBlock {
	return goldenBlock{Kind: b.Kind.String(), Text: b.Text, ID: b.ID, Name: b.Name, Input: string(b.Input), Signature: b.Signature, Data: b.Data,
		ToolUseID: b.ToolUseID, Content: b.Content, IsError: b.IsError}
}

// replay streams a recording through c's protocol and returns the result
// in golden form.
func replayResult(t *testing.T, s *Stream) goldenResult {
	t.Helper()
	var res goldenResult
	for _, ev := range drain(t, s) {
		ge := goldenEvent{Kind: ev.Kind.String(), Text: ev.Text, StopReason: ev.StopReason}
		if ev.Kind == EventToolUse || ev.Kind == EventServerTool {
			b := toGoldenBlock(ev.ToolUse)
			ge.ToolUse = &b
		}
		if ev.Kind == EventUsage || ev.Kind == EventStop {
			u := ev.Usage
			ge.Usage = &u
		}
		res.Events = append(res.Events, ge)
	}
	for _, b := range s.Message().Content {
		res.Message = append(res.Message, toGoldenBlock(b))
	}
	res.Usage, res.StopReason = s.Usage(), s.StopReason()
	if err := s.Err(); err != nil {
		var ae *APIError
		if !errors.As(err, &ae) {
			t.Fatalf("Err = %v (%T), want *APIError", err, err)
		}
		res.Err = &goldenError{Kind: ae.Kind.String(), Status: ae.StatusCode, Type: ae.Type, Error: err.Error(), Partial: ae.Partial, IsRetryable: IsRetryable(err)}
	}
	return res
}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the result:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func marshalGolden(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// replayTarget is the client that replays the recordings of one directory
// under ../testdata/sse, and what its request must look like.
type replayTarget struct {
	client               func(url string) streamer
	path, keyHeader, key string
}

// replayTargets maps each recording directory to its client: gemini holds
// Chat Completions streams of Gemini's OpenAI-compatible endpoint, read
// with its thought tags.
func replayTargets() map[string]replayTarget {
	return map[string]replayTarget{
		"anthropic": {func(url string) streamer {
			return NewAnthropic(AnthropicConfig{BaseURL: url, APIKey: "sk-ant-test-0123456789"})
		}, "/v1/messages", "x-api-key", "sk-ant-test-0123456789"},
		"openai": {func(url string) streamer {
			return NewOpenAI(OpenAIConfig{BaseURL: url + "/v1", APIKey: "sk-test-0123456789"})
		}, "/v1/chat/completions", "authorization", "Bearer sk-test-0123456789"},
		"gemini": {func(url string) streamer {
			return NewOpenAI(OpenAIConfig{Provider: "gemini", BaseURL: url + "/v1beta/openai/", APIKey: "gm-test-0123456789", ThoughtTags: true})
		}, "/v1beta/openai/chat/completions", "authorization", "Bearer gm-test-0123456789"},
		"responses": {func(url string) streamer {
			return NewResponses(ResponsesConfig{BaseURL: url + "/v1", APIKey: "sk-test-0123456789"})
		}, "/v1/responses", "authorization", "Bearer sk-test-0123456789"},
	}
}

func TestReplayRecordings(t *testing.T) {
	t.Parallel()
	for dir, target := range replayTargets() {
		files, err := filepath.Glob(filepath.Join("..", "testdata", "sse", dir, "*.sse"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no recordings for %s: %v", dir, err)
		}
		for _, file := range files {
			name := strings.TrimSuffix(filepath.Base(file), ".sse")
			t.Run(dir+"/"+name, func(t *testing.T) {
				t.Parallel()
				rec, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				srv, reqs := replayServer(t, rec)
				s, err := target.client(srv.URL).Stream(context.Background(), simpleRequest())
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				res := replayResult(t, s)
				checkGolden(t, strings.TrimSuffix(file, ".sse")+".golden.json", marshalGolden(t, res))
				got := <-reqs
				var body struct {
					Model    string            `json:"model"`
					Stream   bool              `json:"stream"`
					Messages []json.RawMessage `json:"messages"`
					Input    []json.RawMessage `json:"input"`
				}
				if err := json.Unmarshal(got.body, &body); err != nil || body.Model != "m" || !body.Stream || len(body.Messages)+len(body.Input) != 1 {
					t.Errorf("request body = %s (%v)", got.body, err)
				}
				if got.path != target.path || got.header.Get(target.keyHeader) != target.key || got.header.Get("accept") != "text/event-stream" {
					t.Errorf("request %s with headers %v", got.path, got.header)
				}
			})
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

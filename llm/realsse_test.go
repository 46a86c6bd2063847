package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realSSE names a directory of real recorded streams (one NAME.sse with a
// NAME.json beside it giving its protocol: anthropic, openai or
// responses), such as the project's corpus of public recordings. The
// corpus is too big for the repository; the recordings that found a bug
// are copied under ../testdata/sse.
var realSSE = flag.String("realsse", defaultRealSSE, "a directory tree of real `.sse` recordings with `.json` metadata to decode")

// defaultRealSSE is where the corpus lies for a checkout with the
// project's shared material beside it (the sessions' and CI's layout).
const defaultRealSSE = "../../shared/realsse"

// TestRealRecordings decodes every recording under -realsse with its
// protocol's decoder: a real stream never fails as a protocol error (the
// decoder must understand what servers send); an error the server itself
// sent in the stream, or a cut stream, is a result like any other. The
// invariants of decodeAll hold for each. A checkout without the corpus
// beside it skips, saying so; a directory named with -realsse must exist.
func TestRealRecordings(t *testing.T) {
	if *realSSE == defaultRealSSE {
		if _, err := os.Stat(defaultRealSSE); err != nil {
			t.Skipf("no corpus of real recordings at %s (pass -realsse DIR): %v", defaultRealSSE, err)
		}
	}
	metas, err := filepath.Glob(filepath.Join(*realSSE, "*", "*.json"))
	if err != nil || len(metas) == 0 {
		t.Fatalf("no recordings under %s: %v", *realSSE, err)
	}
	decoders := map[string]string{"anthropic": "anthropic", "openai": "openai", "responses": "responses"}
	n := 0
	for _, meta := range metas {
		var m struct {
			Protocol string `json:"protocol"`
		}
		if err := json.Unmarshal(readFile(t, meta), &m); err != nil {
			t.Fatalf("%s: %v", meta, err)
		}
		provider, ok := decoders[m.Protocol]
		if !ok {
			t.Fatalf("%s: unknown protocol %q", meta, m.Protocol)
		}
		file := strings.TrimSuffix(meta, ".json") + ".sse"
		rec := readFile(t, file)
		n++
		name, _ := filepath.Rel(*realSSE, file)
		t.Run(name, func(t *testing.T) {
			res := decodeAll(t, provider, bytes.NewReader(rec), len(rec)+3)
			if res.err == "" {
				return
			}
			s := newStream(provider, io.NopCloser(bytes.NewReader(rec)), testDecoder(provider), nil)
			for s.Next() {
			}
			var ae *APIError
			if errors.As(s.Err(), &ae) && ae.Kind == KindProtocol {
				t.Errorf("%s recording fails as a protocol error: %v", m.Protocol, s.Err())
			}
		})
	}
	t.Logf("decoded %d recordings", n)
}

// TestRealTrafficFromTheCorpus pins the recordings of the corpus that
// found bugs (copied under ../testdata/sse; testdata/sse/SOURCES.md says
// where each comes from): a Responses stream whose items or events of
// types the decoder does not use have fields of shapes it does not expect
// (gpt-5.4's tool_search_call with an object `arguments`, gpt-5.2's
// response.shell_call_output_content.delta with an object `delta`) is read
// whole, and OpenRouter's error chunk after finish_reason "length"
// carries the stream's only usage, which is counted.
func TestRealTrafficFromTheCorpus(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		provider, file string
		stop           StopReason
		usage          Usage
		text           string // a part of the answer's text
		tool           string // the tool call's name and input, if any
	}{
		"tool_search_call item with object arguments": {"responses", "responses/tool_search_call.sse", StopToolUse,
			Usage{InputTokens: 600, OutputTokens: 47, ReasoningTokens: 21}, "", `get_exchange_rate {"from_currency":"USD","to_currency":"EUR"}`},
		"shell_call_output_content.delta with object delta": {"responses", "responses/shell_call_output.sse", StopEndTurn,
			Usage{InputTokens: 1501 - 1024, CacheReadTokens: 1024, OutputTokens: 314, ReasoningTokens: 100}, "Build a STOP large signal STOP", ""},
		"openrouter error chunk after length": {"openai", "openai/openrouter_length_error.sse", StopMaxTokens,
			Usage{InputTokens: 43, OutputTokens: 10, ReasoningTokens: 11}, "", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := readFile(t, filepath.Join("..", "testdata", "sse", tc.file))
			res := decodeAll(t, tc.provider, bytes.NewReader(rec), len(rec)+3)
			if res.err != "" {
				t.Fatalf("the stream failed: %s", res.err)
			}
			stop := res.events[len(res.events)-1]
			if stop.StopReason != tc.stop || stop.Usage != tc.usage {
				t.Errorf("stop %q with usage %+v, want %q with %+v", stop.StopReason, stop.Usage, tc.stop, tc.usage)
			}
			var text strings.Builder
			var tools []string
			for _, b := range res.msg.Content {
				switch b.Kind {
				case BlockText:
					text.WriteString(b.Text)
				case BlockToolUse:
					tools = append(tools, b.Name+" "+string(b.Input))
				}
			}
			if !strings.Contains(text.String(), tc.text) {
				t.Errorf("text %q, want it to hold %q", text.String(), tc.text)
			}
			if want := []string{tc.tool}; tc.tool != "" && !slices.Equal(tools, want) || tc.tool == "" && len(tools) > 0 {
				t.Errorf("tool calls %q, want %q", tools, tc.tool)
			}
		})
	}
}

package llm

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// fuzzStream feeds data to a decoder and checks the stream's invariants:
// it ends within a bounded number of events, a stream without error ended
// with a stop event, and every tool call delivered has a non-empty input.
func fuzzStream(t *testing.T, provider string, data []byte) {
	var dec decoder = &anthropicDecoder{}
	if provider != "anthropic" {
		dec = newOpenAIDecoder()
	}
	s := newStream(provider, io.NopCloser(bytes.NewReader(data)), dec, nil)
	defer s.Close()
	var last Event
	// Every event needs at least one byte of input, bar the final usage and
	// stop events.
	limit := len(data) + 3
	n := 0
	for s.Next() {
		if n++; n > limit {
			t.Fatalf("more than %d events from %d bytes", limit, len(data))
		}
		last = s.Current()
		if last.Kind == EventToolUse && len(last.ToolUse.Input) == 0 {
			t.Fatalf("tool use with empty input: %+v", last.ToolUse)
		}
	}
	if s.Err() == nil && last.Kind != EventStop {
		t.Fatalf("stream ended without error and without stop event (last %v)", last.Kind)
	}
	for _, b := range s.Message().Content {
		if b.Kind == BlockToolUse && len(b.Input) == 0 {
			t.Fatalf("message tool use with empty input")
		}
	}
}

func addRecordings(f *testing.F, proto string) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "sse", proto, "*.sse"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzAnthropicStream(f *testing.F) {
	addRecordings(f, "anthropic")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzStream(t, "anthropic", data) })
}

func FuzzOpenAIStream(f *testing.F) {
	addRecordings(f, "openai")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzStream(t, "openai", data) })
}

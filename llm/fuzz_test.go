package llm

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fuzzDeadline bounds the time one fuzz input may take to decode. Inputs
// are at most a few megabytes and decode in milliseconds; the margin is for
// -race on a loaded machine. Reaching it means the parser hangs.
const fuzzDeadline = 20 * time.Second

// testDecoder returns the decoder of a recording directory's protocol:
// anthropic, responses, gemini (Chat Completions with thought tags) or
// openai.
func testDecoder(provider string) decoder {
	switch provider {
	case "anthropic":
		return &anthropicDecoder{}
	case "responses":
		return newResponsesDecoder()
	case "gemini":
		d := newOpenAIDecoder()
		d.thoughts = &thoughtSplitter{}
		return d
	}
	return newOpenAIDecoder()
}

// decodeResult is everything a decoded stream yields, for comparing two
// decodings of the same bytes.
type decodeResult struct {
	events []Event
	msg    Message
	err    string
}

func (r decodeResult) String() string {
	return fmt.Sprintf("events %+v\nmessage %+v\nerr %s", r.events, r.msg, r.err)
}

// decodeAll reads r through provider's decoder to its end, checking the
// stream's invariants: at most limit events, a stream without error ended
// with a stop event, and every tool call delivered has a non-empty input.
func decodeAll(t *testing.T, provider string, r io.Reader, limit int) decodeResult {
	dec := testDecoder(provider)
	s := newStream(provider, io.NopCloser(r), dec, nil)
	defer s.Close()
	var res decodeResult
	for s.Next() {
		if len(res.events) >= limit {
			t.Errorf("more than %d events", limit)
			return res
		}
		ev := s.Current()
		if ev.Kind == EventToolUse && len(ev.ToolUse.Input) == 0 {
			t.Errorf("tool use with empty input: %+v", ev.ToolUse)
		}
		res.events = append(res.events, ev)
	}
	if err := s.Err(); err != nil {
		res.err = err.Error()
	} else if n := len(res.events); n == 0 || res.events[n-1].Kind != EventStop {
		t.Errorf("stream ended without error and without stop event")
	}
	res.msg = s.Message()
	for _, b := range res.msg.Content {
		if b.Kind == BlockToolUse && len(b.Input) == 0 {
			t.Errorf("message tool use with empty input")
		}
	}
	return res
}

// chunkReader returns its data in pieces of 1 to 7 bytes, so that events,
// lines and UTF-8 sequences are split across reads as a network does.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	c.n = c.n%7 + 1
	k := min(c.n, len(p), len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

// fuzzStream decodes data whole and in small reads, within fuzzDeadline:
// arbitrary bytes never panic and never hang (bounded input, bounded
// time), the invariants of decodeAll hold, and how the bytes arrive does
// not change the result.
func fuzzStream(t *testing.T, provider string, data []byte) {
	// Every event needs at least one byte of input, bar the final usage and
	// stop events.
	limit := len(data) + 3
	done := make(chan [2]decodeResult, 1)
	go func() {
		whole := decodeAll(t, provider, bytes.NewReader(data), limit)
		split := decodeAll(t, provider, &chunkReader{data: data}, limit)
		done <- [2]decodeResult{whole, split}
	}()
	timer := time.NewTimer(fuzzDeadline)
	defer timer.Stop()
	select {
	case r := <-done:
		if a, b := r[0].String(), r[1].String(); a != b {
			t.Fatalf("decoding depends on read sizes:\n--- whole\n%s\n--- in small reads\n%s", a, b)
		}
	case <-timer.C:
		t.Fatalf("decoding %d bytes did not end within %v", len(data), fuzzDeadline)
	}
}

func addRecordings(f *testing.F, proto string) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "sse", proto, "*.sse"))
	if len(files) == 0 {
		f.Fatalf("no %s recordings to seed the corpus", proto)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// A few shapes the recordings lack: CRLF and CR line ends, a comment,
	// a field without a space, an event without a blank line at the end.
	f.Add([]byte("event: ping\r\ndata: {}\r\n\r\ndata:[DONE]\r\n\r\n"))
	f.Add([]byte(": hi\rdata:{\"choices\":[]}\r\rdata: [DONE]"))
	f.Add([]byte("data: {\"type\":\"response.completed\",\"response\":{}}\r\n\r\n"))
}

func FuzzAnthropicStream(f *testing.F) {
	addRecordings(f, "anthropic")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzStream(t, "anthropic", data) })
}

func FuzzOpenAIStream(f *testing.F) {
	addRecordings(f, "openai")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzStream(t, "openai", data) })
}

func FuzzResponsesStream(f *testing.F) {
	addRecordings(f, "responses")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzStream(t, "responses", data) })
}

func FuzzGeminiStream(f *testing.F) {
	addRecordings(f, "gemini")
	addRecordings(f, "openai")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzStream(t, "gemini", data) })
}

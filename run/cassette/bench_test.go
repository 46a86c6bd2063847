package cassette

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchBody is a request of a long run: a 2 KB system prompt, 7 tools and
// 60 messages of about 4 KB each (≈ 250 KB).
func benchBody(root string) []byte {
	type msg struct {
		Role    string `json:"role"`
		Content []map[string]any
	}
	body := map[string]any{"model": "m", "max_tokens": 32000, "stream": true,
		"system": "root " + root + " date 2026-11-23 " + strings.Repeat("instructions ", 150)}
	var tools []map[string]any
	for i := range 7 {
		tools = append(tools, map[string]any{"name": fmt.Sprint("tool", i), "description": strings.Repeat("d", 300),
			"input_schema": map[string]any{"type": "object"}})
	}
	body["tools"] = tools
	var msgs []msg
	for i := range 60 {
		msgs = append(msgs, msg{Role: "user", Content: []map[string]any{{"type": "tool_result", "tool_use_id": fmt.Sprint("id", i),
			"content": root + "/file.go\n" + strings.Repeat("line of code\n", 300)}}})
	}
	body["messages"] = msgs
	b, _ := json.Marshal(body)
	return b
}

// BenchmarkCompare measures the check a replay makes before serving each
// recorded answer, for the largest request of a long run.
func BenchmarkCompare(b *testing.B) {
	rec, got := benchBody("/home/a/repo"), benchBody("/ci/work")
	va, vb := Volatile{Workspace: "/home/a/repo", Date: "2026-11-23"}, Volatile{Workspace: "/ci/work", Date: "2026-11-23"}
	b.SetBytes(int64(len(got)))
	b.ReportAllocs()
	for b.Loop() {
		if d, err := Compare(Strict, rec, va, got, vb); d != nil || err != nil {
			b.Fatal(d, err)
		}
	}
}

// BenchmarkDecodeFloor is the floor of BenchmarkCompare measured in the
// same run: decoding both bodies, which any comparison must do.
func BenchmarkDecodeFloor(b *testing.B) {
	rec, got := benchBody("/home/a/repo"), benchBody("/ci/work")
	b.SetBytes(int64(len(got)))
	b.ReportAllocs()
	for b.Loop() {
		var x, y any
		if json.Unmarshal(rec, &x) != nil || json.Unmarshal(got, &y) != nil {
			b.Fatal("decode")
		}
	}
}

package session

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rubichan/rubichan/llm"
)

// The fast path must equal encoding/json wherever it answers.
func checkParseConv(t *testing.T, line []byte) {
	t.Helper()
	got, ok := parseConv(line)
	if !ok {
		return
	}
	var want Line
	if err := json.Unmarshal(line, &want); err != nil {
		t.Fatalf("parseConv accepted what encoding/json refuses (%v): %s", err, line)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseConv differs from encoding/json for %s:\n got %#v\nwant %#v", line, got, want)
	}
}

var convStrings = []string{
	"", "plain", "tab\there", "new\nline", `quote " and \ backslash`, "é日本🎉", "\u2028\u2029", "\x00\x01\x1f",
	"</script>&<>", "\xff invalid", "a\r\nb", "\\u0041 literal",
}

func TestParseConvEqualsEncodingJSON(t *testing.T) {
	t.Parallel()
	var lines [][]byte
	for _, s := range convStrings {
		for _, l := range []*Line{
			{Type: TypeUser, Time: s, Turn: 3, Content: Blocks([]llm.Block{llm.TextBlock(s), llm.ToolResultBlock("c"+s, s, true)})},
			{Type: TypeAssistant, Time: "t", API: s, Model: s, Content: Blocks([]llm.Block{llm.ThinkingBlock(s, s),
				{Kind: llm.BlockRedactedThinking, Data: s}, llm.ToolUseBlock("id", s, json.RawMessage(`{"a":[1,{"b":"}]\""}],"c":null}`))})},
			{Type: TypeAssistant, Time: "t", Redacted: s},
		} {
			b, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, b)
		}
	}
	lines = append(lines,
		[]byte(`{"type":"user","time":"t","blocks":[]}`),
		[]byte(` { "type" : "user" , "blocks" : [ { "type" : "text" , "text" : "x" } ] } `),
		[]byte(`{"type":"user","blocks":[{"type":"tool_use","input":123}]}`),
		[]byte(`{"type":"user","blocks":[{"type":"tool_use","input":"s"}]}`),
		[]byte(`{"type":"user","blocks":null}`),
		[]byte(`{"type":"user","turn":-1}`),
		[]byte(`{"type":"user","turn":01}`),
		[]byte(`{"Type":"user"}`),
		[]byte(`{"type":"user","text":"\ud83d\ude00 \ud83d x \u00e9"}`),
		[]byte(`{"type":"user","blocks":[{"type":"text","text":"\ud83d\ude00\u00e9\/"}]}`),
		[]byte(`{"type":"user","blocks":[{"type":"text","text":"x"}]} trailing`),
	)
	accepted := 0
	for _, l := range lines {
		checkParseConv(t, l)
		if _, ok := parseConv(l); ok {
			accepted++
		}
	}
	if accepted < len(convStrings)*3-3 {
		t.Errorf("the fast path took only %d of %d lines", accepted, len(lines))
	}
}

func FuzzParseConv(f *testing.F) {
	f.Add([]byte(`{"type":"user","time":"t","turn":1,"blocks":[{"type":"tool_result","tool_use_id":"c","content":"a\nb\u00e9","is_error":true}]}`))
	f.Add([]byte(`{"type":"assistant","api":"anthropic","blocks":[{"type":"tool_use","id":"c","name":"bash","input":{"command":"ls \"x\""}}]}`))
	f.Add([]byte(`{"type":"user","blocks":[{"type":"text","text":"\ud83d\ude00"}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkParseConv(t, line)
	})
}

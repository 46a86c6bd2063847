package llm

import (
	"encoding/json"
	"strconv"
	"strings"
)

// serverToolResult turns the start of a server tool's result block into a
// [BlockServerToolResult]: every *_tool_result type (web_search,
// web_fetch, code_execution, bash_code_execution,
// text_editor_code_execution, tool_search, mcp, advisor, and those to come)
// and container_upload. It reports false for other block types.
func serverToolResult(cb *antStartBlock) (Block, bool) {
	if !strings.HasSuffix(cb.Type, "_tool_result") && cb.Type != "container_upload" {
		return Block{}, false
	}
	t := serverText{isErr: cb.IsError}
	if cb.FileID != "" {
		t.line("file " + cb.FileID)
	}
	if len(cb.Content) > 0 {
		var v any
		if json.Unmarshal(cb.Content, &v) == nil {
			t.walk(v, 0)
		}
	}
	return Block{Kind: BlockServerToolResult, ToolUseID: cb.ToolUseID, Name: cb.Type,
		Content: t.b.String(), IsError: t.isErr}, true
}

// maxServerTextDepth bounds the walk through a result's content.
const maxServerTextDepth = 8

// serverText collects the plain text of a server tool result: search
// results as "title <url>", fetched text documents, program output, text
// parts (MCP, advisor), tool names found by tool search, file ids and error
// codes. Encrypted and binary payloads are left out. Keys are visited in a
// fixed order so that the text does not depend on map iteration.
type serverText struct {
	b     strings.Builder
	isErr bool
}

func (t *serverText) line(s string) {
	s = strings.TrimRight(s, "\r\n")
	if strings.TrimSpace(s) == "" {
		return
	}
	if t.b.Len() > 0 {
		t.b.WriteByte('\n')
	}
	t.b.WriteString(s)
}

// nestedKeys are the fields walked into, in this order.
var nestedKeys = [...]string{"content", "document", "source", "tool_references", "results"}

func (t *serverText) walk(v any, depth int) {
	if depth > maxServerTextDepth {
		return
	}
	switch v := v.(type) {
	case string:
		t.line(v)
	case []any:
		for _, e := range v {
			t.walk(e, depth+1)
		}
	case map[string]any:
		t.object(v, depth)
	}
}

func (t *serverText) object(m map[string]any, depth int) {
	str := func(k string) string { s, _ := m[k].(string); return s }
	typ := str("type")
	if code := str("error_code"); code != "" || strings.HasSuffix(typ, "_error") {
		t.isErr = true
		t.line("error: " + code)
	}
	if url := str("url"); url != "" {
		t.line(strings.TrimSpace(str("title") + " <" + url + ">"))
	} else if title := str("title"); title != "" {
		t.line(title)
	}
	// A document source is text only when its type says so; base64 and
	// file sources are left out.
	if typ == "text" || typ == "" || strings.HasSuffix(typ, "_result") {
		t.line(str("text"))
	}
	if typ == "text" && str("media_type") != "" {
		t.line(str("data"))
	}
	t.line(str("stdout"))
	t.line(str("stderr"))
	if rc, ok := m["return_code"].(float64); ok && rc != 0 {
		t.line("return code " + strconv.FormatFloat(rc, 'f', -1, 64))
	}
	t.line(str("tool_name"))
	if id := str("file_id"); id != "" {
		t.line("file " + id)
	}
	for _, k := range nestedKeys {
		if c, ok := m[k]; ok {
			t.walk(c, depth+1)
		}
	}
}

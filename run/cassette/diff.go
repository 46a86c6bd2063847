package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// volatileKeys are object keys whose values differ between a recording
// and its replay without the run differing: ids and session or user
// markers. They are left out of the comparison wherever they appear.
var volatileKeys = []string{"id", "tool_use_id", "tool_call_id", "call_id", "metadata", "user",
	"session_id", "prompt_cache_key", "previous_response_id"}

// spillRE matches the path of a spilled standard input, whose directory
// name is random.
var spillRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^\s"'<>=]*rubichan-stdin-[0-9]+`) })

// Compare compares a recorded request body with the body sent in a
// replay, each with its own volatile values, and returns the first
// difference, or nil. In [Lenient] mode only the message count and the
// tool names are compared. A body that is not JSON is an error.
func Compare(mode Mode, recorded json.RawMessage, recVol Volatile, live []byte, liveVol Volatile) (*DivergenceError, error) {
	a, err := decodeNormal(recorded, recVol)
	if err != nil {
		return nil, fmt.Errorf("the recorded request is not JSON: %v", err)
	}
	b, err := decodeNormal(live, liveVol)
	if err != nil {
		return nil, fmt.Errorf("the request sent is not JSON: %v", err)
	}
	if mode == Lenient {
		return compareLenient(a, b), nil
	}
	return firstDiff("$", a, b), nil
}

// decodeNormal decodes raw and replaces the volatile parts of its strings
// by placeholders.
func decodeNormal(raw []byte, v Volatile) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, err
	}
	var pairs []string
	for _, p := range [][2]string{{v.Workspace, "{{workspace}}"}, {v.Date, "{{date}}"}, {v.Platform, "{{platform}}"}} {
		if p[0] != "" {
			pairs = append(pairs, p[0], p[1])
		}
	}
	return normalize(x, strings.NewReplacer(pairs...)), nil
}

func normalize(x any, r *strings.Replacer) any {
	switch x := x.(type) {
	case string:
		x = r.Replace(x)
		if strings.Contains(x, "rubichan-stdin-") {
			x = spillRE().ReplaceAllString(x, "{{spill}}")
		}
		return x
	case []any:
		for i := range x {
			x[i] = normalize(x[i], r)
		}
	case map[string]any:
		for k, v := range x {
			if slices.Contains(volatileKeys, k) {
				delete(x, k)
				continue
			}
			x[k] = normalize(v, r)
		}
	}
	return x
}

// firstDiff walks a and b in the same order (object keys sorted, array
// items in order) and returns the first place they differ.
func firstDiff(path string, a, b any) *DivergenceError {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return valueDiff(path, a, b)
		}
		keys := slices.Sorted(maps.Keys(av))
		for k := range bv {
			if _, ok := av[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			p := path + "." + k
			x, inA := av[k]
			y, inB := bv[k]
			switch {
			case !inA:
				return &DivergenceError{Path: p, Recorded: "nothing", Got: short(y)}
			case !inB:
				return &DivergenceError{Path: p, Recorded: short(x), Got: "nothing"}
			}
			if d := firstDiff(p, x, y); d != nil {
				return d
			}
		}
		return nil
	case []any:
		bv, ok := b.([]any)
		if !ok {
			return valueDiff(path, a, b)
		}
		for i := range min(len(av), len(bv)) {
			if d := firstDiff(path+"["+strconv.Itoa(i)+"]", av[i], bv[i]); d != nil {
				return d
			}
		}
		if len(av) != len(bv) {
			return &DivergenceError{Path: path, Recorded: fmt.Sprintf("%d items", len(av)), Got: fmt.Sprintf("%d items", len(bv))}
		}
		return nil
	}
	if a != b {
		return valueDiff(path, a, b)
	}
	return nil
}

// valueDiff reports two values that differ at path; of two strings it
// shows the part around the first character that differs.
func valueDiff(path string, a, b any) *DivergenceError {
	as, aok := a.(string)
	bs, bok := b.(string)
	if aok && bok {
		ar, br := []rune(as), []rune(bs)
		i := 0
		for i < len(ar) && i < len(br) && ar[i] == br[i] {
			i++
		}
		if i > 30 {
			return &DivergenceError{Path: path, Recorded: `"…` + short(string(ar[i-20:]))[1:], Got: `"…` + short(string(br[i-20:]))[1:]}
		}
	}
	return &DivergenceError{Path: path, Recorded: short(a), Got: short(b)}
}

// compareLenient compares the number of messages and the tool names.
func compareLenient(a, b any) *DivergenceError {
	am, ak := messages(a)
	bm, bk := messages(b)
	if ak != bk || len(am) != len(bm) {
		return &DivergenceError{Path: "$." + ak, Recorded: fmt.Sprintf("%d messages", len(am)), Got: fmt.Sprintf("%d messages", len(bm))}
	}
	at, bt := toolNames(a), toolNames(b)
	if !slices.Equal(at, bt) {
		return &DivergenceError{Path: "$.tools", Recorded: short(at), Got: short(bt)}
	}
	return nil
}

// messages returns the conversation of a request body and its key:
// "messages" (Anthropic Messages, OpenAI Chat Completions) or "input"
// (OpenAI Responses).
func messages(x any) ([]any, string) {
	m, _ := x.(map[string]any)
	if v, ok := m["messages"].([]any); ok {
		return v, "messages"
	}
	v, _ := m["input"].([]any)
	return v, "input"
}

// toolNames lists the names of the tools of a request body, in order:
// tools[].name or tools[].function.name.
func toolNames(x any) []string {
	m, _ := x.(map[string]any)
	tools, _ := m["tools"].([]any)
	names := []string{}
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		name, _ := tm["name"].(string)
		if fn, ok := tm["function"].(map[string]any); ok && name == "" {
			name, _ = fn["name"].(string)
		}
		names = append(names, name)
	}
	return names
}

// short renders v as JSON of at most 80 characters.
func short(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	s := strings.TrimSuffix(buf.String(), "\n")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "…"
	}
	return s
}

package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
)

// Version is the cassette format version written in the header line.
const Version = 1

// Line kinds: the first line of a cassette is a header, then one exchange
// per line, then an end line.
const (
	KindHeader   = "header"
	KindExchange = "exchange"
	KindEnd      = "end"
)

// Header is the first line: what the run talked to and the volatile
// values of the recording machine, which a replay sets aside.
type Header struct {
	Kind     string `json:"kind"`     // "header"
	Version  int    `json:"version"`  // [Version]
	Provider string `json:"provider"` // preset or [providers] name
	Type     string `json:"type"`     // protocol: anthropic | openai
	// Wire is, for type openai, the API the run used: chat or responses.
	Wire string `json:"wire,omitempty"`
	// ThoughtTags says the answers carry thinking between <thought> tags.
	ThoughtTags bool   `json:"thought_tags,omitempty"`
	Model       string `json:"model"`
	BaseURL     string `json:"base_url,omitempty"`
	Volatile
}

// Volatile are the parts of a request that change from machine to machine
// and day to day without changing the run: they are replaced by
// placeholders on both sides before requests are compared.
type Volatile struct {
	Workspace string `json:"workspace,omitempty"` // absolute workspace root
	Date      string `json:"date,omitempty"`      // the date in the system prompt, YYYY-MM-DD
	Platform  string `json:"platform,omitempty"`  // GOOS/GOARCH
}

// Exchange is one model HTTP request and what came back. Exactly one of
// Error (no response at all) or Status is set. Body holds the response
// bytes as received (the SSE stream of a success, the JSON of an error),
// or BodyBase64 when they are not valid UTF-8; BodyError is the read error
// that ended the body early (a cut stream).
type Exchange struct {
	Kind           string          `json:"kind"` // "exchange"
	Seq            int             `json:"seq"`  // from 1, in request order
	Method         string          `json:"method"`
	Path           string          `json:"path"`
	RequestHeaders http.Header     `json:"request_headers,omitempty"`
	Request        json.RawMessage `json:"request"`
	Error          string          `json:"error,omitempty"`
	Status         int             `json:"status,omitempty"`
	Headers        http.Header     `json:"headers,omitempty"`
	Body           string          `json:"body"`
	BodyBase64     []byte          `json:"body_base64,omitempty"`
	BodyError      string          `json:"body_error,omitempty"`
}

// End is the last line; a cassette without it was cut short.
type End struct {
	Kind      string `json:"kind"` // "end"
	Exchanges int    `json:"exchanges"`
}

// Cassette is a loaded recording. It is not modified after [Load].
type Cassette struct {
	Header    Header
	Exchanges []Exchange // in Seq order
}

// FormatError says why a file is not a complete cassette: not JSON lines,
// an unknown version, or cut short (Truncated).
type FormatError struct {
	File      string
	Line      int // 0 when the problem is the file as a whole
	Truncated bool
	Msg       string
}

func (e *FormatError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("cassette %s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("cassette %s: %s", e.File, e.Msg)
}

// Load reads the cassette at path. A file that is cut short (no end line,
// or a last line that is not complete JSON) or malformed is a
// [*FormatError].
func Load(path string) (*Cassette, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	return Parse(path, data)
}

// Parse reads a cassette from data; name is used in errors.
func Parse(name string, data []byte) (*Cassette, error) {
	bad := func(line int, format string, args ...any) error {
		return &FormatError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	cut := func(line int, msg string) error {
		return &FormatError{File: name, Line: line, Truncated: true, Msg: msg + ": the cassette is truncated (was the recording cut short?)"}
	}
	c := &Cassette{}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(data) == 0 {
		return nil, cut(0, "empty file")
	}
	ended := false
	for i, line := range lines {
		n := i + 1
		if ended {
			return nil, bad(n, "content after the end line")
		}
		var kind struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(line, &kind); err != nil {
			if n == len(lines) {
				return nil, cut(n, "the last line is not complete JSON")
			}
			return nil, bad(n, "not JSON: %v", err)
		}
		if n == 1 && kind.Kind != KindHeader {
			return nil, bad(n, "the first line is not a cassette header (kind %q)", kind.Kind)
		}
		if err := c.add(kind.Kind, line, &ended); err != nil {
			return nil, bad(n, "%v", err)
		}
	}
	if !ended {
		return nil, cut(len(lines), "no end line")
	}
	slices.SortStableFunc(c.Exchanges, func(a, b Exchange) int { return a.Seq - b.Seq })
	return c, nil
}

// add decodes one line of kind into c.
func (c *Cassette) add(kind string, line []byte, ended *bool) error {
	dec := func(v any) error {
		d := json.NewDecoder(bytes.NewReader(line))
		d.DisallowUnknownFields()
		return d.Decode(v)
	}
	switch kind {
	case KindHeader:
		if c.Header.Kind != "" {
			return errors.New("a second header line")
		}
		if err := dec(&c.Header); err != nil {
			return err
		}
		if c.Header.Version != Version {
			return fmt.Errorf("format version %d, this rubichan reads version %d", c.Header.Version, Version)
		}
	case KindExchange:
		var e Exchange
		if err := dec(&e); err != nil {
			return err
		}
		c.Exchanges = append(c.Exchanges, e)
	case KindEnd:
		var e End
		if err := dec(&e); err != nil {
			return err
		}
		if e.Exchanges != len(c.Exchanges) {
			return fmt.Errorf("the end line counts %d exchanges, the file has %d", e.Exchanges, len(c.Exchanges))
		}
		*ended = true
	default:
		return fmt.Errorf("unknown line kind %q", kind)
	}
	return nil
}

// writeLine writes v as one JSON line.
func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

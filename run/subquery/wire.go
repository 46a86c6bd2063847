package subquery

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// SocketEnv is the environment variable that carries the socket's path
// to the commands of a run.
const SocketEnv = "RUBICHAN_QUERY_SOCKET"

// TokenEnv is the environment variable that carries the run's token to
// the same commands: every request must carry it ([Request.Token]), so a
// process that finds the socket (it descends from the run, and shares its
// temporary directory) but was not given the variable — a hook, the
// --verify command, an MCP server — is refused. (One that reads the
// variable from a bash command's /proc/PID/environ can take it.)
const TokenEnv = "RUBICHAN_QUERY_TOKEN"

// MaxLine bounds one request or response line: a sub-query's material
// must fit a model's context window, far below it.
const MaxLine = 32 << 20

// hello is the first line a client sends on a connection: the run's
// token, which the server checks before it reads anything else, so a
// connection without it costs the server at most maxHello bytes.
type hello struct {
	Token string `json:"token"`
}

// maxHello bounds the hello line: the token is 26 characters.
const maxHello = 256

// Request is one sub-query. The material is Input, or Length bytes of File
// from Offset (an absolute path the parent reads after its read policy
// allows it); the prompt follows the material.
type Request struct {
	Prompt    string `json:"prompt"`
	Input     string `json:"input,omitempty"`
	File      string `json:"file,omitempty"`
	Offset    int64  `json:"offset,omitempty"`
	Length    int64  `json:"length,omitempty"`
	Model     string `json:"model,omitempty"`      // "" for the run's sub-model
	MaxTokens int    `json:"max_tokens,omitempty"` // 0 for the default
	System    string `json:"system,omitempty"`
	Token     string `json:"token,omitempty"` // the run's, from [TokenEnv]
	// Traceparent is the W3C trace context the command runs under (its
	// TRACEPARENT): the run records the sub-query as its child.
	Traceparent string `json:"traceparent,omitempty"`
}

// Usage counts the tokens of one sub-query.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
}

// The codes of an [Error].
const (
	// CodeLimit: a limit of the run refused the sub-query (its cost or
	// token cap, --max-queries); the command exits 4.
	CodeLimit = "limit"
	// CodeRefused: the request may not be made (a file the policy does not
	// let it read, a nested sub-query, a bad request); exit 2.
	CodeRefused = "refused"
	// CodeProvider: the model provider failed after retries; exit 5.
	CodeProvider = "provider"
	// CodeInterrupted: the run is ending (a signal, its timeout); exit 130.
	CodeInterrupted = "interrupted"
)

// Error says why a sub-query got no answer.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Message }

// ExitCode is the exit code of a command that stops on e.
func (e *Error) ExitCode() int {
	switch e.Code {
	case CodeLimit:
		return 4
	case CodeRefused:
		return 2
	case CodeInterrupted:
		return 130
	}
	return 5
}

// Response is the answer to one [Request]: Text, or Error.
type Response struct {
	Text       string   `json:"text"`
	Model      string   `json:"model"`
	Usage      Usage    `json:"usage"`
	CostUSD    *float64 `json:"cost_usd"` // null when the model's price is unknown
	DurationMS int64    `json:"duration_ms"`
	Error      *Error   `json:"error,omitempty"`
}

// lineReader reads newline-terminated JSON objects of at most MaxLine
// bytes.
type lineReader struct{ r *bufio.Reader }

func newLineReader(r io.Reader) *lineReader { return &lineReader{bufio.NewReaderSize(r, 16<<10)} }

// next decodes the next line into v; io.EOF at a clean end.
func (lr *lineReader) next(v any) error {
	var line []byte
	for {
		frag, err := lr.r.ReadSlice('\n')
		line = append(line, frag...)
		if len(line) > MaxLine {
			return fmt.Errorf("subquery: line longer than %d bytes", MaxLine)
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && len(line) > 0 {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("subquery: decode: %w", err)
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

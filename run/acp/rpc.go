package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// The JSON-RPC 2.0 error codes ACP uses.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeAuthRequired   = -32000
	codeNotFound       = -32002
)

// maxLine bounds one message; a longer line is a parse error.
const maxLine = 64 << 20

// message is any JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method alone) or a response (ID and Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object; it is also the error a handler
// returns to choose the code.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

// errorf is an rpcError with a formatted message.
func errorf(code int, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// conn is one JSON-RPC connection: it writes whole lines under a lock and
// matches the responses to the requests it sent. Safe for concurrent use.
type conn struct {
	mu      sync.Mutex
	w       io.Writer
	werr    error
	next    int64
	pending map[string]chan message
}

func newConn(w io.Writer) *conn {
	return &conn{w: w, pending: map[string]chan message{}}
}

// send writes one message as a line; after a failed write it writes no
// more and returns that error.
func (c *conn) send(m message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("acp: encode %s: %w", m.Method, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		c.werr = fmt.Errorf("acp: write: %w", err)
	}
	return c.werr
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("acp: encode %s: %w", method, err)
	}
	return c.send(message{Method: method, Params: b})
}

// reply answers request id with result, or with err when it is not nil.
func (c *conn) reply(id json.RawMessage, result any, err error) error {
	if err != nil {
		var re *rpcError
		if !errors.As(err, &re) {
			re = &rpcError{Code: codeInternal, Message: err.Error()}
		}
		return c.send(message{ID: id, Error: re})
	}
	b, merr := json.Marshal(result)
	if merr != nil {
		return c.send(message{ID: id, Error: &rpcError{Code: codeInternal, Message: merr.Error()}})
	}
	return c.send(message{ID: id, Result: b})
}

// call sends a request and waits for its response, or for ctx to end.
func (c *conn) call(ctx context.Context, method string, params any, result any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("acp: encode %s: %w", method, err)
	}
	c.mu.Lock()
	c.next++
	id := strconv.FormatInt(c.next, 10)
	ch := make(chan message, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	if err := c.send(message{ID: json.RawMessage(id), Method: method, Params: b}); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("acp: %s: %w", method, m.Error)
		}
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("acp: %s: bad result: %w", method, err)
		}
		return nil
	}
}

// deliver hands a response to the call waiting for it; it reports whether
// one was. A second answer to one request is dropped: the call takes one,
// and may have given up (a cancelled prompt) without reading it, which
// must not stall the reader.
func (c *conn) deliver(m message) bool {
	c.mu.Lock()
	ch, ok := c.pending[string(m.ID)]
	c.mu.Unlock()
	if ok {
		select {
		case ch <- m:
		default:
		}
	}
	return ok
}

// readMessages reads r a line at a time and calls handle with each
// message, or bad with the error of a line that is not one; it returns at
// the end of r.
func readMessages(r io.Reader, handle func(message), bad func(error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			bad(err)
			continue
		}
		if m.JSONRPC != "2.0" {
			bad(errors.New(`"jsonrpc" must be "2.0"`))
			continue
		}
		handle(m)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("acp: read: %w", err)
	}
	return nil
}

package acptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Wait bounds every wait of the client: a response, an update.
const Wait = 30 * time.Second

// Message is a JSON-RPC message as the client reads it.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Client is a scripted ACP client over the agent's stdin (w) and stdout
// (r). Every line the agent writes is validated; a line that is not a
// valid ACP message fails the test.
type Client struct {
	t *testing.T
	v *Validator
	w io.Writer

	mu      sync.Mutex
	next    int
	methods map[string]string // request id → method
	waiting map[string]chan Message
	lines   []string // every line the agent sent, in order
	updates []json.RawMessage
	changed chan struct{}
	// Permission answers a session/request_permission: the params in,
	// the result out (for example {"outcome":{"outcome":"selected","optionId":"allow_once"}}).
	Permission func(params json.RawMessage) any
	done       chan struct{}
	orphans    chan *Error // errors with id null: a line the agent could not read
}

// NewClient starts reading r; it ends at r's end.
func NewClient(t *testing.T, v *Validator, r io.Reader, w io.Writer) *Client {
	c := &Client{t: t, v: v, w: w, methods: map[string]string{}, waiting: map[string]chan Message{},
		changed: make(chan struct{}, 1), done: make(chan struct{}), orphans: make(chan *Error, 16)}
	go c.read(r)
	return c
}

// Done is closed when the agent's output ends.
func (c *Client) Done() <-chan struct{} { return c.done }

func (c *Client) read(r io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var m Message
		err := json.Unmarshal(line, &m)
		c.mu.Lock()
		c.lines = append(c.lines, string(line))
		method := c.methods[string(m.ID)]
		c.mu.Unlock()
		if err != nil {
			c.t.Errorf("the agent wrote a line that is not JSON: %q", line)
			continue
		}
		if m.Method == "" {
			if verr := c.v.Validate(line, method); verr != nil {
				c.t.Errorf("agent message %s: %v", line, verr)
			}
		} else if verr := c.v.Validate(line, ""); verr != nil {
			c.t.Errorf("agent message %s: %v", line, verr)
		}
		c.dispatch(m)
	}
}

func (c *Client) dispatch(m Message) {
	switch {
	case m.Method == "session/update":
		c.mu.Lock()
		c.updates = append(c.updates, m.Params)
		c.mu.Unlock()
		select {
		case c.changed <- struct{}{}:
		default:
		}
	case m.Method == "session/request_permission":
		var res any = map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}
		if c.Permission != nil {
			res = c.Permission(m.Params)
		}
		if res == nil {
			return // no answer
		}
		c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
	case m.Method == "":
		c.mu.Lock()
		ch := c.waiting[string(m.ID)]
		c.mu.Unlock()
		if ch == nil && string(m.ID) == "null" && m.Error != nil {
			c.orphans <- m.Error
			return
		}
		if ch == nil {
			c.t.Errorf("a response to no request: id %s", m.ID)
			return
		}
		ch <- m
	}
}

// send writes one message as a line.
func (c *Client) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Error(err)
		return
	}
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		c.t.Errorf("write to the agent: %v", err)
	}
}

// Start sends a request and returns the channel its response arrives on.
func (c *Client) Start(method string, params any) <-chan Message {
	c.mu.Lock()
	c.next++
	id := strconv.Itoa(c.next)
	ch := make(chan Message, 1)
	c.methods[id], c.waiting[id] = method, ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	return ch
}

// Await waits for a response.
func (c *Client) Await(ch <-chan Message) Message {
	c.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(Wait):
		c.t.Fatalf("no response in %v", Wait)
	}
	return Message{}
}

// Call sends a request and waits for its response.
func (c *Client) Call(method string, params any) Message {
	c.t.Helper()
	return c.Await(c.Start(method, params))
}

// Result calls and decodes the result into out; an error response fails.
func (c *Client) Result(method string, params, out any) {
	c.t.Helper()
	m := c.Call(method, params)
	if m.Error != nil {
		c.t.Fatalf("%s: error %d %s", method, m.Error.Code, m.Error.Message)
	}
	if out != nil {
		if err := json.Unmarshal(m.Result, out); err != nil {
			c.t.Fatalf("%s: result %s: %v", method, m.Result, err)
		}
	}
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) {
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// SendRaw writes a line as it is.
func (c *Client) SendRaw(line string) {
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Errorf("write to the agent: %v", err)
	}
}

// Update is one session/update's update, decoded loosely.
type Update map[string]any

// Kind is the update's sessionUpdate.
func (u Update) Kind() string { s, _ := u["sessionUpdate"].(string); return s }

// Updates returns the updates received so far.
func (c *Client) Updates() []Update {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Update
	for _, p := range c.updates {
		var n struct {
			Update Update `json:"update"`
		}
		if err := json.Unmarshal(p, &n); err != nil {
			c.t.Errorf("update %s: %v", p, err)
			continue
		}
		out = append(out, n.Update)
	}
	return out
}

// WaitUpdate waits until an update satisfies ok and returns it.
func (c *Client) WaitUpdate(ok func(Update) bool) Update {
	c.t.Helper()
	deadline := time.After(Wait)
	for {
		for _, u := range c.Updates() {
			if ok(u) {
				return u
			}
		}
		select {
		case <-c.changed:
		case <-deadline:
			c.t.Fatalf("no such update in %v; got %v", Wait, c.Updates())
		}
	}
}

// Lines returns every line the agent sent.
func (c *Client) Lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...)
}

// String is for failure messages.
func (u Update) String() string {
	b, _ := json.Marshal(map[string]any(u))
	return fmt.Sprint(string(b))
}

// WaitOrphanError waits for an error response with id null: the answer to
// a line the agent could not read.
func (c *Client) WaitOrphanError() Error {
	c.t.Helper()
	select {
	case e := <-c.orphans:
		return *e
	case <-time.After(Wait):
		c.t.Fatalf("no error response with id null in %v", Wait)
	}
	return Error{}
}

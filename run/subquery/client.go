package subquery

import (
	"context"
	"fmt"
	"net"
	"time"
)

// Client is one connection to a run's sub-query socket. It is not safe
// for concurrent use: open one per concurrent request stream.
type Client struct {
	c     net.Conn
	lr    *lineReader
	token string
}

// Dial connects to the socket at path and sends token ([TokenEnv]) as
// the connection's hello; it goes with every request too.
func Dial(ctx context.Context, path, token string) (*Client, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("subquery: connect to the run: %w", err)
	}
	// A failed write is not an error yet: the server may have refused the
	// connection, and Ask reads why.
	_ = writeLine(c, hello{Token: token})
	return &Client{c: c, lr: newLineReader(c), token: token}, nil
}

// Ask sends req and waits for its response. A refusal, a limit or a
// provider failure is a Response with Error set, not an error; an error
// means the connection failed (the run ended) or ctx ended.
func (cl *Client) Ask(ctx context.Context, req Request) (Response, error) {
	stop := context.AfterFunc(ctx, func() { cl.c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	req.Token = cl.token
	werr := writeLine(cl.c, req)
	// Read even when the write failed: a server that refused the
	// connection wrote why before it closed it.
	var resp Response
	if err := cl.lr.next(&resp); err != nil {
		if werr != nil {
			err = werr
		}
		return Response{}, cl.fail(ctx, err)
	}
	return resp, nil
}

func (cl *Client) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return fmt.Errorf("subquery: the run did not answer: %w", err)
}

// Close closes the connection.
func (cl *Client) Close() error { return cl.c.Close() }

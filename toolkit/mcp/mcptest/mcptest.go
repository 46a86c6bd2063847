package mcptest

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures the test server.
type Options struct {
	// Cancelled, when set, receives true when a slow call was cancelled.
	Cancelled chan<- bool
}

// NewServer returns the test server. Its tools:
//   - echo {"text": S} returns S;
//   - fail returns an isError result "it failed";
//   - slow waits until its request is cancelled, then sends true on
//     Cancelled (when not nil);
//   - image returns a 4-byte PNG image;
//   - env returns the process environment, one NAME=value per line;
//   - exit ends the process at once (for a server killed mid-run);
//   - choice has a top-level oneOf in its input schema;
//   - dotted.name has a character the model's names cannot hold.
//
// echo alone is annotated read-only.
func NewServer(opt Options) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
	text := func(t string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: t}}}
	}
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo the text.", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var a struct{ Text string }
			json.Unmarshal(req.Params.Arguments, &a)
			return text(a.Text), nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Always fails.", InputSchema: obj},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			r := text("it failed")
			r.IsError = true
			return r, nil
		})
	s.AddTool(&sdk.Tool{Name: "slow", Description: "Never answers.", InputSchema: obj},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			<-ctx.Done()
			if opt.Cancelled != nil {
				opt.Cancelled <- true
			}
			return nil, ctx.Err()
		})
	s.AddTool(&sdk.Tool{Name: "image", Description: "A tiny image.", InputSchema: obj},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: []byte("\x89PNG"), MIMEType: "image/png"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "env", Description: "The environment.", InputSchema: obj},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(strings.Join(os.Environ(), "\n")), nil
		})
	s.AddTool(&sdk.Tool{Name: "exit", Description: "Ends the server.", InputSchema: obj},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "choice", Description: "oneOf.", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"oneOf":[{"required":["a"]},{"required":["b"]}]}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("chosen"), nil })
	s.AddTool(&sdk.Tool{Name: "dotted.name", Description: "A dotted name.", InputSchema: obj},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("dotted"), nil })
	return s
}

// InProcess connects a new [NewServer] server to an in-memory transport
// and returns the client's end.
func InProcess(ctx context.Context, opt Options) (sdk.Transport, error) {
	ct, st := sdk.NewInMemoryTransports()
	if _, err := NewServer(opt).Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	return ct, nil
}

// ServeStdio serves [NewServer] on standard input and output until the
// client goes away: the body of a helper process.
func ServeStdio(ctx context.Context) error {
	return NewServer(Options{}).Run(ctx, &sdk.StdioTransport{})
}

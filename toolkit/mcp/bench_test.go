//go:build unix

package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rubichan/rubichan/toolkit/mcp/mcptest"
)

// BenchmarkCallRoundTrip is one call of an in-process server's echo tool:
// through rubichan's tool (sub-benchmark rubichan) and straight through
// the SDK's client session (sdk). The difference is rubichan's overhead;
// the target is at most 1 ms.
func BenchmarkCallRoundTrip(b *testing.B) {
	ctx := context.Background()
	args := json.RawMessage(`{"text":"hello"}`)
	b.Run("rubichan", func(b *testing.B) {
		m := Start(ctx, []ServerConfig{inProcess(b, "srv", mcptest.Options{})}, Options{})
		defer m.Close()
		var echo *tool
		for _, t := range m.Tools() {
			if t.Spec().Name == "mcp__srv__echo" {
				echo = t.(*tool)
			}
		}
		b.ResetTimer()
		for b.Loop() {
			if res, err := echo.Run(ctx, args); err != nil || res.IsError {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		tr, err := mcptest.InProcess(ctx, mcptest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		sess, err := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer sess.Close()
		b.ResetTimer()
		for b.Loop() {
			if res, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: args}); err != nil || res.IsError {
				b.Fatal(res, err)
			}
		}
	})
}

// BenchmarkStartup starts two stdio servers (this test binary serving
// mcptest) until their tools are listed: through [Start] (rubichan) and
// through the SDK's CommandTransport, connect and list, two at once
// (sdk): the servers' own start. The difference is rubichan's overhead;
// the target is at most 20 ms. Stopping is not timed.
func BenchmarkStartup(b *testing.B) {
	ctx := context.Background()
	opts := Options{Environ: os.Environ(), Dir: b.TempDir()}
	b.Run("rubichan", func(b *testing.B) {
		for b.Loop() {
			m := Start(ctx, []ServerConfig{helper("a"), helper("b")}, opts)
			b.StopTimer()
			if len(m.NotReady()) > 0 {
				b.Fatal(m.Status())
			}
			m.Close()
			b.StartTimer()
		}
	})
	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			var wg sync.WaitGroup
			sessions := make([]*sdk.ClientSession, 2)
			for i := range sessions {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cmd := exec.Command(os.Args[0])
					cmd.Env = append(os.Environ(), "RUBICHAN_MCPTEST_SERVE=1")
					s, err := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
					if err != nil {
						b.Error(err)
						return
					}
					if _, err := s.ListTools(ctx, nil); err != nil {
						b.Error(err)
					}
					sessions[i] = s
				}()
			}
			wg.Wait()
			b.StopTimer()
			for _, s := range sessions {
				if s != nil {
					s.Close()
				}
			}
			b.StartTimer()
		}
	})
}

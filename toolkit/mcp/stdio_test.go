//go:build unix

package mcp

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helper is a stdio server config running this test binary as mcptest's
// server.
func helper(name string) ServerConfig {
	return ServerConfig{Name: name, Command: os.Args[0], Env: map[string]string{"RUBICHAN_MCPTEST_SERVE": "1", "CUSTOM": "${PLAIN}-y"},
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second}
}

func helperOptions(t *testing.T) Options {
	return Options{
		Environ: []string{"PATH=" + os.Getenv("PATH"), "ANTHROPIC_API_KEY=sk-secret", "GH_TOKEN=t", "PLAIN=1"},
		DropEnv: []string{"ANTHROPIC_API_KEY"}, Dir: t.TempDir(),
	}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestStdioEnvironmentAndStop(t *testing.T) {
	t.Parallel()
	cfg := helper("h")
	cfg.Env["ANTHROPIC_API_KEY"] = "$ANTHROPIC_API_KEY"
	cfg.Env["SMUGGLED"] = "key=${ANTHROPIC_API_KEY}" // the key under another name
	m := Start(context.Background(), []ServerConfig{cfg}, helperOptions(t))
	if st := m.Status(); st[0].State != StateReady {
		t.Fatalf("status: %+v", st)
	}
	env := call(t, toolByName(t, m, "mcp__h__env"), `{}`).Content
	for _, bad := range []string{"ANTHROPIC_API_KEY", "sk-secret", "GH_TOKEN"} {
		if strings.Contains(env, bad) {
			t.Errorf("the server's environment holds %s:\n%s", bad, env)
		}
	}
	for _, want := range []string{"PLAIN=1", "CUSTOM=1-y", "GIT_TERMINAL_PROMPT=0"} {
		if !strings.Contains(env, want) {
			t.Errorf("the server's environment lacks %s", want)
		}
	}
	pid := m.servers[0].proc.group.Pid()
	m.Close()
	if alive(pid) {
		t.Errorf("server %d still runs after Close", pid)
	}
	if res := call(t, toolByName(t, m, "mcp__h__echo"), `{}`); !res.IsError || !strings.Contains(res.Content, "the run is ending") {
		t.Errorf("call after Close: %+v", res)
	}
}

func TestStdioKilledMidRunRestartsOnce(t *testing.T) {
	t.Parallel()
	m := Start(context.Background(), []ServerConfig{helper("h")}, helperOptions(t))
	defer m.Close()
	res := call(t, toolByName(t, m, "mcp__h__exit"), `{}`)
	if !res.IsError || !strings.Contains(res.Content, "the MCP server h stopped (exit status 3") {
		t.Fatalf("call that ends the server: %+v", res)
	}
	if res := call(t, toolByName(t, m, "mcp__h__echo"), `{"text":"again"}`); res.IsError || res.Content != "again" {
		t.Fatalf("call after the restart: %+v", res)
	}
	call(t, toolByName(t, m, "mcp__h__exit"), `{}`)
	res = call(t, toolByName(t, m, "mcp__h__echo"), `{"text":"x"}`)
	if !res.IsError || !strings.Contains(res.Content, "it is not restarted again") {
		t.Errorf("second death: %+v", res)
	}
}

func TestStdioStartFailures(t *testing.T) {
	t.Parallel()
	missing := ServerConfig{Name: "missing", Command: "rubichan-no-such-server", Required: true}
	mute := ServerConfig{Name: "mute", Command: "sleep", Args: []string{"30"}, StartupTimeout: 300 * time.Millisecond}
	begin := time.Now()
	m := Start(context.Background(), []ServerConfig{missing, mute}, helperOptions(t))
	defer m.Close()
	st := m.Status()
	if st[0].State != StateFailed || !strings.Contains(st[0].Reason, "executable file not found") || !st[0].Required {
		t.Errorf("missing: %+v", st[0])
	}
	if st[1].State != StateTimeout || !strings.Contains(st[1].Reason, "300ms") {
		t.Errorf("mute: %+v", st[1])
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("start-up took %s", d)
	}
	if len(m.Tools()) != 0 || len(Summary(st)) != 2 {
		t.Errorf("tools %d, summary %q", len(m.Tools()), Summary(st))
	}
}

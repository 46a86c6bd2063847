package run

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// mcpModules returns the directory of the real MCP servers the end-to-end
// scripts start, which `npm ci --prefix testdata/mcp` installs (make test
// does it). Missing servers fail the test: it must not pass by skipping.
func mcpModules(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "mcp", "node_modules", "@modelcontextprotocol"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"server-everything", "server-filesystem"} {
		if _, err := os.Stat(filepath.Join(dir, s, "dist", "index.js")); err != nil {
			t.Fatalf("the MCP test servers are not installed (%v): run `npm ci --prefix testdata/mcp` or `make test`", err)
		}
	}
	return dir
}

// TestMCPScript runs testdata/script/mcp/*.txtar: rubichan against the
// npm servers @modelcontextprotocol/server-everything (stdio and
// streamable HTTP) and @modelcontextprotocol/server-filesystem (stdio).
// Scripts find them in $MCP_EVERYTHING, $MCP_FS and $NODE.
func TestMCPScript(t *testing.T) {
	t.Parallel()
	mods := mcpModules(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed for the MCP test servers: %v", err)
	}
	servers := &serverSet{m: map[*testscript.TestScript]*scriptServer{}}
	cmds := servers.cmds()
	cmds["noprocs"] = cmdNoProcs
	cmds["mcphttp"] = cmdMCPHTTP
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "testdata", "script", "mcp"),
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("MCP_EVERYTHING", filepath.Join(mods, "server-everything", "dist", "index.js"))
			env.Setenv("MCP_FS", filepath.Join(mods, "server-filesystem", "dist", "index.js"))
			env.Setenv("NODE", node)
			return scriptSetup(env)
		},
		Cmds:      cmds,
		Condition: scriptCondition,
	})
}

// cmdNoProcs checks that no process's command line holds TEXT, waiting up
// to 10 s for the last ones to go: noprocs TEXT.
func cmdNoProcs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: noprocs TEXT")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := procsWith(args[0])
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("processes still running: %s", strings.Join(left, "; "))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// procsWith lists the live processes (not zombies) whose command line
// holds text, as "PID: CMDLINE".
func procsWith(text string) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, d := range dirs {
		cl, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !bytes.Contains(cl, []byte(text)) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == os.Getpid() || !processAlive(pid) {
			continue
		}
		out = append(out, fmt.Sprintf("%d: %s", pid, bytes.ReplaceAll(cl, []byte{0}, []byte{' '})))
	}
	return out
}

// cmdMCPHTTP starts server-everything in its streamable HTTP mode on a
// free port of 127.0.0.1, waits (at most 30 s) until it accepts
// connections, sets $MCP_URL to its endpoint and stops it when the script
// ends: mcphttp [TOKEN]. With TOKEN, $MCP_URL is a proxy on 127.0.0.1 in
// front of it that answers 401 to a request without the header
// "Authorization: Bearer TOKEN".
func cmdMCPHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: mcphttp [TOKEN]")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(ts.Getenv("NODE"), ts.Getenv("MCP_EVERYTHING"), "streamableHttp", ts.Getenv("WORK"))
	cmd.Env = append(os.Environ(), "PORT="+port)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ts.Check(cmd.Start())
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	ts.Defer(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-done:
			ts.Fatalf("server-everything streamableHttp ended: %s", stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			ts.Fatalf("server-everything streamableHttp not listening within 30s: %s", stderr.String())
		}
	}
	ts.Setenv("MCP_URL", "http://127.0.0.1:"+port+"/mcp")
	if len(args) == 1 {
		ts.Setenv("MCP_URL", bearerProxy(ts, "http://127.0.0.1:"+port, args[0])+"/mcp")
	}
}

// bearerProxy serves on 127.0.0.1 what target serves, to requests that
// carry "Authorization: Bearer token" only (401 otherwise), until the
// script ends; it returns its base URL.
func bearerProxy(ts *testscript.TestScript, target, token string) string {
	to, err := url.Parse(target)
	ts.Check(err)
	proxy := httputil.NewSingleHostReverseProxy(to)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	ts.Defer(srv.Close)
	return srv.URL
}

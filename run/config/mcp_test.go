package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLoadMCPServers(t *testing.T) {
	t.Parallel()
	user := `
[mcp.servers.github]
command = "github-mcp"
args = ["stdio", "--read-only"]
env = { GITHUB_TOKEN = "${GH_TOKEN}" }
required = true
startup_timeout = "5s"
tools = ["get_issue"]

[mcp.servers.docs]
url = "http://127.0.0.1:8080/mcp"
headers = { Authorization = "Bearer $DOCS_TOKEN" }
`
	f := newConfigFixture(t, user, "", "[mcp.servers.evil]\ncommand = \"./evil\"\n")
	lc, err := Load(f.options())
	if err != nil {
		t.Fatal(err)
	}
	gh := lc.MCP.Servers["github"]
	if gh.Command != "github-mcp" || len(gh.Args) != 2 || gh.Env["GITHUB_TOKEN"] != "${GH_TOKEN}" || !gh.Required ||
		gh.StartupTimeout != 5*time.Second || gh.Tools[0] != "get_issue" {
		t.Errorf("github: %+v", gh)
	}
	if d := lc.MCP.Servers["docs"]; d.URL == "" || d.Headers["Authorization"] != "Bearer $DOCS_TOKEN" {
		t.Errorf("docs: %+v", d)
	}
	if _, ok := lc.MCP.Servers["evil"]; ok {
		t.Error("an untrusted workspace file started a server")
	}
	if len(lc.Notes) != 1 || !strings.Contains(lc.Notes[0], "[mcp]") {
		t.Errorf("notes: %q", lc.Notes)
	}
	opts := f.options()
	opts.TrustWorkspace = true
	lc, err = Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if lc.MCP.Servers["evil"].Command != "./evil" {
		t.Errorf("a trusted workspace file's server is missing: %+v", lc.MCP.Servers)
	}
}

func TestLoadMCPErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, key, msg string }{
		{"[mcp.servers.a]\nargs = [\"x\"]\n", "mcp.servers.a.command", "either command"},
		{"[mcp.servers.a]\ncommand = \"x\"\nurl = \"http://127.0.0.1/\"\n", "mcp.servers.a.command", "either command"},
		{"[mcp.servers.a]\nurl = \"http://127.0.0.1/\"\nenv = { A = \"b\" }\n", "mcp.servers.a.env", "belongs to a server with command"},
		{"[mcp.servers.a]\ncommand = \"x\"\nstartup_timeout = 5\n", "mcp.servers.a.startup_timeout", "duration"},
		{"[mcp.servers.\"a.b\"]\ncommand = \"x\"\n", `mcp.servers."a.b"`, "MCP server name"},
		{"[mcp.servers.a]\ncommand = \"x\"\ncwd = \"/\"\n", "mcp.servers.a.cwd", "unknown"},
	} {
		f := newConfigFixture(t, tc.file, "", "")
		_, err := Load(f.options())
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || ce.Line == 0 || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: got %v (key %q)", tc.file, err, keyOf(ce))
		}
	}
}

func keyOf(e *Error) string {
	if e == nil {
		return ""
	}
	return e.Key
}

func TestParseMCPJSON(t *testing.T) {
	t.Parallel()
	got, err := ParseMCPJSON("m.json", []byte(`{"mcpServers": {
		"fs": {"command": "npx", "args": ["-y", "server-filesystem", "."], "env": {"A": "1"}},
		"web": {"type": "http", "url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer ${T}"}, "disabled": false}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got["fs"].Command != "npx" || len(got["fs"].Args) != 3 || got["web"].URL != "https://mcp.example/mcp" || got["web"].Headers["Authorization"] == "" {
		t.Errorf("got %+v", got)
	}
	for _, bad := range []string{`{}`, `[`, `{"mcpServers": {"a": {"type": "sse", "url": "http://x/"}}}`,
		`{"mcpServers": {"a": {}}}`, `{"mcpServers": {"a b": {"command": "x"}}}`} {
		if _, err := ParseMCPJSON("m.json", []byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

package run

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMCPListHelpListsItsFlags: `rubichan mcp list --help` lists the flags
// mcp list reads — the servers' sources, the policy that decides their
// tools, the configuration that starts them (its file, the provider whose
// key the servers do not get, the sandbox they run in) — and none of a
// run's (limits, --verify, the model, sub-queries, input).
func TestMCPListHelpListsItsFlags(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := runMain(t.Context(), []string{"rubichan", "mcp", "list", "--help"}, strings.NewReader(""), &out, &errOut, processEnvironment())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	_, opts, ok := strings.Cut(out.String(), "\nOPTIONS:\n")
	if !ok {
		t.Fatalf("no OPTIONS in mcp list --help:\n%s", out.String())
	}
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^\s+--([a-z-]+)`).FindAllStringSubmatch(opts, -1) {
		got = append(got, m[1])
	}
	slices.Sort(got)
	want := []string{"allow", "config", "cwd", "deny", "help", "json", "mcp-config", "network", "no-mcp", "policy", "provider", "sandbox", "trust-workspace"}
	if !slices.Equal(got, want) {
		t.Errorf("mcp list --help lists the flags\n%v\nwant\n%v\n%s", got, want, out.String())
	}
}

package run

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestAdminHelpListsItsFlags: an admin command's --help lists the flags
// it reads and none of a run's (limits, --verify, the model, sub-queries,
// input). mcp list reads the servers' sources, the policy that decides
// their tools and the configuration that starts them (its file, the
// provider whose key the servers do not get, the sandbox they run in);
// query reads the provider's settings and the stream's limits; sandbox
// check reads the [shell] settings alone.
func TestAdminHelpListsItsFlags(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		args []string
		want []string
	}{
		"mcp list": {[]string{"mcp", "list"},
			[]string{"allow", "config", "cwd", "deny", "help", "json", "mcp-config", "network", "no-mcp", "policy", "provider", "sandbox", "trust-workspace"}},
		"query": {[]string{"query"},
			[]string{"base-url", "batch", "chunk", "concurrency", "config", "max-response-size", "max-tokens", "model", "overlap", "provider", "split", "stream-header-timeout", "stream-idle-timeout", "system"}},
		"sandbox check": {[]string{"sandbox", "check"},
			[]string{"allow-all", "config", "cwd", "help", "json", "network", "sandbox", "trust-workspace"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append(append([]string{"rubichan"}, c.args...), "--help")
			if code := runMain(t.Context(), args, strings.NewReader(""), &out, &errOut, processEnvironment()); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			_, opts, ok := strings.Cut(out.String(), "\nOPTIONS:\n")
			if !ok {
				t.Fatalf("no OPTIONS in %s --help:\n%s", name, out.String())
			}
			var got []string
			for _, m := range regexp.MustCompile(`(?m)^\s+--([a-z-]+)`).FindAllStringSubmatch(opts, -1) {
				got = append(got, m[1])
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("%s --help lists the flags\n%v\nwant\n%v\n%s", name, got, c.want, out.String())
			}
		})
	}
}

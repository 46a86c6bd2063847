package hooks

import (
	"testing"

	"github.com/rubichan/rubichan/toolkit"
)

func TestToolInput(t *testing.T) {
	t.Parallel()
	write := func(requested, resolved string) toolkit.Effects {
		return toolkit.Effects{Kind: toolkit.EffectWrite, Paths: []toolkit.PathRef{{Requested: requested, Resolved: resolved}}}
	}
	read := toolkit.Effects{Kind: toolkit.EffectRead, Paths: []toolkit.PathRef{{Requested: "gen/a", Resolved: "gen/a"}}}
	shell := toolkit.Effects{Kind: toolkit.EffectExecute, Command: "x"}
	mcp := toolkit.Effects{Kind: toolkit.EffectMCP, Tool: "s/t"}
	tests := map[string]struct {
		in   string
		eff  toolkit.Effects
		want string
	}{
		"escaped path":          {`{"path":"\u0067en/a","content":"x"}`, write("gen/a", "gen/a"), `{"content":"x","path":"gen/a"}`},
		"escaped key":           {`{"p\u0061th":"gen/a"}`, read, `{"path":"gen/a"}`},
		"dot and dot-dot":       {`{"path":"./sub/../gen/a"}`, write("gen/a", "gen/a"), `{"path":"gen/a"}`},
		"absolute in workspace": {`{"path":"/ws/gen/a"}`, write("gen/a", "gen/a"), `{"path":"gen/a"}`},
		"through a symlink":     {`{"path":"link/a"}`, write("link/a", "gen/a"), `{"path":"gen/a"}`},
		"not resolved":          {`{"path":"x/a"}`, write("x/a", ""), `{"path":"x/a"}`},
		"html characters":       {`{"command":"echo \u003ca\u003e \u0026"}`, shell, `{"command":"echo <a> &"}`},
		"shell keeps its words": {`{"command":"cat ./gen/a","path":"./x"}`, shell, `{"command":"cat ./gen/a","path":"./x"}`},
		"mcp path untouched":    {`{"path":"./gen/a","n":1.50}`, mcp, `{"n":1.50,"path":"./gen/a"}`},
		"numbers as sent":       {`{"path":"a","offset":10,"limit":1e3}`, read, `{"limit":1e3,"offset":10,"path":"gen/a"}`},
		"not an object":         {`[1]`, read, `[1]`},
	}
	for name, tc := range tests {
		if got := string(ToolInput([]byte(tc.in), tc.eff)); got != tc.want {
			t.Errorf("%s: ToolInput(%s) = %s, want %s", name, tc.in, got, tc.want)
		}
	}
}

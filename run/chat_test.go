package run

import "testing"

// TestForLineMode: a chat cannot leave a call open for a later run (the
// next line must find the conversation valid), so "defer" asks are
// denied; every other --on-ask stays, and the run is line mode's.
func TestForLineMode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", "deny": "deny", "abort": "abort", "defer": "deny"} {
		cfg := execConfig{OnAsk: in}
		got := cfg.forLineMode()
		if got.OnAsk != want || !got.chat {
			t.Errorf("--on-ask %q in line mode: OnAsk %q, chat %v; want %q, true", in, got.OnAsk, got.chat, want)
		}
		if got.settings().OnAsk != want || !got.settings().LineMode {
			t.Errorf("--on-ask %q: the harness gets OnAsk %q, LineMode %v", in, got.settings().OnAsk, got.settings().LineMode)
		}
		if cfg.OnAsk != in || cfg.chat {
			t.Errorf("forLineMode changed the parsed flags: %+v", cfg)
		}
	}
}

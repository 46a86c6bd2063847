package config

import (
	"strings"
	"testing"
)

func TestLookupWindow(t *testing.T) {
	t.Parallel()
	w := DefaultWindows()
	for _, tc := range []struct {
		model string
		ctx   int
		ok    bool
	}{
		{"claude-sonnet-5-5", 200_000, true},
		{"claude-sonnet-4-5-20250929", 200_000, true},
		{"anthropic/claude-sonnet-5.5", 200_000, true},
		{"openai/gpt-oss-120b", 131_072, true},
		{"gpt-4o-2024-08-06", 128_000, true},
		{"no-such-model", 0, false},
	} {
		got, ok := LookupWindow(w, tc.model)
		if ok != tc.ok || got.ContextWindow != tc.ctx {
			t.Errorf("%s: %+v %v", tc.model, got, ok)
		}
	}
}

// TestPresetModelsHaveWindows keeps the table in step with the presets.
func TestPresetModelsHaveWindows(t *testing.T) {
	t.Parallel()
	for _, p := range Presets() {
		if _, ok := LookupWindow(DefaultWindows(), p.Model); !ok {
			t.Errorf("preset %s: default model %s has no window", p.Name, p.Model)
		}
	}
}

func TestModelsOverride(t *testing.T) {
	t.Parallel()
	cfg, err := Parse(strings.NewReader("[models.\"tiny\"]\ncontext_window = 8000\nmax_output = 1000\n[models.\"gpt-4o\"]\nmax_output = 4000\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if w := cfg.Models["tiny"]; w != (Window{8000, 1000}) {
		t.Errorf("tiny: %+v", w)
	}
	if w := cfg.Models["gpt-4o"]; w != (Window{128_000, 4000}) {
		t.Errorf("gpt-4o: %+v", w)
	}
	if _, err := Parse(strings.NewReader("[models.\"x\"]\ncontext_window = -1\n"), "c.toml"); err == nil {
		t.Error("a negative window was accepted")
	}
	if _, err := Parse(strings.NewReader("[models.\"x\"]\nwindow = 1\n"), "c.toml"); err == nil {
		t.Error("an unknown key was accepted")
	}
}

func TestCompactAt(t *testing.T) {
	t.Parallel()
	cfg, err := Parse(strings.NewReader(""), "c.toml")
	if err != nil || cfg.CompactAt != 0.8 {
		t.Fatalf("default %v %v", cfg.CompactAt, err)
	}
	if cfg, err := Parse(strings.NewReader("compact_at = 0.5\n"), "c.toml"); err != nil || cfg.CompactAt != 0.5 {
		t.Errorf("0.5: %v %v", cfg.CompactAt, err)
	}
	for _, bad := range []string{"compact_at = 1.5\n", "compact_at = 0\n", "compact_at = \"x\"\n"} {
		if _, err := Parse(strings.NewReader(bad), "c.toml"); err == nil || !strings.Contains(err.Error(), "ratio") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

package run

import (
	"fmt"

	"github.com/rubichan/rubichan/run/config"
)

// compactSettings returns the compaction settings of a headless run: off
// with --no-compact; else the model's window from the configuration, or
// the conservative default with a notice when the model is not known.
func compactSettings(cfg execConfig, emit func(Event)) compactConfig {
	if cfg.NoCompact {
		return compactConfig{}
	}
	var models map[string]config.Window
	if cfg.Settings != nil {
		models = cfg.Settings.Models
	}
	w, ok := config.LookupWindow(models, cfg.Model)
	if !ok {
		w = config.UnknownWindow()
		emit(Event{Kind: EventNotice, Text: fmt.Sprintf("the context window of model %s is not known; assuming %d tokens (set [models.%q] context_window and max_output in a config file)",
			cfg.Model, w.ContextWindow, cfg.Model)})
	}
	if w.ContextWindow <= 0 {
		return compactConfig{}
	}
	return compactConfig{Window: w.ContextWindow, MaxOutput: w.MaxOutput, At: cfg.CompactAt}
}

package harness

import (
	"fmt"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
)

// CompactSettings returns the compaction settings of a headless run: off
// with noCompact (--no-compact); else the model's window from the
// configuration lc, or the conservative default with a notice when the
// model is not known.
func CompactSettings(lc *config.Loaded, model string, noCompact bool, emit func(agent.Event)) agent.Compact {
	if noCompact {
		return agent.Compact{}
	}
	var models map[string]config.Window
	var at float64
	if lc != nil {
		models, at = lc.Models, lc.CompactAt
	}
	w, ok := config.LookupWindow(models, model)
	if !ok {
		w = config.UnknownWindow()
		emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("the context window of model %s is not known; assuming %d tokens (set [models.%q] context_window and max_output in a config file)",
			model, w.ContextWindow, model)})
	}
	if w.ContextWindow <= 0 {
		return agent.Compact{}
	}
	return agent.Compact{Window: w.ContextWindow, MaxOutput: w.MaxOutput, At: at}
}

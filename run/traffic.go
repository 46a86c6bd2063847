package run

import (
	"github.com/rubichan/rubichan/run/cassette"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
)

// loadCassette reads --replay-mode and the --replay cassette. A mode
// other than strict or lenient, or a cassette that is missing, malformed
// or truncated, is a usage error (exit 2), found before anything runs.
func (cfg *execConfig) loadCassette(mode string) error {
	m, err := cassette.ParseMode(mode)
	if err != nil {
		return exit.Usagef("--replay-mode: %v", err)
	}
	cfg.ReplayMode = m
	if cfg.Replay == "" {
		return nil
	}
	c, err := cassette.Load(cfg.Replay)
	if err != nil {
		return exit.Usagef("--replay: %w", err)
	}
	cfg.cassette = c
	return nil
}

// trafficSettings returns the run's traffic flags.
func (cfg execConfig) trafficSettings() harness.TrafficSettings {
	return harness.TrafficSettings{Record: cfg.Record, ReplayFile: cfg.Replay, Mode: cfg.ReplayMode, Cassette: cfg.cassette}
}

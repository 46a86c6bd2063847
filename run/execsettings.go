package run

import "github.com/rubichan/rubichan/run/harness"

// settings returns the run's resolved settings as the harness will take
// them (step 3c of issue 31 makes it the harness's input; unused yet).
// The copies execConfig keeps of the provider and the limits are not
// carried: Settings reads them from Provider and Config.
func (cfg execConfig) settings() harness.Settings {
	return harness.Settings{
		Provider: cfg.Resolved,
		Config:   cfg.Settings,
		Policy:   harness.PolicySettings{File: cfg.PolicyFile, Allow: cfg.Allow, Deny: cfg.Deny, TrustWorkspace: cfg.TrustWorkspace},
		OnAsk:    cfg.OnAsk,
		Dir:      cfg.Dir,
		Input:    harness.InputSettings{NoStdin: cfg.NoStdin, PromptFile: cfg.PromptFile, Args: cfg.PromptArgs},
		System:   harness.SystemSettings{Replace: cfg.SystemPrompt, Append: cfg.AppendSystem, NoContextFiles: cfg.NoContextFiles},
		PassEnv:  cfg.PassEnv,
		MCP:      harness.MCPChoice{ConfigFile: cfg.MCP.ConfigFile, Off: cfg.MCP.Off},
		Skills:   cfg.Skills,

		Subqueries: harness.SubquerySettings{Off: cfg.NoSubqueries, Announce: cfg.Subqueries},
		NoCompact:  cfg.NoCompact,
		Quiet:      cfg.Quiet,
		Verbose:    cfg.Verbose,

		Session:  cfg.sessionFlags.settings(),
		Traffic:  harness.TrafficSettings{Record: cfg.Record, ReplayFile: cfg.Replay, Mode: cfg.ReplayMode, Cassette: cfg.cassette},
		Patch:    harness.PatchSettings{Dest: cfg.Patch, MaxSize: cfg.PatchMaxSize},
		LineMode: cfg.chat,

		JSONSchema:        cfg.JSONSchema,
		JSONSchemaRetries: cfg.JSONSchemaRetries,
	}
}

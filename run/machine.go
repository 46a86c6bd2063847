package run

// The --output formats.
const (
	outputText       = "text"
	outputFinal      = "final"
	outputJSON       = "json"
	outputStreamJSON = "stream-json"
)

// initSettings returns what the init event tells of the run's settings.
func (cfg execConfig) initSettings() initSettings {
	is := initSettings{Provider: cfg.Provider, Model: cfg.Model, Allow: cfg.Allow, Deny: cfg.Deny}
	if cfg.Settings != nil {
		is.Limits = cfg.Settings.Limits
	}
	if cfg.JSONSchema != nil {
		is.SchemaDigest = cfg.JSONSchema.Digest
	}
	return is
}

package run

import (
	"strconv"

	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/structured"
	"github.com/urfave/cli/v2"
)

// loadJSONSchema reads and compiles --json-schema before anything else
// runs: a schema that cannot be used is a usage error (exit 2) naming
// its file and the pointer into it.
func (cfg *execConfig) loadJSONSchema(c *cli.Context) error {
	n, err := strconv.Atoi(c.String("json-schema-retries"))
	if err != nil || n < 0 {
		return exit.Usagef("--json-schema-retries must be a number, 0 or more, not %q", c.String("json-schema-retries"))
	}
	cfg.JSONSchemaRetries = n
	arg := c.String("json-schema")
	if arg == "" {
		return nil
	}
	ws := cfg.Dir // not yet made absolute: "" is the current directory
	if ws == "" {
		ws = "."
	}
	s, err := structured.LoadIn(arg, "", ws)
	if err != nil {
		return exit.Usagef("--json-schema: %v", err)
	}
	cfg.JSONSchema = s
	return nil
}

// resumedJSONSchema keeps the schema of the session a run resumes when
// the run gives none (a schema the session recorded is compiled again: a
// bad one is a usage error naming the session).
func (cfg *execConfig) resumedJSONSchema(env environment) error {
	if cfg.JSONSchema != nil {
		return nil
	}
	raw, path, err := harness.ResumedSchema(cfg.sessionFlags.settings(), cfg.sessionDir(env), cfg.Dir)
	if err != nil || raw == nil {
		return err
	}
	s, err := structured.Parse(raw, path)
	if err != nil {
		return exit.Usagef("--json-schema of the resumed session: %v", err)
	}
	cfg.JSONSchema = s
	return nil
}

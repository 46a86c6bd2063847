package config

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Config is rubichan's effective configuration: built-in defaults with the
// user file, the --config file, the workspace file, RUBICHAN_* variables
// and flags applied in that order (see [Load]). The TOML keys are in
// the koanf tags.
type Config struct {
	// Provider names a preset (see [Presets]) or a [Config.Providers] entry.
	// Empty means: detect it from the API key variables that are set.
	Provider string `koanf:"provider"`
	// Model is the model to ask; empty means the provider's default model.
	Model string `koanf:"model"`
	// BaseURL, when set, replaces the chosen provider's base URL.
	BaseURL string `koanf:"base_url"`
	// CompactAt is the share of the context window, minus the output
	// reserve, past which the conversation is compacted.
	CompactAt float64 `koanf:"compact_at"`
	// Providers are custom endpoints, by name.
	Providers map[string]ProviderConfig `koanf:"providers"`
	Limits    Limits                    `koanf:"limits"`
	Input     Input                     `koanf:"input"`
	Verify    Verify                    `koanf:"verify"`
	Bash      Bash                      `koanf:"bash"`
	Shell     Shell                     `koanf:"shell"`
	// AllowAll (--allow-all) allows every tool call inside the OS sandbox
	// but the secret denials and guarded files, for a disposable
	// environment; see policy.Policy.WithAllowAll. An untrusted workspace
	// file cannot set it.
	AllowAll bool `koanf:"allow_all"`
	// Query configures the sub-queries of a run (`rubichan query`).
	Query Query `koanf:"query"`
	// Hooks are the team's commands around tool calls and before a run
	// ends; see [Hooks].
	Hooks Hooks `koanf:"hooks"`
	// MCP are the Model Context Protocol servers whose tools the model
	// may call; see [MCP].
	MCP MCP `koanf:"mcp"`
	// Prices are USD per million tokens by model name: the built-in table
	// (see [DefaultPrices]) with [prices."model"] entries merged over it.
	Prices map[string]Price `koanf:"prices"`
	// Telemetry configures the run's OpenTelemetry export; see
	// [Telemetry]. An untrusted workspace file cannot set it.
	Telemetry Telemetry `koanf:"telemetry"`
	// Models are context windows and output limits by model name: the
	// built-in table (see [DefaultWindows]) with [models."model"] entries
	// merged over it.
	Models map[string]Window `koanf:"models"`
	// ACP configures `rubichan acp`, the editors' front end.
	ACP ACP `koanf:"acp"`
}

// ACP is the [acp] table.
type ACP struct {
	// PermissionTimeout bounds the wait for the editor's answer to a
	// permission request; past it the call gets the on_ask behaviour.
	// 0: no limit (a person is present).
	PermissionTimeout time.Duration `koanf:"permission_timeout"`
}

// ProviderConfig is a [providers.NAME] entry: any endpoint that speaks the
// OpenAI Chat Completions or Responses protocol or the Anthropic Messages
// protocol.
type ProviderConfig struct {
	// Type is "openai" or "anthropic".
	Type string `koanf:"type"`
	// Wire is the OpenAI API a type "openai" endpoint is spoken to with:
	// [WireChat] (Chat Completions, the default) or [WireResponses].
	Wire    string `koanf:"wire"`
	BaseURL string `koanf:"base_url"`
	// APIKeyEnv names the environment variable holding the key; empty means
	// the endpoint needs no key.
	APIKeyEnv string `koanf:"api_key_env"`
	// Headers are sent with every request.
	Headers map[string]string `koanf:"headers"`
	// StructuredOutput is how --json-schema asks this provider for the
	// schema: "native" (its own structured-output field) or "tool" (a
	// final tool); empty: rubichan chooses by provider and model. It is
	// the one key a [providers.NAME] entry may set for a built-in preset.
	StructuredOutput string `koanf:"structured_output"`
}

// Limits bound one run. Zero means no limit.
type Limits struct {
	// MaxTurns caps the number of model requests.
	MaxTurns int `koanf:"max_turns"`
	// Timeout caps the run's wall-clock time.
	Timeout time.Duration `koanf:"timeout"`
	// MaxTokensTotal caps all tokens counted (input, output and cache).
	MaxTokensTotal int64 `koanf:"max_tokens_total"`
	// MaxCost caps the spend in USD.
	MaxCost float64 `koanf:"max_cost"`
	// MaxToolCalls caps the number of tool calls the model may make.
	MaxToolCalls int `koanf:"max_tool_calls"`
	// ParallelToolCalls is how many consecutive read-only tool calls of
	// one model message run at once; 1: one after another.
	ParallelToolCalls int `koanf:"parallel_tool_calls"`
	// StreamIdleTimeout is how long one model request may go without
	// progress (headers, then events other than pings) before it is cut
	// and retried.
	StreamIdleTimeout time.Duration `koanf:"stream_idle_timeout"`
	// StreamHeaderTimeout is how long one model request may wait for the
	// response headers before it is cut and retried (the idle timeout
	// bounds it too, when shorter).
	StreamHeaderTimeout time.Duration `koanf:"stream_header_timeout"`
	// MaxResponseSize caps the text, thinking and tool input kept from one
	// model answer; past it the run fails (exit 5).
	MaxResponseSize ByteSize `koanf:"max_response_size"`
}

// Input controls how standard input is handed to the model.
type Input struct {
	// StdinInlineMax is the largest stdin put into the prompt as a <stdin>
	// block; bigger input is spilled to a file.
	StdinInlineMax ByteSize `koanf:"stdin_inline_max"`
	// StdinMax is the most stdin a run reads (spill included); more is a
	// usage error (exit 2). The free space of the spill directory lowers it.
	StdinMax ByteSize `koanf:"stdin_max"`
}

// Verify is the check that decides when a run is done (--verify).
type Verify struct {
	// Command is run in the workspace after the model's final answer;
	// empty means no check.
	Command string `koanf:"command"`
	// Attempts is how many times the check may fail before the run ends
	// with exit 6.
	Attempts int `koanf:"attempts"`
	// Timeout bounds one run of the check.
	Timeout time.Duration `koanf:"timeout"`
}

// Bash configures the bash tool.
type Bash struct {
	// PathAdd are directories appended to the commands' PATH after it is
	// cleaned of empty, ".", relative and in-workspace entries: absolute,
	// or relative to the workspace, such as a workspace bin directory the
	// user trusts. An untrusted workspace file cannot set it.
	PathAdd []string `koanf:"path_add"`
}

// Shell configures the OS sandbox of the shell commands the bash tool
// runs. An untrusted workspace file cannot set it.
type Shell struct {
	// Sandbox is "auto" (enforce what the kernel supports), "required"
	// (exit 2 when the kernel cannot) or "off".
	Sandbox string `koanf:"sandbox"`
	// Network allows commands TCP connections and binds.
	Network bool `koanf:"network"`
	// WritableRoots are directories commands may write in besides the
	// workspace and the run's temporary directory: absolute, or relative
	// to the workspace.
	WritableRoots []string `koanf:"writable_roots"`
}

// Query configures sub-queries: the one-shot model requests the
// commands of a run send through the run (see docs/subqueries.md).
type Query struct {
	// Model is the sub-model; empty means the provider's cheaper model
	// (see [Preset.SubModel]), else the run's model.
	Model string `koanf:"model"`
	// Concurrency caps the sub-queries in flight across the run.
	Concurrency int `koanf:"concurrency"`
	// MaxQueries caps the sub-queries of a run; 0 means none.
	MaxQueries int `koanf:"max_queries"`
}

// Default returns the built-in defaults: 50 turns, a 30 minute
// timeout, no token or cost budget, 256KB of inline stdin and the built-in
// price table. The provider and model are left empty: they are resolved
// from the environment (see [ResolveProvider]).
func Default() Config {
	return Config{
		Providers: map[string]ProviderConfig{},
		CompactAt: 0.8,
		Limits: Limits{
			MaxTurns:            50,
			ParallelToolCalls:   8,
			Timeout:             30 * time.Minute,
			StreamIdleTimeout:   5 * time.Minute,
			StreamHeaderTimeout: time.Minute,
			MaxResponseSize:     32 << 20,
		},
		Input:  Input{StdinInlineMax: 256 << 10, StdinMax: 10 << 30},
		Verify: Verify{Attempts: 3, Timeout: 10 * time.Minute},
		Shell:  Shell{Sandbox: "auto"},
		Query:  Query{Concurrency: 4, MaxQueries: 500},
		Prices: DefaultPrices(),
		Models: DefaultWindows(),
	}
}

// FromCommandLine is the File of a [Error] about a flag's value.
const FromCommandLine = "command line"

// Error is a bad configuration value or key. File is the file it was
// found in, or "environment" or "command line"; Key is the dotted key (or the
// variable or flag name); Line is the 1-based line in File when known.
type Error struct {
	File string
	Key  string
	Line int
	Err  error
}

// Error writes "config: FILE:LINE: KEY: problem", leaving out what is unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying problem, such as [ErrUnknownKey].
func (e *Error) Unwrap() error { return e.Err }

// ErrUnknownKey is the cause of a [Error] for a key rubichan does not
// know.
var ErrUnknownKey = errors.New("unknown key")

// Parse reads one TOML configuration file from r and returns the
// defaults with it applied. name is used in errors. Unknown keys and bad
// values are [*Error]s naming the key and line. Parse applies no
// trust rule and reads no environment: that is [Load]'s job.
func Parse(r io.Reader, name string) (Config, error) {
	data, err := readCapped(r, name)
	if err != nil {
		return Config{}, err
	}
	l, err := fileLayer(data, name, nil)
	if err != nil {
		return Config{}, err
	}
	s := newStack()
	if err := s.push(l); err != nil {
		return Config{}, err
	}
	return s.finish()
}

// readCapped reads a config file's contents, refusing more than
// maxConfigSize bytes.
func readCapped(r io.Reader, file string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxConfigSize+1))
	if err != nil {
		return nil, &Error{File: file, Err: err}
	}
	if len(data) > maxConfigSize {
		return nil, &Error{File: file, Err: fmt.Errorf("file is larger than %s", ByteSize(maxConfigSize))}
	}
	return data, nil
}

// maxConfigSize bounds how much of a config file is read: a config file
// is a few hundred bytes; anything near this is a mistake.
const maxConfigSize = 1 << 20

// Telemetry is the [telemetry] section: the run's OpenTelemetry export
// (OTLP/HTTP protobuf), which the standard OTEL_* variables configure as
// well. An untrusted workspace file cannot set it: a pull request must not
// send the run's spans to its own collector.
type Telemetry struct {
	// Enabled turns the export on (with the OTEL_* endpoint, else
	// Endpoint, else http://localhost:4318) or off; unset: on when an
	// OTEL_EXPORTER_OTLP_*ENDPOINT variable is set. OTEL_SDK_DISABLED=true
	// wins.
	Enabled *bool `koanf:"enabled"`
	// Endpoint is the collector's base URL when no OTEL_* variable names
	// one; /v1/traces and /v1/metrics are added.
	Endpoint string `koanf:"endpoint"`
	// FlushTimeout bounds the flush at the end of the run; 0: 2s.
	FlushTimeout time.Duration `koanf:"flush_timeout"`
	// PropagateToProviders sends the W3C traceparent header with model
	// requests; off, a provider never learns the trace ids.
	PropagateToProviders bool `koanf:"propagate_to_providers"`
}

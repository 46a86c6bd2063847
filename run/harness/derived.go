package harness

import (
	"strings"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/input"
	"github.com/rubichan/rubichan/run/sink"
)

// What a run derives from its Settings, in one place: read, never
// stored back.

// KeyVars are the provider key variables no command started by the run
// sees.
func (s Settings) KeyVars() []string { return RunKeyVars(s.Provider.KeyEnv, s.Config) }

// ChildDropEnv is what the run's other commands — hooks, --verify, MCP
// servers — do not see: the key variables and the sub-query socket and
// token, which only the bash tool's commands get.
func (s Settings) ChildDropEnv() []string { return ChildDropEnv(s.KeyVars()) }

// PathAdd returns the directories the configuration adds to bash's PATH.
func (s Settings) PathAdd() []string {
	if s.Config == nil {
		return nil
	}
	return s.Config.Bash.PathAdd
}

// ChildEnv returns the environment of the run's other commands.
func (s Settings) ChildEnv(env Env) ChildEnv {
	var environ []string
	if env.Environ != nil {
		environ = env.Environ()
	}
	return ChildEnv{Environ: environ, EnvAllow: s.PassEnv, DropEnv: s.ChildDropEnv(), PathAdd: s.PathAdd()}
}

// MCPPlace returns where a run in dir finds its MCP servers.
func (s Settings) MCPPlace(dir string) MCPPlace {
	return MCPPlace{Choice: s.MCP, Dir: dir, Trusted: s.Policy.TrustWorkspace}
}

// Secrets returns the run's secrets ([Secrets]) for a run in dir (the
// workspace, or patch mode's copy of it).
func (s Settings) Secrets(env Env, dir string) []string {
	return Secrets(s.Provider, s.Config, s.MCPPlace(dir), env)
}

// BashSettings returns what the run's bash tool takes from its settings.
func (s Settings) BashSettings() BashSettings {
	return BashSettings{PassEnv: s.PassEnv, KeyVars: s.KeyVars(), PathAdd: s.PathAdd(), Shell: ShellSettings(s.Config)}
}

// SubqueryConfig returns the run's sub-query settings.
func (s Settings) SubqueryConfig() SubqueryConfig {
	q := s.Config.Query
	return SubqueryConfig{
		Options: SubqueryOptions{Model: s.Provider.SubModel, Prices: s.Config.Prices, MaxCost: s.Config.Limits.MaxCost,
			Concurrency: max(q.Concurrency, 1), MaxQueries: q.MaxQueries},
		Provider: s.Provider, Limits: StreamLimits(s.Config),
	}
}

// InitSettings returns what the init event tells of the run's settings.
func (s Settings) InitSettings() InitSettings {
	is := InitSettings{Provider: s.Provider.Name, Model: s.Provider.Model, Allow: s.Policy.Allow, Deny: s.Policy.Deny, Limits: s.Limits()}
	if s.JSONSchema != nil {
		is.SchemaDigest = s.JSONSchema.Digest
	}
	return is
}

// Verify is the [verify] configuration: --verify, its attempts and timeout.
func (s Settings) Verify() config.Verify {
	if s.Config == nil {
		return config.Verify{}
	}
	return s.Config.Verify
}

// InputOptions is how the run reads its prompt and standard input.
func (s Settings) InputOptions(notice func(string)) input.Options {
	return input.Options{
		Args: s.Input.Args, PromptFile: s.Input.PromptFile, NoStdin: s.Input.NoStdin, Notice: notice,
		InlineMax: InlineMax(s.Config), StdinMax: StdinMax(s.Config), Optional: s.Session.Answering() || s.Session.Resuming(),
	}
}

// PolicySource returns where the run's policy comes from: a headless
// run's, in its workspace dir.
func (s Settings) PolicySource(dir string) PolicySource {
	return PolicySource{
		Dir: dir, File: s.Policy.File, Allow: s.Policy.Allow, Deny: s.Policy.Deny,
		TrustWorkspace: s.Policy.TrustWorkspace, Headless: true,
	}
}

// GitHubRun is what the GitHub Actions reporter learns of the run once its
// input is read: the task is the prompt's arguments, or the prompt without
// the stdin it was given.
func (s Settings) GitHubRun(prompt string, red *agent.Redactor) sink.GitHubRun {
	if args := s.Input.Args; len(args) > 0 && args[0] != "-" {
		prompt = strings.Join(args, " ")
	} else if _, after, ok := strings.Cut(prompt, "</stdin>\n"); ok {
		prompt = after
	}
	return sink.GitHubRun{Provider: s.Provider.Name, Model: s.Provider.Model, Task: prompt, Redact: red, AllowAll: AllowAll(s.Config)}
}

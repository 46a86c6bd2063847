package run

import (
	"errors"
	"io"
	"strings"

	"github.com/rubichan/rubichan/run/sink"
	"github.com/urfave/cli/v2"
)

// githubKey is the cli.App Metadata key of the run's [githubReporter].
const githubKey = "rubichan.github"

// githubOutput returns the reporter of an `exec` run under GitHub Actions
// (GITHUB_ACTIONS=true) unless --github=false or RUBICHAN_GITHUB=false,
// else nil. Like [machineOutput] it reads the raw arguments: the stderr
// of a run that fails on a bad flag is neutralised too.
func githubOutput(args []string, lookupEnv func(string) (string, bool), stderr io.Writer) *githubReporter {
	if len(args) < 2 || args[1] != "exec" {
		return nil
	}
	if v, _ := lookupEnv("GITHUB_ACTIONS"); v != "true" {
		return nil
	}
	on := true
	if v, ok := lookupEnv(envName("github")); ok && v != "" {
		on = v == "true" || v == "1"
	}
	for _, a := range args[2:] {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "github" {
			on = !hasValue || value == "true" || value == "1"
		}
	}
	if !on {
		return nil
	}
	path, _ := lookupEnv("GITHUB_STEP_SUMMARY")
	return sink.NewGitHub(stderr, path)
}

// githubSink returns the reporter [runMain] put in the app's metadata, or
// nil.
func githubSink(c *cli.Context) *githubReporter {
	gh, _ := c.App.Metadata[githubKey].(*githubReporter)
	return gh
}

// githubRun is what the job summary says of a run before it starts: the
// task is the prompt's arguments, or what the person wrote after stdin.
func githubRun(cfg execConfig, prompt string, red *redactor) sink.GitHubRun {
	if len(cfg.PromptArgs) > 0 && cfg.PromptArgs[0] != "-" {
		prompt = strings.Join(cfg.PromptArgs, " ")
	} else if _, after, ok := strings.Cut(prompt, "</stdin>\n"); ok {
		prompt = after
	}
	return sink.GitHubRun{Provider: cfg.Provider, Model: cfg.Model, Task: prompt, Redact: red}
}

// finishGitHub is [sink.GitHub.Finish], the error of a bare invocation
// left out as the reporter always did.
func finishGitHub(gh *githubReporter, err error, code int) {
	if errors.Is(err, errBareInvocation) {
		err = nil
	}
	gh.Finish(err, code)
}

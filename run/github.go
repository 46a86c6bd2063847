package run

import (
	"errors"
	"strings"

	"github.com/rubichan/rubichan/run/sink"
)

// githubEnv reports whether the environment turns the GitHub Actions
// output on: GITHUB_ACTIONS=true, and RUBICHAN_GITHUB (--github) not
// false.
func githubEnv(lookupEnv func(string) (string, bool)) bool {
	if v, _ := lookupEnv("GITHUB_ACTIONS"); v != "true" {
		return false
	}
	if v, ok := lookupEnv(envName("github")); ok && v != "" {
		return v == "true" || v == "1"
	}
	return true
}

// githubRun is what the job summary says of a run before it starts: the
// task is the prompt's arguments, or what the person wrote after stdin.
func githubRun(cfg execConfig, prompt string, red *redactor) sink.GitHubRun {
	if len(cfg.PromptArgs) > 0 && cfg.PromptArgs[0] != "-" {
		prompt = strings.Join(cfg.PromptArgs, " ")
	} else if _, after, ok := strings.Cut(prompt, "</stdin>\n"); ok {
		prompt = after
	}
	return sink.GitHubRun{Provider: cfg.Provider, Model: cfg.Model, Task: prompt, Redact: red, AllowAll: allowAll(cfg.Settings)}
}

// finishGitHub is [sink.GitHub.Finish], the error of a bare invocation
// left out as the reporter always did.
func finishGitHub(gh *githubReporter, err error, code int) {
	if errors.Is(err, errBareInvocation) {
		err = nil
	}
	gh.Finish(err, code)
}

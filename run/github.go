package run

import (
	"errors"
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

// finishGitHub is [sink.GitHub.Finish], the error of a bare invocation
// left out as the reporter always did.
func finishGitHub(gh *sink.GitHub, err error, code int) {
	if errors.Is(err, errBareInvocation) {
		err = nil
	}
	gh.Finish(err, code)
}

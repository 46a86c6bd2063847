package run

import "strings"

// The readers scanArgs replaced, frozen as they were (interactiveArgs in
// chat.go, githubOutput in github.go, machineOutput in machine.go), so
// that the differential test and fuzz target keep comparing with them.
// Only their results changed: a mode or a bool instead of a sink.

// oldEarlyReading is what runMain read from the raw arguments before
// scanArgs: interactiveArgs, then githubOutput and machineOutput.
func oldEarlyReading(args []string, lookupEnv func(string) (string, bool)) (out []string, output string, github bool) {
	args = oldInteractiveArgs(args)
	return args, oldMachineOutput(args, lookupEnv), oldGitHubOutput(args, lookupEnv)
}

// oldInteractiveArgs turns `rubichan -i …` and `rubichan --interactive …`
// into `rubichan chat …`.
func oldInteractiveArgs(args []string) []string {
	if len(args) < 2 || (args[1] != "-i" && args[1] != "--interactive") {
		return args
	}
	out := append([]string{args[0], "chat"}, args[2:]...)
	return out
}

// oldGitHubOutput reports whether githubOutput returned a reporter.
func oldGitHubOutput(args []string, lookupEnv func(string) (string, bool)) bool {
	if len(args) < 2 || args[1] != "exec" {
		return false
	}
	if v, _ := lookupEnv("GITHUB_ACTIONS"); v != "true" {
		return false
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
	return on
}

// oldMachineOutput is the mode of the sink machineOutput returned, ""
// when it returned none.
func oldMachineOutput(args []string, lookupEnv func(string) (string, bool)) string {
	if len(args) < 2 || args[1] != "exec" {
		return ""
	}
	mode, _ := lookupEnv(envName("output"))
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-"):
		case name == "help" || name == "h":
			return ""
		case name == "output" && hasValue:
			mode = value
		case name == "output" && i+1 < len(rest):
			i++
			mode = rest[i]
		}
	}
	if mode != outputJSON && mode != outputStreamJSON {
		return ""
	}
	return mode
}

package run

// oldEarlyReading is what runMain read from the raw arguments before
// scanArgs: interactiveArgs, then githubOutput and machineOutput.
func oldEarlyReading(args []string, lookupEnv func(string) (string, bool)) (out []string, output string, github bool) {
	args = interactiveArgs(args)
	if js := machineOutput(args, lookupEnv, nil, nil); js != nil {
		output = outputJSON
		if js.stream {
			output = outputStreamJSON
		}
	}
	return args, output, githubOutput(args, lookupEnv, nil) != nil
}

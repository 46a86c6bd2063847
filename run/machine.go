package run

// The --output formats.
const (
	outputText       = "text"
	outputFinal      = "final"
	outputJSON       = "json"
	outputStreamJSON = "stream-json"
)

package exit

import (
	"os"
	"syscall"
)

// SignalError is the cancellation cause main sets when the process receives
// SIGINT or SIGTERM, so the runner can tell the two apart (exit 130 or 143).
type SignalError struct {
	Signal os.Signal
}

// Error names the signal as a shell user knows it: "interrupted by SIGTERM".
func (e SignalError) Error() string { return "interrupted by " + signalName(e.Signal) }

// signalName is SIGINT or SIGTERM, the two signals main hands over; Go's
// own names for them ("interrupt", "terminated") read oddly after
// "interrupted by".
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// ExitCode returns the conventional exit code for the signal: 128 + its number.
func (e SignalError) ExitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

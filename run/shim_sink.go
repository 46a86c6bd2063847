package run

import (
	"io"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
)

// Transitional names for the renderers of the engine's events, now in
// run/sink, so the files of run that have not moved yet compile unchanged.
// Phase 4 of the engine split deletes this file.

// textSink is [sink.Text].
type textSink = sink.Text

// newJSONShown is [sink.NewJSONShown].
func newJSONShown(w io.Writer) *sink.JSONShown { return sink.NewJSONShown(w) }

// colorEnabled is [sink.ColorEnabled].
func colorEnabled(mode string, stderrIsTerminal bool, lookupEnv func(string) (string, bool)) bool {
	return sink.ColorEnabled(mode, stderrIsTerminal, lookupEnv)
}

// allowFlags is [sink.AllowFlags].
func allowFlags(rules []string) string { return sink.AllowFlags(rules) }

// jsonSink is [sink.JSON].
type jsonSink = sink.JSON

// newJSONSink is [sink.NewJSON].
func newJSONSink(w io.Writer, stream bool, sessionID string, now func() time.Time) *jsonSink {
	return sink.NewJSON(w, stream, sessionID, now)
}

// githubReporter is [sink.GitHub].
type githubReporter = sink.GitHub

// sessionHeader is [sink.SessionHeader].
type sessionHeader = sink.SessionHeader

// sessionLog is [sink.SessionLog].
type sessionLog = sink.SessionLog

// sessionOptions is [sink.SessionOptions].
type sessionOptions = sink.SessionOptions

// openSession is [sink.OpenSession], with this binary's build.
func openSession(opt sessionOptions, h sessionHeader) *sessionLog {
	opt.Build = sinkBuild()
	return sink.OpenSession(opt, h)
}

// newSessionID is [sink.NewSessionID].
func newSessionID(start time.Time) string { return sink.NewSessionID(start) }

// sessionPendings is [sink.SessionPendings].
func sessionPendings(ps []agent.Pending) []session.Pending { return sink.SessionPendings(ps) }

// reportPending is [sink.ReportPending].
func reportPending(w io.Writer, pending []session.Pending, path, storeDir string) {
	sink.ReportPending(w, pending, path, storeDir)
}

// writePending is [sink.WritePending].
func writePending(w io.Writer, p session.Pending) { sink.WritePending(w, p) }

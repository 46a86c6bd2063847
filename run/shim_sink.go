package run

import (
	"io"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/events"
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

// formatTokens is [sink.FormatTokens].
func formatTokens(n int64) string { return sink.FormatTokens(n) }

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
func reportPending(w io.Writer, pending []session.Pending, path, storeDir string, flags []string) {
	sink.ReportPending(w, pending, path, storeDir, flags)
}

// redactedPending is [sink.RedactedPending].
func redactedPending(pending []session.Pending, red *redactor) []session.Pending {
	return sink.RedactedPending(pending, red)
}

// whole is [sink.Whole].
func whole(s string) string { return sink.Whole(s) }

// writePending is [sink.WritePending].
func writePending(w io.Writer, p session.Pending) { sink.WritePending(w, p) }

// isTerminal is [sink.IsTerminal].
func isTerminal(w io.Writer) bool { return sink.IsTerminal(w) }

// runSinks is a [sink.Fan] under the names the files of run that have
// not moved yet use: the fan's parts it hands out as fields, and observe,
// which line mode sets after the fan is made.
type runSinks struct {
	*sink.Fan
	text    *textSink
	js      *jsonSink
	red     *redactor
	notes   io.Writer
	observe func(Event)
}

// newRunSinks builds the sinks of a run from its flags (see
// [execConfig.sinkOptions]); stop learns a failed write on stdout.
func newRunSinks(cfg execConfig, js *jsonSink, stdout, stderr io.Writer, env environment, stop func(error)) *runSinks {
	s := &runSinks{}
	opt := cfg.sinkOptions(js, env, stop)
	opt.Observe = func(ev Event) {
		if s.observe != nil {
			s.observe(ev)
		}
	}
	s.Fan = sink.New(stdout, stderr, opt)
	s.text, s.js, s.red, s.notes = s.Fan.Text(), s.Fan.JSON(), s.Fan.Redactor(), s.Fan.Notes()
	return s
}

// emit is [sink.Fan.Emit].
func (s *runSinks) emit(ev Event) { s.Fan.Emit(ev) }

// started is [sink.Fan.Started].
func (s *runSinks) started(sess *sessionLog, init events.Init) { s.Fan.Started(sess, init) }

// sessionID is [sink.Fan.SessionID].
func (s *runSinks) sessionID() string { return s.Fan.SessionID() }

// close is [sink.Fan.Close].
func (s *runSinks) close() { s.Fan.Close() }

package sink

import "os"

// SessionFile is the file under s, for the external tests that take it
// away under the log.
func SessionFile(s *SessionLog) *os.File { return s.w.File() }

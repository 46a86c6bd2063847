package toolkit

// Output caps, in one place. Every tool that cuts its output says so in the
// result and sets Meta.Truncated.
const (
	readDefaultLimit = 2000     // lines returned by read when no limit is given
	readMaxBytes     = 50 << 10 // bytes of numbered lines read returns at most
	binarySniffBytes = 8 << 10  // a NUL byte in this prefix marks a file binary
	diffMaxBytes     = 16 << 10 // bytes of unified diff kept in a result
	grepDefaultMax   = 200      // matches grep returns when no max is given
	grepMaxFileSize  = 1 << 20  // files larger than this are not searched
	grepMaxLineBytes = 500      // bytes of one matching or context line grep shows
	grepMaxBytes     = 50 << 10 // bytes of output grep returns at most
	grepMaxContext   = 20       // context lines grep accepts around a match
	globMaxResults   = 1000     // paths glob returns at most
	lsMaxEntries     = 500      // entries ls returns at most
	editHintLines    = 3        // closest lines a failed edit shows
	editHintRun      = 10       // lines a failed edit shows of a whitespace-insensitive match
	editMatchLines   = 20       // line numbers a refused ambiguous edit lists
	bashOutputMax    = 30 << 10 // bytes of combined output bash keeps (head + tail)
)

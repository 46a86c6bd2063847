package toolkit

import (
	"crypto/sha256"
	"sync"
)

// ReadTracker remembers, for one run, the content of every file the agent
// has read or written, so that write and edit can refuse to overwrite a
// file that changed on disk since the agent last saw it.
//
// A ReadTracker is safe for concurrent use. The zero value is not usable;
// create one with [NewReadTracker].
type ReadTracker struct {
	mu   sync.Mutex
	seen map[string][sha256.Size]byte // resolved absolute path → content hash
}

// NewReadTracker returns an empty tracker.
func NewReadTracker() *ReadTracker {
	return &ReadTracker{seen: make(map[string][sha256.Size]byte)}
}

// record notes that the agent has seen the file key with content hash sum.
func (t *ReadTracker) record(key string, sum [sha256.Size]byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen[key] = sum
}

// stale reports whether the agent saw the file key before and its content
// has changed since; a file never seen is not stale.
func (t *ReadTracker) stale(key string, current [sha256.Size]byte) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	sum, ok := t.seen[key]
	return ok && sum != current
}

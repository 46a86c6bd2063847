package sink

import (
	"strings"

	"github.com/rubichan/rubichan/run/agent"
)

// StreamRedactor redacts text that arrives in pieces — the deltas of the
// model's answer — where a secret may be split across two or more of them
// ("sk-ant-a" then "pi03-…"). It passes on each piece at once, redacted,
// but for the tail that could still become a secret: the longest end of
// the text so far that is the start of one of the redactor's secrets (or
// that ends inside a whole secret). That tail waits for the next piece or
// for [StreamRedactor.Flush]. Ordinary text is held back only when its
// last bytes happen to begin a secret, and then only until the next piece.
//
// A nil redactor (or one without secrets) holds nothing back. It is not
// safe for concurrent use.
type StreamRedactor struct {
	Red  *agent.Redactor // the secrets; nil holds nothing back
	held string
}

// Push takes the next piece and returns what can be shown now.
func (s *StreamRedactor) Push(text string) string {
	if s.Red == nil || len(s.Red.Secrets()) == 0 {
		return text
	}
	all := s.held + text
	k := len(all) - partialTail(all, s.Red.Secrets())
	// A whole secret that the tail cuts into is held back with it: the
	// part before k alone would not be redacted.
	for moved := true; moved; {
		moved = false
		for _, sec := range s.Red.Secrets() {
			for off := 0; off < k; {
				i := strings.Index(all[off:], sec)
				if i < 0 {
					break
				}
				i += off
				if i < k && i+len(sec) > k {
					k, moved = i, true
					break
				}
				off = i + 1
			}
		}
	}
	s.held = all[k:]
	return s.Red.Redact(all[:k])
}

// Flush returns what is held back, redacted, and holds nothing more: the
// text it belongs to has ended.
func (s *StreamRedactor) Flush() string {
	out := s.Red.Redact(s.held)
	s.held = ""
	return out
}

// Drop forgets what is held back: the text it belongs to is void.
func (s *StreamRedactor) Drop() { s.held = "" }

// partialTail is the length of the longest end of text that is the start
// of one of secrets without being all of it.
func partialTail(text string, secrets []string) int {
	best := 0
	for _, sec := range secrets {
		for n := min(len(sec)-1, len(text)); n > best; n-- {
			if strings.HasSuffix(text, sec[:n]) {
				best = n
				break
			}
		}
	}
	return best
}

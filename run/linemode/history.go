package linemode

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/toolkit"
)

// historyMax is how many lines the line editor keeps and the history file
// is read back to.
const historyMax = 1000

// history is the line editor's history (golang.org/x/term's History),
// kept in a file of its own, mode 0600, one line per entry. A line that
// looks like it holds a secret is neither kept nor written. Writing is an
// append of one short line: typing never waits on the session log.
//
// The run's secrets may be known only after the line editor started (the
// first prompt shows before the configuration is read): then a nil red
// makes Add wait for [history.know].
type history struct {
	path    string // "": in memory only
	red     *agent.Redactor
	entries []string      // oldest first
	known   chan struct{} // closed by know; nil when red was given
	once    sync.Once
}

// loadHistory reads the last [historyMax] lines of the file at path. A
// nil red is given later, by know.
func loadHistory(path string, red *agent.Redactor) *history {
	h := &history{path: path, red: red}
	if red == nil {
		h.known = make(chan struct{})
	} else {
		h.once.Do(func() {}) // known from the start: know does nothing
	}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		h.entries = append(h.entries, sc.Text())
		if len(h.entries) > 2*historyMax {
			h.entries = append(h.entries[:0:0], h.entries[len(h.entries)-historyMax:]...)
		}
	}
	if len(h.entries) > historyMax {
		h.entries = h.entries[len(h.entries)-historyMax:]
	}
	return h
}

// Add keeps line and appends it to the file, unless it is empty, repeats
// the last line or looks secret.
//
// Waiting for the secrets here is safe because golang.org/x/term (from
// v0.47) calls History.Add without holding its terminal's lock, so a note
// written above the prompt meanwhile ([Input.writer]) does not wait
// on it.
func (h *history) Add(line string) {
	if h.known != nil {
		<-h.known
	}
	if strings.TrimSpace(line) == "" || strings.ContainsAny(line, "\n\r") || secretLine(line, h.red) {
		return
	}
	if n := len(h.entries); n > 0 && h.entries[n-1] == line {
		return
	}
	h.entries = append(h.entries, line)
	if len(h.entries) > historyMax {
		h.entries = h.entries[1:]
	}
	if h.path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	f.Chmod(0o600) // an older file made looser keeps no secret-free promise otherwise
	f.WriteString(line + "\n")
	f.Close()
}

// know gives the history the run's secrets (the redactor) when loadHistory
// was not given them; with keep false (the chat ends before it knew them)
// nothing is written to the file. Only the first call counts.
func (h *history) know(red *agent.Redactor, keep bool) {
	h.once.Do(func() {
		if red == nil {
			red = agent.NewRedactor(nil)
		}
		h.red = red
		if !keep {
			h.path = ""
		}
		if h.known != nil {
			close(h.known)
		}
	})
}

// Len is the number of entries.
func (h *history) Len() int { return len(h.entries) }

// At is the entry idx from the most recent (0).
func (h *history) At(idx int) string { return h.entries[len(h.entries)-1-idx] }

// keyPrefixes begin the tokens of well-known services (OpenAI and
// Anthropic keys, GitHub, GitLab and Slack tokens, AWS access keys,
// Google API keys).
var keyPrefixes = []string{"sk-", "ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "AKIA", "AIza"}

// secretLine reports whether a line looks like it holds a secret: one of
// the run's secret values (the redactor's), an assignment to a variable
// whose name looks secret (the bash tool's rule, [toolkit.LooksSecret]:
// `export GITHUB_TOKEN=…`, `--api-key=…`), or a token shaped like a
// well-known key — also inside a word: a header (`x-api-key:sk-…`,
// `Authorization: Bearer …`), a URL's query (`?key=AIza…`) or JSON
// (`"api_key":"sk-ant-…"`).
func secretLine(line string, red *agent.Redactor) bool {
	if red.Redact(line) != line {
		return true
	}
	for _, w := range strings.Fields(line) {
		w = strings.Trim(w, `"'`)
		if name, val, ok := strings.Cut(w, "="); ok && val != "" && toolkit.LooksSecret(strings.TrimLeft(name, "-")) {
			return true
		}
	}
	return keyInside(line) || secretPair(line)
}

// isTokenByte reports whether c can be part of a key or a name: letters,
// digits, "_" and "-".
func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// tokenAt is the run of token bytes ([isTokenByte]) that begins at i.
func tokenAt(s string, i int) string {
	j := i
	for j < len(s) && isTokenByte(s[j]) {
		j++
	}
	return s[i:j]
}

// keyInside reports whether line holds a token that begins with one of
// [keyPrefixes] and has at least 16 more token bytes, wherever it starts
// a token: at the line's start or after a byte that cannot be part of one
// ("desk-reservation-…" holds no "sk-" key).
func keyInside(line string) bool {
	for _, p := range keyPrefixes {
		for off := 0; ; {
			i := strings.Index(line[off:], p)
			if i < 0 {
				break
			}
			i += off
			if (i == 0 || !isTokenByte(line[i-1]) || percentEscaped(line[:i])) && len(tokenAt(line, i)) >= len(p)+16 {
				return true
			}
			off = i + len(p)
		}
	}
	return false
}

// percentEscaped reports whether s ends in a URL's %XX escape (a
// "key%3Dsk-…" is "key=sk-…" encoded): the key after it starts a token.
func percentEscaped(s string) bool {
	n := len(s)
	return n >= 3 && s[n-3] == '%' && isHex(s[n-2]) && isHex(s[n-1])
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// secretPair reports whether line gives a value to a name that looks
// secret ([toolkit.LooksSecret], or an Authorization header) inside a
// word: a URL's `&token=…`, a header's `x-api-key: …`, JSON's
// `"password": "…"`. After "=" any value counts; after ":" (prose says
// "the key: …") a quoted one does, or a token of 8 or more bytes holding
// a digit.
func secretPair(line string) bool {
	for i := 0; i < len(line); i++ {
		sep := line[i]
		if sep != '=' && sep != ':' {
			continue
		}
		end, spaced := i, false
		if sep == '=' {
			// An INI or TOML assignment: `name = value`.
			for end > 0 && line[end-1] == ' ' {
				end, spaced = end-1, true
			}
		}
		for end > 0 && (line[end-1] == '"' || line[end-1] == '\'') {
			end--
		}
		start := end
		for start > 0 && isTokenByte(line[start-1]) {
			start--
		}
		name := strings.TrimLeft(line[start:end], "-")
		auth := strings.EqualFold(name, "authorization") || strings.EqualFold(name, "proxy-authorization")
		if name == "" || !auth && !toolkit.LooksSecret(name) {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] == ' ' && (sep == ':' || spaced) {
			j++
		}
		quoted := j < len(line) && (line[j] == '"' || line[j] == '\'')
		if quoted {
			j++
		}
		val := tokenAt(line, j)
		if auth && (strings.EqualFold(val, "bearer") || strings.EqualFold(val, "basic") || strings.EqualFold(val, "token")) {
			j += len(val)
			for j < len(line) && line[j] == ' ' {
				j++
			}
			val = tokenAt(line, j)
		}
		// A spaced "=" reads like prose as ":" does ("the password =
		// is missing"); its value runs to the next space ("wJal…/K7…").
		word := val
		if spaced {
			word, _, _ = strings.Cut(line[j:], " ")
		}
		switch {
		case val == "":
		case sep == '=' && !spaced || quoted:
			return true
		case len(word) >= 8 && strings.ContainsAny(word, "0123456789"):
			return true
		}
	}
	return false
}

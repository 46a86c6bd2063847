package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/rubichan/rubichan/llm"
)

// Message is one message of a loaded conversation. API and Model say
// which provider API and model wrote an assistant message.
type Message struct {
	llm.Message
	API   string
	Model string
	// Summary marks the user message that carries a compaction's
	// summary: it stays a message of its own, as the run sent it.
	Summary bool
}

// Session is a loaded session file: what a resume needs.
type Session struct {
	Path   string
	Header Line
	// Runs are the "run" lines (the header counts as run 1) and the
	// "end" line of each run, nil for a run that never ended.
	Runs []RunInfo
	// Messages is the conversation in order, consecutive user lines
	// merged into one message.
	Messages []Message
	// Pending are the calls the last run deferred, nil unless its end
	// line says "deferred".
	Pending []Pending
	// Torn says the last line was incomplete and was ignored.
	Torn bool
	// Compactions counts the "compaction" lines applied to Messages.
	Compactions int
}

// RunInfo is one run of a session.
type RunInfo struct {
	Start Line
	End   *Line
}

// ErrFormat is wrapped by the errors of a file that is not a resumable
// session of this format.
var ErrFormat = errors.New("not a resumable session")

// Load reads the session file path. A torn last line (a killed run) is
// ignored; any other line that is not JSON is an error.
func Load(path string) (*Session, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", path, err)
	}
	s.Path = path
	return s, nil
}

// conversation types, the lines [Parse] decodes; the others are skipped
// by their prefix without decoding.
var parsed = [][]byte{
	[]byte(`{"type":"session"`), []byte(`{"type":"run"`), []byte(`{"type":"user"`),
	[]byte(`{"type":"assistant"`), []byte(`{"type":"end"`), []byte(`{"type":"compaction"`),
}

// Parse rebuilds a session from the bytes of its file. The lines it needs
// are decoded in parallel (a resume of a long session waits on it), then
// folded in order.
func Parse(data []byte) (*Session, error) {
	s := &Session{}
	type item struct {
		n    int // line number, from 1
		raw  []byte
		line Line
		err  error
	}
	var items []item
	n := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			s.Torn = true // no newline: the write was cut
			break
		}
		line := data[:i]
		data = data[i+1:]
		n++
		if n == 1 || wanted(line) {
			items = append(items, item{n: n, raw: line})
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: the file is empty", ErrFormat)
	}
	workers := min(runtime.GOMAXPROCS(0), 8, max(len(items)/64, 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(items); i += workers {
				it := &items[i]
				if it.n > 1 {
					var ok bool
					if it.line, ok = parseConv(it.raw); ok {
						continue
					}
					it.line = Line{}
				}
				it.err = json.Unmarshal(it.raw, &it.line)
			}
		}()
	}
	wg.Wait()
	for i, it := range items {
		if it.err != nil {
			if i == len(items)-1 && it.n == n && !s.Torn {
				s.Torn = true // the last line, cut where a newline happened to be
				break
			}
			return nil, fmt.Errorf("line %d: %v", it.n, it.err)
		}
		if it.n == 1 {
			if err := checkHeader(it.line); err != nil {
				return nil, err
			}
		}
		s.add(it.line)
	}
	return s, nil
}

func wanted(line []byte) bool {
	for _, p := range parsed {
		if bytes.HasPrefix(line, p) && len(line) > len(p) && line[len(p)] == ',' {
			return true
		}
	}
	return false
}

func checkHeader(l Line) error {
	switch {
	case l.Type != TypeHeader:
		return fmt.Errorf("%w: the first line is %q, not a session header", ErrFormat, l.Type)
	case l.Format == 0:
		return fmt.Errorf("%w: format 1 (written before sessions could be resumed)", ErrFormat)
	case l.Format > Format:
		return fmt.Errorf("%w: format %d is newer than this rubichan reads (%d)", ErrFormat, l.Format, Format)
	}
	return nil
}

func (s *Session) add(l Line) {
	switch l.Type {
	case TypeHeader:
		s.Header = l
		s.Runs = append(s.Runs, RunInfo{Start: l})
	case TypeRun:
		s.Runs = append(s.Runs, RunInfo{Start: l})
	case TypeEnd:
		if len(s.Runs) > 0 {
			s.Runs[len(s.Runs)-1].End = &l
		}
	case TypeUser:
		s.addBlocks(llm.RoleUser, l, "", "")
	case TypeAssistant:
		s.addBlocks(llm.RoleAssistant, l, l.API, l.Model)
	case TypeCompaction:
		s.compact(l)
	}
}

func (s *Session) addBlocks(role llm.Role, l Line, api, model string) {
	var blocks []llm.Block
	if l.Redacted != "" {
		blocks = []llm.Block{llm.TextBlock("[" + RedactedMark + ": this message held a secret and was not recorded]")}
	}
	for _, b := range l.Content {
		if lb, ok := b.LLM(); ok {
			blocks = append(blocks, lb)
		}
	}
	if k := len(s.Messages); role == llm.RoleUser && k > 0 && s.Messages[k-1].Role == llm.RoleUser {
		s.Messages[k-1].Content = append(s.Messages[k-1].Content, blocks...)
		return
	}
	s.Messages = append(s.Messages, Message{Message: llm.Message{Role: role, Content: blocks}, API: api, Model: model})
}

// Last returns the last run, or nil.
func (s *Session) Last() *RunInfo {
	if len(s.Runs) == 0 {
		return nil
	}
	return &s.Runs[len(s.Runs)-1]
}

// Deferred returns the calls the last run left pending, or nil.
func (s *Session) Deferred() []Pending {
	if r := s.Last(); r != nil && r.End != nil && r.End.Status == StatusDeferred {
		return r.End.Pending
	}
	return nil
}

// NotRunKilled is the result a call gets when the run that made it ended
// before the call returned.
const NotRunKilled = "Not run: the run ended (killed or stopped) before this call returned a result. Check the state of the workspace before you try again."

// Conversation returns the messages to send a model of the provider api:
// thinking blocks another API wrote are dropped, and every tool call has
// exactly one result. The calls of the last assistant message that have no
// result are returned apart when the last run deferred them (keepOpen);
// otherwise they get [NotRunKilled] error results.
func (s *Session) Conversation(api string, keepOpen bool) (msgs []llm.Message, open []llm.Block) {
	msgs = make([]llm.Message, 0, len(s.Messages)+1)
	alone := -1 // the index in msgs of the summary, merged with nothing
	for _, m := range s.Messages {
		msg := llm.Message{Role: m.Role, Content: slices.Clone(m.Content)}
		if m.Role == llm.RoleAssistant && m.API != api {
			msg.Content = slices.DeleteFunc(msg.Content, func(b llm.Block) bool {
				return b.Kind == llm.BlockThinking || b.Kind == llm.BlockRedactedThinking
			})
		}
		if len(msg.Content) == 0 {
			continue
		}
		if k := len(msgs); k > 0 && msgs[k-1].Role == msg.Role && !m.Summary && k-1 != alone {
			msgs[k-1].Content = append(msgs[k-1].Content, msg.Content...)
			continue
		}
		if m.Summary {
			alone = len(msgs)
		}
		msgs = append(msgs, msg)
	}
	return pair(msgs, keepOpen)
}

// pair makes every tool call of msgs answered exactly once, in the user
// message right after it: results with no call before them are dropped,
// calls without results get error results, except the calls of the last
// assistant message when keepOpen, which are returned.
func pair(msgs []llm.Message, keepOpen bool) ([]llm.Message, []llm.Block) {
	var open []llm.Block
	out := msgs[:0]
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == llm.RoleUser {
			m.Content = dropResults(m.Content)
			if len(m.Content) > 0 {
				out = append(out, m)
			}
			continue
		}
		out = append(out, m)
		calls := m.ToolUses()
		if len(calls) == 0 {
			continue
		}
		var next llm.Message
		hasNext := i+1 < len(msgs) && msgs[i+1].Role == llm.RoleUser
		if hasNext {
			next = msgs[i+1]
			i++
		} else {
			next = llm.Message{Role: llm.RoleUser}
		}
		rest := dropResults(next.Content)
		var results []llm.Block
		for _, c := range calls {
			r, ok := resultFor(next.Content, c.ID)
			switch {
			case ok:
				results = append(results, r)
			case keepOpen && i >= len(msgs)-1:
				open = append(open, c)
			default:
				results = append(results, llm.ToolResultBlock(c.ID, NotRunKilled, true))
			}
		}
		if len(open) > 0 && len(rest) > 0 {
			// A prompt after open calls cannot stand before their results.
			rest = nil
		}
		next.Content = append(results, rest...)
		if len(next.Content) > 0 {
			out = append(out, next)
		}
	}
	return out, open
}

// dropResults returns the blocks that are not tool results.
func dropResults(bs []llm.Block) []llm.Block {
	out := make([]llm.Block, 0, len(bs))
	for _, b := range bs {
		if b.Kind != llm.BlockToolResult {
			out = append(out, b)
		}
	}
	return out
}

// resultFor returns the first result for the call id in bs.
func resultFor(bs []llm.Block, id string) (llm.Block, bool) {
	for _, b := range bs {
		if b.Kind == llm.BlockToolResult && b.ToolUseID == id {
			return b, true
		}
	}
	return llm.Block{}, false
}

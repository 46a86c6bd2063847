package ghactions

import (
	"bytes"
	"io"
	"sync"
)

// jsonBracket is "[" as a JSON string escape: it decodes to the same
// text, and no "##[" is left on the line for the runner to act on.
const jsonBracket = `\u005b`

// JSONWriter passes JSON lines (rubichan's machine output) on to another
// writer with every "##[" written "##\u005b", also when the "#"s and the
// "[" come in different writes. A JSON line can hold a workflow command
// in no other way: it begins with "{", never with "::", and its strings
// cannot end the line (a newline in one is "\n"). A "#" appears only
// inside a string, so the escape always falls in one and keeps the JSON
// valid and its value unchanged. It is safe for concurrent use.
type JSONWriter struct {
	mu   sync.Mutex
	w    io.Writer
	hash int    // how many "#" the output so far ends with
	buf  []byte // scratch for the output of one Write
}

// NewJSONWriter returns a JSONWriter on w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

// Write passes p on with its "##[" neutralised. It reports len(p)
// written unless the underlying writer fails.
func (j *JSONWriter) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := p
	if bytes.IndexByte(p, '[') >= 0 {
		out = j.buf[:0]
		for _, c := range p {
			if c == '[' && j.hash >= 2 {
				out = append(out, jsonBracket...)
			} else {
				out = append(out, c)
			}
			j.hash = j.count(c)
		}
		j.buf = out[:0]
	} else {
		k := len(p) - len(bytes.TrimRight(p, "#"))
		if k == len(p) {
			j.hash += k
		} else {
			j.hash = k
		}
	}
	if _, err := j.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// count is the run of "#" after c.
func (j *JSONWriter) count(c byte) int {
	if c == '#' {
		return j.hash + 1
	}
	return 0
}

package sink

import (
	"bytes"
	"io"
	"strings"

	"github.com/rubichan/rubichan/run/agent"
)

// NoticeWriter turns the lines written to it ("rubichan: note: …") into
// notices of a [JSON] sink, and passes them on to W.
type NoticeWriter struct {
	W   io.Writer // where the lines go on to
	JS  *JSON     // whose notices they become
	buf []byte
}

// Write passes p on to W, each whole line also a notice of JS.
func (n *NoticeWriter) Write(p []byte) (int, error) {
	n.buf = append(n.buf, p...)
	for {
		i := bytes.IndexByte(n.buf, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimPrefix(string(n.buf[:i]), "rubichan: ")
		n.JS.Handle(agent.Event{Kind: agent.EventNotice, Text: line})
		n.buf = n.buf[i+1:]
	}
	return n.W.Write(p)
}

package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
)

// tsLayout is the events' "ts": RFC 3339 in UTC with milliseconds.
const tsLayout = "2006-01-02T15:04:05.000Z07:00"

// Encoder writes events as JSON lines, each with one Write call so that a
// reader never sees half a line from a writer that accepts whole writes
// (a pipe does, up to its buffer size). It keeps no event after writing
// it: the cost of an event depends on its own size only.
//
// An Encoder is not safe for concurrent use.
type Encoder struct {
	w      io.Writer
	now    func() time.Time
	header []byte // `,"session_id":"…"` after type and ts
	line   []byte
	body   bytes.Buffer
	enc    *json.Encoder
}

// NewEncoder returns an Encoder writing to w, stamping every event with
// sessionID and the time now returns (time.Now when nil).
func NewEncoder(w io.Writer, sessionID string, now func() time.Time) *Encoder {
	if now == nil {
		now = time.Now
	}
	e := &Encoder{w: w, now: now}
	id, _ := json.Marshal(sessionID)
	e.header = append([]byte(`,"session_id":`), id...)
	e.enc = json.NewEncoder(&e.body)
	// "<" stays "<": the stream is not HTML.
	e.enc.SetEscapeHTML(false)
	return e
}

// Encode writes ev as one line: schema_version, type, ts and session_id
// first, then ev's own fields.
func (e *Encoder) Encode(ev Event) error {
	line, err := e.Append(e.line[:0], ev)
	if err != nil {
		return err
	}
	e.line = line
	_, err = e.w.Write(line)
	return err
}

// Append appends ev's line, newline included, to dst and returns it.
func (e *Encoder) Append(dst []byte, ev Event) ([]byte, error) {
	e.body.Reset()
	if err := e.enc.Encode(ev); err != nil {
		return dst, fmt.Errorf("events: encode %s: %w", ev.EventType(), err)
	}
	body := e.body.Bytes()
	dst = append(dst, `{"schema_version":`...)
	dst = strconv.AppendInt(dst, SchemaVersion, 10)
	dst = append(dst, `,"type":"`...)
	dst = append(dst, ev.EventType()...)
	dst = append(dst, `","ts":"`...)
	dst = e.now().UTC().AppendFormat(dst, tsLayout)
	dst = append(dst, '"')
	dst = append(dst, e.header...)
	if len(body) > 3 { // more than "{}\n"
		dst = append(dst, ',')
	}
	return append(dst, body[1:]...), nil
}

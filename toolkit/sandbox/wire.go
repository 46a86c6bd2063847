package sandbox

import (
	"encoding/binary"
	"errors"
)

// The spawner reads each request in a small binary form, not JSON: its
// decoder is a few lines the spawner's loop keeps resident, where
// encoding/json would fault in megabytes of the program on every command
// (see TrimResident). A request is a 4-byte big-endian length and then
// that many bytes: the path, the directory, the number of arguments and
// each argument, the number of variables and each "NAME=value", every
// string as a 4-byte length and its bytes, every number as 4 bytes.

// appendRequest appends the framed encoding of req to dst.
func appendRequest(dst []byte, req SpawnRequest) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = appendString(dst, req.Path)
	dst = appendString(dst, req.Dir)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(req.Args)))
	for _, a := range req.Args {
		dst = appendString(dst, a)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(req.Env)))
	for _, e := range req.Env {
		dst = appendString(dst, e)
	}
	binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}

func appendString(dst []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(dst, uint32(len(s))), s...)
}

var errBadRequest = errors.New("malformed request")

// decodeRequest decodes the body of a request (its length stripped).
func decodeRequest(b []byte) (SpawnRequest, error) {
	d := decoder{b: b}
	req := SpawnRequest{Path: d.string(), Dir: d.string()}
	req.Args = d.strings()
	req.Env = d.strings()
	if d.bad || len(d.b) != 0 {
		return SpawnRequest{}, errBadRequest
	}
	return req, nil
}

// decoder reads the parts of a request; bad once one was cut short.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uint32() int {
	if len(d.b) < 4 {
		d.bad = true
		return 0
	}
	n := binary.BigEndian.Uint32(d.b)
	d.b = d.b[4:]
	return int(n)
}

func (d *decoder) string() string {
	n := d.uint32()
	if d.bad || n > len(d.b) {
		d.bad = true
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) strings() []string {
	n := d.uint32()
	// Each string takes at least its 4-byte length.
	if d.bad || n > len(d.b)/4 {
		d.bad = true
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.string())
	}
	return out
}

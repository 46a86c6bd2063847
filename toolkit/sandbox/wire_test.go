package sandbox

import (
	"encoding/binary"
	"slices"
	"testing"
)

func TestRequestWire(t *testing.T) {
	t.Parallel()
	tests := []SpawnRequest{
		{Path: "/bin/sh", Args: []string{"sh", "-c", "echo 'a b' \x00 ü"}, Env: []string{"PATH=/bin", "X="}, Dir: "/ws"},
		{Path: "/bin/true", Args: []string{}, Env: []string{}},
	}
	for _, req := range tests {
		b := appendRequest(nil, req)
		if int(binary.BigEndian.Uint32(b)) != len(b)-4 {
			t.Errorf("%q: length %d for %d bytes", req.Path, binary.BigEndian.Uint32(b), len(b)-4)
		}
		got, err := decodeRequest(b[4:])
		if err != nil || got.Path != req.Path || got.Dir != req.Dir || !slices.Equal(got.Args, req.Args) || !slices.Equal(got.Env, req.Env) {
			t.Errorf("round trip of %+v: %+v, %v", req, got, err)
		}
		for cut := range len(b) - 4 {
			if _, err := decodeRequest(b[4 : 4+cut]); err == nil {
				t.Errorf("%q cut to %d bytes decoded", req.Path, cut)
			}
		}
	}
}

// FuzzDecodeRequest: decoding never panics, and what decodes encodes
// back to the same bytes.
func FuzzDecodeRequest(f *testing.F) {
	f.Add(appendRequest(nil, SpawnRequest{Path: "/bin/sh", Args: []string{"sh"}, Env: []string{"A=1"}, Dir: "/"})[4:])
	f.Add([]byte{0, 0, 0, 9})
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := decodeRequest(b)
		if err != nil {
			return
		}
		if again := appendRequest(nil, req)[4:]; string(again) != string(b) {
			t.Errorf("%x decoded to %+v, which encodes to %x", b, req, again)
		}
	})
}

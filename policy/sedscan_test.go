package policy

import (
	"slices"
	"testing"
)

// TestScanSed checks the sed script reader on common scripts and on the
// commands that run programs, write or read files.
func TestScanSed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		script        string
		ok, exec      bool
		writes, reads []string
	}{
		{`s/\//x/g`, true, false, nil, nil},
		{`/start/,/end/{/x/d}`, true, false, nil, nil},
		{`:a;N;$!ba;s/\n/ /g`, true, false, nil, nil},
		{`$!{h;d};x;G;p`, true, false, nil, nil},
		{`/x/I,+3d`, true, false, nil, nil},
		{`\%x%d`, true, false, nil, nil},
		{`1i hello; e id`, true, false, nil, nil}, // one-line text runs to the end of the line
		{"1i hello\ne id", true, true, nil, nil},
		{`y/abc/xyz/`, true, false, nil, nil},
		{`1e touch /tmp/P`, true, true, nil, nil},
		{`/x/!e id`, true, true, nil, nil},
		{`s/x/y/e`, true, true, nil, nil},
		{`s/x/y/gw out; p`, true, false, []string{"out; p"}, nil},
		{"w a\nW b", true, false, []string{"a", "b"}, nil},
		{"r .env\nR x", true, false, nil, []string{".env", "x"}},
		{`s/x/y`, false, false, nil, nil},
		{`k`, false, false, nil, nil},
		{`s/x/y/Q`, false, false, nil, nil},
	} {
		r := scanSed(tt.script)
		if r.ok != tt.ok || r.exec != tt.exec || !slices.Equal(r.writes, tt.writes) || !slices.Equal(r.reads, tt.reads) {
			t.Errorf("scanSed(%q) = %+v, want ok %v exec %v writes %q reads %q", tt.script, r, tt.ok, tt.exec, tt.writes, tt.reads)
		}
	}
}

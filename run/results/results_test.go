package results

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/events"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/NAME, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestFanout: a fan-out of mixed outcomes — success with a patch, a
// denial with an empty partial patch, a limit in stream-json with an
// unknown price, an indented provider failure, a task 10 after 3, and a
// task that died before writing its result.
func TestFanout(t *testing.T) {
	entries, err := Scan(filepath.Join("testdata", "fanout"))
	if err != nil {
		t.Fatal(err)
	}
	var tasks []string
	for _, e := range entries {
		tasks = append(tasks, e.Task)
	}
	if got, want := fmtJSON(t, tasks), `["0","1","2","3","10","lost"]`; got != want {
		t.Errorf("tasks %s, want %s", got, want)
	}
	s := Summarize(entries)
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "fanout.json", append(js, '\n'))
	var table bytes.Buffer
	if err := WriteTable(&table, entries, s); err != nil {
		t.Fatal(err)
	}
	golden(t, "fanout.txt", table.Bytes())
}

func fmtJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSummarize(t *testing.T) {
	c := func(f float64) *float64 { return &f }
	tests := map[string]struct {
		in   []Entry
		want string
	}{
		"none": {nil, `{"tasks":0,"by_exit_code":{},"tokens":{"input":0,"output":0},"cost_usd":0,"cost_unknown":0,"patches":0}`},
		"mixed": {[]Entry{
			{Result: &events.Result{ExitCode: 0, CostUSD: c(0.5), Patch: &events.Patch{Files: 2}}},
			{Result: &events.Result{ExitCode: 0, CostUSD: c(0.25), Patch: &events.Patch{Files: 0}}},
			{Result: &events.Result{ExitCode: 6}},
			{Err: os.ErrNotExist},
		}, `{"tasks":4,"by_exit_code":{"0":2,"6":1,"none":1},"tokens":{"input":0,"output":0},"cost_usd":0.75,"cost_unknown":1,"patches":1}`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := fmtJSON(t, Summarize(tt.in)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// FuzzFindResult: whatever a result.json holds, reading it does not panic
// and gives exactly one of a result and an error; a result found in the
// whole input is the one a plain decoding of it gives, or it is invalid.
func FuzzFindResult(f *testing.F) {
	for _, name := range []string{"0", "1", "2", "3", "lost"} {
		data, err := os.ReadFile(filepath.Join("testdata", "fanout", name, "result.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"type":"result","exit_code":3}` + "\n" + `{"type":"text"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := findResult(data)
		if (r == nil) == (err == nil) {
			t.Fatalf("result %v and error %v", r, err)
		}
		var whole struct {
			Type     string `json:"type"`
			ExitCode int    `json:"exit_code"`
		}
		if json.Unmarshal(data, &whole) == nil && whole.Type == "result" && (r == nil && !strings.Contains(err.Error(), "invalid result") || r != nil && r.ExitCode != whole.ExitCode) {
			t.Fatalf("input %q: exit code %d, found %v", data, whole.ExitCode, r)
		}
	})
}

// TestHostileFanout: a fan-out's directory comes from other machines'
// artifacts. A result.json that is a symlink (to a file outside, or to
// /dev/zero, which would never end) or a FIFO is not read, a file larger
// than the bound is refused unread, and the table shows no control
// character of a hostile status, task name or error (escape codes would
// reach the terminal).
func TestHostileFanout(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.json")
	res := `{"type":"result","status":"success","exit_code":0}`
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, name, FileName)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, []byte(res), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"link": outside, "zero": "/dev/zero"} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, name, FileName)); err != nil {
			t.Fatal(err)
		}
	}
	write("escape", `{"type":"result","status":"\u001b]0;pwned\u0007\u001b[2J","exit_code":0}`)
	write("big", `{"type":"result","status":"success","exit_code":0}`+strings.Repeat(" ", maxSize))
	write("tab\u001b[31m", res)
	entries, err := Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range entries {
		got[e.Task] = e
	}
	for _, name := range []string{"link", "zero", "big"} {
		if e := got[name]; e.Result != nil || e.Err == nil {
			t.Errorf("%s: result %+v, err %v; want no result and an error", name, e.Result, e.Err)
		}
	}
	var out bytes.Buffer
	if err := WriteTable(&out, entries, Summarize(entries)); err != nil {
		t.Fatal(err)
	}
	for _, r := range out.String() {
		if r < 0x20 && r != '\n' || r == 0x7f {
			t.Fatalf("the table holds control character %q:\n%s", r, out.String())
		}
	}
}

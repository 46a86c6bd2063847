package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rubichan/rubichan/run/sink/sinktest"
)

// sessionNameRE is the name of a session file: UTC start time to the
// millisecond, a random suffix.
var sessionNameRE = regexp.MustCompile(`^\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{8}\.jsonl$`)

// sessionFileRE is the name of a session file: a generated or given id.
var sessionFileRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+\.jsonl$`)

// sessionVolatileRE matches the fields of a session line that change from
// run to run; cmdSessionLog prints them as fixed values.
var sessionVolatileRE = regexp.MustCompile(`"(time|duration_ms|elapsed_ms|pid|go)":("[^"]*"|\d+)`)

// sessionRandomIDRE is a generated session id in a header line.
var sessionRandomIDRE = regexp.MustCompile(`"id":"\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{8}"`)

// systemLineRE matches a system line; cmdSessionLog shows only the names
// of its parts (the text holds the date and the work directory).
var systemLineRE = regexp.MustCompile(`^\{"type":"system",.*`)

// cmdSessionLog checks the one session file in DIR and prints its lines
// with times and durations fixed and the work directory as $WORK, so a
// script can compare them with cmp (and -update can rewrite them):
// sessionlog [-partial] DIR. It fails unless the directory is 0700, the
// file 0600 with a sortable unique name, every line a whole JSON object
// with a type and a time, the first a "session" header and the last an
// "end" line (not checked with -partial, for a killed run), and no line
// holds the value of a provider key variable.
func cmdSessionLog(ts *testscript.TestScript, neg bool, args []string) {
	partial := len(args) > 0 && args[0] == "-partial"
	if partial {
		args = args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sessionlog [-partial] DIR")
	}
	dir := ts.MkAbs(args[0])
	lines, err := checkSessionDir(dir, !partial, func(k string) string { return ts.Getenv(k) })
	if err != nil {
		ts.Fatalf("%v", err)
	}
	work := ts.Getenv("WORK")
	for _, l := range lines {
		l = strings.ReplaceAll(l, work, "$WORK")
		l = sessionRandomIDRE.ReplaceAllString(l, `"id":"ID"`)
		if systemLineRE.MatchString(l) {
			l = systemSummary(l)
		}
		fmt.Fprintln(ts.Stdout(), sessionVolatileRE.ReplaceAllStringFunc(l, func(m string) string {
			if strings.HasPrefix(m, `"time"`) {
				return `"time":"TIME"`
			}
			if strings.HasPrefix(m, `"go"`) {
				return `"go":"GO"`
			}
			return m[:strings.IndexByte(m, ':')+1] + "0"
		}))
	}
}

// systemSummary shows a system line as the names of its parts.
func systemSummary(l string) string {
	var sys struct {
		Parts []struct{ Name string }
	}
	json.Unmarshal([]byte(l), &sys)
	names := make([]string, len(sys.Parts))
	for i, p := range sys.Parts {
		names[i] = p.Name
	}
	return `{"type":"system","time":"TIME","hash":"HASH","parts":` + strconv.Quote(strings.Join(names, ",")) + `}`
}

// checkSessionDir returns the lines of the one session file in dir, or
// what is wrong with it; ended says the last line must be the end line.
func checkSessionDir(dir string, ended bool, getenv func(string) string) ([]string, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		return nil, fmt.Errorf("session directory mode %o, want 700", perm)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	if len(entries) != 1 {
		return nil, fmt.Errorf("%d files in %s, want 1", len(entries), dir)
	}
	name := entries[0].Name()
	if !sessionFileRE.MatchString(name) {
		return nil, fmt.Errorf("session file name %q does not match %s", name, sessionFileRE)
	}
	path := filepath.Join(dir, name)
	fi, err = os.Stat(path)
	if err != nil {
		return nil, err
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		return nil, fmt.Errorf("session file mode %o, want 600", perm)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"} {
		if v := getenv(k); v != "" && bytes.Contains(data, []byte(v)) {
			return nil, fmt.Errorf("the session log holds the value of %s", k)
		}
	}
	lines, err := sinktest.SessionLines(data)
	if err != nil {
		return nil, err
	}
	if first := lineType(lines[0]); first != "session" {
		return nil, fmt.Errorf("first line is %q, want the session header", first)
	}
	if last := lineType(lines[len(lines)-1]); ended && last != "end" {
		return nil, fmt.Errorf("last line is %q, want end", last)
	}
	return lines, nil
}

func lineType(l string) string {
	var obj struct{ Type string }
	json.Unmarshal([]byte(l), &obj)
	return obj.Type
}

// cmdMsgPrefix checks that the first K messages of requests N and M are
// byte for byte the same JSON: msgprefix N M K. A resumed run must send
// the earlier exchange exactly as it was sent before. The Anthropic
// client's cache mark, which moves to the newest message, is left out.
func (s *serverSet) cmdMsgPrefix(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: msgprefix N M K")
	}
	var n [3]int
	for i, a := range args {
		v, err := strconv.Atoi(a)
		ts.Check(err)
		n[i] = v
	}
	reqs := s.get(ts).Requests()
	msgs := func(i int) []json.RawMessage {
		if i < 1 || i > len(reqs) {
			ts.Fatalf("request %d of %d", i, len(reqs))
		}
		var body struct{ Messages []json.RawMessage }
		ts.Check(reqs[i-1].JSON(&body))
		if len(body.Messages) < n[2] {
			ts.Fatalf("request %d has %d messages, want at least %d", i, len(body.Messages), n[2])
		}
		return body.Messages
	}
	a, b := msgs(n[0]), msgs(n[1])
	mark := []byte(`,"cache_control":{"type":"ephemeral"}`)
	for i := range n[2] {
		a[i], b[i] = bytes.ReplaceAll(a[i], mark, nil), bytes.ReplaceAll(b[i], mark, nil)
		if !bytes.Equal(a[i], b[i]) {
			ts.Fatalf("message %d differs:\nrequest %d: %s\nrequest %d: %s", i+1, n[0], a[i], n[1], b[i])
		}
	}
}

// cmdWaitFile waits (up to 30 s) until FILE exists: waitfile FILE.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	path := ts.MkAbs(args[0])
	for range 3000 {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	ts.Fatalf("%s did not appear within 30s", args[0])
}

// cmdSessionFiles checks that DIR holds exactly N session files, each
// with a distinct id, whole JSON lines, a header and an end line, and no
// provider key: sessionfiles DIR N.
func cmdSessionFiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sessionfiles DIR N")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	entries, err := os.ReadDir(dir)
	ts.Check(err)
	ids := map[string]bool{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		ts.Check(err)
		for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"} {
			if v := ts.Getenv(k); v != "" && bytes.Contains(data, []byte(v)) {
				ts.Fatalf("%s holds the value of %s", e.Name(), k)
			}
		}
		lines, err := sinktest.SessionLines(data)
		if err != nil {
			ts.Fatalf("%s: %v", e.Name(), err)
		}
		if lineType(lines[0]) != "session" || lineType(lines[len(lines)-1]) != "end" {
			ts.Fatalf("%s: first line %s, last %s", e.Name(), lineType(lines[0]), lineType(lines[len(lines)-1]))
		}
		var h struct{ ID string }
		json.Unmarshal([]byte(lines[0]), &h)
		if ids[h.ID] || h.ID+".jsonl" != e.Name() {
			ts.Fatalf("%s: header id %q repeated or not the file's name", e.Name(), h.ID)
		}
		ids[h.ID] = true
	}
	if len(ids) != want {
		ts.Fatalf("%d session files in %s, want %d", len(ids), args[0], want)
	}
}

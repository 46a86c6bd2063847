package cassette

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const testKey = "sk-test-key-never-in-a-cassette"

// echoServer answers with the key it was sent: in a header, a cookie and
// the body; /cut sends part of a body and then drops the connection.
func echoServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("x-api-key")
		w.Header().Set("x-echo", "key="+key)
		w.Header().Set("set-cookie", "sid="+key)
		w.Header().Set("content-type", "text/event-stream")
		if r.URL.Path == "/cut" {
			w.Header().Set("content-length", "1000")
			w.WriteHeader(200)
			io.WriteString(w, "data: {\"partial\":true}\n\n")
			return
		}
		w.WriteHeader(200)
		io.WriteString(w, "event: x\ndata: {\"echo\":\""+key+"\"}\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// record sends body to path through a Recorder writing file, and returns
// the response bytes and the read error the client saw.
func record(t *testing.T, rec *Recorder, url, body string) ([]byte, error) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("x-api-key", testKey)
	req.Header.Set("authorization", "Bearer "+testKey)
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := (&http.Client{Transport: rec}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	return got, err
}

func TestRecordThenReplay(t *testing.T) {
	t.Parallel()
	srv := echoServer(t)
	file := filepath.Join(t.TempDir(), "c.jsonl")
	vol := Volatile{Workspace: "/w", Date: "2026-01-01", Platform: "linux/amd64"}
	rec, err := Create(file, Header{Provider: "anthropic", Type: "anthropic", Model: "m", Volatile: vol}, []string{testKey, ""}, nil)
	if err != nil {
		t.Fatal(err)
	}
	live1, err1 := record(t, rec, srv.URL+"/v1/messages", `{"messages":[{"content":"hi `+testKey+`"}]}`)
	live2, err2 := record(t, rec, srv.URL+"/cut", `{"messages":[]}`)
	if err1 != nil || err2 == nil {
		t.Fatalf("recording: errors %v, %v; want nil, a cut", err1, err2)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(file)
	for _, bad := range []string{testKey, "X-Api-Key", "Authorization", "Set-Cookie"} {
		if bytes.Contains(raw, []byte(bad)) {
			t.Errorf("the cassette holds %q:\n%s", bad, raw)
		}
	}
	if !bytes.Contains(raw, []byte(`"X-Echo":["key=[REDACTED]"]`)) || !bytes.Contains(raw, []byte(`"Anthropic-Version":["2023-06-01"]`)) {
		t.Errorf("headers not kept (redacted):\n%s", raw)
	}

	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	rep := c.Replayer(Strict, Volatile{Workspace: "/elsewhere", Date: "2027-05-05", Platform: "darwin/arm64"})
	hc := &http.Client{Transport: rep}
	got1 := replayed(t, hc, "/v1/messages", `{"messages":[{"content":"hi [REDACTED]"}]}`, nil)
	want1 := strings.ReplaceAll(string(live1), testKey, Redacted)
	if string(got1) != want1 {
		t.Errorf("replayed body\n%q\nwant\n%q", got1, want1)
	}
	got2 := replayed(t, hc, "/cut", `{"messages":[]}`, io.ErrUnexpectedEOF)
	if !bytes.Equal(got2, live2) {
		t.Errorf("replayed cut body %q, want %q", got2, live2)
	}
	if rep.Remaining() != 0 {
		t.Errorf("remaining %d", rep.Remaining())
	}
	_, err = hc.Post("http://x/v1/messages", "application/json", strings.NewReader(`{}`))
	var d *DivergenceError
	if !errors.As(err, &d) || d.Request != 3 || !strings.Contains(d.Error(), "only 2 requests") {
		t.Errorf("a third request: %v", err)
	}
}

// replayed posts body to path and returns the body read; wantErr is the
// read error the recording had (its text), or nil.
func replayed(t *testing.T, hc *http.Client, path, body string, wantErr error) []byte {
	t.Helper()
	resp, err := hc.Post("http://replay.invalid"+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	switch {
	case wantErr == nil && err != nil:
		t.Errorf("replay read error %v", err)
	case wantErr != nil && (err == nil || err.Error() != wantErr.Error()):
		t.Errorf("replay read error %v, want %v", err, wantErr)
	}
	return got
}

func TestReplayDivergenceSticks(t *testing.T) {
	t.Parallel()
	c, err := Parse("c", []byte(`{"kind":"header","version":1,"provider":"p","type":"anthropic","model":"m"}
{"kind":"exchange","seq":1,"method":"POST","path":"/v1/messages","request":{"a":1},"status":200,"body":"x"}
{"kind":"end","exchanges":1}
`))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: c.Replayer(Strict, Volatile{})}
	cases := []struct{ path, body, want string }{
		{"/v1/chat/completions", `{"a":1}`, "POST /v1/chat/completions was sent, the cassette has POST /v1/messages"},
		{"/v1/messages", `{"a":1}`, "POST /v1/chat/completions was sent"}, // the first divergence is kept
	}
	for _, tc := range cases {
		_, err := hc.Post("http://x"+tc.path, "application/json", strings.NewReader(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
}

func parseCases() map[string]struct{ data, want string } {
	h := `{"kind":"header","version":1,"provider":"p","type":"anthropic","model":"m"}` + "\n"
	e := `{"kind":"exchange","seq":1,"method":"POST","path":"/v1/messages","request":{},"status":200,"body":""}` + "\n"
	end := `{"kind":"end","exchanges":1}` + "\n"
	return map[string]struct{ data, want string }{
		"complete":            {h + e + end, ""},
		"empty":               {"", "c: empty file: the cassette is truncated"},
		"no end line":         {h + e, "c:2: no end line: the cassette is truncated"},
		"cut in a line":       {h + e[:30], "c:2: the last line is not complete JSON: the cassette is truncated"},
		"cut in the end":      {h + e + end[:10], "c:3: the last line is not complete JSON: the cassette is truncated"},
		"garbage inside":      {h + "nope\n" + e + end, "c:2: not JSON"},
		"no header":           {e + end, "c:1: the first line is not a cassette header"},
		"two headers":         {h + h + e + end, "c:2: a second header line"},
		"wrong count":         {h + end, "c:2: the end line counts 1 exchanges, the file has 0"},
		"after end":           {h + e + end + e, "c:4: content after the end line"},
		"unknown kind":        {h + `{"kind":"x"}` + "\n" + e + end, `c:2: unknown line kind "x"`},
		"unknown field":       {h + `{"kind":"exchange","seq":1,"colour":1}` + "\n" + end, `c:2: json: unknown field "colour"`},
		"newer version":       {strings.Replace(h, `"version":1`, `"version":2`, 1) + e + end, "c:1: format version 2"},
		"no final newline ok": {h + e + strings.TrimSuffix(end, "\n"), ""},
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	for name, c := range parseCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("c", []byte(c.data))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			}
			var fe *FormatError
			if err != nil && !errors.As(err, &fe) {
				t.Errorf("%T is not a *FormatError", err)
			}
		})
	}
}

func TestClockSkipsWaits(t *testing.T) {
	t.Parallel()
	var c Clock
	before := c.Now()
	start := time.Now()
	if err := c.Sleep(context.Background(), time.Hour); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > time.Minute {
		t.Fatal("Sleep slept")
	}
	if c.Now().Sub(before) < time.Hour {
		t.Errorf("Now did not move by the skipped hour")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on an ended context: %v", err)
	}
}

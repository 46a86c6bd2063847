package cassette

import (
	"testing"
)

type compareCase struct {
	mode     Mode
	rec, got string
	recVol   Volatile
	gotVol   Volatile
	wantPath string // "" means equal
	wantMsg  string // the error text, when not empty
}

func compareCases() map[string]compareCase {
	vA := Volatile{Workspace: "/home/a/repo", Date: "2026-11-23", Platform: "linux/amd64"}
	vB := Volatile{Workspace: "/ci/work/x", Date: "2027-01-02", Platform: "darwin/arm64"}
	return map[string]compareCase{
		"equal": {mode: Strict, rec: `{"a":1,"b":[1,2]}`, got: `{"b":[1,2],"a":1}`},
		"volatile parts set aside": {mode: Strict, recVol: vA, gotVol: vB,
			rec: `{"system":"root /home/a/repo, linux/amd64, 2026-11-23","messages":[{"content":"cat /home/a/repo/x"}]}`,
			got: `{"system":"root /ci/work/x, darwin/arm64, 2027-01-02","messages":[{"content":"cat /ci/work/x/x"}]}`},
		"ids and metadata ignored": {mode: Strict,
			rec: `{"metadata":{"user_id":"u1"},"messages":[{"id":"a","tool_use_id":"t1","tool_call_id":"c1"}]}`,
			got: `{"metadata":{"user_id":"u2"},"messages":[{"id":"b","tool_use_id":"t2","tool_call_id":"c2"}]}`},
		"spill path": {mode: Strict, rec: `{"p":"<stdin path=\"/tmp/rubichan-stdin-123/stdin\">"}`, got: `{"p":"<stdin path=\"/var/t/rubichan-stdin-9/stdin\">"}`},
		"first prompt": {mode: Strict, rec: `{"messages":[{"content":[{"text":"fix a"}]}]}`, got: `{"messages":[{"content":[{"text":"fix b"}]}]}`,
			wantPath: "$.messages[0].content[0].text", wantMsg: `replay: request 1 differs from the cassette at $.messages[0].content[0].text: recorded "fix a", got "fix b"`},
		"message count": {mode: Strict, rec: `{"messages":[1,2]}`, got: `{"messages":[1,2,3]}`,
			wantPath: "$.messages", wantMsg: `replay: request 1 differs from the cassette at $.messages: recorded 2 items, got 3 items`},
		"missing key":  {mode: Strict, rec: `{"a":1,"b":2}`, got: `{"a":1}`, wantPath: "$.b"},
		"extra key":    {mode: Strict, rec: `{"a":1}`, got: `{"a":1,"c":[]}`, wantPath: "$.c"},
		"type changed": {mode: Strict, rec: `{"a":"1"}`, got: `{"a":1}`, wantPath: "$.a"},
		"long string shows the difference": {mode: Strict,
			rec:      `{"t":"0123456789012345678901234567890123456789 old tail"}`,
			got:      `{"t":"0123456789012345678901234567890123456789 new tail"}`,
			wantPath: "$.t", wantMsg: `replay: request 1 differs from the cassette at $.t: recorded "…1234567890123456789 old tail", got "…1234567890123456789 new tail"`},
		"lenient ignores text": {mode: Lenient, rec: `{"messages":[{"content":"a"}],"tools":[{"name":"read"}]}`, got: `{"messages":[{"content":"b"}],"tools":[{"name":"read","description":"new"}]}`},
		"lenient count":        {mode: Lenient, rec: `{"messages":[1]}`, got: `{"messages":[1,2]}`, wantPath: "$.messages"},
		"lenient tool names": {mode: Lenient, rec: `{"messages":[],"tools":[{"name":"read"},{"function":{"name":"bash"}}]}`,
			got: `{"messages":[],"tools":[{"name":"read"},{"function":{"name":"shell"}}]}`, wantPath: "$.tools",
			wantMsg: `replay: request 1 differs from the cassette at $.tools: recorded ["read","bash"], got ["read","shell"]`},
		"lenient responses input": {mode: Lenient, rec: `{"input":[1,2]}`, got: `{"input":[1]}`, wantPath: "$.input"},
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	for name, c := range compareCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, err := Compare(c.mode, []byte(c.rec), c.recVol, []byte(c.got), c.gotVol)
			if err != nil {
				t.Fatal(err)
			}
			if c.wantPath == "" {
				if d != nil {
					t.Fatalf("want equal, got %v", d)
				}
				return
			}
			if d == nil {
				t.Fatalf("want a difference at %s, got none", c.wantPath)
			}
			d.Request = 1
			if d.Path != c.wantPath {
				t.Errorf("path %q, want %q (%v)", d.Path, c.wantPath, d)
			}
			if c.wantMsg != "" && d.Error() != c.wantMsg {
				t.Errorf("message\n got %s\nwant %s", d.Error(), c.wantMsg)
			}
		})
	}
}

func TestCompareNotJSON(t *testing.T) {
	t.Parallel()
	if _, err := Compare(Strict, []byte(`{}`), Volatile{}, []byte(`{`), Volatile{}); err == nil {
		t.Fatal("want an error for a body that is not JSON")
	}
}

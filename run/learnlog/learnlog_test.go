package learnlog

import (
	"slices"
	"testing"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/policy/learn"
)

func TestCalls(t *testing.T) {
	log := `{"type":"session","time":"t","format":2,"id":"s1","run":1,"workspace":"/ws"}
{"type":"tool_call","time":"t","id":"call_1_0","name":"bash","input":{"command":"go test ./..."}}
{"type":"decision","time":"t","id":"call_1_0","name":"bash","decision":"allow","rule":"r"}
{"type":"tool_result","time":"t","id":"call_1_0","name":"bash"}
{"type":"tool_call","time":"t","id":"call_1_1","name":"write","input":{"path":"/ws/pkg/a.go","content":"x"}}
{"type":"decision","time":"t","id":"call_1_1","name":"write","decision":"pending","fact":"write: pkg/a.go"}
{"type":"tool_call","time":"t","id":"call_1_2","name":"read","input":{"path":".env"}}
{"type":"decision","time":"t","id":"call_1_2","name":"read","decision":"deny","fact":"read: .env"}
{"type":"tool_call","time":"t","id":"call_1_3","name":"mcp__git_hub__get_issue","input":{}}
{"type":"decision","time":"t","id":"call_1_3","name":"mcp__git_hub__get_issue","decision":"allow","fact":"mcp: git.hub/get_issue"}
{"type":"tool_call","time":"t","id":"call_1_4","name":"edit","input":{"path":"b.go"}}
{"type":"tool_call","time":"t","id":"call_1_5","name":"grep","input":{"pattern":"x"}}
{"type":"decision","time":"t","id":"call_1_5","name":"grep","decision":"allow"}
{"type":"tool_call","time":"t","id":"call_1_6","name":"mcp__fs__read","input":{}}
{"type":"decision","time":"t","id":"call_1_6","name":"mcp__fs__read","decision":"deny"}
{"type":"tool_call","time":"t","id":"call_1_7","name":"bash","input":{"command":"torn`
	got, err := Calls("s1.jsonl", []byte(log))
	if err != nil {
		t.Fatal(err)
	}
	want := []learn.Call{
		{Session: "s1", ID: "call_1_0", Class: policy.ClassShell, Command: "go test ./...", Outcome: learn.Ran},
		{Session: "s1", ID: "call_1_1", Class: policy.ClassWrite, Path: "pkg/a.go", Outcome: learn.Deferred},
		{Session: "s1", ID: "call_1_2", Class: policy.ClassRead, Path: ".env", Outcome: learn.Denied},
		{Session: "s1", ID: "call_1_3", Class: policy.ClassMCP, Name: "git.hub/get_issue", Outcome: learn.Ran},
		{Session: "s1", ID: "call_1_5", Class: policy.ClassRead, Path: ".", Outcome: learn.Ran},
		{Session: "s1", ID: "call_1_6", Class: policy.ClassMCP, Name: "fs/read", Outcome: learn.Denied},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Calls =\n%+v\nwant\n%+v", got, want)
	}
}

func TestCallsRefusesForeign(t *testing.T) {
	for _, in := range []string{"", "not json\n", `{"type":"tool_call","time":"t"}` + "\n"} {
		if _, err := Calls("x.jsonl", []byte(in)); err == nil {
			t.Errorf("Calls(%q): no error", in)
		}
	}
}

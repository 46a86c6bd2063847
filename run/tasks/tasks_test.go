package tasks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    []Task
		wantErr string
	}{
		"all fields": {
			in:   `{"id":"a","prompt":"fix it","dir":"svc","policy":"p.toml","allow":["shell:go test ./..."],"model":"m"}` + "\n",
			want: []Task{{ID: "a", Prompt: "fix it", Dir: "svc", Policy: "p.toml", Allow: []string{"shell:go test ./..."}, Model: "m", Line: 1}},
		},
		"blank lines are skipped, lines counted": {
			in:   "\n{\"prompt\":\"one\"}\n   \n{\"prompt\":\"two\"}",
			want: []Task{{Prompt: "one", Line: 2}, {Prompt: "two", Line: 4}},
		},
		"crlf": {
			in:   "{\"prompt\":\"one\"}\r\n{\"prompt\":\"two\"}\r\n",
			want: []Task{{Prompt: "one", Line: 1}, {Prompt: "two", Line: 2}},
		},
		"empty file":     {in: "", want: nil},
		"no prompt":      {in: "{\"prompt\":\"a\"}\n{\"id\":\"x\"}\n", wantErr: `tasks: t.jsonl:2: no "prompt"`},
		"unknown field":  {in: `{"prompt":"a","promt":"b"}`, wantErr: `t.jsonl:1: json: unknown field "promt"`},
		"not json":       {in: "prompt: a\n", wantErr: "t.jsonl:1: invalid character"},
		"two values":     {in: `{"prompt":"a"} {"prompt":"b"}`, wantErr: "t.jsonl:1: more than one JSON value"},
		"wrong type":     {in: `{"prompt":"a","allow":"shell:ls"}`, wantErr: "t.jsonl:1: json: cannot unmarshal string"},
		"array not task": {in: `["a"]`, wantErr: "t.jsonl:1: json: cannot unmarshal array"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.in), "t.jsonl")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d tasks %+v, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				if !sameTask(got[i], tt.want[i]) {
					t.Errorf("task %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func sameTask(a, b Task) bool {
	return a.ID == b.ID && a.Prompt == b.Prompt && a.Dir == b.Dir && a.Policy == b.Policy &&
		a.Model == b.Model && a.Line == b.Line && strings.Join(a.Allow, "\x00") == strings.Join(b.Allow, "\x00")
}

func TestIndex(t *testing.T) {
	tests := map[string]struct {
		flag    string
		env     map[string]string
		want    int
		from    string
		wantErr string
	}{
		"flag":                       {flag: "3", want: 3, from: "--task-index"},
		"flag wins over the engines": {flag: "0", env: map[string]string{"JOB_COMPLETION_INDEX": "5", "CI_NODE_INDEX": "7"}, want: 0, from: "--task-index"},
		"kubernetes is 0-based":      {env: map[string]string{"JOB_COMPLETION_INDEX": "0"}, want: 0, from: "JOB_COMPLETION_INDEX"},
		"kubernetes before gitlab":   {env: map[string]string{"JOB_COMPLETION_INDEX": "2", "CI_NODE_INDEX": "7"}, want: 2, from: "JOB_COMPLETION_INDEX"},
		"gitlab is 1-based":          {env: map[string]string{"CI_NODE_INDEX": "1"}, want: 0, from: "CI_NODE_INDEX"},
		"gitlab 4":                   {env: map[string]string{"CI_NODE_INDEX": "4"}, want: 3, from: "CI_NODE_INDEX"},
		"empty variables are unset":  {env: map[string]string{"JOB_COMPLETION_INDEX": "", "CI_NODE_INDEX": "2"}, want: 1, from: "CI_NODE_INDEX"},
		"gitlab 0":                   {env: map[string]string{"CI_NODE_INDEX": "0"}, wantErr: "CI_NODE_INDEX: want 1 or more"},
		"negative flag":              {flag: "-1", wantErr: `--task-index: want a whole number from 0, got "-1"`},
		"word":                       {flag: "two", wantErr: `got "two"`},
		"bad kubernetes":             {env: map[string]string{"JOB_COMPLETION_INDEX": "x"}, wantErr: "JOB_COMPLETION_INDEX: want a whole number"},
		"none":                       {wantErr: "no task index: pass --task-index N"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			look := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			got, from, err := Index(tt.flag, look)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want || from != tt.from {
				t.Fatalf("Index = %d, %q, %v; want %d, %q", got, from, err, tt.want, tt.from)
			}
		})
	}
}

func TestPick(t *testing.T) {
	f := filepath.Join(t.TempDir(), "tasks.jsonl")
	if err := os.WriteFile(f, []byte("{\"prompt\":\"zero\"}\n\n{\"id\":\"one\",\"prompt\":\"one\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"zero", "one"} {
		got, err := Pick(f, i)
		if err != nil || got.Prompt != want {
			t.Errorf("Pick(%d) = %+v, %v; want prompt %q", i, got, err, want)
		}
	}
	if _, err := Pick(f, 2); err == nil || !strings.Contains(err.Error(), "has 2 tasks; there is no task 2") {
		t.Errorf("Pick(2) err = %v", err)
	}
	if _, err := Pick(filepath.Join(t.TempDir(), "none.jsonl"), 0); err == nil || !strings.Contains(err.Error(), "none.jsonl") {
		t.Errorf("a missing file: err = %v", err)
	}
}

// FuzzParse: whatever the input, Parse does not panic, and every task it
// returns has a prompt and a line within the input, lines increasing.
func FuzzParse(f *testing.F) {
	f.Add("{\"prompt\":\"a\"}\n\n{\"prompt\":\"b\",\"allow\":[\"x\"]}")
	f.Add(`{"prompt":""}`)
	f.Add("{\"prompt\":\"a\"}\r\n{")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Parse(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		lines := strings.Count(in, "\n") + 1
		last := 0
		for _, task := range got {
			if task.Prompt == "" || task.Line <= last || task.Line > lines {
				t.Fatalf("task %+v (after line %d of %d)", task, last, lines)
			}
			last = task.Line
		}
	})
}

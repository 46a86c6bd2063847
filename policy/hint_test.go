package policy

import (
	"slices"
	"strings"
	"testing"
)

func TestAllowRules(t *testing.T) {
	t.Parallel()
	p, err := Default().WithRules([]string{"shell:go vet ./..."}, []string{"shell:rm *"})
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		a    Action
		want []string
	}{
		"write":            {Action{Class: ClassWrite, Paths: []Path{{Requested: "notes.txt"}}}, []string{"write:notes.txt"}},
		"command":          {Action{Class: ClassShell, Command: "go test ./..."}, []string{"shell:go test ./..."}},
		"compound":         {Action{Class: ClassShell, Command: "go vet ./... && go test ./..."}, []string{"shell:go test ./..."}},
		"two refused":      {Action{Class: ClassShell, Command: "go build && go test ./..."}, []string{"shell:go build", "shell:go test ./..."}},
		"redirect":         {Action{Class: ClassShell, Command: "go vet ./... > out.txt"}, []string{"write:out.txt"}},
		"quoted":           {Action{Class: ClassShell, Command: "make 'a b'"}, []string{"shell:make 'a b'"}},
		"deny rule":        {Action{Class: ClassShell, Command: "go test ./... && rm -rf x"}, nil},
		"secret":           {Action{Class: ClassRead, Paths: []Path{{Requested: ".env"}}}, nil},
		"opaque":           {Action{Class: ClassShell, Command: "echo $(id)"}, nil},
		"outside":          {Action{Class: ClassWrite, Paths: []Path{{Requested: "../x"}}}, nil},
		"glob in the name": {Action{Class: ClassWrite, Paths: []Path{{Requested: "a*.txt"}}}, nil},
		"allowed":          {Action{Class: ClassRead, Paths: []Path{{Requested: "a.txt"}}}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := p.AllowRules(tc.a, p.Decide(tc.a))
			if !slices.Equal(got, tc.want) {
				t.Errorf("AllowRules = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFallbackReason(t *testing.T) {
	t.Parallel()
	r := Default().Decide(Action{Class: ClassWrite, Paths: []Path{{Requested: "notes.txt"}}})
	if want := "no rule allows writing notes.txt; the default is to ask"; r.Reason != want {
		t.Errorf("reason = %q, want %q", r.Reason, want)
	}
	r = Default().Decide(Action{Class: ClassShell, Command: "go test ./..."})
	if want := "no rule allows running go test ./...; the default is to ask"; r.Reason != want {
		t.Errorf("reason = %q, want %q", r.Reason, want)
	}
}

// TestToolNamesAsClasses checks that a tool's name stands for its class
// in --allow and --deny rules.
func TestToolNamesAsClasses(t *testing.T) {
	t.Parallel()
	p, err := Default().WithRules([]string{"bash:go test *", "edit:src/**", "grep:docs/**"}, []string{"ls:docs/private/**"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a    Action
		want Decision
	}{
		{Action{Class: ClassShell, Command: "go test -run X ./..."}, Allow},
		{Action{Class: ClassWrite, Paths: []Path{{Requested: "src/a.go"}}}, Allow},
		{Action{Class: ClassRead, Paths: []Path{{Requested: "docs/private/a"}}}, Deny},
	} {
		if r := p.Decide(tc.a); r.Decision != tc.want {
			t.Errorf("%+v = %s by %s, want %s", tc.a, r.Decision, r.Rule, tc.want)
		}
	}
	_, err = Default().WithRules([]string{"net:x"}, nil)
	if err == nil || !strings.Contains(err.Error(), "bash → shell") {
		t.Errorf("an unknown class does not spell out the mapping: %v", err)
	}
}

package toolkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// globTree is a workspace with ignored, hidden, linked and nested files.
var globTree = map[string]string{
	".gitignore":               "*.log\nbuild/\n/vendor\n",
	"main.go":                  "package main",
	"main_test.go":             "package main",
	"debug.log":                "log",
	"build/out.go":             "package build",
	"vendor/v.go":              "package v",
	"src/a.go":                 "package src",
	"src/b.txt":                "text",
	"src/vendor/keep.go":       "package keep", // /vendor is anchored to the root
	"src/.gitignore":           "*.gen.go\n!keep.gen.go\n",
	"src/x.gen.go":             "generated",
	"src/keep.gen.go":          "kept",
	"src/deep/er/c.go":         "package er",
	"src/secret/key.go":        "package secret",
	".git/HEAD":                "ref",
	".git/hooks/pre.go":        "package hooks",
	"linked":                   "->src",
	"conf/app.yml":             "a: 1",
	"conf/app.yaml":            "a: 1",
	"conf/app.json":            "{}",
	".github/workflows/ci.yml": "on: push",
}

func TestGlob(t *testing.T) {
	t.Parallel()
	ws := newWS(t, globTree)
	deny := func(p string) bool { return !strings.HasPrefix(p, "src/secret/") }
	tests := []struct {
		name    string
		args    obj
		filter  func(string) bool
		isErr   bool
		want    string
		skipped int
	}{
		{name: "all go files, gitignore honoured", args: obj{"pattern": "**/*.go"},
			want: "main.go\nmain_test.go\nsrc/a.go\nsrc/deep/er/c.go\nsrc/keep.gen.go\nsrc/secret/key.go\nsrc/vendor/keep.go\n[7 files]\n"},
		{name: "filter skips and counts", args: obj{"pattern": "**/*.go"}, filter: deny, skipped: 1,
			want: "main.go\nmain_test.go\nsrc/a.go\nsrc/deep/er/c.go\nsrc/keep.gen.go\nsrc/vendor/keep.go\n[6 files; 1 file skipped by policy]\n"},
		{name: "top level only", args: obj{"pattern": "*.go"}, want: "main.go\nmain_test.go\n[2 files]\n"},
		{name: "fixed base dir", args: obj{"pattern": "src/deep/**/*.go"}, want: "src/deep/er/c.go\n[1 file]\n"},
		{name: "relative to path", args: obj{"pattern": "**/*.go", "path": "src/deep"}, want: "src/deep/er/c.go\n[1 file]\n"},
		{name: "through symlinked path", args: obj{"pattern": "*.txt", "path": "linked"}, want: "src/b.txt\n[1 file]\n"},
		{name: "braces", args: obj{"pattern": "conf/*.{yml,yaml}"}, want: "conf/app.yaml\nconf/app.yml\n[2 files]\n"},
		{name: "dot directories other than .git", args: obj{"pattern": "**/*.yml"}, want: ".github/workflows/ci.yml\nconf/app.yml\n[2 files]\n"},
		{name: "ignored file by explicit pattern still ignored", args: obj{"pattern": "*.log"}, isErr: true, want: `glob: no file matches "*.log" in .`},
		{name: "no match", args: obj{"pattern": "**/*.rs"}, isErr: true, want: `glob: no file matches "**/*.rs" in .`},
		{name: "missing base dir", args: obj{"pattern": "nope/**/*.go"}, isErr: true, want: `glob: no file matches "nope/**/*.go" in .`},
		{name: "invalid pattern", args: obj{"pattern": "[a-"}, isErr: true, want: `glob: "[a-" is not a valid glob pattern`},
		{name: "absolute pattern", args: obj{"pattern": "/etc/*"}, isErr: true, want: `glob: pattern "/etc/*" must be relative to path and stay inside it; set path to search elsewhere`},
		{name: "dotdot pattern", args: obj{"pattern": "../**"}, isErr: true, want: `glob: pattern "../**" must be relative to path and stay inside it; set path to search elsewhere`},
		{name: "path is a file", args: obj{"pattern": "*", "path": "main.go"}, isErr: true, want: "glob: main.go is not a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, NewGlob(ws, tc.filter), tc.args)
			if res.IsError != tc.isErr || res.Content != tc.want {
				t.Errorf("got %v %q\nwant %v %q", res.IsError, res.Content, tc.isErr, tc.want)
			}
			if res.Meta.Skipped != tc.skipped {
				t.Errorf("Skipped = %d, want %d", res.Meta.Skipped, tc.skipped)
			}
		})
	}
}

func TestGlobCap(t *testing.T) {
	t.Parallel()
	ws := newWS(t, nil)
	for i := range globMaxResults + 5 {
		dir := filepath.Join(ws.Root(), fmt.Sprintf("d%d", i%10))
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.txt", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := call(t, NewGlob(ws, nil), obj{"pattern": "**/*.txt"})
	lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
	if len(lines) != globMaxResults+1 {
		t.Fatalf("%d lines, want %d paths and a notice", len(lines), globMaxResults)
	}
	if want := fmt.Sprintf("[showing the first %d of %d files; narrow the pattern or path]", globMaxResults, globMaxResults+5); lines[globMaxResults] != want {
		t.Errorf("notice %q, want %q", lines[globMaxResults], want)
	}
	if !res.Meta.Truncated {
		t.Error("Truncated not set")
	}
	for i := 1; i < globMaxResults; i++ {
		if lines[i-1] >= lines[i] {
			t.Fatalf("not sorted at %d: %q >= %q", i, lines[i-1], lines[i])
		}
	}
}

func TestGlobConfinement(t *testing.T) {
	t.Parallel()
	testConfinement(t, func(ws *Workspace) Tool { return NewGlob(ws, nil) },
		func(p string) map[string]any { return obj{"pattern": "*", "path": p} })
}

func TestGlobArgs(t *testing.T) {
	t.Parallel()
	testArgErrors(t, NewGlob(newWS(t, nil), nil), map[string]struct{ args, errHas string }{
		"missing pattern": {`{"path":"."}`, `missing required argument "pattern"`},
		"pattern type":    {`{"pattern":1}`, `argument "pattern" must be of type string, got number`},
	})
}

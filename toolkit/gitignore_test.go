package toolkit

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestGitignoreMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ignore  string
		path    string
		isDir   bool
		ignored bool
	}{
		{"plain name at root", "foo", "foo", false, true},
		{"plain name at depth", "foo", "a/b/foo", false, true},
		{"plain name not a prefix", "foo", "foobar", false, false},
		{"plain name matches dir", "build", "x/build", true, true},
		{"star suffix", "*.log", "a/debug.log", false, true},
		{"star does not cross slash", "a/*.go", "a/b/c.go", false, false},
		{"star in anchored", "a/*.go", "a/c.go", false, true},
		{"question mark", "?.txt", "x.txt", false, true},
		{"question mark not slash", "a?b", "a/b", false, false},
		{"comment", "#foo", "#foo", false, false},
		{"escaped hash", `\#foo`, "#foo", false, true},
		{"blank lines", "\n\n", "x", false, false},
		{"trailing spaces dropped", "foo   ", "foo", false, true},
		{"escaped trailing space kept", `foo\ `, "foo ", false, true},
		{"dir only matches dir", "out/", "out", true, true},
		{"dir only skips file", "out/", "out", false, false},
		{"dir only at depth", "out/", "a/out", true, true},
		{"anchored leading slash", "/todo", "todo", false, true},
		{"anchored leading slash not deep", "/todo", "a/todo", false, false},
		{"middle slash anchors", "doc/frotz", "doc/frotz", false, true},
		{"middle slash anchors not deep", "doc/frotz", "a/doc/frotz", false, false},
		{"leading double star", "**/foo", "a/b/foo", false, true},
		{"leading double star at root", "**/foo", "foo", false, true},
		{"leading double star with dir", "**/foo/bar", "x/foo/bar", false, true},
		{"trailing double star", "abc/**", "abc/x/y", false, true},
		{"trailing double star not dir itself", "abc/**", "abc", true, false},
		{"middle double star zero dirs", "a/**/b", "a/b", false, true},
		{"middle double star many dirs", "a/**/b", "a/x/y/b", false, true},
		{"middle double star wrong root", "a/**/b", "c/a/x/b", false, false},
		{"other double star is star", "a**b", "axxb", false, true},
		{"other double star no slash", "a**b", "a/b", false, false},
		{"bracket", "[ab].txt", "b.txt", false, true},
		{"bracket miss", "[ab].txt", "c.txt", false, false},
		{"bracket range", "file[0-9]", "file7", false, true},
		{"negated bracket", "file[!0-9]", "filex", false, true},
		{"negated bracket miss", "file[!0-9]", "file7", false, false},
		{"negated bracket not slash", "a[!x]b", "a/b", false, false},
		{"unclosed bracket literal", "a[b", "a[b", false, true},
		{"regexp chars literal", "a+b(c).txt", "a+b(c).txt", false, true},
		{"negation re-includes", "*.log\n!keep.log", "keep.log", false, false},
		{"negation order matters", "!keep.log\n*.log", "keep.log", false, true},
		{"escaped bang", `\!x`, "!x", false, true},
		{"crlf lines", "foo\r\nbar\r\n", "bar", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := ignoreStack{parseGitignore("", []byte(tc.ignore))}
			if got := s.ignored(tc.path, tc.isDir); got != tc.ignored {
				t.Errorf("%q: ignored(%q, dir=%v) = %v, want %v", tc.ignore, tc.path, tc.isDir, got, tc.ignored)
			}
		})
	}
}

func TestGitignoreNested(t *testing.T) {
	t.Parallel()
	s := ignoreStack{
		parseGitignore("", []byte("*.log\n/top.txt\ngen/\n")),
		parseGitignore("sub", []byte("!keep.log\n/local.txt\n")),
	}
	tests := []struct {
		path    string
		isDir   bool
		ignored bool
	}{
		{"a.log", false, true},
		{"sub/a.log", false, true},
		{"sub/keep.log", false, false}, // the deeper file re-includes it
		{"keep.log", false, true},      // but not outside its directory
		{"top.txt", false, true},
		{"sub/top.txt", false, false}, // anchored to the root's file
		{"sub/local.txt", false, true},
		{"local.txt", false, false},
		{"sub/x/local.txt", false, false}, // anchored to sub
		{"sub/gen", true, true},
		{"subway/keep.log", false, true}, // "sub" base is not a string prefix match
	}
	for _, tc := range tests {
		if got := s.ignored(tc.path, tc.isDir); got != tc.ignored {
			t.Errorf("ignored(%q) = %v, want %v", tc.path, got, tc.ignored)
		}
	}
}

// FuzzGitignore checks that no .gitignore content makes parsing or
// matching panic, and that a literal name always ignores itself: whatever
// lines come before it, a last line holding a name with no glob or special
// character ignores that name as a file and as a directory, at the root
// and at any depth, and a further "!name" line re-includes it.
func FuzzGitignore(f *testing.F) {
	f.Add("*.log\n!keep.log\n/a/**/b\n[!x]y\n", "a/x/b")
	f.Add(`\`, "x")
	f.Add("[", "[")
	f.Add("!x.txt\n", "x.txt")
	f.Add("*\n", "naïve name.go")
	f.Fuzz(func(t *testing.T, data, path string) {
		s := ignoreStack{parseGitignore("", []byte(data))}
		s.ignored(path, false)
		s.ignored(path, true)
		if !literalName(path) {
			return
		}
		ignore := data + "\n" + path + "\n"
		for _, tc := range []struct {
			ignore  string
			ignored bool
		}{{ignore, true}, {ignore + "!" + path + "\n", false}} {
			s := ignoreStack{parseGitignore("", []byte(tc.ignore))}
			for _, p := range []string{path, "d/" + path, "d/e/" + path} {
				for _, isDir := range []bool{false, true} {
					if got := s.ignored(p, isDir); got != tc.ignored {
						t.Fatalf("%q: ignored(%q, dir=%v) = %v, want %v", tc.ignore, p, isDir, got, tc.ignored)
					}
				}
			}
		}
	})
}

// literalName reports whether name is one path element that a .gitignore
// line matches literally: valid UTF-8, no glob, escape, comment, negation
// or separator character, and no trailing space (git drops it).
func literalName(name string) bool {
	return name != "" && utf8.ValidString(name) && !strings.ContainsAny(name, "*?[]\\!#/\r\n") &&
		!strings.HasSuffix(name, " ")
}

package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDefaultDir(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		env  map[string]string
		home string
		want string
	}{
		"xdg":               {env: map[string]string{"XDG_STATE_HOME": "/state"}, home: "/home/u", want: "/state/rubichan/sessions"},
		"home":              {home: "/home/u", want: "/home/u/.local/state/rubichan/sessions"},
		"relative xdg":      {env: map[string]string{"XDG_STATE_HOME": "state"}, home: "/home/u", want: "/home/u/.local/state/rubichan/sessions"},
		"empty xdg":         {env: map[string]string{"XDG_STATE_HOME": ""}, home: "/home/u", want: "/home/u/.local/state/rubichan/sessions"},
		"nothing known":     {want: ""},
		"xdg without home":  {env: map[string]string{"XDG_STATE_HOME": "/s"}, want: "/s/rubichan/sessions"},
		"relative, no home": {env: map[string]string{"XDG_STATE_HOME": "s"}, want: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			if got := DefaultDir(lookup, tc.home); got != filepath.FromSlash(tc.want) {
				t.Errorf("DefaultDir = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCheckID(t *testing.T) {
	t.Parallel()
	for id, ok := range map[string]bool{
		"fix-1": true, "a.b_c": true, "20261123T210610.351Z-bae896ba": true, strings.Repeat("x", 128): true,
		"": false, ".": false, "..": false, "a/b": false, "a b": false, "é": false, "a\n": false, "\xff": false, "Z~": false, strings.Repeat("x", 129): false,
	} {
		if err := CheckID(id); (err == nil) != ok {
			t.Errorf("CheckID(%q) = %v, want ok %v", id, err, ok)
		}
	}
}

func TestStoreResolveAndRemove(t *testing.T) {
	t.Parallel()
	st := Store{Dir: filepath.Join(t.TempDir(), "s")}
	w, err := func() (*Writer, error) { st.Make(); return Create(st.Path("one"), Options{}) }()
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&Line{Type: TypeHeader, Time: Stamp(time.Now()), Format: Format, ID: "one", PID: 4242})
	if p, err := st.Resolve("one"); err != nil || p != st.Path("one") {
		t.Errorf("Resolve(one) = %q, %v", p, err)
	}
	if _, err := st.Resolve("two"); err == nil || !strings.Contains(err.Error(), `no session "two"`) {
		t.Errorf("Resolve(two): %v", err)
	}
	if _, err := st.Resolve("x/none.jsonl"); err == nil {
		t.Error("a missing path resolved")
	}
	// Held by a writer: not removed, and the holder is named.
	var inUse *InUseError
	if err := st.Remove("one"); !errors.As(err, &inUse) || inUse.PID != 4242 {
		t.Errorf("Remove of a held session: %v", err)
	}
	if _, err := Append(st.Path("one"), Options{}); !errors.As(err, &inUse) || !strings.Contains(err.Error(), "in use by PID 4242") {
		t.Errorf("Append of a held session: %v", err)
	}
	w.Close()
	if err := st.Remove("one"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.Path("one")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("still there: %v", err)
	}
}

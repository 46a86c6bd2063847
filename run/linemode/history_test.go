package linemode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/agent"
)

func TestSecretLine(t *testing.T) {
	t.Parallel()
	red := agent.NewRedactor([]string{"hunter2-the-real-key"})
	tests := map[string]bool{
		"fix the failing test":                      false,
		"export GITHUB_TOKEN=abc123":                true,
		"use --api-key=xyz for the call":            true,
		"curl -H x sk-ant-api03-abcdefghijklmnopqr": true,
		"my key is hunter2-the-real-key":            true,
		"the TOKEN= variable is empty":              false,
		"explain what sk- means":                    false,
		"AKIAIOSFODNN7EXAMPLEXX in the log":         true,
		"set PATH=/usr/bin":                         false,
		// Key-shaped tokens inside words: headers, URLs, JSON.
		`curl -H "Authorization:Bearer abcdefghij0123456789" x`:            true,
		"header Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abcdefgh":        true,
		`curl -H "x-api-key:sk-ant-api03-abcdefghijklmnop" x`:              true,
		"GET https://x.test/models?alt=json&key=AIzaSyA1234567890abcdefgh": true,
		"GET https://x.test/v1?alt=json&token=0123456789abcdef&q=1":        true,
		`send {"api_key":"sk-ant-api03-abcdefghijklmnop"} to it`:           true,
		`post {"password": "correcthorsebattery"} there`:                   true,
		"log line:ghp_abcdefghijklmnopqrstuvwxyz0123 leaked":               true,
		"(xoxb-123456789012-abcdefghijkl) in slack":                        true,
		// A URL-encoded "=" before the key, and an INI or TOML assignment
		// with spaces around "=" (~/.aws/credentials).
		"GET /x?q=key%3Dsk-ant-api03-abcdefghijklmnop":                     true,
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": true,
		`api_token = "0123456789abcdef"`:                                   true,
		"check that n = 5 holds":                                           false,
		"the password = is missing":                                        false,
		// Words that merely contain a prefix or a secret-sounding name.
		"fix the key: it breaks on startup":                 false,
		"explain the task-management-and-scheduling module": false,
		"rename desk-reservation-system-for-all":            false,
		"see https://example.test/docs?page=2":              false,
		"what does Authorization: mean here":                false,
		"the token: a short one":                            false,
	}
	for line, want := range tests {
		if got := secretLine(line, red); got != want {
			t.Errorf("secretLine(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestHistoryFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state", "rubichan", "history")
	h := loadHistory(path, agent.NewRedactor(nil))
	for _, l := range []string{"first", "", "export API_TOKEN=s3cr3t", "second", "second", "third"} {
		h.Add(l)
	}
	if h.Len() != 3 || h.At(0) != "third" || h.At(2) != "first" {
		t.Fatalf("history in memory: %d entries, newest %q", h.Len(), h.At(0))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), "first\nsecond\nthird\n"; got != want {
		t.Errorf("history file = %q, want %q", got, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("history file mode %v, want 0600", fi.Mode().Perm())
	}
	again := loadHistory(path, agent.NewRedactor(nil))
	if again.Len() != 3 || again.At(0) != "third" {
		t.Errorf("reloaded: %d entries, newest %q", again.Len(), again.At(0))
	}
	if strings.Contains(string(data), "s3cr3t") {
		t.Error("a secret line was written")
	}
}

func TestHistoryPath(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	tests := []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, "/s/rubichan/history"},
		{map[string]string{"XDG_STATE_HOME": "rel", "HOME": "/h"}, "/h/.local/state/rubichan/history"},
		{map[string]string{"HOME": "/h"}, "/h/.local/state/rubichan/history"},
		{map[string]string{}, ""},
	}
	for _, tc := range tests {
		if got := HistoryPath(env(tc.vars)); got != tc.want {
			t.Errorf("historyPath(%v) = %q, want %q", tc.vars, got, tc.want)
		}
	}
}

// A line entered before the run's secrets are known (the first prompt
// shows before the configuration is read) waits for them: it is judged by
// them, and a chat that ends before knowing them writes nothing.
func TestHistoryWaitsForTheSecrets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history")
	h := loadHistory(path, nil)
	added := make(chan struct{})
	go func() {
		h.Add("use sk-ant-later-known-secret-value please")
		h.Add("a plain line")
		close(added)
	}()
	select {
	case <-added:
		t.Fatal("a line was added before the secrets were known")
	case <-time.After(50 * time.Millisecond):
	}
	h.know(agent.NewRedactor([]string{"later-known-secret-value"}), true)
	select {
	case <-added:
	case <-time.After(5 * time.Second):
		t.Fatal("the lines waiting for the secrets were not added once they were known")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "a plain line\n" {
		t.Fatalf("history file %q, want the plain line alone", data)
	}

	gone := filepath.Join(t.TempDir(), "history")
	h = loadHistory(gone, nil)
	h.know(nil, false)
	h.Add("typed as the chat failed to start")
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("a chat that never knew its secrets wrote history: %v", err)
	}
}

package harness

import (
	"github.com/rubichan/rubichan/run/agent"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rubichan/rubichan/toolkit"
)

// TestFileGateReadsWhatWasJudged checks that a sub-query's file range is
// read from the file the policy judged: a symlink swapped in after the
// judgement (the gate remembers its answers) does not lead to a file the
// policy denies, and a FIFO is refused at once rather than waited on.
func TestFileGateReadsWhatWasJudged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "allowed content\n")
	write("secret.txt", "SECRET-CONTENT\n")
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := toolkit.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	g := &fileGate{ws: ws, judge: func(_ string, e toolkit.Effects) agent.Verdict {
		if strings.Contains(e.Paths[0].Resolved, "secret") {
			return agent.Verdict{Kind: agent.VerdictDeny, Rule: "test-deny"}
		}
		return agent.Verdict{Kind: agent.VerdictAllow}
	}}
	got, err := g.read("a.txt", 0, 7)
	if err != nil || string(got) != "allowed" {
		t.Fatalf("read a.txt: %q, %v", got, err)
	}
	if _, err := g.read("secret.txt", 0, 6); err == nil || !strings.Contains(err.Error(), "test-deny") {
		t.Fatalf("read secret.txt: %v, want the policy's refusal", err)
	}
	// Swap a.txt for a link to the denied file: the remembered answer
	// must not carry the read there.
	os.Remove(filepath.Join(dir, "a.txt"))
	if err := os.Symlink("secret.txt", filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	if got, err := g.read("a.txt", 0, 64); err == nil || strings.Contains(string(got), "SECRET") {
		t.Fatalf("read a.txt after the swap: %q, %v; want an error", got, err)
	}
	done := make(chan error, 1)
	go func() { _, err := g.read("pipe", 0, 64); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("read of a FIFO succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("read of a FIFO is still waiting after 5 s")
	}
}

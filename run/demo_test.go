package run

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDemoOutputHolds: make demo's script (testdata/demo/demo.sh) shows
// its diff with file headers, and every path it prints still exists when
// it has finished (it keeps its directory rather than print paths it
// then deletes).
func TestDemoOutputHolds(t *testing.T) {
	bin := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, b := range [][]string{
		{"-tags", "urfave_cli_no_docs", "-o", filepath.Join(bin, "rubichan"), ".."},
		{"-o", filepath.Join(bin, "llmserve"), "./internal/llmserve"},
	} {
		cmd := exec.CommandContext(ctx, "go", append([]string{"build"}, b...)...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %v: %v\n%s", b, err, out)
		}
	}
	dir := filepath.Join(t.TempDir(), "demo")
	cmd := exec.CommandContext(ctx, "../testdata/demo/demo.sh", filepath.Join(bin, "rubichan"), filepath.Join(bin, "llmserve"))
	cmd.Env = append(os.Environ(), "DEMO_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo.sh: %v\n%s", err, out)
	}
	text := string(out)
	for _, h := range []string{"\n--- a/greet.go", "\n+++ b/greet.go", "\n@@ "} {
		if !strings.Contains(text, h) {
			t.Errorf("the demo's diff has no %q line:\n%s", strings.TrimSpace(h), text)
		}
	}
	paths := regexp.MustCompile(`/[^\s:]+`).FindAllString(text, -1)
	seen := 0
	for _, p := range paths {
		if !strings.HasPrefix(p, "/tmp/") && !strings.HasPrefix(p, dir) {
			continue
		}
		seen++
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the demo printed %s, which is gone when it ends: %v", p, err)
		}
	}
	if seen == 0 {
		t.Errorf("the demo printed no path of its directory (session, learned policy):\n%s", text)
	}
}

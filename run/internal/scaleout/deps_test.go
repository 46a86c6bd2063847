package scaleout

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTestOnlyDeps: the Kubernetes modules these tests decode with never
// reach the binary (go list -deps of the main package).
func TestTestOnlyDeps(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-tags", "urfave_cli_no_docs", ".")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "k8s.io/") || strings.HasPrefix(p, "sigs.k8s.io/") {
			t.Errorf("the binary imports %s", p)
		}
	}
}

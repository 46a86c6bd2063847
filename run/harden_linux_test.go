package run

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHardenProcess runs HardenProcess in a child copy of the test binary
// (the test process itself stays dumpable) and checks the child is no
// longer dumpable, which is what keeps same-user processes out of its
// /proc/PID/environ.
func TestHardenProcess(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessHarden$")
	cmd.Env = append(os.Environ(), "RUBICHAN_TEST_HARDEN_HELPER=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "dumpable=") {
		t.Fatalf("the helper did not run:\n%s", out)
	}
	if !strings.Contains(string(out), "dumpable=0") {
		t.Errorf("after HardenProcess the process is still dumpable:\n%s", out)
	}
}

// TestHelperProcessHarden is the child of TestHardenProcess; run directly
// it does nothing.
func TestHelperProcessHarden(t *testing.T) {
	if os.Getenv("RUBICHAN_TEST_HARDEN_HELPER") != "1" {
		return
	}
	before, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil || before != 1 {
		t.Fatalf("a fresh process should be dumpable: %d, %v", before, err)
	}
	if err := HardenProcess(); err != nil {
		t.Fatal(err)
	}
	after, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("dumpable=" + string(rune('0'+after)) + "\n")
}

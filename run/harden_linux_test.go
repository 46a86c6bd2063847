package run

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
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
	if err := HardenProcess(os.Args); err != nil {
		t.Fatal(err)
	}
	after, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("dumpable=" + string(rune('0'+after)) + "\n")
}

// TestHardenProcessHidesKey checks that after HardenProcess the key is in
// the Go environment but not in the process's /proc/PID/environ, and that
// the process kept its pid through the re-execution.
func TestHardenProcessHidesKey(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-test-0123456789abcdef"
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessHideKey$")
	cmd.Env = append(os.Environ(), "RUBICHAN_TEST_HIDE_HELPER=1", "ANTHROPIC_API_KEY="+key, "PLAIN=visible")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out.String())
	}
	want := []string{"getenv=" + key, "environ-has-key=false", "environ-has-plain=true", "fd-var=", "pid=" + strconv.Itoa(cmd.Process.Pid)}
	for _, w := range want {
		if !strings.Contains(out.String(), w+"\n") {
			t.Errorf("helper output lacks %q:\n%s", w, out.String())
		}
	}
}

// TestHelperProcessHideKey is the child of TestHardenProcessHidesKey.
func TestHelperProcessHideKey(t *testing.T) {
	if os.Getenv("RUBICHAN_TEST_HIDE_HELPER") != "1" {
		return
	}
	if err := HardenProcess(os.Args); err != nil {
		t.Fatal(err)
	}
	environ, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		t.Fatal(err)
	}
	key := os.Getenv("ANTHROPIC_API_KEY")
	fmt.Printf("getenv=%s\nenviron-has-key=%v\nenviron-has-plain=%v\nfd-var=%s\npid=%d\n", key,
		strings.Contains(string(environ), key), strings.Contains(string(environ), "PLAIN=visible"), os.Getenv(secretsFDVar), os.Getpid())
}

package toolkit

import (
	"os"
	"os/exec"
	"testing"
)

// noChildren says "none" only when the process has no child: with one
// running it says no, and a process that started none says yes (checked
// in a fresh test process, since this one's other tests start commands).
func TestNoChildren(t *testing.T) {
	if os.Getenv("RUBICHAN_TEST_NO_CHILDREN") == "1" {
		if !noChildren() {
			os.Exit(3)
		}
		os.Exit(0)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	if noChildren() {
		t.Fatal("noChildren with a child running")
	}
	fresh := exec.Command(os.Args[0], "-test.run=^TestNoChildren$")
	fresh.Env = append(os.Environ(), "RUBICHAN_TEST_NO_CHILDREN=1")
	if out, err := fresh.CombinedOutput(); err != nil {
		t.Fatalf("a process with no child: %v\n%s", err, out)
	}
}

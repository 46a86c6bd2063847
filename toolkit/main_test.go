package toolkit

import (
	"os"
	"testing"

	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// testProbeCommand is the hidden first argument that makes the test
// binary try one system call from inside the sandbox (see testProbe).
const testProbeCommand = "__toolkit-test-probe"

// TestMain makes the test binary the sandbox helper and probe when the
// bash tool starts it as one, the way rubichan's main does, and the
// tests' own probe of single system calls (testProbe).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == testProbeCommand {
		os.Exit(testProbe(os.Args[2:], os.Stderr))
	}
	if sandbox.IsHelper(os.Args) {
		os.Exit(sandbox.Dispatch(os.Args, os.Environ(), os.Stderr))
	}
	os.Exit(m.Run())
}

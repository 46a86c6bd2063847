package toolkit

import (
	"os"
	"testing"

	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// TestMain makes the test binary the sandbox helper and probe when the
// bash tool starts it as one, the way rubichan's main does.
func TestMain(m *testing.M) {
	if sandbox.IsHelper(os.Args) {
		os.Exit(sandbox.Dispatch(os.Args, os.Environ(), os.Stderr))
	}
	os.Exit(m.Run())
}

package run

import (
	"os"
	"regexp"
	"testing"
)

// TestMakefileStampsTheCommit: `rubichan version` shows the commit
// whatever GOFLAGS holds — a machine with GOFLAGS=-buildvcs=false would
// otherwise build a binary that cannot say which commit it is. A flag on
// the command line wins over GOFLAGS, so each go build and go install of
// the Makefile passes -buildvcs=true.
func TestMakefileStampsTheCommit(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	builds := regexp.MustCompile(`(?m)^\t.*\$\(GO\) (build|install) .*-tags.*$`).FindAll(mk, -1)
	if len(builds) < 2 {
		t.Fatalf("found %d go build/install lines in the Makefile", len(builds))
	}
	for _, b := range builds {
		if !regexp.MustCompile(`-buildvcs=true`).Match(b) {
			t.Errorf("Makefile line %q does not pass -buildvcs=true", b)
		}
	}
}

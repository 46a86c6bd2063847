package run

import (
	"os"
	"regexp"
	"testing"
)

// TestMakefileStampsTheCommit: `rubichan version` shows the commit
// whatever GOFLAGS holds — a machine with GOFLAGS=-buildvcs=false would
// otherwise build a binary that cannot say which commit it is. A flag on
// the command line wins over GOFLAGS, so make build's and make install's
// go commands pass -buildvcs=true.
func TestMakefileStampsTheCommit(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	// The binary of make build and make install (the image's reproducible
	// build carries its revision in its labels).
	builds := regexp.MustCompile(`(?m)^\t.*\$\(GO\) (build .*-o \$\(BIN\)|install) .*$`).FindAll(mk, -1)
	if len(builds) < 2 {
		t.Fatalf("found %d go build/install lines in the Makefile", len(builds))
	}
	for _, b := range builds {
		if !regexp.MustCompile(`-buildvcs=true`).Match(b) {
			t.Errorf("Makefile line %q does not pass -buildvcs=true", b)
		}
	}
}

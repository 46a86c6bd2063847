package run

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdTreeHash writes to FILE one line per path under DIR with its mode,
// content hash (a link's target) and modification time, .git included:
// treehash DIR FILE. Two listings compare equal with cmp when nothing in
// DIR changed. The times of files under .git/objects are left out: git
// refreshes the time of an object it would write again ("freshens" it),
// also in an alternate object store, as the --patch copy's is.
func cmdTreeHash(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: treehash DIR FILE")
	}
	root := ts.MkAbs(args[0])
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		line := rel + " " + fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			line += " -> " + l
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			line += " " + hex.EncodeToString(sum[:])
		}
		if !strings.HasPrefix(rel, filepath.Join(".git", "objects")+string(filepath.Separator)) {
			line += " " + fi.ModTime().UTC().Format("2006-01-02T15:04:05.000000000")
		}
		lines = append(lines, line)
		return nil
	})
	ts.Check(err)
	sort.Strings(lines)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
}

// cmdNoPatchTemp fails when a --patch copy is left in TMPDIR:
// nopatchtemp.
func cmdNoPatchTemp(ts *testscript.TestScript, neg bool, args []string) {
	matches, err := filepath.Glob(filepath.Join(ts.Getenv("TMPDIR"), "rubichan-patch-*"))
	ts.Check(err)
	if len(matches) > 0 != neg {
		ts.Fatalf("patch copies in TMPDIR: %s", fmt.Sprint(matches))
	}
}

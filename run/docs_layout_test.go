package run

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeLayoutNamesEveryPackage: README's "Layout" list names every Go
// package under run/ (as `run/PATH`), so a new package cannot land
// without a line saying what it owns.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	readme := readDoc(t, "README.md")
	_, layout, ok := strings.Cut(readme, "\nLayout:\n")
	if !ok {
		t.Fatal("README.md: no \"Layout:\" list")
	}
	if end := strings.Index(layout, "\n## "); end >= 0 {
		layout = layout[:end]
	}
	pkgs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && filepath.Dir(path) != "." {
			pkgs["run/"+filepath.ToSlash(filepath.Dir(path))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages under run/", len(pkgs))
	}
	for p := range pkgs {
		if !strings.Contains(layout, "`"+p+"/`") && !strings.Contains(layout, "`"+p+"`") {
			t.Errorf("README.md Layout does not name the package `%s/`", p)
		}
	}
}

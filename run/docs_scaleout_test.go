package run

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/tasks"
)

// TestDocScaleOutTasksExample: the tasks file docs/scale-out.md shows
// parses as `--tasks` reads it, and its table of fields names exactly the
// fields the example uses, each one a field the parser takes.
func TestDocScaleOutTasksExample(t *testing.T) {
	doc := readDoc(t, "docs/scale-out.md")
	blocks := fences(doc, "json")
	if len(blocks) == 0 {
		t.Fatal("docs/scale-out.md: no json block")
	}
	got, err := tasks.Parse(strings.NewReader(blocks[0]), "docs/scale-out.md")
	if err != nil {
		t.Fatalf("docs/scale-out.md's tasks file: %v", err)
	}
	var ids []string
	for _, tk := range got {
		ids = append(ids, tk.ID)
	}
	if want := []string{"lint", "docs", "flaky"}; !slices.Equal(ids, want) {
		t.Errorf("tasks %q, want %q", ids, want)
	}
	_, table, ok := strings.Cut(doc, "| field | meaning |")
	if !ok {
		t.Fatal("docs/scale-out.md: no table of fields")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	var fields []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(table, -1) {
		fields = append(fields, m[1])
	}
	slices.Sort(fields)
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`"([a-z_]+)":`).FindAllStringSubmatch(blocks[0], -1) {
		used[m[1]] = true
	}
	var usedNames []string
	for k := range used {
		usedNames = append(usedNames, k)
	}
	slices.Sort(usedNames)
	if !slices.Equal(fields, usedNames) {
		t.Errorf("the table documents %q, the example uses %q", fields, usedNames)
	}
}

package policy

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestPolicyFileDocNamesEveryKey keeps docs/policy-file.md complete: every
// key of the file's schema (the toml tags of document and its tables)
// appears there as `key`, so a key added to the loader without a line in
// the reference fails here.
func TestPolicyFileDocNamesEveryKey(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/policy-file.md")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct {
			return
		}
		for i := range ty.NumField() {
			f := ty.Field(i)
			keys = append(keys, f.Tag.Get("toml"))
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(document{}))
	if len(keys) < 20 {
		t.Fatalf("found only %d keys: %v", len(keys), keys)
	}
	for _, k := range keys {
		want := "`" + k + "`"
		switch k {
		case "defaults", "tools", "shell":
			want = "`[" + k + "]`"
		case "rule", "test":
			want = "`[[" + k + "]]`"
		}
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/policy-file.md does not name %s", want)
		}
	}
}

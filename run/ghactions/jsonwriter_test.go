package ghactions

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestJSONWriterNeutralises(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]string{
		"plain":          `{"delta":"hello [x] # ## ok"}` + "\n",
		"legacy":         `{"delta":"##[set-output name=x;]y"}` + "\n",
		"more hashes":    `{"delta":"###[a] ####[b]"}` + "\n",
		"two lines":      `{"a":"x##"}` + "\n" + `{"b":"[y"}` + "\n",
		"escapes before": `{"t":"\"##[\\n##[\u0041"}` + "\n",
		"array after":    `{"tools":["a","b##"],"x":["##[c"]}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Cut in every way into three writes: "#"s and "[" that
			// come apart are still seen.
			for cut := 0; cut <= len(in); cut++ {
				for cut2 := cut; cut2 <= len(in); cut2++ {
					jsonWriterCase(t, in, cut, cut2)
				}
			}
		})
	}
}

// jsonWriterCase writes in as three writes cut at cut and cut2: the
// output holds no "##[" and each of its lines decodes as in's does.
func jsonWriterCase(t *testing.T, in string, cut, cut2 int) {
	t.Helper()
	var b bytes.Buffer
	w := NewJSONWriter(&b)
	for _, p := range []string{in[:cut], in[cut:cut2], in[cut2:]} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	out := b.String()
	if strings.Contains(out, "##[") {
		t.Errorf("cut at %d, %d: %q still holds ##[", cut, cut2, out)
	}
	wants := strings.Split(strings.TrimSuffix(in, "\n"), "\n")
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var got, want any
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("cut at %d, %d: %q is not JSON: %v", cut, cut2, line, err)
		}
		json.Unmarshal([]byte(wants[i]), &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("cut at %d, %d: %q decodes to %v, want %v", cut, cut2, line, got, want)
		}
	}
}

func TestJSONWriterReportsTheWriteError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	w := NewJSONWriter(failWriter{boom})
	if n, err := w.Write([]byte(`{"a":"##[x"}`)); n != 0 || !errors.Is(err, boom) {
		t.Errorf("Write = %d, %v; want 0, %v", n, err, boom)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

package run

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rubichan/rubichan/run/events/eventstest"
)

// eventsValidator is compiled once for all scripts.
var eventsValidator = sync.OnceValues(eventstest.NewValidator)

// volatile are the fields cmdEvents leaves out: they differ from run to
// run. session_path shows only whether it is set.
var volatile = []string{"schema_version", "ts", "session_id", "duration_ms", "wait_ms", "workspace", "version", "commit", "modified", "go", "sha256", "landlock_abi"}

// cmdEvents checks the last command's stdout against the events schema
// and replaces it with one readable line per event, the volatile fields
// left out: `text {"delta":"Hi","turn":1}`. Without flags stdout must be
// a whole stream-json stream (every line valid, init first when present,
// exactly one result, last); with -json exactly one result object.
func cmdEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 || len(args) == 1 && args[0] != "-json" && args[0] != "-chat" {
		ts.Fatalf("usage: events [-json|-chat]")
	}
	v, err := eventsValidator()
	ts.Check(err)
	out := []byte(ts.ReadFile("stdout"))
	stream := v.Stream
	if len(args) == 1 && args[0] == "-chat" {
		// line mode: a result per run
		stream, args = v.ChatStream, nil
	}
	evs, err := stream(out)
	if err != nil {
		ts.Fatalf("stdout is not a valid event stream: %v\n%s", err, out)
	}
	if len(args) == 1 && len(evs) != 1 {
		ts.Fatalf("--output json wrote %d objects, want exactly one result:\n%s", len(evs), out)
	}
	for _, ev := range evs {
		fmt.Fprintln(ts.Stdout(), strings.ReplaceAll(renderEvent(ev), ts.Getenv("WORK"), "$WORK"))
	}
}

func renderEvent(ev eventstest.Event) string {
	typ := ev.Type()
	delete(ev, "type")
	strip(ev)
	if p, ok := ev["session_path"].(string); ok && p != "" {
		ev["session_path"] = "SET"
	}
	b, _ := json.Marshal(ev)
	return typ + " " + strings.ReplaceAll(string(b), `\u003c`, "<")
}

func strip(m map[string]any) {
	for _, k := range volatile {
		delete(m, k)
	}
	for _, v := range m {
		if sub, ok := v.(map[string]any); ok {
			strip(sub)
		}
	}
}

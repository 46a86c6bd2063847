package run

import (
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rubichan/rubichan/run/telemetry/otlptest"
)

// telemetryScriptCmds are the commands of the telemetry scripts: a test
// OTLP/HTTP receiver on 127.0.0.1 per script.
//
//	otlpserver: start the receiver; sets OTEL_EXPORTER_OTLP_ENDPOINT.
//	otlptree [ATTR...]: print the received span tree, with ATTRs.
//	otlpspan FILE NAME: FILE holds the traceparent of a span named NAME.
//	otlpraw: print every export body as received (to grep for text).
func telemetryScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	var mu sync.Mutex
	recs := map[*testscript.TestScript]*otlptest.Receiver{}
	get := func(ts *testscript.TestScript) *otlptest.Receiver {
		mu.Lock()
		defer mu.Unlock()
		if recs[ts] == nil {
			ts.Fatalf("no otlpserver started in this script")
		}
		return recs[ts]
	}
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"otlpserver": func(ts *testscript.TestScript, neg bool, args []string) {
			rec := otlptest.New()
			ts.Defer(rec.Close)
			mu.Lock()
			recs[ts] = rec
			mu.Unlock()
			ts.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rec.URL)
		},
		"otlptree": func(ts *testscript.TestScript, neg bool, args []string) {
			_, _ = ts.Stdout().Write([]byte(get(ts).Tree(args...)))
		},
		"otlpraw": func(ts *testscript.TestScript, neg bool, args []string) {
			_, _ = ts.Stdout().Write(get(ts).Raw())
		},
		"otlpspan": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 2 {
				ts.Fatalf("usage: otlpspan FILE NAME")
			}
			tp := strings.TrimSpace(ts.ReadFile(args[0]))
			for _, s := range get(ts).Spans() {
				if s.Name == args[1] && tp == "00-"+s.TraceID+"-"+s.SpanID+"-01" {
					return
				}
			}
			ts.Fatalf("%s: %q names no span %q", args[0], tp, args[1])
		},
	}
}

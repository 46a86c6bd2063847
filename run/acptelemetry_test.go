package run

import (
	"maps"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/acp/acptest"
	"github.com/rubichan/rubichan/run/telemetry/otlptest"
)

// withVars is vars with more added.
func withVars(vars, more map[string]string) map[string]string {
	maps.Copy(vars, more)
	return vars
}

// TestACPTelemetry: with telemetry on, an ACP session is one trace — its
// run span, named by the session's id, with each prompt's requests under
// it — flushed when the session ends (here: the client closes stdin).
func TestACPTelemetry(t *testing.T) {
	rec := otlptest.New()
	defer rec.Close()
	s := startACPEnv(t, llmtest.Script{Turns: []llmtest.Turn{{Text: []string{"one"}}, {Text: []string{"two"}}}},
		map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rec.URL})
	id := s.newSession(t)
	for _, p := range []string{"first", "second"} {
		if stop := s.prompt(t, id, p); stop != "end_turn" {
			t.Fatalf("prompt %q stopped with %q", p, stop)
		}
	}
	s.stdin.Close()
	select {
	case code := <-s.exited:
		s.exited <- code // for the cleanup's wait
	case <-time.After(acptest.Wait):
		t.Fatal("rubichan acp did not exit after its stdin closed")
	}
	// Each prompt's verify span is the session's /schema check, which
	// passes while no schema is set, as in line mode.
	want := "invoke_agent rubichan gen_ai.conversation.id=" + id + "\n  chat test-model\n  verify\n  chat test-model\n  verify\n"
	if got := rec.Tree("gen_ai.conversation.id"); got != want {
		t.Errorf("span tree:\n%s\nwant:\n%s", got, want)
	}
}

package harness

import (
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/cassette"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
)

// ResolveRunProvider resolves the run's provider. A replay needs no key:
// it talks to the cassette, whose provider and model it takes unless
// --provider or --model name others; a provider named so is resolved as
// usual, its key variable allowed to be unset.
func ResolveRunProvider(ts TrafficSettings, lc *config.Loaded, lookupEnv func(string) (string, bool)) (config.ResolvedProvider, error) {
	if ts.Cassette == nil {
		return ResolveProvider(lc, lookupEnv)
	}
	h := ts.Cassette.Header
	if lc.Origin("provider").Source != "flag --provider" {
		from := "the cassette " + ts.ReplayFile
		rp := config.ResolvedProvider{Name: h.Provider, Type: h.Type, Wire: h.Wire, ThoughtTags: h.ThoughtTags,
			BaseURL: h.BaseURL, Model: h.Model, Headers: map[string]string{}, Chosen: from, ModelFrom: from, BaseURLFrom: from,
			// --json-schema asks a replayed provider the way it asked the recorded one.
			Preset: isPreset(h.Provider) && lc.Providers[h.Provider].Type == "", StructuredOutput: lc.Providers[h.Provider].StructuredOutput}
		if lc.Origin("model").Source == "flag --model" {
			rp.Model, rp.ModelFrom = lc.Model, "flag --model"
		}
		return rp, nil
	}
	keyVars := ProviderKeyVars(lc)
	return ResolveProvider(lc, func(name string) (string, bool) {
		if v, ok := lookupEnv(name); ok && v != "" {
			return v, true
		}
		for _, k := range keyVars {
			if k == name {
				return "replay-needs-no-key", true
			}
		}
		return "", false
	})
}

// Traffic is how a run reaches the model: straight over the network, through
// a recorder in front of it (--record), or from a cassette (--replay).
type Traffic struct {
	// HTTPClient carries the model traffic; nil: the llm client's
	// default.
	HTTPClient *http.Client
	// Clock is the retry clock; nil: the system clock.
	Clock llm.Clock
	rec   *cassette.Recorder
	rep   *cassette.Replayer
}

// OpenTraffic sets up the run's model traffic with the resolved provider
// rp. root and date are the workspace root and the date the system prompt
// shows: the volatile parts a replay sets aside. secrets are kept out of
// a recording. A cassette that cannot be created is a usage error.
func OpenTraffic(ts TrafficSettings, rp config.ResolvedProvider, root string, date time.Time, secrets []string) (*Traffic, error) {
	vol := cassette.Volatile{Workspace: root, Date: date.Format(time.DateOnly), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	switch {
	case ts.Cassette != nil:
		rep := ts.Cassette.Replayer(ts.Mode, vol)
		// Recorded waits (a 429's retry-after) are skipped, not slept.
		return &Traffic{HTTPClient: noRedirects(rep), Clock: &cassette.Clock{}, rep: rep}, nil
	case ts.Record != "":
		h := cassette.Header{Provider: rp.Name, Type: rp.Type, Model: rp.Model,
			ThoughtTags: rp.ThoughtTags, BaseURL: plainURL(rp.BaseURL), Volatile: vol}
		if h.Type == config.ProviderOpenAI {
			h.Wire = ProviderWire(rp)
		}
		rec, err := cassette.Create(ts.Record, h, agent.NewRedactor(secrets).Secrets(), nil)
		if err != nil {
			return nil, exit.Usagef("--record: %w", err)
		}
		return &Traffic{HTTPClient: noRedirects(rec), rec: rec}, nil
	}
	return &Traffic{}, nil
}

// noRedirects is a client on rt that returns a redirect as the response
// instead of following it: the key header would go along to wherever it
// points (Go drops only Authorization and cookies on a redirect to
// another host), and the answer is then a provider error.
func noRedirects(rt http.RoundTripper) *http.Client {
	return &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// Finish ends the traffic of a run that ended with runErr: it closes the
// cassette being recorded and says when a replay left recorded exchanges
// unused. A cassette that could not be written fails a run that
// otherwise succeeded (exit 1).
func (t *Traffic) Finish(runErr error, notice func(string)) error {
	if t.rep != nil && runErr == nil {
		if n := t.rep.Remaining(); n > 0 {
			notice(fmt.Sprintf("replay: the run ended with %d recorded exchange(s) unused", n))
		}
	}
	if t.rec != nil {
		if err := t.rec.Close(); err != nil && runErr == nil {
			return fmt.Errorf("--record: %w", err)
		}
	}
	return runErr
}

// plainURL is u without user information or query, which may hold
// credentials.
func plainURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return p.String()
}

// isPreset says whether name is a built-in provider preset.
func isPreset(name string) bool {
	for _, p := range config.Presets() {
		if p.Name == name {
			return true
		}
	}
	return false
}

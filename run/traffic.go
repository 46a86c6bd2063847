package run

import (
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/cassette"
	"github.com/rubichan/rubichan/run/config"
)

// loadCassette reads --replay-mode and the --replay cassette. A mode
// other than strict or lenient, or a cassette that is missing, malformed
// or truncated, is a usage error (exit 2), found before anything runs.
func (cfg *execConfig) loadCassette(mode string) error {
	m, err := cassette.ParseMode(mode)
	if err != nil {
		return usagef("--replay-mode: %v", err)
	}
	cfg.ReplayMode = m
	if cfg.Replay == "" {
		return nil
	}
	c, err := cassette.Load(cfg.Replay)
	if err != nil {
		return usagef("--replay: %w", err)
	}
	cfg.cassette = c
	return nil
}

// resolveRunProvider resolves the run's provider. A replay needs no key:
// it talks to the cassette, whose provider and model it takes unless
// --provider or --model name others; a provider named so is resolved as
// usual, its key variable allowed to be unset.
func (cfg *execConfig) resolveRunProvider(lc *config.Loaded, env environment) (config.ResolvedProvider, error) {
	if cfg.cassette == nil {
		return resolveProvider(lc, env.lookupEnv)
	}
	h := cfg.cassette.Header
	if lc.Origin("provider").Source != "flag --provider" {
		from := "the cassette " + cfg.Replay
		rp := config.ResolvedProvider{Name: h.Provider, Type: h.Type, Wire: h.Wire, ThoughtTags: h.ThoughtTags,
			BaseURL: h.BaseURL, Model: h.Model, Headers: map[string]string{}, Chosen: from, ModelFrom: from, BaseURLFrom: from}
		if lc.Origin("model").Source == "flag --model" {
			rp.Model, rp.ModelFrom = lc.Model, "flag --model"
		}
		return rp, nil
	}
	keyVars := providerKeyVars(lc)
	return resolveProvider(lc, func(name string) (string, bool) {
		if v, ok := env.lookupEnv(name); ok && v != "" {
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

// traffic is how a run reaches the model: straight over the network, through
// a recorder in front of it (--record), or from a cassette (--replay).
type traffic struct {
	hc    *http.Client // nil: the llm client's default
	clock llm.Clock    // the retry clock; nil: the system clock
	rec   *cassette.Recorder
	rep   *cassette.Replayer
}

// openTraffic sets up the run's model traffic. root and date are the
// workspace root and the date the system prompt shows: the volatile parts
// a replay sets aside. A cassette that cannot be created is a usage error.
func (cfg execConfig) openTraffic(root string, date time.Time, env environment) (*traffic, error) {
	vol := cassette.Volatile{Workspace: root, Date: date.Format(time.DateOnly), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	switch {
	case cfg.cassette != nil:
		rep := cfg.cassette.Replayer(cfg.ReplayMode, vol)
		// Recorded waits (a 429's retry-after) are skipped, not slept.
		return &traffic{hc: noRedirects(rep), clock: &cassette.Clock{}, rep: rep}, nil
	case cfg.Record != "":
		h := cassette.Header{Provider: cfg.Provider, Type: cfg.Resolved.Type, Model: cfg.Model,
			ThoughtTags: cfg.Resolved.ThoughtTags, BaseURL: plainURL(cfg.BaseURL), Volatile: vol}
		if h.Type == config.ProviderOpenAI {
			h.Wire = providerWire(cfg.Resolved)
		}
		rec, err := cassette.Create(cfg.Record, h, newRedactor(cfg.secrets(env)).Secrets(), nil)
		if err != nil {
			return nil, usagef("--record: %w", err)
		}
		return &traffic{hc: noRedirects(rec), rec: rec}, nil
	}
	return &traffic{}, nil
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

// finish ends the traffic of a run that ended with runErr: it closes the
// cassette being recorded and says when a replay left recorded exchanges
// unused. A cassette that could not be written fails a run that
// otherwise succeeded (exit 1).
func (t *traffic) finish(runErr error, notice func(string)) error {
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

package run

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/rubichan/rubichan/run/config"
)

// secretMinLen is the shortest value redacted as a secret: shorter ones
// ("x", "ollama") are placeholders, and replacing them everywhere would
// wreck the output without protecting anything.
const secretMinLen = 8

// redactedMark replaces a secret wherever rubichan shows or records text.
const redactedMark = "[REDACTED]"

// redactor replaces a run's secrets — API keys, credential header values —
// in text before it is shown on stderr or written to the session log. The
// model never gets a key, but a workspace file or a tool's output may hold
// one. A nil redactor changes nothing. It is not modified after creation,
// so it is safe for concurrent use.
type redactor struct {
	secrets []string // longest first, none shorter than secretMinLen
}

// newRedactor returns a redactor for secrets, leaving out duplicates and
// values too short to be secrets.
func newRedactor(secrets []string) *redactor {
	r := &redactor{}
	for _, v := range secrets {
		if len(v) >= secretMinLen && !slices.Contains(r.secrets, v) {
			r.secrets = append(r.secrets, v)
		}
	}
	// A longer secret goes first, in case it contains a shorter one.
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	return r
}

// redact returns s with every secret replaced by [redactedMark].
func (r *redactor) redact(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, redactedMark)
	}
	return s
}

// secrets are the values a run hides: its key, the value of every provider
// key variable set in the environment, and credential header values (and
// the token alone of a "Bearer TOKEN" value).
func (cfg execConfig) secrets(env environment) []string {
	secrets := []string{cfg.APIKey}
	for _, v := range providerKeyVars(cfg.Settings) {
		if val, ok := env.lookupEnv(v); ok {
			secrets = append(secrets, val)
		}
	}
	for name, val := range cfg.Resolved.Headers {
		if redactHeader(name, val) == config.Redacted {
			secrets = append(secrets, val)
			if f := strings.Fields(val); len(f) > 1 {
				secrets = append(secrets, f[len(f)-1])
			}
		}
	}
	return secrets
}

// redactJSON returns the valid JSON raw with every secret redacted, also
// one its strings spell with escapes ("sk-ant-\u0074…"), which a reader
// of the JSON decodes back into the secret. JSON without a backslash,
// or whose escapes hide no secret, is redacted as text and keeps its
// order and look; otherwise it is decoded, redacted and encoded again
// (keys sorted, no HTML escapes).
func (r *redactor) redactJSON(raw []byte) []byte {
	text := []byte(r.redact(string(raw)))
	if r == nil || len(r.secrets) == 0 || !bytes.Contains(text, []byte(`\`)) {
		return text
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return text
	}
	changed := false
	v = r.redactValue(v, &changed)
	if !changed {
		return text
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return []byte(`{}`)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// redactValue redacts the strings of a decoded JSON value, keys included,
// and sets *changed when one held a secret.
func (r *redactor) redactValue(v any, changed *bool) any {
	switch v := v.(type) {
	case string:
		s := r.redact(v)
		*changed = *changed || s != v
		return s
	case []any:
		for i, e := range v {
			v[i] = r.redactValue(e, changed)
		}
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[r.redactValue(k, changed).(string)] = r.redactValue(e, changed)
		}
		return out
	}
	return v
}

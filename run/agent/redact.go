package agent

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// SecretMinLen is the shortest value redacted as a secret: shorter ones
// ("x", "ollama") are placeholders, and replacing them everywhere would
// wreck the output without protecting anything.
const SecretMinLen = 8

// redactedMark replaces a secret wherever rubichan shows or records text.
const redactedMark = "[REDACTED]"

// Redactor replaces a run's secrets — API keys, credential header values —
// in text before it is shown on stderr or written to the session log. The
// model never gets a key, but a workspace file or a tool's output may hold
// one. A nil Redactor changes nothing. It is not modified after creation,
// so it is safe for concurrent use.
type Redactor struct {
	secrets []string // longest first, none shorter than SecretMinLen
}

// NewRedactor returns a Redactor for secrets, leaving out duplicates and
// values too short to be secrets.
func NewRedactor(secrets []string) *Redactor {
	r := &Redactor{}
	for _, v := range secrets {
		if len(v) >= SecretMinLen && !slices.Contains(r.secrets, v) {
			r.secrets = append(r.secrets, v)
		}
	}
	// A longer secret goes first, in case it contains a shorter one.
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	return r
}

// Redact returns s with every secret replaced by "[REDACTED]".
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, redactedMark)
	}
	return s
}

// Secrets returns the values r hides, longest first, without duplicates
// or values too short to be secrets; nil for a nil Redactor. The slice is
// r's own, shared by every caller: it must not be modified.
func (r *Redactor) Secrets() []string {
	if r == nil {
		return nil
	}
	return r.secrets
}

// RedactJSON returns the valid JSON raw with every secret redacted, also
// one its strings spell with escapes ("sk-ant-\u0074…"), which a reader
// of the JSON decodes back into the secret. JSON without a backslash,
// or whose escapes hide no secret, is redacted as text and keeps its
// order and look; otherwise it is decoded, redacted and encoded again
// (keys sorted, no HTML escapes).
func (r *Redactor) RedactJSON(raw []byte) []byte {
	text := []byte(r.Redact(string(raw)))
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
func (r *Redactor) redactValue(v any, changed *bool) any {
	switch v := v.(type) {
	case string:
		s := r.Redact(v)
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

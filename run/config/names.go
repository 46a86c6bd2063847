package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The checks of names and addresses that configuration values carry:
// provider names, model names, base URLs, environment variable and HTTP
// header names.

// checkName accepts provider names: letters, digits, '-', '_' and '.'.
func checkName(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("provider name %q may only hold letters, digits, '-', '_' and '.'", s)
		}
	}
	return nil
}

// checkCustomProviderName accepts a [providers.NAME] name that does not
// shadow a preset: a preset is pointed elsewhere with base_url instead.
func checkCustomProviderName(s string) error {
	if err := checkName(s); err != nil {
		return err
	}
	if _, ok := presetByName(s); ok {
		return fmt.Errorf("%q is a built-in preset; pick another name, or set base_url to point the preset elsewhere", s)
	}
	return nil
}

// presetKeysOnly says whether v, the table [providers.NAME], only sets
// the keys a built-in preset takes there (structured_output): such an
// entry adjusts the preset rather than shadowing it.
func presetKeysOnly(name string, v any) bool {
	m, ok := v.(map[string]any)
	if _, preset := presetByName(name); !ok || !preset || len(m) == 0 {
		return false
	}
	for k := range m {
		if k != "structured_output" {
			return false
		}
	}
	return true
}

// checkModelName accepts any non-empty model name without control characters.
func checkModelName(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("model name must not be empty")
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("model name %q holds a control character", s)
		}
	}
	return nil
}

// checkBaseURL accepts absolute http and https URLs. Credentials, a query
// and a fragment are refused: they are where keys hide, and a base URL shows
// in `config show`; a key belongs in the variable api_key_env names. The
// errors never repeat the URL, which may hold a key.
func checkBaseURL(s string) error {
	if !strings.Contains(s, "://") {
		return errors.New("not a URL: it needs a scheme: http:// or https://, as in http://127.0.0.1:8080 (the value is not repeated: it may hold a key)")
	}
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a URL (the value is not repeated: it may hold a key)")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return errors.New("want an http:// or https:// URL")
	}
	if u.Host == "" {
		return errors.New("URL has no host")
	}
	if u.User != nil {
		return errors.New("URL must not hold credentials; name the key's variable in api_key_env")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return errors.New("base URL must not have a query or fragment; name the key's variable in api_key_env")
	}
	return nil
}

// checkEnvName accepts POSIX-style variable names. The error does not
// repeat the value: the key itself is a common mistake here.
func checkEnvName(s string) error {
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return errors.New("not an environment variable name: name the variable that holds the key, not the key")
		}
	}
	if s == "" {
		return errors.New("must not be empty")
	}
	return nil
}

// checkHeaderName accepts RFC 9110 token characters.
func checkHeaderName(s string) error {
	if s == "" {
		return errors.New("header name must not be empty")
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return fmt.Errorf("%q is not a valid HTTP header name", s)
		}
	}
	return nil
}

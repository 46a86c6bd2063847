package policy

import "bytes"

// DefaultText returns the TOML text of the built-in policy ([Default]),
// for a digest that tells one version of it from another.
func DefaultText() []byte { return bytes.Clone(defaultPolicy) }

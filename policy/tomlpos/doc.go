// Package tomlpos finds the line each key of a TOML document is written on,
// so that errors found after decoding (go-toml's decoded maps and structs,
// and koanf, keep no positions) can still name the line.
//
// It is a leaf utility: it imports only go-toml. It lives under policy/
// because the policy loader was its first user, and it is the only package
// under policy/ that run/config may import.
//
// Policy and run/config import it.
package tomlpos

// Package config is rubichan's configuration: the schema of a config file
// and its errors ([*Error] names the file, key and line), the layering of
// built-in defaults, the user file, the --config file, the workspace file,
// RUBICHAN_* variables and flags with the origin of every value ([Load]),
// the workspace trust rule, the provider presets and their resolution
// ([Loaded.ResolveProvider]), model prices and byte sizes, and the
// printable effective configuration ([Show], what `rubichan config show`
// prints and the doctor lists, credential headers hidden by
// [RedactHeader]). Show never escapes text itself: the caller gives it
// the runner's escaping of control characters, so that one rule holds.
//
// Each source is its own koanf instance, loaded by that source's koanf
// provider and checked against the schema as it is loaded; the instances
// are merged in order. Errors carry the line of the offending key, found
// with [github.com/rubichan/rubichan/policy/tomlpos], since koanf keeps no
// positions.
//
// It reads files but never the process environment, and imports nothing of
// rubichan's but that leaf package: the runner (package run) hands in the
// environment and the flags, and turns every error into a usage error
// (exit 2).
//
// It is a format leaf: the harness, the hooks, run/exit, the front ends
// query and doctor and the command layer import it; never the engine.
package config

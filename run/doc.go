// Package run is rubichan's command layer: the urfave/cli application,
// the flags of exec and chat and the admin commands (config, policy,
// sessions, mcp, sandbox, schema, version, doctor's and query's flags),
// the one early reading of the raw arguments, the signals, and the
// process contract. main calls [HardenProcess], [NotifySignals] and
// [MainWith]; nothing else is exported.
//
// It parses; it does not assemble: an exec run is harness.Open over the
// parsed flags' harness.Settings, rendered by the sinks built from their
// sink.Options; chat hands the same to linemode.Run; query and doctor are
// their own packages. Configuration lives in run/config, whose errors run
// reports as usage errors (exit 2). Nothing in it touches the process's
// standard streams, arguments or exit: main hands those over through
// [Main] or [MainWith].
//
// No package imports run (run/arch_test.go).
package run

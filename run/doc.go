// Package run is rubichan's runner: the command line, input assembly, the
// provider-agnostic turn loop, approvals, budgets, output sinks, session
// logs and exit codes.
//
// It is the only package that knows about all of llm, toolkit, policy and
// run/config and translates between them: configuration (files, variables,
// flags, providers, prices) lives in run/config, whose errors run reports
// as usage errors (exit 2). Nothing in it touches the process's standard
// streams, arguments or exit: main hands those over through [Main].
package run

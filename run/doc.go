// Package run is rubichan's runner: the command line, input assembly, the
// provider-agnostic turn loop, approvals, output sinks and exit codes.
//
// It is the only package that knows about all of llm, toolkit and policy and
// translates between them. Nothing in it touches the process's standard
// streams, arguments or exit: main hands those over through [Main].
package run

// Package sandbox confines the commands the bash tool runs with Landlock,
// on Linux: read and execute everywhere, write only in the directories it
// is given, and no TCP connect or bind unless the network is allowed.
//
// Landlock restricts the calling process and all its descendants for good,
// so it is never applied to rubichan itself. The bash tool starts its own
// executable in a hidden helper mode ([HelperCommand]); [Helper] drops every
// capability, sets no_new_privs, applies the rules and execs the command.
// [Probe] reports the kernel's Landlock ABI and [Achieve] what a mode and
// that ABI give; [SelfTest] proves it by trying a write outside and a TCP
// connection from inside the sandbox.
//
// Elsewhere than Linux the package compiles, reports the sandbox as
// unavailable and runs nothing through the helper.
package sandbox

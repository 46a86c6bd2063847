// Package sandbox confines the commands a run starts — the bash tool's,
// the hooks', --verify's — with Landlock, on Linux: read and execute
// everywhere, write only in the directories it is given, and no TCP
// connect or bind unless the network is allowed.
//
// Landlock restricts the calling process and all its descendants for good,
// so it is never applied to rubichan itself. A run starts its own
// executable once in a hidden spawner mode ([ServeCommand],
// [StartSpawner]): the [Spawner] drops every capability, sets
// no_new_privs and applies the rules to itself, and then starts each
// command it is sent ([Spawner.Spawn]), already confined, in a session of
// its own; the caller signals the command's group and learns how it ended
// through the returned [Process]. Where the spawner cannot be had, or for
// a long-lived command that wants [os/exec]'s pipes (a stdio MCP server),
// the one-shot helper mode ([HelperCommand], [Rules.Argv], [Helper])
// confines itself and execs one command. Either way a failure to confine
// ends in exit code 126: a command never runs unconfined.
//
// [Probe] reports the kernel's Landlock ABI and [Achieve] what a mode and
// that ABI give; [SelfTest] proves it by trying a write and a chmod
// outside, a TCP connection and a UDP datagram from inside the sandbox.
//
// Where the system allows (see [ProbeNamespaces]), the spawner and the
// helper also start in namespaces of their own ([Rules.Isolate],
// [Rules.Namespaces]): a mount namespace in which every mount but the
// writable roots is read-only, which refuses what Landlock has no right
// for — chmod, chown, utime and setxattr outside the writable roots — and,
// with the network off, a network namespace without a device that is up,
// which refuses UDP (and every other protocol) on any Landlock ABI.
//
// Elsewhere than Linux the package compiles, reports the sandbox as
// unavailable and starts nothing.
//
// The toolkit (the bash tool), the harness, doctor and the command layer
// (the spawner and helper modes) import it; it imports nothing of
// rubichan's.
package sandbox

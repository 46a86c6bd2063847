// Package policy decides whether one tool call may run: allow, ask or deny,
// with the rule, the fact and the reason that made the decision.
//
// A policy comes from a TOML file ([Load], [Parse]), the built-in default
// ([Default]) and rules given on the command line ([Policy.WithRules]). A tool
// call reaches the package as an [Action]: a tool class (read, write, shell)
// plus the paths it touches or the command it runs. [Policy.Decide] turns the
// action into facts and gives each the strictest decision of the rules that
// match it (deny > ask > allow, whatever their order), else the tool class
// fallback, else the default. The call's decision is its strictest fact.
//
// # Facts
//
// A read or write call gives one fact per path, requested and resolved. A
// shell command is parsed with mvdan.cc/sh under both the bash and the POSIX
// dialect, and the facts of both readings are kept: every simple command's
// argv (in pipelines, lists, subshells, blocks, and inside substitutions and
// compound commands too, so a denied command is found wherever it hides),
// every redirect target as a read or write fact, every background job, and
// every construct the analysis cannot fully read.
//
// # Matching
//
// Command patterns are parsed like commands and compared with the argv after
// quote removal, word by word; a final bare `*` matches zero or more further
// words. Allow and ask rules need argv[0] to equal the pattern's first word;
// deny rules also match its basename, without regard to case, and a globbed
// command name that could expand to it, and they step over options before a
// pattern word (`git -C . push` meets `git push *`). An argument the analysis cannot read
// exactly (a glob, a brace or tilde expansion, an expansion) never matches an
// allow rule's literal word and always matches a deny rule's. Wrappers
// (env, xargs, timeout, nohup, sudo, find -exec, sh -c, eval, …) are never
// unwrapped to allow anything; they are unwrapped to deny, so `env rm -rf /`
// meets the deny rule for `rm *`.
//
// Path patterns are bmatcuk/doublestar globs over the cleaned, slash-separated,
// workspace-relative path; a pattern starting with `/` names an absolute path
// outside the workspace. Deny path patterns match without regard to case.
//
// # Options of allowed commands
//
// A final `*` stands for the words after the pattern's, but not for
// everything those words can make a command do. For git, go and the
// everyday programs of a CI policy (sed, sort, tar, find, xargs, awk, zip,
// unzip, rsync, ssh, scp, pagers, editors, curl, wget and the programs that
// create, copy, link, remove or change files), options, operands and
// scripts whose effect is plain are judged on their own (options.go,
// gitmore.go, programs.go, fileops.go, sedscan.go; docs/policy.md has the
// tables):
//
//   - a file the command writes is a write fact, judged by the write rules
//     like a `>` redirect (relative to the shell's directory and any -C);
//   - a directory beneath which it writes names the command line does not
//     show (an extraction, a download, a recursive copy) is a tree write,
//     at best ask when a deny or ask rule, the .git guard or the policy
//     file could be met beneath it; a search beneath one is a tree read;
//   - a file it reads and shows or sends (`sed 'r F'`, `curl -d @F`, the
//     paths `git diff` reads from disk) is a read fact;
//   - an option that makes the command run another program, or changes
//     settings from which it runs one, is not covered by an allow rule's
//     final `*`: that rule's match counts as ask (a person can approve it;
//     a headless run refuses it), unless an allow rule names the option
//     in its literal words.
//
// An option word with a glob counts as every option it could expand to,
// with an unreadable value (so it is opaque). An allow rule with a final
// `*` for a program outside the modelled list draws a warning at load
// time, and so do allow rules that hand over everything (`git *`, `go run
// *`, `make *`, `python3 *`, `env *`). Everything else an allowed program
// does is the program's own business: what a test, a makefile or a git
// hook runs, and what git shows from the repository (`git show
// HEAD:.env`). Known gaps: git options that an alias or the configuration
// supplies, and go flags that GOFLAGS in the runner's environment
// supplies.
//
// A command line where a command creates links or files (ln, cp, mv, tar
// -x, git checkout, …) and a redirect or another command's file operand
// follows is opaque: its paths are resolved before the links exist. A
// file with more than one hard link is asked before it is read while a
// read rule denies or asks, and before it is written in place
// ([Action.Links]).
//
// # Opaque constructs
//
// These make a command opaque: its decision is at least ask, never allow,
// and a session approval cannot cover it. Denied commands inside them are
// still denied.
//
//   - a parse failure under either dialect (so bash-only syntax such as
//     `[[ ]]`, `&>`, `|&`, `<(…)`, `$'…'` is opaque whichever way it reads)
//   - command substitution `$(…)` and backticks, process substitution
//   - parameter expansion `$x`, `${x}`, arithmetic expansion `$((…))`
//   - ANSI-C quoting `$'…'` and locale quoting `$"…"`
//   - variable assignments before or between commands (`FOO=1 cmd`, `FOO=1`),
//     and declarations (export, declare, local, readonly, typeset)
//   - globs, brace or tilde expansion in a command name; extended globs
//   - function definitions, alias and unalias
//   - control flow: if, for, while, until, case, select; arithmetic commands
//     `((…))` and let; `[[ … ]]`; time; coproc
//   - here-documents whose body expands; here-strings and redirect targets
//     with an expansion or a glob; redirects to a named descriptor `{fd}>`
//   - a relative redirect after cd, pushd or popd
//   - more than [MaxCommands] simple commands, a command longer than
//     [MaxCommandBytes], wrappers nested beyond the unwrapping budget
//   - NUL, CR, other control characters, invalid UTF-8, and invisible
//     Unicode characters (format characters, non-ASCII spaces, fillers)
//   - an empty command
//
// # Guards
//
// Some decisions no file can loosen: a path outside the workspace needs an
// absolute allow rule; a path with control or invisible characters is denied;
// the policy file and .rubichan/policy.toml cannot be written; a write in
// a .git directory (or to a .git file) is at best "ask" unless the allow
// rule's pattern names .git, since git runs the programs its config and
// hooks name (`write:**` with `git diff *` would otherwise run anything,
// through diff.external); a call with an unknown class or no path is
// denied. Writes through a symlink are judged by
// both the link and its target, which the runner resolves. The filter grep
// and glob apply to the files they meet ([Policy.ReadFilter]) lets through
// only files whose read is allowed: an "ask" is left out as a deny is, so a
// search never shows what a direct read would be refused.
//
// A [Policy] is immutable once built and safe for concurrent use. A [Session]
// adds the line-mode runner's approvals on top of it.
//
// The package knows nothing of the tools or the runner: callers translate
// their calls into an [Action] and the [Result] back into events.
//
// Who may import it: the harness (the approver behind the engine's Judge
// seam), the front ends that ask a person (linemode, acp), doctor, run/exit,
// run/learnlog, policy/learn and the command layer; never run/agent. It
// imports neither llm, toolkit nor anything under run/ (DESIGN's rule).
package policy

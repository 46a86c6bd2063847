package toolkit

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// gitHooksPath is where core.hooksPath points in the bash tool's
// environment. Git looks a hook up as <hooksPath>/<name>; under /dev/null
// that path can never exist (ENOTDIR), nothing in a workspace can create
// it, and there is no directory to create, clean up or leak.
const gitHooksPath = "/dev/null"

// gitHardening is the git configuration the bash tool forces, passed as
// GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n and again as
// GIT_CONFIG_PARAMETERS, the variable `git -c` uses, which git before 2.31
// (still in Debian 10 and Ubuntu 20.04 images) reads instead. Both have
// command-line scope, above a repository's own .git/config, so a
// repository cannot run code through these settings. No key or value may
// hold a single quote (GIT_CONFIG_PARAMETERS quoting). rubichan's own git
// commands (the --patch copy, doctor) force the same list ([GitHardening]).
//
// These are the settings with fixed names. Filter, textconv and external
// diff drivers have names of the repository's choosing, which no fixed
// list can override: rubichan's own git commands find them in the
// configuration and blank each, and the bash tool's git can run them,
// confined by the sandbox and without the key.
func gitHardening() [][2]string {
	return [][2]string{
		{"core.fsmonitor", "false"},
		{"core.hooksPath", gitHooksPath},
		{"core.pager", "cat"},
		// A workspace without a .git entry can be made a bare repository by
		// writing HEAD, objects/, refs/ and a config naming programs
		// (diff.external, a textconv or filter driver, core.sshCommand);
		// git would discover it for `git diff` there or in a subfolder.
		// explicit: only a bare repository named with --git-dir or GIT_DIR
		// is used (git 2.38 and later; older ones ignore the key).
		{"safe.bareRepository", "explicit"},
		// ext:: URLs run a command as the transport.
		{"protocol.ext.allow", "never"},
		// The ssh program of a fetch or push: plain ssh from PATH, not a
		// command the repository names (GIT_SSH_COMMAND in the environment,
		// which comes first, still chooses one).
		{"core.sshCommand", "ssh"},
		// Editors and the password prompt program: nothing waits for a
		// person, and a repository cannot name one (the environment's
		// GIT_EDITOR, GIT_SEQUENCE_EDITOR and GIT_ASKPASS come first).
		{"core.editor", "true"},
		{"sequence.editor", "true"},
		{"core.askPass", ""},
	}
}

// GitHardening returns the git configuration the bash tool forces on every
// git command it runs ([CommandEnv] sets it), as "key", "value" pairs, for
// the git commands rubichan runs itself to force as well: no hooks, no
// file system monitor, no pager, no ssh command, editor or password
// program of the repository's choosing, no ext:: transport, no bare
// repository found by discovery.
func GitHardening() [][2]string { return gitHardening() }

// noPromptEnv is set in the bash tool's environment so that nothing waits
// for a person: editors exit at once, pagers print, git and Git Credential
// Manager never prompt for credentials.
func noPromptEnv() [][2]string {
	return [][2]string{
		{"GIT_EDITOR", "true"},
		{"EDITOR", "true"},
		{"VISUAL", "true"},
		{"GIT_PAGER", "cat"},
		{"PAGER", "cat"},
		{"GIT_TERMINAL_PROMPT", "0"},
		{"GCM_INTERACTIVE", "never"},
		// man reads MANPAGER before PAGER; LESSSECURE keeps less from running
		// shell commands, LESSOPEN preprocessors, editors, log files and
		// lesskey files, whatever its command line says.
		{"MANPAGER", "cat"},
		{"LESSSECURE", "1"},
	}
}

// looksSecret reports whether an environment variable's name suggests it
// holds a credential: it contains KEY, TOKEN, SECRET, PASSWORD, PASSWD or
// CREDENTIAL, in any case.
func looksSecret(name string) bool {
	u := strings.ToUpper(name)
	return strings.Contains(u, "KEY") ||
		strings.Contains(u, "TOKEN") ||
		strings.Contains(u, "SECRET") ||
		strings.Contains(u, "PASSWORD") ||
		strings.Contains(u, "PASSWD") ||
		strings.Contains(u, "CREDENTIAL")
}

// isGitConfigEnv reports whether name passes git configuration through
// the environment. Inherited ones are dropped: the bash tool sets its own
// GIT_CONFIG_COUNT list, and an inherited GIT_CONFIG_PARAMETERS could
// override it.
func isGitConfigEnv(name string) bool {
	return name == "GIT_CONFIG_COUNT" || name == "GIT_CONFIG_PARAMETERS" ||
		strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}

// commandEnv builds the environment of a bash tool command from base
// ("NAME=value" entries, in order). It removes:
//   - entries without a name, and entries holding a NUL byte (which
//     os/exec would refuse, failing every call);
//   - every name in drop (exact match; the runner's provider key variables);
//   - names that look secret ([looksSecret]) unless listed in allow (exact);
//   - inherited git configuration variables ([isGitConfigEnv]);
//   - names it sets itself.
//
// It then appends the no-prompt variables ([noPromptEnv]), PWD=dir and
// the git hardening ([gitHardening]). drop wins over allow, and what this
// function sets wins over both. PATH is cleaned with [cleanPath], with
// pathAdd appended.
func commandEnv(base, allow, drop []string, dir string, pathAdd []string) []string {
	set := noPromptEnv()
	set = append(set, [2]string{"PWD", dir})
	hard := gitHardening()
	set = append(set, [2]string{"GIT_CONFIG_COUNT", strconv.Itoa(len(hard))})
	params := make([]string, len(hard))
	for i, kv := range hard {
		n := strconv.Itoa(i)
		set = append(set, [2]string{"GIT_CONFIG_KEY_" + n, kv[0]}, [2]string{"GIT_CONFIG_VALUE_" + n, kv[1]})
		params[i] = "'" + kv[0] + "=" + kv[1] + "'"
	}
	set = append(set, [2]string{"GIT_CONFIG_PARAMETERS", strings.Join(params, " ")})

	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		switch {
		case !ok || name == "" || strings.IndexByte(kv, 0) >= 0:
		case slices.Contains(drop, name):
		case looksSecret(name) && !slices.Contains(allow, name):
		case isGitConfigEnv(name):
		case slices.ContainsFunc(set, func(s [2]string) bool { return s[0] == name }):
		case name == "PATH":
			out = append(out, "PATH="+cleanPath(kv[len("PATH="):], dir, pathAdd))
			pathAdd = nil
		default:
			out = append(out, kv)
		}
	}
	if len(pathAdd) > 0 {
		out = append(out, "PATH="+cleanPath("", dir, pathAdd))
	}
	for _, kv := range set {
		out = append(out, kv[0]+"="+kv[1])
	}
	return out
}

// LooksSecret reports whether an environment variable's name suggests it
// holds a credential, by the rule the bash tool scrubs its environment
// with: the name contains KEY, TOKEN, SECRET, PASSWORD, PASSWD or
// CREDENTIAL, in any case.
func LooksSecret(name string) bool { return looksSecret(name) }

// cleanPath returns a PATH with the entries removed that let the
// workspace plant a program where a command looks for one: empty entries
// and "." (the working directory), relative entries (resolved against
// whatever directory a command runs in), and directories inside the
// workspace dir, whose contents the model may write (a checked-in ./git
// would run for an allowed `git status`). The directories of add, given
// by the user's configuration (absolute, or relative to the workspace),
// are then appended, so that the system's programs still come first.
func cleanPath(value, dir string, add []string) string {
	root := realDir(dir)
	var keep []string
	for _, e := range filepath.SplitList(value) {
		if e == "" || !filepath.IsAbs(e) || pathWithin(realDir(e), root) || pathWithin(filepath.Clean(e), filepath.Clean(dir)) {
			continue
		}
		if !slices.Contains(keep, e) {
			keep = append(keep, e)
		}
	}
	for _, e := range add {
		if !filepath.IsAbs(e) {
			e = filepath.Join(dir, e)
		}
		if !slices.Contains(keep, e) {
			keep = append(keep, e)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// realDir returns dir with symlinks resolved as far as it exists: the
// longest existing prefix is resolved and the rest joined to it, so a
// PATH entry a command could create later is judged by where it would be.
func realDir(dir string) string {
	dir = filepath.Clean(dir)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Join(dir, rest)
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// pathWithin reports whether p is root or inside it.
func pathWithin(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

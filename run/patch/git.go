package patch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/rubichan/rubichan/toolkit"
)

// ownConfig is forced on every git command this package runs besides the
// bash tool's git hardening ([toolkit.GitHardening]): no automatic
// maintenance, no credential helper, no transport at all (a lazy fetch of
// a missing object would run one), no signing program.
var ownConfig = [][2]string{
	{"gc.auto", "0"},
	{"maintenance.auto", "false"},
	{"credential.helper", ""},
	{"protocol.allow", "never"},
	{"protocol.file.allow", "never"},
	{"commit.gpgSign", "false"},
}

// fixedArgs returns the -c options of the hardening, the bash tool's and
// this package's.
func fixedArgs() []string {
	var out []string
	for _, kv := range append(toolkit.GitHardening(), ownConfig...) {
		out = append(out, "-c", kv[0]+"="+kv[1])
	}
	return out
}

// Environment returns the environment of the git commands rubichan runs
// itself, from base ("NAME=value"): the bash tool's scrubbed environment
// ([toolkit.CommandEnv]: no variable that looks secret, none named in
// drop, git hardened, nothing prompting, PATH without the workspace dir),
// without the variables that redirect git to another repository, index
// or configuration, with optional locks off (a read of the user's
// repository must not refresh its index).
func Environment(base, drop []string, dir string) []string {
	env := toolkit.CommandEnv(base, nil, drop, dir, nil)
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
			"GIT_CEILING_DIRECTORIES", "GIT_OPTIONAL_LOCKS", "GIT_CONFIG", "GIT_EXTERNAL_DIFF":
		default:
			out = append(out, kv)
		}
	}
	return append(out, "GIT_OPTIONAL_LOCKS=0")
}

// git runs git commands with a fixed environment, in a directory or
// against an explicit git directory and work tree, with the hardening
// and the blanking of the drivers its configuration names.
type git struct {
	bin      string // the git program, found in env's PATH
	env      []string
	dir      string   // working directory
	gitDir   string   // --git-dir, when set
	workTree string   // --work-tree, when set
	neutral  []string // -c options that blank the configuration's drivers
}

// newGit returns git for a repository, with the drivers its
// configuration names (as git would read it there) blanked. A
// configuration git cannot read, or that names a driver no -c option can
// blank, is an error: the commands would not be safe to run.
func newGit(ctx context.Context, env []string, dir, gitDir, workTree string) (git, error) {
	bin, err := toolkit.LookPathIn("git", env)
	if err != nil {
		return git{}, fmt.Errorf("patch: %w", err)
	}
	g := git{bin: bin, env: env, dir: dir, gitDir: gitDir, workTree: workTree}
	out, err := g.output(ctx, "config", "-z", "--name-only", "--list")
	if err != nil {
		return git{}, err
	}
	g.neutral, err = neutralArgs(string(out))
	return g, err
}

// neutralArgs returns the -c options that blank every driver that keys
// (git config -z --name-only --list) define: a filter's clean, smudge and
// process programs (and required=false, so that a filter without them is
// not an error), and a protocol's allow (never). Textconv and external
// diff drivers need no blanking: the one diff this package runs passes
// --no-ext-diff and --no-textconv, and no other command uses them.
func neutralArgs(keys string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, k := range strings.Split(keys, "\x00") {
		section, rest, ok := strings.Cut(k, ".")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i <= 0 {
			continue
		}
		sub := rest[:i]
		var set [][2]string
		switch strings.ToLower(section) {
		case "filter":
			set = [][2]string{{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}}
		case "protocol":
			set = [][2]string{{"allow", "never"}}
		default:
			continue
		}
		if seen[section+"."+sub] {
			continue
		}
		seen[section+"."+sub] = true
		if strings.ContainsAny(sub, "=\n") {
			return nil, fmt.Errorf("patch: the git configuration names a %s %q that cannot be blanked", section, sub)
		}
		for _, kv := range set {
			out = append(out, "-c", section+"."+sub+"."+kv[0]+"="+kv[1])
		}
	}
	return out, nil
}

func (g git) cmd(ctx context.Context, args ...string) *exec.Cmd {
	full := fixedArgs()
	full = append(full, g.neutral...)
	if g.gitDir != "" {
		full = append(full, "--git-dir="+g.gitDir)
	}
	if g.workTree != "" {
		full = append(full, "--work-tree="+g.workTree)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, g.bin, full...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	return cmd
}

// output runs git and returns its stdout; a failure quotes its stderr.
func (g git) output(ctx context.Context, args ...string) ([]byte, error) {
	cmd := g.cmd(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, gitError(args, err, stderr.String())
	}
	return out, nil
}

// line runs git and returns the first line of its stdout.
func (g git) line(ctx context.Context, args ...string) (string, error) {
	out, err := g.output(ctx, args...)
	s, _, _ := strings.Cut(string(out), "\n")
	return s, err
}

// run runs git for its effect.
func (g git) run(ctx context.Context, args ...string) error {
	_, err := g.output(ctx, args...)
	return err
}

// stream runs git with its stdout going to w.
func (g git) stream(ctx context.Context, w io.Writer, args ...string) error {
	cmd := g.cmd(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stdout = w
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return gitError(args, err, stderr.String())
	}
	return nil
}

func gitError(args []string, err error, stderr string) error {
	msg := strings.TrimSpace(stderr)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = strings.TrimSpace(msg[i+1:])
	}
	if msg != "" {
		return fmt.Errorf("patch: git %s: %w: %s", args[0], err, msg)
	}
	return fmt.Errorf("patch: git %s: %w", args[0], err)
}

// Run runs one git command in dir as this package runs its own, for
// other commands of rubichan that run git on a checkout (doctor): env as
// [Environment] builds it, git found in its PATH, the hardening forced and
// the drivers of the configuration blanked. It returns git's stdout.
func Run(ctx context.Context, env []string, dir string, args ...string) ([]byte, error) {
	g, err := newGit(ctx, env, dir, "", "")
	if err != nil {
		return nil, err
	}
	return g.output(ctx, args...)
}

// Program returns the git program the commands of this package run: the
// one env's PATH names.
func Program(env []string) (string, error) { return toolkit.LookPathIn("git", env) }

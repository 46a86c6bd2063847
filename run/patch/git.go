package patch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// gitConfig is forced on every git command this package runs: no hooks,
// no file system monitor and no pager, whatever the user's or the
// repository's configuration says.
var gitConfig = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.pager=cat",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
}

// gitEnv returns env without the variables that redirect git to another
// repository, index or configuration, with optional locks off (a read of
// the user's repository must not refresh its index) and prompts off.
func gitEnv(env []string) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "GIT_DIR", name == "GIT_WORK_TREE", name == "GIT_INDEX_FILE",
			name == "GIT_OBJECT_DIRECTORY", name == "GIT_ALTERNATE_OBJECT_DIRECTORIES",
			name == "GIT_COMMON_DIR", name == "GIT_NAMESPACE", name == "GIT_CEILING_DIRECTORIES",
			name == "GIT_OPTIONAL_LOCKS", name == "GIT_TERMINAL_PROMPT",
			name == "GIT_CONFIG_COUNT", name == "GIT_CONFIG_PARAMETERS",
			strings.HasPrefix(name, "GIT_CONFIG_KEY_"), strings.HasPrefix(name, "GIT_CONFIG_VALUE_"):
		default:
			out = append(out, kv)
		}
	}
	return append(out, "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
}

// git runs git commands with a fixed environment, in a directory or
// against an explicit git directory and work tree.
type git struct {
	env      []string
	dir      string // working directory
	gitDir   string // --git-dir, when set
	workTree string // --work-tree, when set
}

func (g git) cmd(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{}, gitConfig...)
	if g.gitDir != "" {
		full = append(full, "--git-dir="+g.gitDir)
	}
	if g.workTree != "" {
		full = append(full, "--work-tree="+g.workTree)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
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

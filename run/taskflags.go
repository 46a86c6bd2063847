package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/tasks"
	"github.com/urfave/cli/v2"
)

// taskFlags are the flags that pick one task of a fan-out's tasks file
// (see docs/scale-out.md).
func taskFlags(category string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "tasks", Usage: "run one task of the tasks `FILE` (JSON lines: prompt; optional id, dir, policy, allow, model), picked by --task-index", EnvVars: envs("tasks"), Category: category, TakesFile: true},
		&cli.StringFlag{Name: "task-index", Usage: "with --tasks: run task `N` (from 0); default: JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), else CI_NODE_INDEX - 1 (GitLab parallel)", EnvVars: envs("task-index"), Category: category},
	}
}

// applyTask runs the task --tasks and --task-index pick, if any: its
// fields act as flags. prompt is the PROMPT arguments (there must be
// none, nor --prompt-file); dir, a directory inside the workspace, becomes
// the workspace; policy replaces --policy (a relative path from the tasks
// file's directory); allow adds to --allow; model replaces --model. A
// tasks file inside the workspace follows the workspace trust rule: its
// policy and allow are ignored, with a note, unless --trust-workspace.
// cfg.Dir is the resolved workspace. Every problem is a usage error.
func (cfg *execConfig) applyTask(c *cli.Context, env environment) error {
	file := c.String("tasks")
	if file == "" {
		if c.String("task-index") != "" {
			return exit.Usagef("--task-index needs --tasks FILE")
		}
		return nil
	}
	index, _, err := tasks.Index(c.String("task-index"), env.LookupEnv)
	if err != nil {
		return exit.Usagef("%w", err)
	}
	t, err := tasks.Pick(file, index)
	if err != nil {
		return exit.Usagef("%w", err)
	}
	if len(cfg.PromptArgs) > 0 || cfg.PromptFile != "" {
		return exit.Usagef("--tasks gives the prompt (task %s of %s); drop the PROMPT arguments and --prompt-file", t.Name(), file)
	}
	root, where := cfg.Dir, fmt.Sprintf("task %s of %s", t.Name(), file)
	if t.Dir != "" {
		if cfg.Dir, err = taskDir(cfg.Dir, t.Dir); err != nil {
			return exit.Usagef("%s: %w", where, err)
		}
	}
	if t.Model != "" {
		if err := c.Set("model", t.Model); err != nil {
			return exit.Usagef("%s: model: %w", where, err)
		}
	}
	cfg.PromptArgs = []string{t.Prompt}
	if t.Policy == "" && len(t.Allow) == 0 {
		return nil
	}
	if !cfg.TrustWorkspace && (insideDir(file, root) || linkInside(file, root)) {
		fmt.Fprintf(c.App.ErrWriter, "rubichan: note: ignoring the policy and allow of task %s in %s, which is inside the workspace (a checkout may be untrusted); pass --trust-workspace to use them\n", t.Name(), file)
		return nil
	}
	if t.Policy != "" {
		cfg.PolicyFile = t.Policy
		if !filepath.IsAbs(t.Policy) {
			cfg.PolicyFile = filepath.Join(filepath.Dir(file), t.Policy)
		}
	}
	cfg.Allow = append(cfg.Allow, t.Allow...)
	return nil
}

// taskDir is a task's dir inside the workspace root: relative, not
// leaving root, also through symlinks, and a directory.
func taskDir(root, dir string) (string, error) {
	if !filepath.IsLocal(dir) {
		return "", fmt.Errorf("dir %q is not a directory inside the workspace", dir)
	}
	abs := filepath.Join(root, dir)
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("dir %q: %w", dir, err)
	}
	if !insideDir(real, root) {
		return "", fmt.Errorf("dir %q is not a directory inside the workspace", dir)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("dir %q is not a directory", dir)
	}
	return abs, nil
}

// insideDir reports whether path is dir or lies beneath it, symlinks
// evaluated ("" is the current directory).
func insideDir(path, dir string) bool {
	if dir == "" {
		dir = "."
	}
	p, err1 := realAbs(path)
	d, err2 := realAbs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// linkInside reports whether the name path, its directory's symlinks
// evaluated but not its own, lies beneath dir: a symlink inside the
// workspace is the checkout's choice wherever it points.
func linkInside(path, dir string) bool {
	parent, err := realAbs(filepath.Dir(path))
	return err == nil && insideDir(parent, dir)
}

func realAbs(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

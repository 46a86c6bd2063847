package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SelfEnv names the running rubichan binary in the environment of the
// bash tool's commands: a link to it in a private directory, which is
// also first on their PATH, so that `rubichan query` works whatever PATH
// holds (a run started as ./bin/rubichan, say).
const SelfEnv = "RUBICHAN"

// selfLinkDir makes a private directory (outside the run's TMPDIR, which
// the sandbox lets commands write) holding only "rubichan", a link to
// exe. The binary's own directory is never put on PATH: it may lie in
// the workspace, where the model could plant a `go` or a `git`. The
// caller removes the directory.
func selfLinkDir(exe string) (string, error) {
	dir, err := os.MkdirTemp("", "rubichan-bin-")
	if err != nil {
		return "", fmt.Errorf("harness: rubichan link: %w", err)
	}
	if err := os.Symlink(exe, filepath.Join(dir, "rubichan")); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("harness: rubichan link: %w", err)
	}
	return dir, nil
}

// withSelfOnPath is env with dir first on PATH and $RUBICHAN naming
// the link in it (an inherited $RUBICHAN is replaced).
func withSelfOnPath(env []string, dir string) []string {
	out := make([]string, 0, len(env)+2)
	path := dir
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, SelfEnv+"="):
		case strings.HasPrefix(kv, "PATH="):
			if rest := kv[len("PATH="):]; rest != "" {
				path = dir + string(filepath.ListSeparator) + rest
			}
		default:
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+path, SelfEnv+"="+filepath.Join(dir, "rubichan"))
}

// binaryInWorkspace is the path of the running binary when it lies in
// the workspace root (./bin/rubichan, the README's make build route),
// else "". The policy allows `rubichan query` and the bash tool's
// commands reach this binary as rubichan ($RUBICHAN): a tool that could
// replace it (under write:**) would have its own program run under that
// rule, so [Open] guards it from writes. Outside the workspace only an
// absolute allow rule reaches it.
func binaryInWorkspace(root string) string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if _, ok := within(root, exe); !ok {
		return ""
	}
	return exe
}

package toolkit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LookPathIn finds the program name in the PATH of env ("NAME=value"
// entries; the last PATH wins), not in rubichan's own: a command rubichan
// starts itself with the environment [CommandEnv] built must be the one
// that cleaned PATH names, never a program the workspace planted in a
// directory of the inherited PATH. Only absolute PATH entries are
// searched.
func LookPathIn(name string, env []string) (string, error) {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("toolkit: %s: %w", name, errNotInPath)
}

var errNotInPath = errors.New("executable file not found in the cleaned PATH")

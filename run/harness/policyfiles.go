package harness

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxListedFiles bounds the files listed for one directory the policy
// judges a recursive search or removal on; beyond it the policy judges by
// what a rule could match beneath the directory instead.
const maxListedFiles = 20000

// ListFiles returns the lister the policy judges recursive searches and
// removals with ([policy.Action.Files]): every file and directory beneath
// dir (workspace-relative in slash form, or absolute), named as dir
// joined with its path beneath it, as they are when the call is judged.
// A symbolic link is listed with the path it resolves to (resolve, the
// workspace's resolver), so a search that follows links is judged by its
// target too; the listing is incomplete (false) when a link cannot be
// resolved, a file has more than one hard link, a directory cannot be
// read, or there are more than maxListedFiles entries.
func ListFiles(root string, resolve func(string) (string, error)) func(string) ([]string, bool) {
	return func(dir string) ([]string, bool) {
		abs := filepath.FromSlash(dir)
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, abs)
		}
		if fi, err := os.Lstat(abs); err != nil {
			return nil, os.IsNotExist(err) // nothing there: nothing beneath
		} else if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, false // grep -r follows a link it is given: judged by the link's target
		} else if !fi.IsDir() {
			return nil, true
		}
		var out []string
		complete := true
		err := filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				complete = false
				return fs.SkipAll
			}
			if p == abs {
				return nil
			}
			rel, err := filepath.Rel(abs, p)
			if err != nil {
				complete = false
				return fs.SkipAll
			}
			name := path.Join(dir, filepath.ToSlash(rel))
			out = append(out, name)
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				target, err := resolve(name)
				if fi, serr := os.Stat(p); err != nil || target == "" || serr == nil && fi.IsDir() {
					// grep -R walks into a linked directory: what it
					// holds is not listed here
					complete = false
					return fs.SkipAll
				}
				if target != name {
					out = append(out, target)
				}
			case d.Type().IsRegular() && LinkCount(p) > 1:
				complete = false
				return fs.SkipAll
			}
			if len(out) > maxListedFiles {
				complete = false
				return fs.SkipAll
			}
			return nil
		})
		if err != nil || !complete {
			return nil, false
		}
		return out, true
	}
}

// ShellEnv is what the policy knows of the variables a command will see
// ([policy.Action.Env]): the bash tool's HOME, TMPDIR and USER (vars, from
// [toolkit.Bash.Vars]) and PWD, the directory it runs in. A value the
// shell would split or glob is left out, so its expansion stays opaque.
func ShellEnv(root, dir string, vars map[string]string) map[string]string {
	env := map[string]string{}
	for _, name := range []string{"HOME", "TMPDIR", "USER"} {
		if v, ok := vars[name]; ok && plainValue(v) {
			env[name] = v
		}
	}
	pwd := filepath.ToSlash(root)
	if dir != "" && dir != "." {
		if path.IsAbs(dir) {
			pwd = dir
		} else {
			pwd = path.Join(pwd, dir)
		}
	}
	if plainValue(pwd) {
		env["PWD"] = pwd
	}
	return env
}

// plainValue reports whether an expansion of v is v itself: not empty,
// and nothing the shell would split or glob.
func plainValue(v string) bool { return v != "" && !strings.ContainsAny(v, " \t\n*?[") }

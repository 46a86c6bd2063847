package toolkit

import (
	"bytes"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxIgnoreFile bounds the size of an ignore file read during a walk.
const maxIgnoreFile = 1 << 20

// repoIgnores loads the ignore files that apply to the directory dir, a
// root of the workspace, from the git repository it lies in: the
// repository's info/exclude, and, when dir is below the repository's top
// directory (the workspace is a subdirectory of a checkout), the
// .gitignore files of the directories from the top down to dir's parent,
// so that the tools see ignored files as git does. dir itself is never
// ignored by them. Nothing is loaded outside a repository; the user's
// global excludes file is not read.
func repoIgnores(dir string) ignoreStack {
	top := dir
	for !exists(filepath.Join(top, ".git")) {
		parent := filepath.Dir(top)
		if parent == top {
			return nil
		}
		top = parent
	}
	var stack ignoreStack
	below := func(d string) string { // the slash path from d down to dir
		rel, err := filepath.Rel(d, dir)
		if err != nil || rel == "." {
			return ""
		}
		return filepath.ToSlash(rel)
	}
	if data, err := readIgnoreAt(filepath.Join(gitCommonDir(top), "info"), "exclude"); err == nil {
		f := parseGitignore("", data)
		f.above = below(top)
		stack = append(stack, f)
	}
	for d := top; d != dir; {
		if data, err := readIgnoreAt(d, ".gitignore"); err == nil {
			f := parseGitignore("", data)
			f.above = below(d)
			stack = append(stack, f)
		}
		next, _, _ := strings.Cut(below(d), "/")
		d = filepath.Join(d, filepath.FromSlash(next))
	}
	return stack
}

// gitCommonDir returns the git directory holding info/exclude for the
// repository whose top directory is top: top/.git, or, when .git is a file
// (a linked worktree or a submodule), the directory it points to, or the
// common directory of a worktree.
func gitCommonDir(top string) string {
	dotGit := filepath.Join(top, ".git")
	fi, err := os.Lstat(dotGit)
	if err != nil || fi.IsDir() || !fi.Mode().IsRegular() {
		return dotGit
	}
	data, err := readIgnoreAt(top, ".git")
	if err != nil {
		return dotGit
	}
	gitDir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return dotGit
	}
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(top, gitDir)
	}
	if data, err := readIgnoreAt(gitDir, "commondir"); err == nil {
		common := string(bytes.TrimSpace(data))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		return filepath.Clean(common)
	}
	return gitDir
}

// exists reports whether the path names anything, a dangling symlink
// included.
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// readIgnoreAt reads the ignore file name in the directory dir.
func readIgnoreAt(dir, name string) ([]byte, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readIgnoreFile(r, name)
}

// ancestorIgnores loads the .gitignore files of the directories of the
// root r above the directory base (slash, relative to r), where a walk
// starts.
func ancestorIgnores(r *os.Root, base string) ignoreStack {
	var stack ignoreStack
	if base == "" {
		return stack
	}
	dir := "" // the root, then each directory strictly above base
	for _, elem := range splitRel(filepath.FromSlash(base)) {
		if data, err := readIgnoreFile(r, filepath.Join(filepath.FromSlash(dir), ".gitignore")); err == nil {
			stack = append(stack, parseGitignore(dir, data))
		}
		dir = path.Join(dir, elem)
	}
	return stack
}

// readIgnoreFile reads an ignore file if it is a regular file (not a
// symlink, as git ≥ 2.32 does not follow them, nor a FIFO that would block
// the walk) of reasonable size.
func readIgnoreFile(r *os.Root, name string) ([]byte, error) {
	f, err := r.OpenFile(name, readFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxIgnoreFile {
		return nil, errors.New("not a regular file of reasonable size")
	}
	return readInto(f, nil, maxIgnoreFile)
}

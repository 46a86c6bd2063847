package policy

import (
	"path"
	"slices"
)

// A command that creates or replaces links or files and a redirect or a
// file operand of another command in the same command line: the policy
// resolves every path before anything runs, so `ln -s ../.git/config c &&
// echo x >> c` would be judged as a write of c, a plain file, while it
// writes .git/config. Such a line is opaque (ask, never allow); in two
// calls the second is judged after the link exists.

// linkMakers create or replace links or files at names other commands of
// the line may use.
var linkMakers = map[string]bool{
	"ln": true, "link": true, "cp": true, "mv": true, "install": true, "rsync": true,
	"cpio": true, "patch": true, "7z": true, "ar": true,
}

// gitLinkMakers are git subcommands that write the working tree, where a
// checked-in symlink lands.
var gitLinkMakers = map[string]bool{
	"checkout": true, "switch": true, "restore": true, "reset": true, "stash": true, "clone": true,
	"worktree": true, "pull": true, "merge": true, "rebase": true, "am": true, "apply": true,
	"cherry-pick": true, "revert": true, "read-tree": true, "checkout-index": true, "submodule": true,
	"bisect": true, "sparse-checkout": true,
}

// makesLinks reports whether argv creates or replaces links or files.
func makesLinks(argv []word) bool {
	if len(argv) == 0 || !argv[0].exact {
		return false
	}
	name := path.Base(argv[0].value)
	if name == "git" {
		sub := gitSubIndex(argv)
		return sub < 0 || gitLinkMakers[argv[sub].value]
	}
	if name == "cp" {
		return cpKeepsLinks(argv)
	}
	if extractors[name] {
		return slices.ContainsFunc(findOptions(argv), func(f optFinding) bool { return f.spec.effect == optWriteTree })
	}
	return linkMakers[name]
}

// cpKeepsLinks reports whether a cp may create a link: with -s or -l,
// or when it copies symlinks as symlinks (-P, -d, -a, -R, -r and their
// long forms), or with a word the analysis cannot read. A plain cp
// creates regular files; its sources are read facts, resolved through
// links when judged, and a destination that is already a link is a
// write judged by its target.
func cpKeepsLinks(argv []word) bool {
	p := getopt{val: "tS", long: map[string]bool{"--target-directory": true, "--suffix": true}}.parse(argv)
	if len(p.globs) > 0 {
		return true
	}
	for _, w := range argv[1:] {
		if !w.exact && w.glob == "" {
			return true
		}
	}
	return p.has("-s", "-l", "-P", "-d", "-a", "-R", "-r", "--symbolic-link", "--link", "--no-dereference",
		"--archive", "--recursive", "--preserve", "--parents")
}

// extractors make links only when they extract (tar -x, unzip without a
// listing mode), which their models report as a tree write.
var extractors = map[string]bool{"tar": true, "gtar": true, "bsdtar": true, "unzip": true}

// linkLine makes the line opaque when a link maker shares it with a
// redirect or with another command's file operands.
func (a *analyzer) linkLine() {
	if len(a.makers) == 0 {
		return
	}
	others := len(a.makers) > 1
	for _, rf := range a.facts {
		if rf.kind != FactRead && rf.kind != FactWrite {
			continue
		}
		if !slices.Contains(a.makers, rf.owner) {
			others = true
		}
	}
	if others {
		a.opaque("a command that creates links or files, with redirects or other file operands in the same line "+
			"(those paths are judged before the links exist; run it in its own call)", shorten(a.src, 200))
	}
}

// Package patch is the private workspace of `rubichan exec --patch`: a
// copy of the user's checkout that the agent works on, and the patch of
// everything changed in it against the base it started from.
//
// [Prepare] makes the copy, a work tree in a private temporary directory.
// Its base is recorded in a git directory beside the work tree, never in it
// ([Copy.GitDir]), which in a git repository borrows the user's objects
// through objects/info/alternates (what `git clone --shared` does, without
// copying refs). In a git repository the copy starts from the working tree
// as it is: HEAD, plus the uncommitted changes and the untracked files that
// are not ignored, and the work tree gets a repository of its own for the
// agent, made from the base before any tool runs and never used by this
// package again. Nothing is written into the user's checkout or its .git:
// every git command that reads it runs with GIT_OPTIONAL_LOCKS=0, so not
// even the index's stat cache is refreshed. Outside git the copy is a plain
// copy of the directory, bounded in size.
//
// Every git command runs with the bash tool's scrubbed environment
// ([Environment]), git found in its cleaned PATH, the bash tool's git
// hardening and this package's, and each filter driver and protocol the
// configuration names blanked: no program a configuration names runs, the
// checkout's or one that code in the copy wrote.
//
// [Copy.Write] streams the patch of the copy against that base in git's
// format with binary hunks, preceded by a short header naming the base
// commit and whether the checkout was dirty. It applies with `git apply`
// to the base, and a text-only patch also with `patch -p1`.
//
// A Copy is not safe for concurrent use. After a SIGKILL its temporary
// directory stays behind in the temporary directory (never in the
// checkout).
//
// It is a format leaf: the harness and doctor import it.
package patch

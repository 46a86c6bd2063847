// Package patch is the private workspace of `rubichan exec --patch`: a
// copy of the user's checkout that the agent works on, and the patch of
// everything changed in it against the base it started from.
//
// [Prepare] makes the copy. In a git repository it is a repository of its
// own in a private temporary directory whose object store borrows the
// user's through objects/info/alternates (what `git clone --shared` does,
// without copying refs); it starts from the working tree as it is: HEAD,
// plus the uncommitted changes and the untracked files that are not
// ignored. Nothing is written into the user's checkout or its .git: every
// git command that reads it runs with GIT_OPTIONAL_LOCKS=0, so not even
// the index's stat cache is refreshed. Outside git the copy is a plain copy
// of the directory, bounded in size, with a git directory of its own beside
// it (not inside it) to record the base.
//
// [Copy.Write] streams the patch of the copy against that base in git's
// format with binary hunks, preceded by a short header naming the base
// commit and whether the checkout was dirty. It applies with `git apply`
// to the base, and a text-only patch also with `patch -p1`.
//
// A Copy is not safe for concurrent use. After a SIGKILL its temporary
// directory stays behind in the temporary directory (never in the
// checkout).
package patch

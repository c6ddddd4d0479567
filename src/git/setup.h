/*
 * setup.h: the repository garchive runs in, found as git's setup finds
 * it.
 */
#ifndef GARCHIVE_SETUP_H
#define GARCHIVE_SETUP_H

#include <stddef.h>

#include <git2/types.h>

/*
 * Open the repository: GIT_DIR names it (no discovery), else it is
 * discovered from the current directory (GIT_CEILING_DIRECTORIES
 * applies); the work tree is GIT_WORK_TREE, core.worktree, or the
 * current directory unless the repository is bare.  Its objects are
 * read through garchive's object database (odb.h).
 *
 * Outside any repository *out is NULL and that is no error (git goes on
 * until one is needed); so it is for a discovered repository owned by
 * someone else that `overrides` (-c safe.directory=...) and the
 * configuration do not trust, whose path is then in *dubious, for
 * safedir_refuse().  *cwd_prefix is "" or "dir/sub/", the
 * subdirectory of the work tree we run in.  Returns 0 or an error
 * ("not a git repository: '<GIT_DIR>'", "bad config line ...").
 */
int setup_repository(git_repository **out, char **cwd_prefix,
		     char **dubious, const char *const *overrides,
		     size_t nr_overrides);

#endif

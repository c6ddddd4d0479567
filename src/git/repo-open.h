/*
 * repo-open.h: opening a repository with libgit2, SHA-256 ones included.
 *
 * garchive reads the objects and refs of a SHA-256 repository itself
 * (odb.h, refdb.h) and needs from libgit2 only the repository handle:
 * its paths, work tree and configuration.  libgit2 1.5 (Debian 12) opens
 * such a repository, as it does not look at extensions.objectFormat;
 * libgit2 1.9 (Debian 13), built without its experimental SHA-256
 * support as every distribution builds it, refuses it ("unknown object
 * format 'sha256'").  repo_open() then opens it anyway: see repo-open.c.
 */
#ifndef GARCHIVE_REPO_OPEN_H
#define GARCHIVE_REPO_OPEN_H

#include <git2/types.h>

/*
 * git_repository_open_ext(), with the same arguments and results, that
 * also opens SHA-256 repositories where libgit2 refuses their object
 * format.  On failure libgit2's error is the one of its first attempt.
 */
int repo_open(git_repository **out, const char *path, unsigned int flags,
	      const char *ceiling_dirs);

/*
 * The common directory of `repo` (its own git directory, or the main
 * one for a linked worktree), as git's get_common_dir() finds it, with
 * a trailing slash as libgit2 gives it; use this, not
 * git_repository_commondir(), which for a repository repo_open() had to
 * open the other way names a directory that is gone.  Free it.
 */
char *repo_commondir(git_repository *repo);

#endif

/*
 * safedir.h: whether a repository that belongs to someone else may be
 * used, as git 2.39.5 decides (its ensure_valid_ownership()).
 *
 * git refuses a repository whose directories another user owns, so that
 * a hostile repository's configuration (filters, hooks) cannot run code
 * as the user who merely cd'ed into it, unless safe.directory in the
 * system, global or command-line configuration names it (or is "*").
 * libgit2 1.5 has a check of its own, with other rules and messages:
 * garchive turns it off and makes this one where git makes its own.
 */
#ifndef GARCHIVE_SAFEDIR_H
#define GARCHIVE_SAFEDIR_H

#include <stddef.h>

/*
 * Set *ok to 1 when each of `gitfile` (a ".git" file), `worktree` and
 * `gitdir` that is not NULL is owned (lstat) by the effective user -
 * for root, by root, or by the user SUDO_UID names - and
 * GIT_TEST_ASSUME_DIFFERENT_OWNER does not say otherwise; or else when
 * safe.directory allows `worktree`, or `gitdir` without one, as given
 * (git 2.39 compares the path as it found it, resolving nothing).  safe.directory is read, only then, from the system,
 * global and command-line configuration (`overrides` are garchive's -c
 * options), never the repository's.  Returns 0, or GA_ERROR with git's
 * message (a bad boolean in GIT_TEST_ASSUME_DIFFERENT_OWNER, a
 * configuration that cannot be read, a "~user" that does not expand).
 */
int safedir_check(int *ok, const char *const *overrides, size_t nr_overrides,
		  const char *gitfile, const char *worktree,
		  const char *gitdir);

/*
 * Store git's refusal for the repository at `shown`, with the hint
 * that adds an exception, and return GA_ERROR.
 */
int safedir_refuse(const char *shown);

#endif

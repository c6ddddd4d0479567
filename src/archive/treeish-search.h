/*
 * treeish-search.h: the commit whose message matches a regular
 * expression, for ":/<text>" and "<rev>^{/<text>}" (git's
 * get_oid_oneline() in object-name.c), in either hash and either ref
 * format.
 */
#ifndef GARCHIVE_TREEISH_SEARCH_H
#define GARCHIVE_TREEISH_SEARCH_H

#include <stddef.h>

#include <git2/types.h>

#include "odb/oid.h"

struct refs_store;

/*
 * Walk the history of the commits `starts` (`nr` of them, in the order
 * git's commit list holds them) youngest first by committer date, ties
 * in the order commits were queued, as git 2.39 and 2.51+ walk it, and
 * find the first commit whose message (the text after the header's
 * blank line) matches `pattern`, a POSIX extended regular expression.
 * "!-<re>" finds the first that does not match, "!!<re>" stands for
 * "!<re>", and every other pattern starting with "!" is reserved and
 * matches nothing, as git has it.  Commits that cannot be read are
 * skipped, as git skips them.  Returns 0 with *out, or GA_ENOTFOUND
 * (no match, a bad or reserved pattern: git says only "not a valid
 * object name").
 */
int treeish_search_commits(struct ga_oid *out, git_odb *odb,
			   const struct ga_oid *starts, size_t nr,
			   const char *pattern);

/*
 * ":/<pattern>": treeish_search_commits() from every ref under refs/
 * and HEAD, each peeled to a commit (a ref to anything else, or to an
 * object that cannot be read, is left out), in git's order.  Returns
 * as treeish_search_commits(), or GA_ERROR when the refs cannot be
 * read.
 */
int treeish_search_refs(struct ga_oid *out, git_odb *odb,
			struct refs_store *refs, const char *pattern);

#endif

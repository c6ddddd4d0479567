/*
 * treeish-search.h: the commit whose message matches a regex, for the
 * tree-ish forms ":/<text>" and "<rev>^{/<text>}" (git's
 * get_oid_oneline(), object-name.c), read from garchive's object and
 * ref stores so that it works in repositories of either hash and ref
 * format.
 */
#ifndef GARCHIVE_TREEISH_SEARCH_H
#define GARCHIVE_TREEISH_SEARCH_H

#include <stddef.h>

#include <git2/types.h>
#include "odb/oid.h"

struct refs_store;

/*
 * The youngest commit reachable from `tips` (commit ids, in the order
 * git's list holds them) whose message matches `pattern`, walked as git
 * walks it: the tips sorted by committer date, newest first (a stable
 * sort: ties keep their order), then the newest commit of the list is
 * taken each time and its parents, each seen for the first time, go in
 * by date after the commits of the same date.  The message is what
 * follows the first blank line of the raw commit; `pattern` is a POSIX
 * extended regex, with git's prefixes: "!-" finds the first commit
 * that does not match, "!!" stands for a literal "!", and any other
 * "!" is reserved (no match).  Parents are those of git's grafts and
 * shallow file.  Returns 0 with *out, GA_ENOTFOUND when nothing
 * matches or the pattern does not compile, or another error.
 */
int treeish_search(struct ga_oid *out, git_repository *repo, git_odb *odb,
		   const struct ga_oid *tips, size_t nr, const char *pattern);

/*
 * ":/<text>": treeish_search() from every ref under refs/ and HEAD, as
 * git lists them (refs in name order, each put in front of the list,
 * HEAD last, so in front), tags peeled to their commits; refs to
 * other objects or to missing ones are left out.  Returns as
 * treeish_search().
 */
int treeish_search_refs(struct ga_oid *out, git_repository *repo,
			git_odb *odb, struct refs_store *refs,
			const char *pattern);

#endif

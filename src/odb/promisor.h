/*
 * promisor.h: partial clones (`git clone --filter=blob:none`), whose
 * missing objects git fetches from a promisor remote when it needs
 * them, through `git fetch` (git 2.39.5's promisor-remote.c).
 *
 * The promisor remotes are those with remote.<name>.promisor true or a
 * remote.<name>.partialclonefilter, in configuration order, and the one
 * extensions.partialClone names, moved last.  GIT_NO_LAZY_FETCH (a
 * boolean) turns fetching off, with git's warning; git 2.39 has no
 * --no-lazy-fetch option (it came in 2.45).
 */
#ifndef GARCHIVE_PROMISOR_H
#define GARCHIVE_PROMISOR_H

#include <stddef.h>

#include <git2/types.h>

#include "odb/oid.h"

struct ga_config;

/*
 * Fetch the blobs of tree `tree_id` (recursively, gitlinks aside) that
 * `repo` lacks, in one `git fetch`, as git archive does when it reads
 * the tree into its index for attributes (cache_tree_update()'s
 * prefetch).  Nothing happens without a promisor remote.  Returns 0, or
 * GA_ERROR with git's message: "could not fetch <id> from promisor
 * remote" for the first blob still missing, "promisor-remote: unable to
 * fork off fetch subprocess".
 */
int promisor_prefetch_tree(git_repository *repo, const struct ga_config *cfg,
			   const struct ga_oid *tree_id);

/*
 * Fetch the objects `ids` that `repo` lacks from its promisor remotes,
 * as git's promisor_remote_get_direct(): one `git fetch` per remote until
 * all are there.  The one place a lazy fetch happens: call it where an
 * object is not found (for several `ids`, not from inside a libgit2 read
 * of `repo`'s objects: it looks at what arrived through them).  Returns 0 (also without promisor remotes) or
 * GA_ERROR as promisor_prefetch_tree().
 */
int promisor_fetch(git_repository *repo, const struct ga_config *cfg,
		   const struct ga_oid *ids, size_t nr);

/*
 * Add to `odb`, `repo`'s, a backend of the given (lowest) priority that
 * a read reaches only when no other backend has the object: it fetches
 * it with promisor_fetch(), once, and libgit2 then refreshes the others
 * and reads it again, as git's object reading does
 * (oid_object_info_extended()).  A repository without promisor remotes
 * gets none.  Returns 0 or GA_ERROR.
 */
int promisor_backend_add(git_odb *odb, git_repository *repo, int priority);

/*
 * The same fetch of `id`, once, for a read of `odb` that did not find
 * it and does not go through libgit2 (a SHA-256 database, odb.h): 0
 * when a fetch was tried (or was tried before) and the store is to look
 * again, GA_ENOTFOUND when `odb` has no such backend, or GA_ECORRUPT
 * with git's fatal line in libgit2's error when the fetch failed.
 */
int promisor_lazy_fetch(git_odb *odb, const struct ga_oid *id);

#endif

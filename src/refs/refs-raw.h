/*
 * refs-raw.h: what the backends of the ref store share with it: the
 * name rules of refname.c, a ref as a backend reads it, and the
 * iterators the store merges.
 *
 * Backends hand out "raw" refs: one level, a symbolic ref not followed.
 * refs.c follows symbolic refs, routes names to worktrees and merges
 * what the backends yield, in one place for both formats.
 */
#ifndef GARCHIVE_REFS_RAW_H
#define GARCHIVE_REFS_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "garchive/common.h"
#include "refs/refs.h"

/* Where git keeps a ref (its parse_worktree_ref()). */
enum refname_worktree {
	REFNAME_WORKTREE_CURRENT,	/* HEAD, refs/bisect/...: this one's */
	REFNAME_WORKTREE_SHARED,	/* refs/heads/...: the common dir's */
	REFNAME_WORKTREE_MAIN,		/* main-worktree/HEAD */
	REFNAME_WORKTREE_OTHER		/* worktrees/<id>/HEAD */
};

/*
 * Which worktree's storage holds `name`, with the name it has there in
 * *bare (a suffix of `name`) and, for REFNAME_WORKTREE_OTHER, the
 * worktree's id in *wt_name (*wt_len bytes, not NUL-terminated).
 */
enum refname_worktree refname_worktree(const char *name,
				       const char **wt_name, size_t *wt_len,
				       const char **bare);

/* git's refname_is_safe(): no escape from refs/ through "..". */
int refname_is_safe(const char *name);
/* git's is_pseudo_ref(): FETCH_HEAD and MERGE_HEAD. */
int refname_is_pseudo(const char *name);
/* git's is_root_ref(): HEAD, *_HEAD and a few more, in the git dir. */
int refname_is_root(const char *name);
/* refs/worktree/, refs/bisect/, refs/rewritten/. */
int refname_is_per_worktree(const char *name);

/* A ref as a backend reads it. */
struct refs_raw {
	struct ga_buf name;
	struct ga_oid oid;	/* unless REFS_ISSYMREF */
	struct ga_oid peeled;	/* with REFS_PEELED */
	struct ga_buf target;	/* with REFS_ISSYMREF */
	unsigned flags;		/* REFS_ISSYMREF, ISPACKED, ISBROKEN, ... */
};

void refs_raw_release(struct refs_raw *raw);

/*
 * An iteration over raw refs in byte order of their names.  next()
 * returns 0 with it->cur set, 1 at the end, or a negative code with the
 * error set; free() releases it (NULL-safe through refs_iter_free()).
 */
struct refs_iter {
	int (*next)(struct refs_iter *it);
	void (*free)(struct refs_iter *it);
	struct refs_raw cur;
};

void refs_iter_free(struct refs_iter *it);

#endif

/*
 * refs-internal.h: the ref store's own state, shared by refs.c (reads,
 * symbolic refs) and refs-each.c (iterations, reflogs).
 */
#ifndef GARCHIVE_REFS_INTERNAL_H
#define GARCHIVE_REFS_INTERNAL_H

#include "refs/packed.h"
#include "refs/refs-raw.h"
#include "refs/rtstack.h"

struct refs_other_stack {
	char *id;
	struct rtstack st;
};

struct refs_store {
	char *git_dir, *common_dir;
	enum ga_hash_algo algo;
	enum refs_storage storage;
	int is_worktree;		/* a linked worktree: own refs apart */
	struct packed_refs packed;
	int packed_loaded;
	struct rtstack main_stack;	/* <common>/reftable */
	struct rtstack wt_stack;	/* <git dir>/reftable, in a worktree */
	struct refs_other_stack *others;	/* worktrees/<id>/... */
	size_t others_nr, others_alloc;
};

/*
 * git's files_ref_path() (`logs` "") and files_reflog_path() (`logs`
 * "logs/"): where the files format keeps `refname`.  Malloc'd.
 */
char *refs_store_path(const struct refs_store *refs, const char *refname,
		      const char *logs);

/* Read packed-refs, unless done already: 0 or GA_ERROR. */
int refs_store_load_packed(struct refs_store *refs);

/*
 * The reftable stack that holds `refname` (git's stack_for()), loaded,
 * with the name it has there in *bare; NULL with the error set.
 */
struct rtstack *refs_store_stack(struct refs_store *refs,
				 const char *refname, const char **bare);

#endif

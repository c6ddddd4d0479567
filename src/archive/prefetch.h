/*
 * prefetch.h: blob reads ahead of the walk, on worker threads.
 *
 * Inflating and delta-resolving blobs is most of the time of a tar
 * archive.  A scout on the walk's thread runs through the archived tree
 * ahead of the walk (tree order; pathspecs prune it where no attribute
 * is needed) and queues a read for every blob and symlink it meets.
 * Worker threads, each with its own object database handle, read them
 * in queue order under a byte budget.  The walk then takes the blobs in
 * its own order, which is the scout's minus what it skips
 * (export-ignore, pathspecs needing attributes): entries it skips are
 * dropped from the queue.  Attribute lookups, conversion and every
 * diagnostic stay on the walk's thread, in order.
 *
 * A worker's error stays with its job and is reported only when the
 * walk takes that blob, with the message and code the walk's own read
 * would have given.
 */
#ifndef GARCHIVE_PREFETCH_H
#define GARCHIVE_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

#include <git2/types.h>
#include "odb/oid.h"

struct pathspec;

struct prefetch_options {
	const struct ga_oid *tree_id;		/* the archived tree */
	size_t hashsz;			/* bytes of an object id */
	const struct pathspec *ps;	/* NULL: no pathspec */
	const char *rel_base;		/* before paths pathspecs see, or NULL */
	uint64_t big_file_threshold;	/* larger blobs are streamed */
	/*
	 * Bytes of blobs read ahead, or the largest blob met less this
	 * when that is more (git holds that blob whole).  A blob above the budget that does not fit is left
	 * to the walk, which streams it (see walk_options.stream_large).
	 */
	size_t budget;
};

/* A blob as a worker left it. */
struct prefetch_blob {
	struct odb_object *obj;	/* read whole; the caller frees it, or
				   NULL: left to the walk */
	uint64_t size;		/* with `big`: the size in its header */
	int big;		/* above the threshold: left unread */
};

struct prefetch;
struct prefetch_pool;

/*
 * Start `threads` workers (at least 1), shared by every walk of an
 * archive: a submodule's walk nests in its superproject's, and the
 * workers read for the innermost prefetch, so nested submodules add no
 * threads.  Returns 0, or GA_ERROR when no worker could be started.
 */
int prefetch_pool_new(struct prefetch_pool **out, int threads);

/* Stop and join the workers, after every prefetch of the pool is freed. */
void prefetch_pool_free(struct prefetch_pool *pool);

/*
 * Have the workers of `pool` read ahead for a walk of `repo`, scouting
 * with the walk's `odb` (used only on the calling thread), until this
 * prefetch is freed; one started later (a nested walk's) takes them
 * over meanwhile.  `opts` and what it points to must outlive the
 * prefetch.  Returns 0, or GA_ERROR when a worker's object database
 * could not be opened.
 */
int prefetch_new(struct prefetch **out, struct prefetch_pool *pool,
		 git_repository *repo, git_odb *odb,
		 const struct prefetch_options *opts);

/*
 * The blob `oid` of the walk's next entry with content.  Returns 1 with
 * *out filled, 0 when it was not read ahead or no worker has started
 * it yet (the caller reads it), or
 * the error of the worker's read (see prefetch_blob_unreadable).
 */
int prefetch_take(struct prefetch_blob *out, struct prefetch *pf,
		  const struct ga_oid *oid);

/*
 * The walk reads the blob of its entry itself, no worker having read
 * it, and it has `size` bytes (0 when not known); `whole`: read into
 * memory rather than streamed.  A whole one counts as the blob the walk
 * holds until the next prefetch_take().  After a large one the workers
 * take the jobs right after it, which they had skipped.
 */
void prefetch_reading(struct prefetch *pf, size_t size, int whole);

/*
 * Set the error for a failed read of blob `oid_hex`, where `code` is
 * what libgit2 returned (its message is taken from this thread's last
 * error).  A missing blob is git's "cannot read '<oid>'", which ends
 * the archive with status 255 (GA_EARCHIVE); a corrupt one makes git die
 * (128) from deep inside its object reader, so it is fatal here too:
 * "unable to read <oid>: <reason>" (GA_ERROR).  Returns the code.
 */
int prefetch_blob_unreadable(int code, const char *oid_hex);

/*
 * Wait for the jobs workers are reading, drop what is queued and give
 * the workers back to the prefetch active before.  NULL is fine.
 */
void prefetch_free(struct prefetch *pf);

#endif

/*
 * store.h: garchive's read-only object store, with git's look-up order.
 *
 * A store is the objects directories of a repository: its own, then its
 * alternates, in the order they were added.  An object is looked up as
 * git 2.39's oid_object_info_extended() does: first in the packs of all
 * the directories (local packs first, then the newest), skipping a copy
 * already found damaged; then loose, in the first directory whose file
 * for it opens.  When a packed copy turns out to be damaged (a bad entry
 * header, a zlib error, a stream that ends before or after its size, a
 * delta that does not apply), git's lines for it are kept, the copy is
 * marked bad, and the look-up starts again: the next copy serves it and
 * the lines are reported as git prints them, or, with no copy left, they
 * end in git's "fatal: packed object <id> (stored in <pack>) is corrupt".
 * The size and the content of an object come from the same copy.
 *
 * Loose objects are read by loose.c.  Damage is reported through
 * libgit2's error slot and GA_ECORRUPT, as loose.c does (see GA_ECORRUPT
 * in common.h); an object in no copy is GA_ENOTFOUND, with nothing set,
 * so that a caller (e.g. a partial clone's lazy fetch) can act on it.
 */
#ifndef GARCHIVE_ODB_STORE_H
#define GARCHIVE_ODB_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "odb/oid.h"
#include "odb/pack.h"

struct ga_store;

/*
 * A store of ids of `algo`, with no directory yet.  With `report`,
 * git's complaints about packs it would not use and git's lines for
 * damaged copies are reported as errors (one store of a run does it).
 * Without it nothing is printed, and a look-up that met a damaged copy
 * fails even when another copy would serve, so that the caller asks
 * the reporting store, which prints git's lines.
 */
struct ga_store *ga_store_new(enum ga_hash_algo algo, int report);

/*
 * Add the objects directory `dir`, named `shown` in messages (NULL: as
 * `dir`); the first one added is the repository's own ("local").
 * Returns 0 or GA_ERROR.
 */
int ga_store_add_dir(struct ga_store *s, const char *dir, const char *shown);

/*
 * Look for packs added since the store first looked (git's
 * reprepare_packed_git(), as after a partial clone's fetch).  Safe while
 * other threads read.
 */
void ga_store_refresh(struct ga_store *s);

void ga_store_free(struct ga_store *s);

/* The hash that names the objects of `s`. */
enum ga_hash_algo ga_store_algo(const struct ga_store *s);

/* How messages name the first directory. */
const char *ga_store_shown(const struct ga_store *s);

/* Where the buffer of a whole object comes from (libgit2's allocator). */
struct ga_store_alloc {
	void *(*alloc)(void *ctx, size_t len);
	void (*release)(void *ctx, void *data);
	void *ctx;
};

/*
 * Read object `id` whole: *data (from `a`, with a NUL after it), *len,
 * *type.  Returns 0, GA_ENOTFOUND, GA_ECORRUPT or GA_ERROR.
 */
int ga_store_read(struct ga_store *s, const struct ga_oid *id,
		  const struct ga_store_alloc *a, void **data, size_t *len,
		  enum ga_obj_type *type);

/* Type and size of `id`, as git's oid_object_info(). */
int ga_store_read_header(struct ga_store *s, const struct ga_oid *id,
			 size_t *len, enum ga_obj_type *type);

/* Whether `id` is in the store (1) or not (0). */
int ga_store_exists(struct ga_store *s, const struct ga_oid *id);

/*
 * The one object whose id starts with the first `nibbles` hex digits of
 * `prefix`: 0 with *out, GA_ENOTFOUND, or GA_EAMBIGUOUS_ID when there
 * are more.
 */
#define GA_EAMBIGUOUS_ID (-101)
int ga_store_find_prefix(struct ga_store *s, const struct ga_oid *prefix,
			 size_t nibbles, struct ga_oid *out);

/*
 * A stream on `id` as git's open_istream(): from the copy git would use,
 * a loose object or one stored whole in a pack.  Returns 0 with *size
 * and *type, GA_ENOTFOUND when the object is in no copy or is a delta
 * (read it whole), or GA_ECORRUPT.  ga_store_stream_read() gives the
 * next bytes, at most `cap`, with *nread 0 only at the end; it returns
 * 0, GA_ECORRUPT, GA_EARCHIVE (zlib refused a packed stream, as git's
 * stream fails) or GA_ERROR.
 */
struct ga_store_stream;
int ga_store_stream_open(struct ga_store_stream **out, struct ga_store *s,
			 const struct ga_oid *id, uint64_t *size,
			 enum ga_obj_type *type);
int ga_store_stream_read(struct ga_store_stream *st, unsigned char *buf,
			 size_t cap, size_t *nread);
void ga_store_stream_free(struct ga_store_stream *st);
/*
 * Whether the stream is a packed copy's: its errors are in garchive's
 * error slot (pack-stream.h), a loose copy's in libgit2's (loose.h).
 */
int ga_store_stream_packed(const struct ga_store_stream *st);

#endif

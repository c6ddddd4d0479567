/*
 * loose.h: loose objects, read with bounds.
 *
 * libgit2 1.5's loose backend spins forever on an object whose zlib
 * stream is cut short (libgit2 issue 7342), corrupts its heap when the
 * header claims fewer bytes than the stream holds, and accepts a stream
 * that ends early.  garchive reads loose objects itself: every inflate
 * call either makes progress or ends the read, and an object is taken
 * only when its stream ends exactly where its header says, with nothing
 * after it.  Damage is described with git's words:
 *
 *	object file <path> is empty
 *	inflate: <zlib status> (<zlib message>)
 *	unable to unpack <id> header
 *	header for <id> too long, exceeds 32 bytes
 *	unable to parse <id> header
 *	corrupt loose object '<id>'
 *	garbage at end of loose object '<id>'
 *
 * git itself takes a stream that ends early (or, for objects of a few
 * bytes, one that holds more than the header says) and pads or cuts the
 * object to the header's size; garchive calls both corrupt.
 */
#ifndef GARCHIVE_LOOSE_H
#define GARCHIVE_LOOSE_H

#include <stddef.h>
#include <stdint.h>

#include <git2/types.h>
#include <zlib.h>

#include "garchive/common.h"
#include "odb/oid.h"

/* git inflates this much of a loose object to find its header. */
#define LOOSE_HEADER_MAX 32

/*
 * Where the compressed bytes come from: fill() points *buf at the next
 * `*len` bytes (0 at end of file), valid until the next call.  Returns 0,
 * or a negative code with the error set.
 */
struct loose_input {
	int (*fill)(struct loose_input *in, const unsigned char **buf,
		    size_t *len);
};

/* One loose object being inflated. */
struct loose_inflater {
	z_stream zs;
	int zs_live;
	int status;			/* zlib's last status */
	struct loose_input *in;
	const char *hex;		/* the object's id, for messages */
	git_object_t type;
	uint64_t size;			/* as the header says */
	uint64_t given;			/* body bytes handed out */
	unsigned char hdr[LOOSE_HEADER_MAX];
	size_t spill, spill_used;	/* body bytes inflated with the header */
	int ended;			/* the end of the stream is checked */
};

/*
 * Start inflating from `in` and parse the header, as git's
 * unpack_loose_header() and parse_loose_header() do.  Returns 0 with
 * li->type and li->size set, GA_ECORRUPT with git's lines (each ending
 * in '\n', no prefix) appended to `why`, or another negative code from
 * fill().  Call loose_end() in any case.
 */
int loose_begin(struct loose_inflater *li, struct loose_input *in,
		const char *hex, struct ga_buf *why);

/*
 * The next body bytes, at most `cap`: *nread is 0 only once the whole
 * body has been handed out, and the bytes that end it are checked for
 * the end of the stream and for garbage after it.  Returns 0 or an
 * error as loose_begin().
 */
int loose_read(struct loose_inflater *li, unsigned char *buf, size_t cap,
	       size_t *nread, struct ga_buf *why);

void loose_end(struct loose_inflater *li);

/*
 * Whether a stream of `compressed` bytes could inflate to `size` bytes:
 * deflate expands at most 1032 times, so a header that claims more lies,
 * and nothing need be allocated for it.
 */
int loose_size_possible(uint64_t size, uint64_t compressed);

/*
 * A backend for the loose objects under `objects_dir` ("<dir>/xx/yyyy"),
 * named `shown` in messages (NULL: as `objects_dir`).  A damaged object fails with GA_ECORRUPT
 * and, in libgit2's error, git's lines for it followed by "fatal: loose
 * object <id> (stored in <path>) is corrupt" (see GA_ECORRUPT in
 * common.h).  Reads whole objects, headers and abbreviated ids;
 * never writes.  Returns 0 or GA_ERROR.
 */
int loose_backend_new(git_odb_backend **out, const char *objects_dir,
		      const char *shown);

/*
 * The same reads by struct ga_oid, for ids of either hash (git's layout
 * is the same for both: <dir>/<2 hex digits>/<the rest>); garchive's
 * object store (store.h) reads loose objects through these, and the
 * libgit2 callbacks of the backend (SHA-1 only) do too.
 *
 * loose_read_object(): the whole object, its buffer from `a` with a NUL
 * after it.  loose_read_object_header(): its type and size.  Both return
 * 0, GIT_ENOTFOUND when there is no such file, GA_ECORRUPT with libgit2's
 * error as above, or GIT_ERROR.  loose_has(): whether the file is there.
 * loose_find_prefix(): the one object whose id starts with the first
 * `len` (>= 2) hex digits of `prefix`; 0, GIT_ENOTFOUND or
 * GIT_EAMBIGUOUS.
 */
struct ga_store_alloc;
int loose_read_object(git_odb_backend *b, const struct ga_oid *id,
		      const struct ga_store_alloc *a, void **data, size_t *len,
		      git_object_t *type);
int loose_read_object_header(git_odb_backend *b, const struct ga_oid *id,
			     size_t *len, git_object_t *type);
int loose_has(git_odb_backend *b, const struct ga_oid *id);
int loose_find_prefix(git_odb_backend *b, const struct ga_oid *prefix,
		      size_t len, struct ga_oid *out);

/*
 * A stream on object `id` of `b`, for a blob too large to read whole:
 * GIT_ENOTFOUND when `b` is not a loose backend or has no such object,
 * else as a read of `b` (damage found in the header fails here).
 * loose_stream_read() gives the next bytes, at most `cap`, 0 only at the
 * end, with the end of the stream checked as loose_read() does; errors
 * as a read of `b`.  (libgit2's own streams cannot be used: libgit2 1.5
 * frees a hash context a backend's stream cannot set up.)
 */
struct loose_stream;
int loose_stream_open(struct loose_stream **out, uint64_t *size,
		      git_object_t *type, git_odb_backend *b,
		      const struct ga_oid *id);
int loose_stream_read(struct loose_stream *s, unsigned char *buf,
		      size_t cap, size_t *nread);
void loose_stream_free(struct loose_stream *s);

/*
 * Whether the damage a backend's `message` describes is in the header,
 * which git reads (and reports) once more before a blob (see odb.h).
 */
int loose_damage_in_header(const char *message);

/*
 * A damaged object, loose or packed, as git dies of it: set libgit2's
 * error to `lines` (git's lines before the last, each ending in '\n',
 * perhaps none) followed by "fatal: <kind> object <hex> (stored in
 * <where>) is corrupt", release `lines`, and return GA_ECORRUPT.
 */
int object_corrupt(struct ga_buf *lines, const char *kind, const char *hex,
		   const char *where);

/*
 * The `shown` name `b` was made with, when it is a loose backend made
 * with one; else NULL.
 */
const char *loose_backend_shown(git_odb_backend *b);

#endif

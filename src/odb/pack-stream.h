/*
 * pack-stream.h: a blob stored whole in a pack, read in pieces.
 *
 * libgit2 1.5 reads a packed object only whole, so a packed blob of a
 * gigabyte took a gigabyte of memory.  git streams a blob above
 * core.bigFileThreshold when it is stored whole (not as a delta), and
 * so does garchive: the object is looked up in the pack indexes of one
 * objects directory (version 1 and 2, SHA-1 names), the entry header is
 * read at its offset, and its zlib stream is inflated from the pack with
 * pread() through a buffer of 64 KiB.  A delta, an object in no index
 * (e.g. only in a multi-pack-index), or an index or pack that git would
 * not use is "not streamable": the caller reads the object whole, as
 * before, and libgit2's reader reports any damage.
 *
 * Damage found while streaming fails with GA_ECORRUPT and git's lines in
 * the error slot (see GA_ECORRUPT in common.h):
 *
 *	error: inflate: <zlib status> (<zlib message>)	(zlib refused it)
 *	fatal: packed object <id> (stored in <pack>) is corrupt
 *
 * the fatal line alone when the stream ends before or goes on after the
 * size its header gives (git's whole read says the same; git's stream
 * takes such a blob cut or with bytes after it and exits 0), and
 *
 *	fatal: offset beyond end of packfile (truncated pack?)
 *
 * when the stream runs into the pack's trailing checksum, as git dies,
 * and, for an entry header whose size goes on past 60 bits (git reads
 * no further digit), before anything is given:
 *
 *	error: bad object header
 *	fatal: packed object <id> (stored in <pack>) is corrupt
 */
#ifndef GARCHIVE_PACK_STREAM_H
#define GARCHIVE_PACK_STREAM_H

#include <stddef.h>
#include <stdint.h>

/* libgit2 1.9 has GIT_OID_RAWSZ only in deprecated.h, which git2.h reads. */
#include "libgit2.h"

/*
 * A stream on object `id` of the packs in `objects_dir`/pack, named
 * `shown`/pack/<name>.pack in messages.  Returns 0 with *size and *type
 * from the entry header, GA_ENOTFOUND when it is not streamable (see
 * above; nothing is set in the error slot), or GA_ECORRUPT.
 * pack_stream_read() gives the next bytes, at most `cap`, with *nread 0
 * only once all *size bytes were given and the end of the stream was
 * checked; it returns 0, GA_ECORRUPT, or GA_ERROR when the pack cannot
 * be read.
 */
struct pack_stream;
int pack_stream_open(struct pack_stream **out, uint64_t *size,
		     git_object_t *type, const char *objects_dir,
		     const char *shown, const git_oid *id);
int pack_stream_read(struct pack_stream *s, unsigned char *buf, size_t cap,
		     size_t *nread);
void pack_stream_free(struct pack_stream *s);

/*
 * The layout of a pack index (version 1 or 2) as git checks it before
 * using it: the magic and version, a fan-out table that never goes
 * down, and a file size that fits the object count (with at most one
 * large offset per object but the first).  pack_idx_layout() fills
 * `idx` from the index open on `fd` (of `idx_size` bytes) and returns 1,
 * or 0 when git would not use the index.
 */
struct pack_idx_layout {
	int v2;
	uint32_t nr;			/* objects: the last fan-out entry */
	uint32_t fanout[256];
	uint64_t names, width;		/* where the names start, their stride */
	uint64_t offsets, large;	/* the 4-byte and 8-byte offsets */
};
int pack_idx_layout(struct pack_idx_layout *idx, int fd, uint64_t idx_size);

/*
 * Look `id` up in the pack index open on `fd` (of `idx_size` bytes).
 * Returns 1 with *offset, the object count and the pack checksum the
 * index records; 0 when the index does not list `id` or is not one git
 * would read (a bad magic or version, a fan-out table that goes down,
 * a size that does not fit its object count, an offset into a missing
 * part of the large offset table).  Exposed for the unit tests.
 */
int pack_idx_find(uint64_t *offset, uint32_t *nr,
		  unsigned char checksum[GIT_OID_RAWSZ], int fd,
		  uint64_t idx_size, const git_oid *id);

#endif

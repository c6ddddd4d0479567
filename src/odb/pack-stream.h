/*
 * pack-stream.h: a blob stored whole in a pack, read in pieces.
 *
 * libgit2 1.5 reads a packed object only whole, so a packed blob of a
 * gigabyte took a gigabyte of memory.  git streams a blob above
 * core.bigFileThreshold when it is stored whole (not as a delta), and
 * so does garchive: the object store (store.h) finds the entry as it
 * finds any object, with the pack index of the repository's hash (SHA-1
 * or SHA-256), and the stream starts at the offset it found.  The entry
 * header is read there, and its zlib stream is inflated from the pack
 * with pread() through a buffer of 64 KiB, not through the store's map
 * of the pack, whose pages would stay resident as the blob is read.  A
 * delta, or a pack that is no longer the one the store checked (another
 * size or trailing checksum, as after a repack), is "not streamable":
 * the caller reads the object whole, as before.
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

#include "libgit2.h"

/* Where the entry of a stream is: what the store found for it. */
struct pack_stream_entry {
	const char *path;		/* the .pack */
	const char *shown;		/* the same, as messages name it */
	uint64_t pack_size;		/* its size, as the store checked it */
	const unsigned char *checksum;	/* its trailing checksum (rawsz) */
	size_t rawsz;			/* bytes of an id of the repository */
	uint64_t offset;		/* the entry, from the pack index */
	const char *hex;		/* the object's id, for messages */
};

/*
 * A stream on the entry `at` describes.  Returns 0 with *size and *type
 * from the entry header, GA_ENOTFOUND when it is not streamable (see
 * above; nothing is set in the error slot), or GA_ECORRUPT.
 * pack_stream_read() gives the next bytes, at most `cap`, with *nread 0
 * only once all *size bytes were given and the end of the stream was
 * checked; it returns 0, GA_ECORRUPT, GA_EARCHIVE (zlib refused the
 * data, as git's stream fails) or GA_ERROR when the pack cannot be
 * read.  pack_stream_free() accepts NULL.
 */
struct pack_stream;
int pack_stream_open(struct pack_stream **out, uint64_t *size,
		     git_object_t *type, const struct pack_stream_entry *at);
int pack_stream_read(struct pack_stream *s, unsigned char *buf, size_t cap,
		     size_t *nread);
void pack_stream_free(struct pack_stream *s);

#endif

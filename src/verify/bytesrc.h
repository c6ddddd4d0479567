/*
 * bytesrc.h: a stream of bytes read in pieces, the input of the archive
 * readers (tar-read.c, zip-read.c) and of the decompressors in front of
 * them (unpack.c).
 */
#ifndef GARCHIVE_BYTESRC_H
#define GARCHIVE_BYTESRC_H

#include <stddef.h>

#include "garchive/errors.h"

struct byte_source {
	/*
	 * Fill up to `cap` (> 0) bytes of `buf` and set *nread; 0 bytes
	 * means the end of the stream.  Returns 0, or a negative GA_* code
	 * with the message in the error slot.
	 */
	int (*read)(struct byte_source *s, unsigned char *buf, size_t cap,
		    size_t *nread);
};

/* Bytes in memory, for the peek at an archive's start and for tests. */
struct mem_source {
	struct byte_source base;
	const unsigned char *data;
	size_t len, pos;
};

static inline int mem_source_read(struct byte_source *s, unsigned char *buf,
				  size_t cap, size_t *nread)
{
	struct mem_source *m = (struct mem_source *)s;
	size_t n = m->len - m->pos < cap ? m->len - m->pos : cap;

	if (n)
		__builtin_memcpy(buf, m->data + m->pos, n);
	m->pos += n;
	*nread = n;
	return 0;
}

static inline void mem_source_init(struct mem_source *m, const void *data,
				   size_t len)
{
	m->base.read = mem_source_read;
	m->data = data;
	m->len = len;
	m->pos = 0;
}

#endif

/*
 * memsink.h: a sink (see garchive/sink.h) that keeps what the format
 * writers write in a ga_buf, for the unit tests and fuzz targets.  It
 * counts the writes and can fail like a full disk past a given size.
 */
#ifndef GARCHIVE_T_MEMSINK_H
#define GARCHIVE_T_MEMSINK_H

#include "garchive/common.h"
#include "garchive/sink.h"

#include <string.h>

struct mem_sink {
	struct sink base;
	struct ga_buf *buf;
	size_t fail_at;		/* fail writes past this size; 0: never */
	size_t writes;
};

static int mem_sink_write(struct sink *s, const void *p, size_t len)
{
	struct mem_sink *m = (struct mem_sink *)s;

	m->writes++;
	if (m->fail_at && m->buf->len + len > m->fail_at)
		return ga_error_set("write error: No space left on device");
	ga_buf_put(m->buf, p, len);
	return 0;
}

static int mem_sink_finish(struct sink *s)
{
	(void)s;
	return 0;
}

static void mem_sink_free(struct sink *s)
{
	(void)s;
}

/* A sink appending to `buf`, which the caller owns. */
static void mem_sink_init(struct mem_sink *m, struct ga_buf *buf)
{
	memset(m, 0, sizeof(*m));
	m->base.write = mem_sink_write;
	m->base.finish = mem_sink_finish;
	m->base.free = mem_sink_free;
	m->buf = buf;
}

#endif

/*
 * filter.c: placeholder with the plain fd sink only; replaced by the
 * filter stage (gzip -cn, zlib, configured commands).
 */
#include "garchive/filter.h"
#include "garchive/common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fd_sink {
	struct sink base;
	int fd;
};

static int fd_write(struct sink *s, const void *buf, size_t len)
{
	struct fd_sink *fs = (struct fd_sink *)s;
	const char *p = buf;

	while (len) {
		ssize_t n = write(fs->fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE)
				return GA_EPIPE;
			return ga_error_errno(errno, "write error");
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int fd_finish(struct sink *s)
{
	(void)s;
	return 0;
}

static void fd_free(struct sink *s)
{
	free(s);
}

int filter_open_fd(struct sink **out, int fd)
{
	struct fd_sink *fs = ga_xcalloc(1, sizeof(*fs));

	fs->base.write = fd_write;
	fs->base.finish = fd_finish;
	fs->base.free = fd_free;
	fs->fd = fd;
	*out = &fs->base;
	return 0;
}

int filter_open(struct sink **out, const struct filter_spec *spec,
		int level, int fd)
{
	(void)level;
	if (spec->kind != FILTER_NONE)
		return ga_error_set("compressed formats are not supported yet");
	return filter_open_fd(out, fd);
}

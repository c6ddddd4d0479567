/*
 * unpack.c: reading the file verify is given, telling what it is, and
 * decompressing it (see unpack.h).
 *
 * Magic numbers: gzip 1f 8b (RFC 1952), xz fd '7zXZ' 00, bzip2 'BZh'
 * and a block size digit, zstd 28 b5 2f fd (RFC 8878), zip 'PK' 03 04
 * (or 'PK' 05 06 for an empty one), and tar by a header whose checksum
 * holds, or a first record of zeros (an empty archive).
 */
#include "unpack.h"
#include "run-command.h"
#include "ustar.h"
#include "garchive/common.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#define UNPACK_CHUNK	(64 * 1024)

/* ---- the file ---- */

static int input_read(struct byte_source *s, unsigned char *buf, size_t cap,
		      size_t *nread)
{
	struct unpack_input *in = (struct unpack_input *)s;
	ssize_t n;

	if (in->head_pos < in->head_len) {
		n = (ssize_t)(in->head_len - in->head_pos);
		if ((size_t)n > cap)
			n = (ssize_t)cap;
		memcpy(buf, in->head + in->head_pos, (size_t)n);
		in->head_pos += (size_t)n;
	} else {
		do {
			n = read(in->fd, buf, cap);
		} while (n < 0 && errno == EINTR);
		if (n < 0)
			return ga_error_errno(errno, "could not read '%s'",
					      in->name);
	}
	*nread = (size_t)n;
	in->total += (uint64_t)n;
	if (n && in->tap)
		in->tap(in->tap_payload, buf, (size_t)n);
	return 0;
}

int unpack_input_open(struct unpack_input *in, const char *path)
{
	ssize_t n;

	memset(in, 0, sizeof(*in));
	in->base.read = input_read;
	in->name = path;
	if (!strcmp(path, "-")) {
		in->fd = 0;
		in->name = "standard input";
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0)
			return ga_error_errno(errno, "could not open '%s'",
					      path);
		in->owns_fd = 1;
	}
	n = ga_read_full(in->fd, in->head, sizeof(in->head));
	if (n < 0)
		return ga_error_errno(errno, "could not read '%s'", in->name);
	in->head_len = (size_t)n;
	return 0;
}

void unpack_input_close(struct unpack_input *in)
{
	if (in->owns_fd && in->fd >= 0)
		close(in->fd);
	in->fd = -1;
	in->owns_fd = 0;
}

int unpack_input_seekable(const struct unpack_input *in)
{
	struct stat st;

	return fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode);
}

int unpack_input_drain(struct unpack_input *in)
{
	unsigned char *buf = ga_xmalloc(UNPACK_CHUNK);
	size_t n;
	int error;

	do {
		error = input_read(&in->base, buf, UNPACK_CHUNK, &n);
	} while (!error && n);
	free(buf);
	return error;
}

int unpack_is_tar_header(const unsigned char *h)
{
	const size_t end = H_CHKSUM + W_CHKSUM;
	unsigned int sum = 0, stored = 0;
	size_t i;

	for (i = 0; i < USTAR_RECORD; i++)
		sum += (i >= H_CHKSUM && i < end) ? ' ' : h[i];
	for (i = H_CHKSUM; i < end && h[i] == ' '; i++)
		;
	if (i == end || h[i] < '0' || h[i] > '7')
		return 0;
	for (; i < end && h[i] >= '0' && h[i] <= '7'; i++)
		stored = stored * 8 + (unsigned int)(h[i] - '0');
	return stored == sum;
}

static int all_zero(const unsigned char *p, size_t len)
{
	while (len--)
		if (*p++)
			return 0;
	return 1;
}

enum unpack_kind unpack_sniff(const struct unpack_input *in)
{
	const unsigned char *h = in->head;
	size_t n = in->head_len;

	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return UNPACK_GZIP;
	if (n >= 6 && !memcmp(h, "\xfd" "7zXZ\0", 6))
		return UNPACK_XZ;
	if (n >= 4 && !memcmp(h, "BZh", 3) && h[3] >= '1' && h[3] <= '9')
		return UNPACK_BZIP2;
	if (n >= 4 && !memcmp(h, "\x28\xb5\x2f\xfd", 4))
		return UNPACK_ZSTD;
	if (n >= 4 && (!memcmp(h, "PK\3\4", 4) || !memcmp(h, "PK\5\6", 4)))
		return UNPACK_ZIP;
	if (n >= USTAR_RECORD &&
	    (unpack_is_tar_header(h) || all_zero(h, USTAR_RECORD)))
		return UNPACK_TAR;
	return UNPACK_UNKNOWN;
}

const char *unpack_kind_name(enum unpack_kind kind)
{
	switch (kind) {
	case UNPACK_GZIP:
		return "gzip";
	case UNPACK_XZ:
		return "xz";
	case UNPACK_BZIP2:
		return "bzip2";
	case UNPACK_ZSTD:
		return "zstd";
	default:
		return NULL;
	}
}

/* ---- decoders ---- */

struct unpack_decoder {
	struct byte_source base;
	struct unpack_input *in;
	enum unpack_kind kind;
	unsigned char *buf;	/* compressed bytes not yet decoded */
	size_t pos, len;
	int in_eof;
	int done;

	/* gzip */
	z_stream zs;
	int zs_ready;
	int member_done;
	gz_header gzh;
	struct unpack_gzip_info gz;

	/* a child: xz, bzip2, zstd */
	struct child child;
	const char *argv[4];
	char *display;
	int started;
};

static int refill(struct unpack_decoder *d)
{
	size_t n;
	int error;

	d->pos = d->len = 0;
	if (d->in_eof)
		return 0;
	if ((error = d->in->base.read(&d->in->base, d->buf, UNPACK_CHUNK,
				      &n)) < 0)
		return error;
	d->len = n;
	if (!n)
		d->in_eof = 1;
	return 0;
}

/* After a gzip member: another member, or bytes that are none. */
static int gzip_next_member(struct unpack_decoder *d)
{
	int error;

	if (d->pos == d->len && (error = refill(d)) < 0)
		return error;
	if (d->pos == d->len) {
		d->done = 1;
		return 0;
	}
	if (d->len - d->pos >= 2 && d->buf[d->pos] == 0x1f &&
	    d->buf[d->pos + 1] == 0x8b) {
		if (inflateReset(&d->zs) != Z_OK)
			return ga_error_set("inflateReset failed");
		d->member_done = 0;
		d->gz.members++;
		return 0;
	}
	/* Not a member: count what follows, as gzip -d warns about it. */
	d->gz.trailing += d->len - d->pos;
	d->pos = d->len;
	while (!d->in_eof) {
		if ((error = refill(d)) < 0)
			return error;
		d->gz.trailing += d->len;
		d->pos = d->len;
	}
	d->done = 1;
	return 0;
}

static int gzip_read(struct byte_source *s, unsigned char *out, size_t cap,
		     size_t *nread)
{
	struct unpack_decoder *d = (struct unpack_decoder *)s;
	int status, error;

	*nread = 0;
	while (!d->done) {
		size_t before;

		if (d->member_done) {
			if ((error = gzip_next_member(d)) < 0)
				return error;
			continue;
		}
		if (d->pos == d->len && (error = refill(d)) < 0)
			return error;
		if (d->pos == d->len)
			return ga_error_set("truncated gzip data: '%s' ends "
					    "inside the compressed stream",
					    d->in->name);
		before = d->len - d->pos;
		d->zs.next_in = d->buf + d->pos;
		d->zs.avail_in = (uInt)before;
		d->zs.next_out = out;
		d->zs.avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
		status = inflate(&d->zs, Z_NO_FLUSH);
		d->pos += before - d->zs.avail_in;
		*nread = (size_t)(d->zs.next_out - out);
		if (status == Z_STREAM_END)
			d->member_done = 1;
		else if (status != Z_OK && status != Z_BUF_ERROR)
			return ga_error_set("corrupt gzip data in '%s' (%s)",
					    d->in->name,
					    d->zs.msg ? d->zs.msg : "zlib");
		if (*nread)
			return 0;
	}
	return 0;
}

static int gzip_start(struct unpack_decoder *d)
{
	d->base.read = gzip_read;
	/* 15 + 16: a gzip wrapper only, with its CRC and length checked. */
	if (inflateInit2(&d->zs, 15 + 16) != Z_OK)
		return ga_error_set("inflateInit2 failed");
	d->zs_ready = 1;
	d->gzh.name = (Bytef *)d->gz.name;
	d->gzh.name_max = sizeof(d->gz.name) - 1;
	inflateGetHeader(&d->zs, &d->gzh);
	d->gz.members = 1;
	if (d->in->head_len >= 10)
		memcpy(d->gz.header, d->in->head, 10);
	d->gz.header_extra = (d->gz.header[3] & 0x1e) != 0;
	return 0;
}

/*
 * The child reads the compressed bytes on its stdin and writes the tar
 * on its stdout.  One loop moves both ways without blocking on either
 * pipe alone, so neither side waits for the other forever.
 */
static int child_read(struct byte_source *s, unsigned char *out, size_t cap,
		      size_t *nread)
{
	struct unpack_decoder *d = (struct unpack_decoder *)s;
	struct child *c = &d->child;
	int error;

	*nread = 0;
	while (!d->done) {
		struct pollfd p[2];
		nfds_t n = 1;
		ssize_t got;

		if (c->in >= 0 && d->pos == d->len) {
			if ((error = refill(d)) < 0)
				return error;
			if (d->pos == d->len)
				child_close(&c->in);
		}
		p[0].fd = c->out;
		p[0].events = POLLIN;
		if (c->in >= 0) {
			p[1].fd = c->in;
			p[1].events = POLLOUT;
			n = 2;
		}
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return ga_error_errno(errno, "poll");
		}
		if (p[0].revents) {
			got = read(c->out, out, cap);
			if (got < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (got < 0)
				return ga_error_errno(errno, "read from %s",
						      d->display);
			if (got > 0) {
				*nread = (size_t)got;
				return 0;
			}
			d->done = 1;
			break;
		}
		if (n == 2 && p[1].revents) {
			got = write(c->in, d->buf + d->pos, d->len - d->pos);
			if (got < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (got < 0) {
				/* It stopped reading: its status will say. */
				child_close(&c->in);
				continue;
			}
			d->pos += (size_t)got;
		}
	}
	return 0;
}

static int child_begin(struct unpack_decoder *d)
{
	const char *tool = unpack_kind_name(d->kind);
	struct child *c = &d->child;
	struct child init = CHILD_INIT;
	int error;

	d->base.read = child_read;
	d->argv[0] = tool;
	d->argv[1] = "-dc";
	d->argv[2] = d->kind == UNPACK_ZSTD ? "-q" : NULL;
	d->display = ga_xstrfmt("%s -dc", tool);
	*c = init;
	c->argv = d->argv;
	c->pipe_in = 1;
	c->pipe_out = 1;
	if ((error = child_start(c)) < 0) {
		int err = errno;

		return ga_error_errno(err, "'%s' is compressed with %s, and %s "
				      "cannot be run", d->in->name, tool,
				      tool);
	}
	d->started = 1;
	child_nonblocking(c);
	return 0;
}

int unpack_decoder_new(struct unpack_decoder **out, struct byte_source **src,
		       enum unpack_kind kind, struct unpack_input *in)
{
	struct unpack_decoder *d = ga_xcalloc(1, sizeof(*d));
	int error;

	d->in = in;
	d->kind = kind;
	d->buf = ga_xmalloc(UNPACK_CHUNK);
	if (kind == UNPACK_GZIP)
		error = gzip_start(d);
	else if (unpack_kind_name(kind))
		error = child_begin(d);
	else
		GA_BUG("unpack: no decoder for this kind");
	if (error < 0) {
		unpack_decoder_free(d);
		return error;
	}
	*out = d;
	*src = &d->base;
	return 0;
}

int unpack_decoder_finish(struct unpack_decoder *d)
{
	int code = 0, signo = 0, error;

	if (!d->started)
		return 0;
	d->started = 0;
	if ((error = child_finish(&d->child, &code, &signo)) < 0)
		return error;
	if (code)
		return ga_error_set("'%s' failed (exit status %d): the "
				    "compressed data is damaged or cut short",
				    d->display, code);
	return 0;
}

const struct unpack_gzip_info *unpack_decoder_gzip(
	const struct unpack_decoder *d)
{
	return d->kind == UNPACK_GZIP ? &d->gz : NULL;
}

void unpack_decoder_free(struct unpack_decoder *d)
{
	int code, signo;

	if (!d)
		return;
	if (d->zs_ready)
		inflateEnd(&d->zs);
	if (d->started) {
		/*
		 * Closing both pipes ends the child: it reads end of file
		 * or dies of SIGPIPE when it writes.
		 */
		child_close(&d->child.in);
		child_close(&d->child.out);
		child_finish(&d->child, &code, &signo);
	}
	free(d->display);
	free(d->buf);
	free(d);
}

/*
 * pack-stream.c: a blob stored whole in a pack, read in pieces (see
 * pack-stream.h).
 *
 * The offset the store found is checked against the pack's size, and so
 * is every offset read from the pack, before it is used; nothing is
 * allocated by a size read from the file.
 * Termination: each inflate call either makes progress or ends the
 * read, and input is read from a file of finite size.
 */
#include "pack-stream.h"
#include "garchive/common.h"
#include "odb/oid.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

/* Compressed bytes read from the pack at a time. */
#define PACK_READ_CHUNK		((size_t)64 << 10)
/* zlib counts output in uInt: at most this much per inflate call. */
#define PACK_ZLIB_CHUNK		((size_t)1 << 30)
/* An entry header: a type and a size of up to 64 bits, 7 bits a byte. */
#define PACK_HEADER_MAX		10

/* The pack's object types (git's enum object_type). */
enum { PACK_COMMIT = 1, PACK_TREE, PACK_BLOB, PACK_TAG };

struct pack_stream {
	z_stream zs;
	int zs_live;
	int fd;
	uint64_t pos;			/* the next compressed byte */
	uint64_t pack_size;
	uint64_t size;			/* as the entry header says */
	uint64_t given;			/* bytes handed out */
	int status;			/* zlib's last status */
	int ended;			/* the end of the stream is checked */
	size_t rawsz;			/* bytes of the trailing checksum */
	char hex[GA_OID_MAX_HEXSZ + 1];
	char *shown;			/* the pack, as messages name it */
	unsigned char in[PACK_READ_CHUNK];
};

/* pread() all of `len` bytes at `at`: 0, or -1 (short, or an error). */
static int read_at(int fd, void *buf, size_t len, uint64_t at)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		at += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Whether the pack open on `fd` is still the one the store checked: the
 * same size and trailing checksum (git's open_packed_git_1() compared
 * that checksum with the index's).
 */
static int same_pack(int fd, const struct pack_stream_entry *at)
{
	unsigned char sum[GA_OID_MAX_RAWSZ];
	struct stat st;

	return at->rawsz <= sizeof(sum) && fstat(fd, &st) == 0 &&
	       S_ISREG(st.st_mode) && (uint64_t)st.st_size == at->pack_size &&
	       at->pack_size >= 12 + at->rawsz &&
	       read_at(fd, sum, at->rawsz, at->pack_size - at->rawsz) == 0 &&
	       !memcmp(sum, at->checksum, at->rawsz);
}

/*
 * The entry header at `at`: the type in bits 4-6 of the first byte, the
 * size in base-128 little-endian digits.  Returns the type (0 when the
 * header cannot be read, -1 when it goes on past where git stops, which
 * is its "bad object header") and sets *size and *data, where the
 * compressed data starts.
 */
static int entry_header(int fd, uint64_t at, uint64_t pack_size,
			size_t rawsz, uint64_t *size, uint64_t *data)
{
	unsigned char h[PACK_HEADER_MAX];
	size_t len = sizeof(h), i = 0;
	unsigned shift = 4;
	uint64_t v;

	if (pack_size - rawsz - at < len)
		len = (size_t)(pack_size - rawsz - at);
	if (!len || read_at(fd, h, len, at) < 0)
		return 0;
	v = h[0] & 15;
	while (h[i] & 0x80) {
		/* git reads no digit that could shift past 64 bits. */
		if (shift > 64 - 7)
			return -1;
		if (++i == len)
			return 0;
		v |= (uint64_t)(h[i] & 0x7f) << shift;
		shift += 7;
	}
	*size = v;
	*data = at + i + 1;
	return (h[0] >> 4) & 7;
}

static const git_object_t object_types[] = {
	[PACK_COMMIT] = GIT_OBJECT_COMMIT,
	[PACK_TREE] = GIT_OBJECT_TREE,
	[PACK_BLOB] = GIT_OBJECT_BLOB,
	[PACK_TAG] = GIT_OBJECT_TAG,
};

void pack_stream_free(struct pack_stream *s)
{
	if (!s)
		return;
	if (s->zs_live)
		inflateEnd(&s->zs);
	if (s->fd >= 0)
		close(s->fd);
	free(s->shown);
	free(s);
}

int pack_stream_open(struct pack_stream **out, uint64_t *size,
		     git_object_t *type, const struct pack_stream_entry *at)
{
	struct pack_stream *s = NULL;
	uint64_t len = 0, data = 0;
	int fd, kind = 0;

	*out = NULL;
	if ((fd = open(at->path, O_RDONLY | O_CLOEXEC)) < 0)
		return GA_ENOTFOUND;
	/* git takes an offset into the pack's header or checksum as damage. */
	if (same_pack(fd, at) && at->offset >= 12 &&
	    at->offset < at->pack_size - at->rawsz)
		kind = entry_header(fd, at->offset, at->pack_size, at->rawsz,
				    &len, &data);
	if (kind < 0) {
		close(fd);
		return ga_error_code(GA_ECORRUPT, "bad object header\nfatal: "
				     "packed object %s (stored in %s) is "
				     "corrupt", at->hex, at->shown);
	}
	if (kind < PACK_COMMIT || kind > PACK_TAG || len > SIZE_MAX - 1) {
		close(fd);
		return GA_ENOTFOUND;
	}
	s = ga_xcalloc(1, sizeof(*s));
	s->fd = fd;
	s->pos = data;
	s->pack_size = at->pack_size;
	s->rawsz = at->rawsz;
	s->size = len;
	s->shown = ga_xstrdup(at->shown);
	snprintf(s->hex, sizeof(s->hex), "%s", at->hex);
	if (inflateInit(&s->zs) != Z_OK) {
		pack_stream_free(s);
		return ga_error_set("inflate: out of memory");
	}
	s->zs_live = 1;
	s->status = Z_OK;
	*size = len;
	*type = object_types[kind];
	*out = s;
	return 0;
}

/*
 * git's words for a damaged object.  zlib's complaint is git's stream
 * failing as an archive entry that cannot be written: the error line
 * of git_inflate() and status 255, nothing more.  A stream that ends
 * before or goes on after its size is what git's whole read calls the
 * object (git's stream archives it cut or long and exits 0).
 */
static int corrupt(const struct pack_stream *s)
{
	if (s->status != Z_OK && s->status != Z_STREAM_END &&
	    s->status != Z_BUF_ERROR)
		return ga_error_code(GA_EARCHIVE, "inflate: %s (%s)",
				     ga_zlib_strerror(s->status),
				     s->zs.msg ? s->zs.msg : "no message");
	return ga_error_code(GA_ECORRUPT, "fatal: packed object %s (stored "
			     "in %s) is corrupt", s->hex, s->shown);
}

/*
 * Give zlib more input once it has used what it had.  git reads on into
 * the pack's checksum, and dies past its start.
 */
static int feed(struct pack_stream *s)
{
	size_t len = PACK_READ_CHUNK;

	if (s->zs.avail_in)
		return 0;
	if (s->pos > s->pack_size - s->rawsz)
		return ga_error_code(GA_ECORRUPT, "fatal: offset beyond end of "
				     "packfile (truncated pack?)");
	if (s->pack_size - s->pos < len)
		len = (size_t)(s->pack_size - s->pos);
	if (read_at(s->fd, s->in, len, s->pos) < 0)
		return ga_error_errno(errno ? errno : EIO, "cannot read %s",
				      s->shown);
	s->pos += len;
	s->zs.next_in = s->in;
	s->zs.avail_in = (uInt)len;
	return 0;
}

/*
 * One inflate call into `out` (at most `cap` bytes), fed first.  Any
 * status but Z_OK and Z_STREAM_END ends the read: with input and room
 * zlib returns Z_BUF_ERROR only when it cannot go on.
 */
static int inflate_some(struct pack_stream *s, unsigned char *out,
			size_t cap, size_t *produced)
{
	int error;

	if ((error = feed(s)) < 0)
		return error;
	s->zs.next_out = out;
	s->zs.avail_out = (uInt)(cap < PACK_ZLIB_CHUNK ? cap : PACK_ZLIB_CHUNK);
	s->status = inflate(&s->zs, Z_NO_FLUSH);
	*produced = (size_t)(s->zs.next_out - out);
	return 0;
}

/* Everything was given: the stream must end here. */
static int check_end(struct pack_stream *s)
{
	unsigned char spare;
	size_t n;
	int error;

	while (s->status == Z_OK) {
		if ((error = inflate_some(s, &spare, 1, &n)) < 0)
			return error;
		if (n)
			return corrupt(s);
	}
	if (s->status != Z_STREAM_END)
		return corrupt(s);
	s->ended = 1;
	return 0;
}

int pack_stream_read(struct pack_stream *s, unsigned char *buf, size_t cap,
		     size_t *nread)
{
	uint64_t left = s->size - s->given;
	size_t got = 0, n;
	int error;

	*nread = 0;
	if (cap > left)
		cap = (size_t)left;
	while (got < cap) {
		if (s->status != Z_OK)
			return corrupt(s);
		if ((error = inflate_some(s, buf + got, cap - got, &n)) < 0)
			return error;
		got += n;
	}
	s->given += got;
	if (s->given == s->size && !s->ended && (error = check_end(s)) < 0)
		return error;
	*nread = got;
	return 0;
}

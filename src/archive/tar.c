/*
 * tar.c: the ustar/pax writer, byte for byte what git archive writes.
 *
 * Layout (git's archive-tar.c): 512-byte records; an optional pax global
 * header carrying the commit id; per entry an optional pax extended
 * header (path, linkpath, size records), the ustar header, the content
 * padded to 512; at the end zeros up to the next 10240-byte block, plus
 * one more block when fewer than two zero records fit.
 *
 * Bytes are collected in a buffer and handed to the sink in large
 * writes; big bodies bypass the buffer.  The output is the same however
 * it is chunked: git writes 10240-byte blocks, which only shows in the
 * trailer rule, computed here from the running offset.
 */
#include "garchive/archive.h"
#include "garchive/common.h"
#include "garchive/sink.h"
#include "garchive/walk.h"
#include "ustar.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAR_BLOCK_SIZE		(20 * USTAR_RECORD)
/* Bodies at least this large go straight to the sink. */
#define TAR_DIRECT_WRITE	(64 * 1024)
#define TAR_BUFFER_SIZE		(25 * TAR_BLOCK_SIZE)
/*
 * git streams a blob in reads of one block and writes each read whole:
 * the chunk is a whole number of blocks (see emit_stream()).
 */
#define TAR_STREAM_CHUNK	(25 * TAR_BLOCK_SIZE)

/* The largest values the octal fields hold (11 digits). */
#define TAR_MAX_SIZE		077777777777ULL
#define TAR_MAX_MTIME		077777777777ULL

#define TYPE_REG	'0'
#define TYPE_SYMLINK	'2'
#define TYPE_DIR	'5'
#define TYPE_PAX	'x'
#define TYPE_PAX_GLOBAL	'g'

/* Modes of pax headers, which git writes as regular 0666 files. */
#define PAX_HEADER_MODE	0100666

struct tar_writer {
	struct archive_writer base;
	struct sink *sink;
	const struct archive_args *args;
	uint64_t mtime;		/* clamped archive time */
	uint64_t offset;	/* bytes produced so far */
	unsigned char *buf;
	size_t buf_len;
};

/*
 * Write the whole blocks the buffer holds and keep the rest.  Only whole
 * blocks are ever written (the trailer ends on a block), so that what
 * has left garchive when a run dies is at most what git, which writes
 * each block as it fills, has written; and when a run dies, this
 * writes what git had written (the rest is git's unwritten block).
 */
static int flush_buffer(struct tar_writer *tw)
{
	size_t len = tw->buf_len - tw->buf_len % TAR_BLOCK_SIZE;
	int error;

	if (!len)
		return 0;
	error = tw->sink->write(tw->sink, tw->buf, len);
	memmove(tw->buf, tw->buf + len, tw->buf_len - len);
	tw->buf_len -= len;
	return error;
}

/*
 * Append bytes to the output, through the buffer, or the whole blocks
 * of a large body directly once the buffer ends on a block.
 */
static int emit(struct tar_writer *tw, const void *data, size_t len)
{
	const unsigned char *p = data;
	int error;

	tw->offset += len;
	while (len) {
		size_t n = TAR_BUFFER_SIZE - tw->buf_len;

		if (len >= TAR_DIRECT_WRITE && !(tw->buf_len % TAR_BLOCK_SIZE)) {
			if ((error = flush_buffer(tw)) < 0)
				return error;
			n = len - len % TAR_BLOCK_SIZE;
			if ((error = tw->sink->write(tw->sink, p, n)) < 0)
				return error;
			p += n;
			len -= n;
			continue;
		}
		if (len >= TAR_DIRECT_WRITE)
			n = TAR_BLOCK_SIZE - tw->buf_len % TAR_BLOCK_SIZE;
		if (n > len)
			n = len;
		memcpy(tw->buf + tw->buf_len, p, n);
		tw->buf_len += n;
		p += n;
		len -= n;
		if (tw->buf_len == TAR_BUFFER_SIZE &&
		    (error = flush_buffer(tw)) < 0)
			return error;
	}
	return 0;
}

static int emit_zeros(struct tar_writer *tw, size_t len)
{
	static const unsigned char zeros[USTAR_RECORD];
	int error;

	while (len) {
		size_t n = len < sizeof(zeros) ? len : sizeof(zeros);

		if ((error = emit(tw, zeros, n)) < 0)
			return error;
		len -= n;
	}
	return 0;
}

/* Pad the current member's content to a record boundary. */
static int emit_padding(struct tar_writer *tw)
{
	size_t rem = (size_t)(tw->offset % USTAR_RECORD);

	return rem ? emit_zeros(tw, USTAR_RECORD - rem) : 0;
}

/*
 * Length of a pax record "<len> <keyword>=<value>\n", where <len> counts
 * its own digits: the smallest self-consistent length.
 */
size_t tar_pax_record_len(size_t keyword_len, size_t value_len)
{
	size_t base = keyword_len + value_len + 3;	/* ' ', '=', '\n' */
	size_t digits = 1, limit = 10;

	while (base + digits >= limit) {
		digits++;
		limit *= 10;
	}
	return base + digits;
}

static void pax_add(struct ga_buf *pax, const char *keyword,
		    const char *value, size_t value_len)
{
	size_t len = tar_pax_record_len(strlen(keyword), value_len);

	ga_buf_printf(pax, "%zu %s=", len, keyword);
	ga_buf_put(pax, value, value_len);
	ga_buf_putc(pax, '\n');
}

static void pax_add_uint(struct ga_buf *pax, const char *keyword,
			 uint64_t value)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, value);

	pax_add(pax, keyword, digits, (size_t)n);
}

static unsigned int header_checksum(const unsigned char *h)
{
	unsigned int sum = 0;
	size_t i;

	for (i = 0; i < USTAR_RECORD; i++)
		sum += (i >= H_CHKSUM && i < H_CHKSUM + W_CHKSUM) ? ' ' : h[i];
	return sum;
}

/*
 * Fill the fields every header shares, then the checksum.  The name,
 * prefix, linkname and typeflag must already be set.  `mode` is written
 * masked with 07777; `size` only for regular files (git's rule, which
 * covers the pax headers too since they carry a regular mode).
 */
static void finish_header(struct tar_writer *tw, unsigned char *h,
			  uint32_t mode, uint64_t size)
{
	char *f = (char *)h;

	ga_put_octal(f + H_MODE, W_MODE, mode & 07777);
	ga_put_octal(f + H_UID, W_UID, 0);
	ga_put_octal(f + H_GID, W_GID, 0);
	/*
	 * Only a regular file has data, decided on the mode after
	 * tar.umask as git decides it: a umask may clear the type bits
	 * (any int is a valid tar.umask), and the entry then has size 0.
	 */
	ga_put_octal(f + H_SIZE, W_SIZE,
		     archive_mode_is_regular(mode) ? size : 0);
	ga_put_octal(f + H_MTIME, W_MTIME, tw->mtime);
	memcpy(f + H_MAGIC, "ustar", 6);
	memcpy(f + H_VERSION, "00", 2);
	memcpy(f + H_UNAME, "root", 4);
	memcpy(f + H_GNAME, "root", 4);
	ga_put_octal(f + H_DEVMAJOR, W_DEVMAJOR, 0);
	ga_put_octal(f + H_DEVMINOR, W_DEVMINOR, 0);
	/* git writes 7 digits and a NUL, not the usual "6 digits NUL space". */
	ga_put_octal(f + H_CHKSUM, W_CHKSUM, header_checksum(h));
}

/* A pax header (typeflag 'x' or 'g') and its records. */
static int emit_pax_header(struct tar_writer *tw, char typeflag,
			   const char *name, const struct ga_buf *records)
{
	unsigned char h[USTAR_RECORD] = { 0 };
	int error;

	memcpy(h + H_NAME, name, strlen(name));
	h[H_TYPEFLAG] = (unsigned char)typeflag;
	finish_header(tw, h, PAX_HEADER_MODE, records->len);
	if ((error = emit(tw, h, sizeof(h))) < 0 ||
	    (error = emit(tw, records->ptr, records->len)) < 0)
		return error;
	return emit_padding(tw);
}

/*
 * Where a path longer than the name field may be split: the last '/'
 * before index min(len, 155), ignoring one trailing '/'.  Returns its
 * index, or 0 when there is none.
 */
static size_t split_point(const char *path, size_t len)
{
	size_t i = len;

	if (i > 1 && path[i - 1] == '/')
		i--;
	if (i > W_PREFIX)
		i = W_PREFIX;
	do {
		i--;
	} while (i > 0 && path[i] != '/');
	return i;
}

/* Permission bits git writes for a canonical mode; 0 if unsupported. */
static int tar_mode(uint32_t *out, char *typeflag, uint32_t mode,
		    unsigned int umask_bits)
{
	switch (mode & 0170000) {
	case 0040000:
	case 0160000:
		*typeflag = TYPE_DIR;
		*out = (mode | 0777) & ~umask_bits;
		return 0;
	case 0120000:
		*typeflag = TYPE_SYMLINK;
		*out = mode | 0777;	/* the umask never applies */
		return 0;
	case 0100000:
		*typeflag = TYPE_REG;
		*out = (mode | ((mode & 0100) ? 0777 : 0666)) & ~umask_bits;
		return 0;
	}
	return -1;
}

/*
 * Fill `chunk` with the next `want` bytes of `e`'s stream.  *fill says
 * how many it holds, also when the read fails.
 */
static int fill_chunk(struct archive_entry *e, unsigned char *chunk,
		      size_t want, size_t *fill)
{
	size_t got;
	int error;

	for (*fill = 0; *fill < want; *fill += got) {
		/* git's reads: a block each, from the start of the blob. */
		size_t cap = TAR_BLOCK_SIZE - *fill % TAR_BLOCK_SIZE;

		if (cap > want - *fill)
			cap = want - *fill;
		if ((error = e->stream->read(e->stream, chunk + *fill, cap,
					     &got)) < 0)
			return error;
		if (!got)
			return ga_error_code(GA_EARCHIVE, "cannot stream blob %s",
					     e->oid_hex);
	}
	return 0;
}

/*
 * git reads a stream a block at a time and writes each whole read, so
 * a read that fails leaves the blocks before it written and its own
 * bytes unwritten: the same here, the blocks counted from the start of
 * the blob.  A write that fails is git's failure before any later read.
 */
static int emit_stream(struct tar_writer *tw, struct archive_entry *e)
{
	unsigned char *chunk = ga_xmalloc(TAR_STREAM_CHUNK);
	uint64_t left = e->size;
	int error = 0, werror;

	while (left && !error) {
		size_t want = left < TAR_STREAM_CHUNK ? (size_t)left
						      : TAR_STREAM_CHUNK;
		size_t fill;

		if ((error = fill_chunk(e, chunk, want, &fill)) < 0)
			fill -= fill % TAR_BLOCK_SIZE;
		if ((werror = emit(tw, chunk, fill)) < 0) {
			error = werror;
			goto done;
		}
		left -= fill;
	}
	if (error < 0 && (werror = flush_buffer(tw)) < 0)
		error = werror;
done:
	free(chunk);
	return error;
}

static int tar_add(struct archive_writer *w, struct archive_entry *e)
{
	struct tar_writer *tw = (struct tar_writer *)w;
	unsigned char h[USTAR_RECORD] = { 0 };
	struct ga_buf pax = GA_BUF_INIT;
	uint32_t mode;
	char typeflag;
	uint64_t size = 0;
	int error = 0;

	if (e->deferred)
		GA_BUG("tar: deferred entry");
	if (tar_mode(&mode, &typeflag, e->mode, tw->args->tar_umask) < 0)
		return ga_error_code(GA_EARCHIVE,
				     "unsupported file mode: 0%o (SHA1: %s)",
				     (unsigned int)e->mode, e->oid_hex);

	if (e->path_len <= W_NAME) {
		memcpy(h + H_NAME, e->path, e->path_len);
	} else {
		size_t p = split_point(e->path, e->path_len);
		size_t rest = e->path_len - p - 1;

		if (p > 0 && rest <= W_NAME) {
			memcpy(h + H_PREFIX, e->path, p);
			memcpy(h + H_NAME, e->path + p + 1, rest);
		} else {
			snprintf((char *)h + H_NAME, W_NAME, "%s.data",
				 e->oid_hex);
			pax_add(&pax, "path", e->path, e->path_len);
		}
	}

	if (typeflag == TYPE_SYMLINK) {
		if (e->size > W_LINKNAME) {
			snprintf((char *)h + H_LINKNAME, W_LINKNAME,
				 "see %s.paxheader", e->oid_hex);
			pax_add(&pax, "linkpath", (const char *)e->data,
				(size_t)e->size);
		} else if (e->size) {
			memcpy(h + H_LINKNAME, e->data, (size_t)e->size);
		}
	} else if (archive_mode_is_regular(mode)) {
		size = e->size;
		if (size > TAR_MAX_SIZE) {
			pax_add_uint(&pax, "size", size);
			size = 0;
		}
	}

	if (pax.len) {
		char name[W_NAME];

		snprintf(name, sizeof(name), "%s.paxheader", e->oid_hex);
		if ((error = emit_pax_header(tw, TYPE_PAX, name, &pax)) < 0)
			goto done;
	}

	h[H_TYPEFLAG] = (unsigned char)typeflag;
	finish_header(tw, h, mode, size);
	if ((error = emit(tw, h, sizeof(h))) < 0)
		goto done;
	if (!archive_mode_is_regular(mode) || !e->size)
		goto done;
	if (e->stream)
		error = emit_stream(tw, e);
	else
		error = emit(tw, e->data, (size_t)e->size);
	if (!error)
		error = emit_padding(tw);
done:
	ga_buf_release(&pax);
	return error;
}

static int tar_finish(struct archive_writer *w)
{
	struct tar_writer *tw = (struct tar_writer *)w;
	size_t tail = TAR_BLOCK_SIZE - (size_t)(tw->offset % TAR_BLOCK_SIZE);
	int error;

	/*
	 * git zero-fills the current block, and adds another block when
	 * the fill was too short for the two zero records that end a tar.
	 */
	if (tail < 2 * USTAR_RECORD)
		tail += TAR_BLOCK_SIZE;
	if ((error = emit_zeros(tw, tail)) < 0)
		return error;
	return flush_buffer(tw);
}

/* The entries stop short: what git has written then (flush_buffer()). */
static int tar_abandon(struct archive_writer *w)
{
	return flush_buffer((struct tar_writer *)w);
}

static void tar_free(struct archive_writer *w)
{
	struct tar_writer *tw = (struct tar_writer *)w;

	if (!tw)
		return;
	free(tw->buf);
	free(tw);
}

/*
 * The global header comes first: the commit id (what git
 * get-tar-commit-id reads) and, for times past the 11-digit field, the
 * real mtime, after which every header gets the clamped value.
 */
static int emit_global_header(struct tar_writer *tw)
{
	struct ga_buf pax = GA_BUF_INIT;
	uint64_t mtime = (uint64_t)tw->args->mtime;
	int error = 0;

	if (tw->args->commit_hex)
		pax_add(&pax, "comment", tw->args->commit_hex,
			strlen(tw->args->commit_hex));
	if (mtime > TAR_MAX_MTIME) {
		pax_add_uint(&pax, "mtime", mtime);
		mtime = TAR_MAX_MTIME;
	}
	tw->mtime = mtime;
	if (pax.len)
		error = emit_pax_header(tw, TYPE_PAX_GLOBAL,
					"pax_global_header", &pax);
	ga_buf_release(&pax);
	return error;
}

int tar_writer_new(struct archive_writer **out, struct sink *sink,
		   const struct archive_args *args)
{
	struct tar_writer *tw = ga_xcalloc(1, sizeof(*tw));
	int error;

	tw->base.add = tar_add;
	tw->base.finish = tar_finish;
	tw->base.abandon = tar_abandon;
	tw->base.free = tar_free;
	tw->sink = sink;
	tw->args = args;
	tw->buf = ga_xmalloc(TAR_BUFFER_SIZE);
	if ((error = emit_global_header(tw)) < 0) {
		tar_free(&tw->base);
		return error;
	}
	*out = &tw->base;
	return 0;
}

void tar_walk_needs(struct walk_options *wo)
{
	wo->stream_large = 1;
}

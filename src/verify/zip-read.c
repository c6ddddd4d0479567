/*
 * zip-read.c: a streaming zip reader that trusts nothing (see
 * zip-read.h).  Record layouts are those of PKWARE's APPNOTE; what git
 * writes in them is what zip.c writes (see FORMATS and OUTPUT STABILITY
 * in Documentation/garchive.adoc).
 *
 * All input goes through one look-ahead buffer, because a deflated
 * member without sizes ends where its deflate stream says, and the
 * bytes read past that belong to the next record.
 */
#include "zip-read.h"
#include "bytesrc.h"
#include "sha256.h"
#include "garchive/common.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#define ZR_BUF		(64 * 1024)

#define SIG_LOCAL	0x04034b50
#define SIG_CENTRAL	0x02014b50
#define SIG_DESCRIPTOR	0x08074b50
#define SIG_END64	0x06064b50
#define SIG_LOCATOR64	0x07064b50
#define SIG_END		0x06054b50

#define LOCAL_LEN	30
#define CENTRAL_LEN	46
#define END_LEN		22
#define END64_MIN	56
#define LOCATOR64_LEN	20

#define FLAG_DESCRIPTOR	0x0008

#define EXTRA_ZIP64	0x0001
#define EXTRA_UT	0x5455

#define U32_MAX		0xffffffffU

enum zr_phase { PHASE_LOCAL, PHASE_DATA, PHASE_CENTRAL, PHASE_END };

struct zip_reader {
	struct byte_source *src;
	unsigned char *buf;
	size_t pos, len;	/* unread bytes are buf[pos..len) */
	int eof;
	uint64_t offset;	/* bytes consumed */
	uint64_t max_inflated, inflated;

	enum zr_phase phase;
	struct ga_buf name;
	struct zip_read_entry entry;
	struct zip_read_central central;

	/* The current member's content. */
	z_stream zs;
	int zs_ready;
	int stream_end;
	uint64_t in_left;	/* stored: bytes to copy; deflate: csize
				   when known */
	int csize_known;
	uint64_t consumed, produced;
	uint32_t crc;
	int zip64;		/* descriptor sizes are 8 bytes */

	/* What the local entries were, to check the central directory. */
	struct ga_sha256 local_hash, central_hash;
	uint64_t central_start, central_len;

	struct zip_read_summary sum;
	char *comment;
};

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

void zip_reader_new(struct zip_reader **out, struct byte_source *src,
		    uint64_t max_inflated)
{
	struct zip_reader *r = ga_xcalloc(1, sizeof(*r));

	r->src = src;
	r->buf = ga_xmalloc(ZR_BUF);
	r->max_inflated = max_inflated;
	ga_sha256_init(&r->local_hash);
	ga_sha256_init(&r->central_hash);
	*out = r;
}

void zip_reader_free(struct zip_reader *r)
{
	if (!r)
		return;
	if (r->zs_ready)
		inflateEnd(&r->zs);
	ga_sha256_release(&r->local_hash);
	ga_sha256_release(&r->central_hash);
	ga_buf_release(&r->name);
	free(r->comment);
	free(r->buf);
	free(r);
}

/* Have at least `need` (<= ZR_BUF) bytes buffered, unless at the end. */
static int fill(struct zip_reader *r, size_t need)
{
	int error;

	if (r->len - r->pos >= need)
		return 0;
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	while (!r->eof && r->len < need) {
		size_t n;

		if ((error = r->src->read(r->src, r->buf + r->len,
					  ZR_BUF - r->len, &n)) < 0)
			return error;
		if (!n)
			r->eof = 1;
		r->len += n;
	}
	return 0;
}

static void consume(struct zip_reader *r, size_t n)
{
	r->pos += n;
	r->offset += n;
}

static int truncated(struct zip_reader *r)
{
	return ga_error_set("truncated zip archive: it ends at byte %" PRIu64,
			    r->offset + (r->len - r->pos));
}

/* `len` bytes, consumed, into `out` (a fixed record or a name). */
static int take(struct zip_reader *r, void *out, size_t len)
{
	unsigned char *o = out;
	int error;

	while (len) {
		size_t n;

		if ((error = fill(r, 1)) < 0)
			return error;
		if (r->pos == r->len)
			return truncated(r);
		n = r->len - r->pos < len ? r->len - r->pos : len;
		memcpy(o, r->buf + r->pos, n);
		consume(r, n);
		o += n;
		len -= n;
	}
	return 0;
}

/* The signature of the next record, not consumed; 0 at the end. */
static int peek_sig(uint32_t *sig, struct zip_reader *r)
{
	int error;

	if ((error = fill(r, 4)) < 0)
		return error;
	if (r->len - r->pos < 4) {
		if (r->len == r->pos) {
			*sig = 0;
			return 0;
		}
		return truncated(r);
	}
	*sig = le32(r->buf + r->pos);
	return 0;
}

/* Read a name (or comment) of `len` bytes into r->name. */
static int take_name(struct zip_reader *r, size_t len)
{
	ga_buf_setlen(&r->name, 0);
	ga_buf_grow(&r->name, len);
	if (take(r, r->name.ptr, len) < 0)
		return GA_ERROR;
	r->name.len = len;
	r->name.ptr[len] = '\0';
	return 0;
}

/*
 * Walk the extra fields.  zip64 sizes replace the 32-bit fields that
 * hold 0xffffffff, in APPNOTE's order (size, compressed size, offset).
 */
static int parse_extra(struct zip_reader *r, const unsigned char *x,
		       size_t len, unsigned *extras, uint32_t *ut,
		       uint64_t *usize, uint64_t *csize, uint64_t *offset)
{
	while (len) {
		uint16_t id, size;

		if (len < 4)
			goto malformed;
		id = le16(x);
		size = le16(x + 2);
		if ((size_t)size > len - 4)
			goto malformed;
		if (id == EXTRA_UT) {
			*extras |= ZIP_READ_EXTRA_UT;
			if (size >= 5 && (x[4] & 1))
				*ut = le32(x + 5);
		} else if (id == EXTRA_ZIP64) {
			const unsigned char *z = x + 4;
			size_t left = size;

			*extras |= ZIP_READ_EXTRA_ZIP64;
			if (*usize == U32_MAX) {
				if (left < 8)
					goto malformed;
				*usize = le64(z);
				z += 8;
				left -= 8;
			}
			if (*csize == U32_MAX) {
				if (left < 8)
					goto malformed;
				*csize = le64(z);
				z += 8;
				left -= 8;
			}
			if (offset && *offset == U32_MAX) {
				if (left < 8)
					goto malformed;
				*offset = le64(z);
			}
		} else {
			*extras |= ZIP_READ_EXTRA_OTHER;
		}
		x += 4 + size;
		len -= 4 + (size_t)size;
	}
	return 0;
malformed:
	return ga_error_set("malformed extra field in zip header at byte %"
			    PRIu64, r->offset);
}

/* Read and drop `len` bytes of extra field, parsing them on the way. */
static int take_extra(struct zip_reader *r, size_t len, unsigned *extras,
		      uint32_t *ut, uint64_t *usize, uint64_t *csize,
		      uint64_t *offset)
{
	unsigned char *x = ga_xmalloc(len ? len : 1);
	int error;

	if ((error = take(r, x, len)) == 0)
		error = parse_extra(r, x, len, extras, ut, usize, csize,
				    offset);
	free(x);
	return error;
}

/* What the central directory must repeat about an entry, in order. */
static void hash_view(struct ga_sha256 *h, uint64_t offset, const char *name,
		      size_t name_len, uint16_t method, uint16_t flags,
		      uint16_t dos_time, uint16_t dos_date, uint32_t crc,
		      uint64_t csize, uint64_t usize)
{
	unsigned char rec[8 + 8 + 2 + 2 + 2 + 2 + 4 + 8 + 8];

	ga_put_le64(rec, offset);
	ga_put_le64(rec + 8, name_len);
	ga_put_le16(rec + 16, method);
	ga_put_le16(rec + 18, flags);
	ga_put_le16(rec + 20, dos_time);
	ga_put_le16(rec + 22, dos_date);
	ga_put_le32(rec + 24, crc);
	ga_put_le64(rec + 28, csize);
	ga_put_le64(rec + 36, usize);
	ga_sha256_update(h, rec, sizeof(rec));
	ga_sha256_update(h, name, name_len);
}

static int start_content(struct zip_reader *r)
{
	struct zip_read_entry *e = &r->entry;
	int descriptor = !!(e->flags & FLAG_DESCRIPTOR);

	r->consumed = r->produced = 0;
	r->crc = (uint32_t)crc32(0, NULL, 0);
	r->stream_end = 0;
	r->zip64 = !!(e->extras & ZIP_READ_EXTRA_ZIP64);
	if (e->method == 0) {
		/*
		 * git's streamed stored members give the size in the header
		 * and a descriptor after; one with neither has no end that
		 * a reader can find without the central directory.
		 */
		if (descriptor && !e->csize && e->usize)
			e->csize = e->usize;
		r->in_left = e->csize;
		r->csize_known = 1;
	} else if (e->method == 8) {
		r->csize_known = !descriptor || e->csize;
		r->in_left = e->csize;
		if (!r->zs_ready) {
			if (inflateInit2(&r->zs, -15) != Z_OK)
				return ga_error_set("inflateInit2 failed");
			r->zs_ready = 1;
		} else if (inflateReset(&r->zs) != Z_OK) {
			return ga_error_set("inflateReset failed");
		}
	} else {
		return ga_error_set("unsupported compression method %u for "
				    "'%s' at byte %" PRIu64,
				    (unsigned int)e->method, e->path,
				    e->offset);
	}
	r->phase = PHASE_DATA;
	return 0;
}

static int read_local(struct zip_reader *r)
{
	unsigned char h[LOCAL_LEN];
	struct zip_read_entry *e = &r->entry;
	uint64_t at = r->offset;
	int error;

	if ((error = take(r, h, sizeof(h))) < 0)
		return error;
	memset(e, 0, sizeof(*e));
	e->offset = at;
	e->version = le16(h + 4);
	e->flags = le16(h + 6);
	e->method = le16(h + 8);
	e->dos_time = le16(h + 10);
	e->dos_date = le16(h + 12);
	e->crc = le32(h + 14);
	e->csize = le32(h + 18);
	e->usize = le32(h + 22);
	if ((error = take_name(r, le16(h + 26))) < 0 ||
	    (error = take_extra(r, le16(h + 28), &e->extras, &e->ut_mtime,
				&e->usize, &e->csize, NULL)) < 0)
		return error;
	e->path = r->name.ptr;
	e->path_len = r->name.len;
	r->sum.nr_local++;
	if (e->flags & FLAG_DESCRIPTOR)
		r->sum.descriptors++;
	return start_content(r);
}

static int deflated(struct zip_reader *r, unsigned char *buf, size_t cap,
		    size_t *nread)
{
	struct zip_read_entry *e = &r->entry;
	int status, error;

	while (!r->stream_end) {
		size_t avail = 0;

		/*
		 * With the compressed size all read, zlib may still hold
		 * output: ask for it with no input.
		 */
		if (!r->csize_known || r->in_left) {
			if ((error = fill(r, 1)) < 0)
				return error;
			avail = r->len - r->pos;
			if (!avail)
				return truncated(r);
			if (r->csize_known && avail > r->in_left)
				avail = (size_t)r->in_left;
		}
		r->zs.next_in = r->buf + r->pos;
		r->zs.avail_in = (uInt)avail;
		r->zs.next_out = buf;
		r->zs.avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
		status = inflate(&r->zs, Z_NO_FLUSH);
		avail -= r->zs.avail_in;
		consume(r, avail);
		r->consumed += avail;
		if (r->csize_known)
			r->in_left -= avail;
		*nread = (size_t)(r->zs.next_out - buf);
		if (status == Z_STREAM_END) {
			r->stream_end = 1;
		} else if (status != Z_OK && status != Z_BUF_ERROR) {
			return ga_error_set("corrupt deflate data in '%s' at "
					    "byte %" PRIu64, e->path,
					    e->offset);
		} else if (!*nread && !avail) {
			/* No progress: the stream needs bytes it lacks. */
			if (r->csize_known && !r->in_left)
				return ga_error_set("'%s' at byte %" PRIu64
						    " is longer than its "
						    "compressed size", e->path,
						    e->offset);
			return ga_error_set("corrupt deflate data in '%s' at "
					    "byte %" PRIu64, e->path,
					    e->offset);
		}
		if (*nread)
			return 0;
	}
	return 0;
}

/* The data descriptor after a member's data, checked against it. */
static int read_descriptor(struct zip_reader *r)
{
	struct zip_read_entry *e = &r->entry;
	unsigned char d[20];
	uint32_t sig;
	size_t n = r->zip64 ? 20 : 12;
	int error;

	if ((error = peek_sig(&sig, r)) < 0)
		return error;
	if (sig == SIG_DESCRIPTOR)
		consume(r, 4);
	if ((error = take(r, d, n)) < 0)
		return error;
	e->crc = le32(d);
	e->csize = r->zip64 ? le64(d + 4) : le32(d + 4);
	if ((r->zip64 ? le64(d + 12) : le32(d + 8)) != r->produced ||
	    e->csize != r->consumed)
		return ga_error_set("data descriptor of '%s' at byte %" PRIu64
				    " does not match its data", e->path,
				    e->offset);
	e->usize = r->produced;
	return 0;
}

/* At the end of a member's data: sizes, descriptor and CRC. */
static int end_content(struct zip_reader *r)
{
	struct zip_read_entry *e = &r->entry;
	int error;

	if (e->method == 8 && r->csize_known && r->in_left)
		return ga_error_set("'%s' at byte %" PRIu64 " is shorter than "
				    "its compressed size", e->path, e->offset);
	if ((e->flags & FLAG_DESCRIPTOR) && (error = read_descriptor(r)) < 0)
		return error;
	if (!(e->flags & FLAG_DESCRIPTOR) && r->produced != e->usize)
		return ga_error_set("'%s' at byte %" PRIu64 " inflates to %"
				    PRIu64 " bytes, not %" PRIu64, e->path,
				    e->offset, r->produced, e->usize);
	if (r->crc != e->crc)
		return ga_error_set("CRC mismatch in '%s' at byte %" PRIu64,
				    e->path, e->offset);
	hash_view(&r->local_hash, e->offset, e->path, e->path_len, e->method,
		  e->flags, e->dos_time, e->dos_date, e->crc, e->csize,
		  e->usize);
	r->phase = PHASE_LOCAL;
	return 0;
}

int zip_reader_read(struct zip_reader *r, unsigned char *buf, size_t cap,
		    size_t *nread)
{
	struct zip_read_entry *e = &r->entry;
	int error;

	*nread = 0;
	if (r->phase != PHASE_DATA)
		return 0;
	if (e->method == 0) {
		size_t n = r->in_left < cap ? (size_t)r->in_left : cap;

		if (n) {
			if ((error = fill(r, 1)) < 0)
				return error;
			if (r->pos == r->len)
				return truncated(r);
			if (n > r->len - r->pos)
				n = r->len - r->pos;
			memcpy(buf, r->buf + r->pos, n);
			consume(r, n);
			r->in_left -= n;
			r->consumed += n;
			*nread = n;
		}
	} else if ((error = deflated(r, buf, cap, nread)) < 0) {
		return error;
	}
	if (*nread) {
		r->produced += *nread;
		r->crc = (uint32_t)crc32_z(r->crc, buf, *nread);
		r->inflated += *nread;
		if (e->usize && r->produced > e->usize &&
		    (e->usize != U32_MAX || (e->extras & ZIP_READ_EXTRA_ZIP64)))
			return ga_error_set("'%s' at byte %" PRIu64 " inflates "
					    "to more than its declared %"
					    PRIu64 " bytes", e->path,
					    e->offset, e->usize);
		if (r->max_inflated && r->inflated > r->max_inflated)
			return ga_error_code(GA_ELIMIT, "the members of the zip "
					     "archive hold more than %" PRIu64
					     " bytes", r->max_inflated);
		return 0;
	}
	return end_content(r);
}

/* Read what is left of the current member. */
static int skip_content(struct zip_reader *r)
{
	unsigned char *buf;
	size_t n;
	int error = 0;

	if (r->phase != PHASE_DATA)
		return 0;
	buf = ga_xmalloc(ZR_BUF);
	do {
		error = zip_reader_read(r, buf, ZR_BUF, &n);
	} while (!error && n);
	free(buf);
	return error;
}

int zip_reader_next(struct zip_read_entry **out, struct zip_reader *r)
{
	uint32_t sig;
	int error;

	if (r->phase == PHASE_CENTRAL || r->phase == PHASE_END)
		return GA_ITEROVER;
	if ((error = skip_content(r)) < 0 || (error = peek_sig(&sig, r)) < 0)
		return error;
	if (sig == SIG_LOCAL) {
		if ((error = read_local(r)) < 0)
			return error;
		*out = &r->entry;
		return 0;
	}
	if (sig == SIG_CENTRAL || sig == SIG_END64 || sig == SIG_END) {
		r->phase = PHASE_CENTRAL;
		r->central_start = r->offset;
		return GA_ITEROVER;
	}
	if (!sig && r->pos == r->len)
		return truncated(r);
	return ga_error_set("not a zip record at byte %" PRIu64, r->offset);
}

static void inconsistent(struct zip_reader *r, const char *why)
{
	if (!r->sum.inconsistent)
		r->sum.inconsistent = why;
}

static int read_central(struct zip_reader *r)
{
	unsigned char h[CENTRAL_LEN];
	struct zip_read_central *c = &r->central;
	int error;

	if ((error = take(r, h, sizeof(h))) < 0)
		return error;
	memset(c, 0, sizeof(*c));
	c->made_by = le16(h + 4);
	c->version = le16(h + 6);
	c->flags = le16(h + 8);
	c->method = le16(h + 10);
	c->dos_time = le16(h + 12);
	c->dos_date = le16(h + 14);
	c->crc = le32(h + 16);
	c->csize = le32(h + 20);
	c->usize = le32(h + 24);
	c->comment_len = le16(h + 32);
	c->internal_attr = le16(h + 36);
	c->external_attr = le32(h + 38);
	c->offset = le32(h + 42);
	if ((error = take_name(r, le16(h + 28))) < 0 ||
	    (error = take_extra(r, le16(h + 30), &c->extras, &c->ut_mtime,
				&c->usize, &c->csize, &c->offset)) < 0)
		return error;
	c->path = r->name.ptr;
	c->path_len = r->name.len;
	/* The entry comment is of no interest; only its length is kept. */
	if (c->comment_len) {
		unsigned char *skip = ga_xmalloc(c->comment_len);

		error = take(r, skip, c->comment_len);
		free(skip);
		if (error < 0)
			return error;
	}
	hash_view(&r->central_hash, c->offset, c->path, c->path_len, c->method,
		  c->flags, c->dos_time, c->dos_date, c->crc, c->csize,
		  c->usize);
	r->sum.nr_central++;
	return 0;
}

/* The zip64 end record and its locator, checked for their fields. */
static int read_end64(struct zip_reader *r, uint64_t *entries,
		      uint64_t *cd_size, uint64_t *cd_offset)
{
	unsigned char h[END64_MIN], loc[LOCATOR64_LEN];
	uint64_t at = r->offset, size;
	uint32_t sig;
	int error;

	if ((error = take(r, h, sizeof(h))) < 0)
		return error;
	size = le64(h + 4);
	if (size < END64_MIN - 12 || size > ZR_BUF)
		return ga_error_set("malformed zip64 end record at byte %"
				    PRIu64, at);
	if (size > END64_MIN - 12) {
		unsigned char *skip = ga_xmalloc((size_t)size);

		error = take(r, skip, (size_t)(size - (END64_MIN - 12)));
		free(skip);
		if (error < 0)
			return error;
	}
	*entries = le64(h + 32);
	*cd_size = le64(h + 40);
	*cd_offset = le64(h + 48);
	if (le64(h + 24) != *entries)
		inconsistent(r, "the zip64 end record counts its entries "
			     "twice, differently");
	r->sum.zip64_end = 1;
	if ((error = peek_sig(&sig, r)) < 0)
		return error;
	if (sig != SIG_LOCATOR64)
		return ga_error_set("zip64 end record at byte %" PRIu64
				    " without its locator", at);
	if ((error = take(r, loc, sizeof(loc))) < 0)
		return error;
	if (le64(loc + 8) != at)
		inconsistent(r, "the zip64 locator points elsewhere");
	return 0;
}

static int read_end(struct zip_reader *r)
{
	unsigned char h[END_LEN];
	unsigned char a[GA_SHA256_LEN], b[GA_SHA256_LEN];
	uint64_t entries, cd_size, cd_offset, e64 = 0, s64 = 0, o64 = 0;
	int have64 = 0;
	uint32_t sig;
	int error;

	r->central_len = r->offset - r->central_start;
	if ((error = peek_sig(&sig, r)) < 0)
		return error;
	if (sig == SIG_END64) {
		if ((error = read_end64(r, &e64, &s64, &o64)) < 0 ||
		    (error = peek_sig(&sig, r)) < 0)
			return error;
		have64 = 1;
	}
	if (sig != SIG_END)
		return ga_error_set("not a zip record at byte %" PRIu64,
				    r->offset);
	if ((error = take(r, h, sizeof(h))) < 0)
		return error;
	entries = le16(h + 10);
	cd_size = le32(h + 12);
	cd_offset = le32(h + 16);
	if (have64) {
		if (entries == 0xffff)
			entries = e64;
		if (cd_offset == U32_MAX)
			cd_offset = o64;
		if (cd_size == U32_MAX)
			cd_size = s64;
	}
	if ((error = take_name(r, le16(h + 20))) < 0)
		return error;
	/* All of it: a comment may hold NUL bytes. */
	r->comment = ga_xmalloc(r->name.len + 1);
	memcpy(r->comment, r->name.ptr, r->name.len + 1);
	r->sum.comment = r->comment;
	r->sum.comment_len = r->name.len;
	r->sum.has_end = 1;
	r->sum.end = r->offset;

	ga_sha256_final(&r->local_hash, a);
	ga_sha256_final(&r->central_hash, b);
	if (r->sum.nr_central != r->sum.nr_local)
		inconsistent(r, "the central directory lists another number "
			     "of entries than the archive holds");
	else if (memcmp(a, b, sizeof(a)))
		inconsistent(r, "the central directory describes the entries "
			     "differently (offsets, names, sizes or CRCs)");
	if (entries != r->sum.nr_central || le16(h + 8) != le16(h + 10))
		inconsistent(r, "the end record counts other entries than the "
			     "central directory lists");
	if (cd_offset != r->central_start || cd_size != r->central_len)
		inconsistent(r, "the end record places the central directory "
			     "elsewhere");
	if (le16(h + 4) || le16(h + 6))
		inconsistent(r, "the end record names another disk");
	r->phase = PHASE_END;
	return 0;
}

int zip_reader_next_central(struct zip_read_central **out,
			    struct zip_reader *r)
{
	uint32_t sig;
	int error;

	if (r->phase == PHASE_END)
		return GA_ITEROVER;
	if (r->phase != PHASE_CENTRAL)
		GA_BUG("zip: central directory before the entries ended");
	if ((error = peek_sig(&sig, r)) < 0)
		return error;
	if (sig == SIG_CENTRAL) {
		if ((error = read_central(r)) < 0)
			return error;
		*out = &r->central;
		return 0;
	}
	if (!sig && r->pos == r->len)
		return truncated(r);
	if ((error = read_end(r)) < 0)
		return error;
	return GA_ITEROVER;
}

int zip_reader_trailer(struct zip_reader *r, uint64_t max,
		       uint64_t *trailing, int *more)
{
	int error;

	*trailing = 0;
	*more = 0;
	for (;;) {
		size_t n;

		if ((error = fill(r, 1)) < 0)
			return error;
		n = r->len - r->pos;
		if (!n)
			return 0;
		if (*trailing + n > max) {
			*more = 1;
			return 0;
		}
		consume(r, n);
		*trailing += n;
	}
}

void zip_reader_summary(struct zip_read_summary *out,
			const struct zip_reader *r)
{
	*out = r->sum;
}

int zip_read_tail_comment(char **out, int fd)
{
	unsigned char *tail;
	struct stat st;
	size_t len, i;
	ssize_t got;

	*out = NULL;
	if (fstat(fd, &st) < 0)
		return ga_error_errno(errno, "cannot stat the archive");
	if (st.st_size < END_LEN)
		return 0;
	/* The end record and a comment of at most 65535 bytes. */
	len = st.st_size < END_LEN + 65535 ? (size_t)st.st_size
					   : END_LEN + 65535;
	tail = ga_xmalloc(len);
	got = pread(fd, tail, len, st.st_size - (off_t)len);
	if (got != (ssize_t)len) {
		int err = got < 0 ? errno : EIO;

		free(tail);
		return ga_error_errno(err, "cannot read the archive");
	}
	for (i = len - END_LEN + 1; i-- > 0;) {
		if (le32(tail + i) != SIG_END ||
		    i + END_LEN + le16(tail + i + 20) != len)
			continue;
		*out = ga_xstrndup((const char *)tail + i + END_LEN,
				   le16(tail + i + 20));
		break;
	}
	free(tail);
	return 0;
}

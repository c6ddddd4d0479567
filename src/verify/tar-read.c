/*
 * tar-read.c: a streaming tar reader that trusts nothing (see
 * tar-read.h).
 *
 * Layout facts are those of POSIX ustar and pax, plus the GNU
 * extensions other tools write: the "ustar  " magic (whose prefix field
 * holds times, not a path), 'L' and 'K' long name headers and base-256
 * numbers.  git's own choices (which fields hold what) are tar.c's (see
 * OUTPUT STABILITY in Documentation/garchive.adoc), and show here only
 * as flags that tell verify where another tool made the archive.
 */
#include "tar-read.h"
#include "bytesrc.h"
#include "garchive/common.h"
#include "ustar.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK		USTAR_RECORD
#define SKIP_CHUNK	(64 * 1024)

/* Extended attributes waiting for the header they belong to. */
struct pending {
	struct ga_buf path, link;
	int have_path, have_link, have_size, have_mtime;
	uint64_t size;
	int64_t mtime;
	unsigned flags;
	uint64_t offset;	/* of the first header of the entry */
	int started;
};

struct tar_reader {
	struct byte_source *src;
	size_t max_header;
	uint64_t offset;	/* bytes consumed */
	uint64_t left;		/* content not yet read */
	uint64_t pad;		/* padding after it */
	unsigned char block[BLOCK];
	struct ga_buf meta;	/* content of a pax or GNU header */
	struct pending pend;
	struct ga_buf path, link;
	struct tar_read_entry entry;
	int ended;
	int headers_seen;
	struct tar_read_summary sum;
	char *comment;
};

void tar_reader_new(struct tar_reader **out, struct byte_source *src,
		    const struct tar_read_limits *limits)
{
	struct tar_reader *r = ga_xcalloc(1, sizeof(*r));

	r->src = src;
	r->max_header = limits && limits->max_header ? limits->max_header
						     : TAR_READ_MAX_HEADER;
	*out = r;
}

void tar_reader_free(struct tar_reader *r)
{
	if (!r)
		return;
	ga_buf_release(&r->meta);
	ga_buf_release(&r->pend.path);
	ga_buf_release(&r->pend.link);
	ga_buf_release(&r->path);
	ga_buf_release(&r->link);
	free(r->comment);
	free(r);
}

/* Read exactly `len` bytes, or fewer at the end of the source. */
static int read_full(struct tar_reader *r, unsigned char *buf, size_t len,
		     size_t *got)
{
	size_t n;
	int error;

	*got = 0;
	while (*got < len) {
		if ((error = r->src->read(r->src, buf + *got, len - *got,
					  &n)) < 0)
			return error;
		if (!n)
			break;
		*got += n;
	}
	r->offset += *got;
	return 0;
}

static int truncated(struct tar_reader *r)
{
	return ga_error_set("truncated tar archive: it ends at byte %" PRIu64
			    " inside an entry", r->offset);
}

/* Skip `len` bytes of the source (content or padding). */
static int skip(struct tar_reader *r, uint64_t len)
{
	unsigned char *buf;
	size_t got;
	int error = 0;

	if (!len)
		return 0;
	buf = ga_xmalloc(SKIP_CHUNK);
	while (len) {
		size_t want = len < SKIP_CHUNK ? (size_t)len : SKIP_CHUNK;

		if ((error = read_full(r, buf, want, &got)) < 0)
			break;
		if (got < want) {
			error = truncated(r);
			break;
		}
		len -= got;
	}
	free(buf);
	return error;
}

static int all_zero(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

/*
 * A numeric field: octal digits after optional spaces, ended by a NUL, a
 * space or the field's end; or GNU base-256 (first byte 0x80 or 0xff).
 * An all-NUL field is 0.  Returns 0 or -1.
 */
static int parse_number(int64_t *out, const unsigned char *f, size_t width)
{
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] == 0x80 || f[0] == 0xff) {
		int negative = f[0] == 0xff;

		/* Big-endian two's complement in the other bytes. */
		for (i = 1; i < width; i++) {
			if (v >> 55)
				return -1;
			v = v << 8 | f[i];
		}
		if (negative) {
			if (v < ((uint64_t)1 << 56) - ((uint64_t)1 << 55))
				return -1;
			*out = (int64_t)(v - ((uint64_t)1 << 56));
		} else {
			if (v > INT64_MAX)
				return -1;
			*out = (int64_t)v;
		}
		return 0;
	}
	while (i < width && f[i] == ' ')
		i++;
	for (; i < width && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return -1;
		v = v * 8 + (uint64_t)(f[i] - '0');
	}
	if (i < width && f[i] != '\0' && f[i] != ' ')
		return -1;
	for (; i < width; i++)
		if (f[i] != '\0' && f[i] != ' ')
			return -1;
	*out = (int64_t)v;
	return 0;
}

static int bad_field(struct tar_reader *r, const char *what)
{
	return ga_error_set("malformed tar header at byte %" PRIu64
			    ": bad %s field", r->offset - BLOCK, what);
}

/* Checked against both the unsigned and the historic signed sum. */
static int check_sum(struct tar_reader *r, const unsigned char *h)
{
	int64_t stored;
	uint64_t usum = 0;
	int64_t ssum = 0;
	size_t i;

	if (parse_number(&stored, h + H_CHKSUM, W_CHKSUM) < 0)
		return bad_field(r, "checksum");
	for (i = 0; i < BLOCK; i++) {
		unsigned char c = (i >= H_CHKSUM && i < H_CHKSUM + W_CHKSUM)
				  ? ' ' : h[i];

		usum += c;
		ssum += (signed char)c;
	}
	if (stored != (int64_t)usum && stored != ssum)
		return ga_error_set("bad tar header checksum at byte %" PRIu64,
				    r->offset - BLOCK);
	return 0;
}

/* A NUL-padded string field, as stored. */
static size_t field_len(const unsigned char *f, size_t width)
{
	const unsigned char *nul = memchr(f, '\0', width);

	return nul ? (size_t)(nul - f) : width;
}

/*
 * Whether the fields git writes in one way only are written that way:
 * the checksum as "%07o\0", device numbers "0000000\0", nothing after
 * the prefix.  (Owner, group, mode and time are reported on their own.)
 */
static int odd_header(const unsigned char *h)
{
	static const char zero_dev[W_DEVMAJOR] = "0000000";
	char sum[W_CHKSUM + 1];
	uint64_t usum = 0;
	size_t i;

	for (i = 0; i < BLOCK; i++)
		usum += (i >= H_CHKSUM && i < H_CHKSUM + W_CHKSUM) ? ' '
								   : h[i];
	snprintf(sum, sizeof(sum), "%07" PRIo64, usum);
	return memcmp(h + H_CHKSUM, sum, W_CHKSUM) ||
	       memcmp(h + H_DEVMAJOR, zero_dev, W_DEVMAJOR) ||
	       memcmp(h + H_DEVMINOR, zero_dev, W_DEVMINOR) ||
	       !all_zero(h + H_PAD, BLOCK - H_PAD);
}

/* Read the content of a pax or GNU header into r->meta. */
static int read_meta(struct tar_reader *r, uint64_t size)
{
	uint64_t at = r->offset - BLOCK;
	size_t got;
	int error;

	if (size > r->max_header)
		return ga_error_set("tar header of %" PRIu64 " bytes at byte %"
				    PRIu64 " is too large (more than %zu)",
				    size, at, r->max_header);
	ga_buf_setlen(&r->meta, 0);
	ga_buf_grow(&r->meta, (size_t)size + 1);
	if ((error = read_full(r, (unsigned char *)r->meta.ptr, (size_t)size,
			       &got)) < 0)
		return error;
	if (got < size)
		return truncated(r);
	r->meta.len = (size_t)size;
	r->meta.ptr[size] = '\0';
	return skip(r, GA_ALIGN_UP(size, BLOCK) - size);
}

static int parse_decimal(uint64_t *out, const char *s, size_t len)
{
	uint64_t v = 0;
	size_t i;

	if (!len)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* A pax time: [-]seconds[.fraction]; the fraction is dropped. */
static int parse_pax_time(int64_t *out, const char *s, size_t len)
{
	const char *dot = memchr(s, '.', len);
	int negative = len && *s == '-';
	uint64_t v;

	if (dot)
		len = (size_t)(dot - s);
	if (negative) {
		s++;
		len--;
	}
	if (parse_decimal(&v, s, len) < 0 || v > INT64_MAX)
		return -1;
	*out = negative ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int is_keyword(const char *kw, size_t len, const char *name)
{
	return strlen(name) == len && !memcmp(kw, name, len);
}

/* One record of an 'x' header. */
static int extended_record(struct tar_reader *r, const char *kw,
			   size_t kwlen, const char *val, size_t vlen)
{
	struct pending *p = &r->pend;

	if (is_keyword(kw, kwlen, "path")) {
		ga_buf_setlen(&p->path, 0);
		ga_buf_put(&p->path, val, vlen);
		p->have_path = 1;
	} else if (is_keyword(kw, kwlen, "linkpath")) {
		ga_buf_setlen(&p->link, 0);
		ga_buf_put(&p->link, val, vlen);
		p->have_link = 1;
	} else if (is_keyword(kw, kwlen, "size")) {
		if (parse_decimal(&p->size, val, vlen) < 0)
			return -1;
		p->have_size = 1;
	} else if (is_keyword(kw, kwlen, "mtime")) {
		if (parse_pax_time(&p->mtime, val, vlen) < 0)
			return -1;
		p->have_mtime = 1;
		p->flags |= TAR_READ_PAX_OTHER;
	} else {
		p->flags |= TAR_READ_PAX_OTHER;
	}
	return 0;
}

/* One record of a 'g' header. */
static int global_record(struct tar_reader *r, const char *kw, size_t kwlen,
			 const char *val, size_t vlen)
{
	if (is_keyword(kw, kwlen, "comment")) {
		if (!r->comment)
			r->comment = ga_xstrndup(val, vlen);
	} else if (is_keyword(kw, kwlen, "mtime")) {
		if (parse_pax_time(&r->sum.global_mtime, val, vlen) < 0)
			return -1;
		r->sum.has_global_mtime = 1;
	} else {
		r->sum.global_other = 1;
	}
	return 0;
}

/* "<len> <keyword>=<value>\n" records, each checked before use. */
static int parse_records(struct tar_reader *r, int global, uint64_t at)
{
	const char *p = r->meta.ptr;
	size_t left = r->meta.len;

	while (left) {
		size_t i = 0, rec = 0, eq;
		const char *kw, *val;

		while (i < left && p[i] >= '0' && p[i] <= '9' && rec < left)
			rec = rec * 10 + (size_t)(p[i++] - '0');
		if (!i || i >= left || p[i] != ' ' || rec <= i + 1 ||
		    rec > left || p[rec - 1] != '\n')
			goto malformed;
		kw = p + i + 1;
		val = memchr(kw, '=', rec - 1 - (i + 1));
		if (!val || val == kw)
			goto malformed;
		eq = (size_t)(val - kw);
		val++;
		if ((global ? global_record(r, kw, eq, val, p + rec - 1 - val)
			    : extended_record(r, kw, eq, val,
					      p + rec - 1 - val)) < 0)
			goto malformed;
		p += rec;
		left -= rec;
	}
	return 0;
malformed:
	return ga_error_set("malformed pax header at byte %" PRIu64, at);
}

/* GNU 'L' and 'K': a name with its NUL (or NULs) at the end. */
static void gnu_long(struct tar_reader *r, struct ga_buf *to, int *have)
{
	size_t len = r->meta.len;

	while (len && r->meta.ptr[len - 1] == '\0')
		len--;
	ga_buf_setlen(to, 0);
	ga_buf_put(to, r->meta.ptr, len);
	*have = 1;
	r->pend.flags |= TAR_READ_GNU_LONG;
}

static void pending_reset(struct pending *p)
{
	ga_buf_setlen(&p->path, 0);
	ga_buf_setlen(&p->link, 0);
	p->have_path = p->have_link = p->have_size = p->have_mtime = 0;
	p->flags = 0;
	p->started = 0;
}

/* Fill r->entry from header `h` and what is pending for it. */
static int fill_entry(struct tar_reader *r, const unsigned char *h,
		      uint64_t at)
{
	struct tar_read_entry *e = &r->entry;
	struct pending *p = &r->pend;
	int posix = !memcmp(h + H_MAGIC, "ustar\0" "00", 8);
	int64_t mode, uid, gid, size, mtime;

	if (parse_number(&mode, h + H_MODE, W_MODE) < 0)
		return bad_field(r, "mode");
	if (parse_number(&uid, h + H_UID, W_UID) < 0 || uid < 0)
		return bad_field(r, "uid");
	if (parse_number(&gid, h + H_GID, W_GID) < 0 || gid < 0)
		return bad_field(r, "gid");
	if (parse_number(&size, h + H_SIZE, W_SIZE) < 0 || size < 0)
		return bad_field(r, "size");
	if (parse_number(&mtime, h + H_MTIME, W_MTIME) < 0)
		return bad_field(r, "mtime");

	memset(e, 0, sizeof(*e));
	e->type = (char)h[H_TYPEFLAG];
	e->perm = (uint32_t)(mode & 07777);
	e->uid = (uint64_t)uid;
	e->gid = (uint64_t)gid;
	e->size = p->have_size ? p->size : (uint64_t)size;
	e->mtime = p->have_mtime ? p->mtime : mtime;
	e->offset = p->started ? p->offset : at;
	e->flags = p->flags;
	if (!posix)
		e->flags |= TAR_READ_NOT_USTAR;
	if (odd_header(h))
		e->flags |= TAR_READ_ODD_HEADER;
	memcpy(e->uname, h + H_UNAME, field_len(h + H_UNAME, W_UNAME));
	memcpy(e->gname, h + H_GNAME, field_len(h + H_GNAME, W_GNAME));

	ga_buf_setlen(&r->path, 0);
	if (p->have_path) {
		ga_buf_put(&r->path, p->path.ptr, p->path.len);
	} else {
		size_t plen = posix ? field_len(h + H_PREFIX, W_PREFIX) : 0;

		if (plen) {
			ga_buf_put(&r->path, h + H_PREFIX, plen);
			ga_buf_putc(&r->path, '/');
		}
		ga_buf_put(&r->path, h + H_NAME, field_len(h + H_NAME, W_NAME));
	}
	ga_buf_setlen(&r->link, 0);
	if (p->have_link)
		ga_buf_put(&r->link, p->link.ptr, p->link.len);
	else
		ga_buf_put(&r->link, h + H_LINKNAME,
			   field_len(h + H_LINKNAME, W_LINKNAME));
	ga_buf_puts(&r->path, "");
	ga_buf_puts(&r->link, "");
	e->path = r->path.ptr;
	e->path_len = r->path.len;
	e->link = r->link.ptr;
	e->link_len = r->link.len;

	if (e->size && e->type != '0' && e->type != '\0' && e->type != '7')
		e->flags |= TAR_READ_OTHER_SIZE;
	pending_reset(p);
	return 0;
}

int tar_reader_next(struct tar_read_entry **out, struct tar_reader *r)
{
	unsigned char *h = r->block;
	size_t got;
	int error;

	if (r->ended)
		return GA_ITEROVER;
	if ((error = skip(r, r->left + r->pad)) < 0)
		return error;
	r->left = r->pad = 0;

	for (;;) {
		uint64_t at = r->offset;
		int64_t size;
		char type;

		if ((error = read_full(r, h, BLOCK, &got)) < 0)
			return error;
		if (got < BLOCK)
			return ga_error_set("truncated tar archive: it ends at "
					    "byte %" PRIu64 " without its end "
					    "records", r->offset);
		if (all_zero(h, BLOCK)) {
			if (r->pend.started)
				return ga_error_set("malformed tar archive: "
						    "it ends at byte %" PRIu64
						    " after an extended header",
						    at);
			r->ended = 1;
			r->sum.end = at;
			return GA_ITEROVER;
		}
		if ((error = check_sum(r, h)) < 0)
			return error;
		if (!r->headers_seen++) {
			int64_t mtime;

			if (parse_number(&mtime, h + H_MTIME, W_MTIME) == 0)
				r->sum.first_mtime = mtime;
		}
		if (parse_number(&size, h + H_SIZE, W_SIZE) < 0 || size < 0)
			return bad_field(r, "size");
		type = (char)h[H_TYPEFLAG];

		if (type == 'g') {
			if (r->headers_seen == 1)
				r->sum.global_first = 1;
			r->sum.nr_global++;
			if ((error = read_meta(r, (uint64_t)size)) < 0 ||
			    (error = parse_records(r, 1, at)) < 0)
				return error;
			continue;
		}
		if (type == 'x' || type == 'X' || type == 'L' || type == 'K') {
			if (!r->pend.started) {
				r->pend.started = 1;
				r->pend.offset = at;
			}
			if ((error = read_meta(r, (uint64_t)size)) < 0)
				return error;
			if (type == 'L')
				gnu_long(r, &r->pend.path, &r->pend.have_path);
			else if (type == 'K')
				gnu_long(r, &r->pend.link, &r->pend.have_link);
			else if ((error = parse_records(r, 0, at)) < 0)
				return error;
			if (type == 'X')
				r->pend.flags |= TAR_READ_PAX_OTHER;
			continue;
		}
		if ((error = fill_entry(r, h, at)) < 0)
			return error;
		r->left = r->entry.size;
		r->pad = GA_ALIGN_UP(r->entry.size, BLOCK) - r->entry.size;
		*out = &r->entry;
		return 0;
	}
}

int tar_reader_read(struct tar_reader *r, unsigned char *buf, size_t cap,
		    size_t *nread)
{
	size_t want = r->left < cap ? (size_t)r->left : cap;
	int error;

	*nread = 0;
	if (!want)
		return 0;
	if ((error = read_full(r, buf, want, nread)) < 0)
		return error;
	if (*nread < want)
		return truncated(r);
	r->left -= *nread;
	return 0;
}

void tar_reader_summary(struct tar_read_summary *out,
			const struct tar_reader *r)
{
	*out = r->sum;
	out->comment = r->comment;
}

int tar_reader_trailer(struct tar_reader *r, uint64_t max, uint64_t *len,
		       int *zeros, int *more)
{
	unsigned char *buf = ga_xmalloc(SKIP_CHUNK);
	int error = 0;

	*len = BLOCK;	/* the zero record that ended the archive */
	*zeros = 1;
	*more = 0;
	for (;;) {
		size_t got;

		if (*len >= max) {
			/* One more byte tells whether the source goes on. */
			if ((error = read_full(r, buf, 1, &got)) < 0)
				break;
			*more = got > 0;
			break;
		}
		error = read_full(r, buf, max - *len < SKIP_CHUNK
					  ? (size_t)(max - *len) : SKIP_CHUNK,
				  &got);
		if (error < 0 || !got)
			break;
		if (*zeros && !all_zero(buf, got))
			*zeros = 0;
		*len += got;
	}
	free(buf);
	return error;
}

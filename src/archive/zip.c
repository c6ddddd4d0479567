/*
 * zip.c: the zip format writer, byte for byte what git 2.39.5's
 * archive-zip.c writes.
 *
 * Every member is deflated on its own, so members are compressed by a
 * pool of worker threads (zip-sched.c) and written in their original
 * order: the bytes do not depend on the number of threads.  The writer
 * thread owns the sink; workers only run process_job(): compute CRC-32,
 * sniff the text bit and deflate.
 */
#include "garchive/archive.h"
#include "garchive/common.h"
#include "garchive/sink.h"
#include "garchive/walk.h"
#include "zip-sched.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

/* Record signatures. */
#define ZIP_LOCAL_MAGIC		0x04034b50
#define ZIP_CDIR_MAGIC		0x02014b50
#define ZIP_DESC_MAGIC		0x08074b50
#define ZIP_EOCD_MAGIC		0x06054b50
#define ZIP64_EOCD_MAGIC	0x06064b50
#define ZIP64_LOCATOR_MAGIC	0x07064b50

/* General purpose flags. */
#define ZIP_FLAG_STREAM		0x0008	/* sizes, CRC in a data descriptor */
#define ZIP_FLAG_UTF8		0x0800	/* the name is UTF-8 */

#define ZIP_METHOD_STORE	0
#define ZIP_METHOD_DEFLATE	8

#define ZIP_VERSION_DEFAULT	10
#define ZIP_VERSION_ZIP64	45
#define ZIP_MADE_BY_UNIX	0x0317	/* Unix, spec 2.3 */

#define ZIP_ATTR_DOS_DIR	0x10

/* Local file header. */
#define LH_MAGIC	0
#define LH_VERSION	4
#define LH_FLAGS	6
#define LH_METHOD	8
#define LH_TIME		10
#define LH_DATE		12
#define LH_CRC		14
#define LH_CSIZE	18
#define LH_SIZE		22
#define LH_NAME_LEN	26
#define LH_EXTRA_LEN	28
#define LH_LEN		30

/* Extended timestamp extra field ("UT"), in local and central headers. */
#define UT_ID		0
#define UT_PAYLOAD_LEN	2
#define UT_FLAGS	4
#define UT_MTIME	5
#define UT_LEN		9
#define UT_MAGIC	0x5455
#define UT_FLAG_MTIME	1

/* zip64 extra field of a local header: both sizes, always. */
#define Z64L_ID		0
#define Z64L_PAYLOAD_LEN 2
#define Z64L_SIZE	4
#define Z64L_CSIZE	12
#define Z64L_LEN	20
#define ZIP64_EXTRA_ID	0x0001

/* Data descriptor, in its 32-bit and zip64 shapes. */
#define DD_MAGIC	0
#define DD_CRC		4
#define DD_CSIZE	8
#define DD_SIZE		12
#define DD_LEN		16
#define DD64_SIZE	16
#define DD64_LEN	24

/* Central directory header. */
#define CD_MAGIC	0
#define CD_MADE_BY	4
#define CD_VERSION	6
#define CD_FLAGS	8
#define CD_METHOD	10
#define CD_TIME		12
#define CD_DATE		14
#define CD_CRC		16
#define CD_CSIZE	20
#define CD_SIZE		24
#define CD_NAME_LEN	28
#define CD_EXTRA_LEN	30
#define CD_COMMENT_LEN	32
#define CD_DISK		34
#define CD_INT_ATTR	36
#define CD_EXT_ATTR	38
#define CD_OFFSET	42
#define CD_LEN		46

/* End of central directory record. */
#define EOCD_MAGIC	0
#define EOCD_DISK	4
#define EOCD_CD_DISK	6
#define EOCD_DISK_ENTRIES 8
#define EOCD_ENTRIES	10
#define EOCD_CD_SIZE	12
#define EOCD_CD_OFFSET	16
#define EOCD_COMMENT_LEN 20
#define EOCD_LEN	22

/* zip64 end of central directory record and its locator. */
#define Z64E_MAGIC	0
#define Z64E_RECORD_LEN	4
#define Z64E_MADE_BY	12
#define Z64E_VERSION	14
#define Z64E_DISK	16
#define Z64E_CD_DISK	20
#define Z64E_DISK_ENTRIES 24
#define Z64E_ENTRIES	32
#define Z64E_CD_SIZE	40
#define Z64E_CD_OFFSET	48
#define Z64E_LEN	56
#define Z64E_RECORD_SIZE (Z64E_LEN - Z64E_MADE_BY)

#define Z64LOC_MAGIC	0
#define Z64LOC_DISK	4
#define Z64LOC_OFFSET	8
#define Z64LOC_DISKS	16
#define Z64LOC_LEN	20

#define ZIP_MAX_PATH	0xffff
#define ZIP_MAX_ENTRIES	0xffff
#define ZIP_MAX_32	0xffffffffu
/* git gives a streamed member a zip64 extra above this size. */
#define ZIP_STREAM_MAX_32 0x7fffffffu

/* git's buffer_is_binary() looks at this many bytes. */
#define ZIP_SNIFF_LEN	8000
/* git's STREAM_BUFFER_SIZE: streamed blobs are read in these chunks. */
#define ZIP_STREAM_CHUNK (16 * 1024)

/*
 * zlib counts in uInt; git's zlib wrapper feeds at most 1 GiB per call,
 * with Z_NO_FLUSH until the final piece.
 */
#define ZIP_ZLIB_MAX	((uInt)1 << 30)

/* Headers and small members are collected before reaching the sink. */
#define ZIP_OUT_BUF	(128 * 1024)

/* What a header needs to know about its member. */
struct member {
	const char *path;
	size_t path_len;
	uint32_t mode;
	unsigned int flags;
	int method;
	uint32_t crc;
	uint64_t size;
	uint64_t csize;
	uint64_t offset;		/* of the local header */
	unsigned int version;		/* needed to extract */
	int is_binary;
	int streamed;
};

struct zip_writer {
	struct archive_writer base;
	struct sink *sink;
	const struct archive_args *args;
	int level;			/* zlib level */
	uint16_t dos_time, dos_date;
	uint32_t ut_mtime;

	struct ga_buf out;		/* bytes not yet given to the sink */
	struct ga_buf cdir;
	uint64_t offset;		/* bytes of the archive so far */
	uint64_t nr_entries;
	unsigned int max_made_by;
	int failed;			/* code of a failed add()/finish() */
	int finished;

	struct zip_sched sched;
};

static uint32_t clamp32(uint64_t v)
{
	return v < ZIP_MAX_32 ? (uint32_t)v : ZIP_MAX_32;
}

static uint32_t crc32_add(uint32_t crc, const unsigned char *p, uint64_t len)
{
	while (len) {
		uInt n = len > ZIP_ZLIB_MAX ? ZIP_ZLIB_MAX : (uInt)len;

		crc = (uint32_t)crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return crc;
}

/* git's buffer_is_binary(): a NUL within the first 8000 bytes. */
static int sniff_binary(const unsigned char *p, uint64_t len)
{
	if (len > ZIP_SNIFF_LEN)
		len = ZIP_SNIFF_LEN;
	return len && memchr(p, 0, (size_t)len) != NULL;
}

static int decide_binary(enum entry_text text, const unsigned char *p,
			 uint64_t len)
{
	switch (text) {
	case ENTRY_TEXT:
		return 0;
	case ENTRY_BINARY:
		return 1;
	default:
		return sniff_binary(p, len);
	}
}

/*
 * Whether the name gets the UTF-8 flag (1), a warning (-1) or neither
 * (0, plain ASCII).  Validity is git's is_utf8(): no overlong forms, no
 * surrogates, no U+FFFE/U+FFFF, nothing above U+10FFFF.
 */
static int path_utf8_state(const char *path, size_t len)
{
	const unsigned char *s = (const unsigned char *)path;
	const unsigned char *end = s + len;
	int ascii = 1;

	while (s < end) {
		size_t n, i;

		if (s[0] < 0x80) {
			s++;
			continue;
		}
		ascii = 0;
		if ((s[0] & 0xe0) == 0xc0) {
			if ((s[0] & 0xfe) == 0xc0)
				return -1;
			n = 2;
		} else if ((s[0] & 0xf0) == 0xe0) {
			n = 3;
		} else if ((s[0] & 0xf8) == 0xf0) {
			n = 4;
		} else {
			return -1;
		}
		if ((size_t)(end - s) < n)
			return -1;
		for (i = 1; i < n; i++)
			if ((s[i] & 0xc0) != 0x80)
				return -1;
		if (n == 3 &&
		    ((s[0] == 0xe0 && (s[1] & 0xe0) == 0x80) ||
		     (s[0] == 0xed && (s[1] & 0xe0) == 0xa0) ||
		     (s[0] == 0xef && s[1] == 0xbf && (s[2] & 0xfe) == 0xbe)))
			return -1;
		if (n == 4 &&
		    ((s[0] == 0xf0 && (s[1] & 0xf0) == 0x80) ||
		     (s[0] == 0xf4 && s[1] > 0x8f) || s[0] > 0xf4))
			return -1;
		s += n;
	}
	return ascii ? 0 : 1;
}

/* git_deflate_init_raw(): raw deflate, 32 KiB window, default memLevel. */
static int deflate_init(z_stream *zs, int level)
{
	int status;

	memset(zs, 0, sizeof(*zs));
	status = deflateInit2(zs, level, Z_DEFLATED, -MAX_WBITS, 8,
			      Z_DEFAULT_STRATEGY);
	if (status == Z_OK)
		return 0;
	return ga_error_set("deflateInit2: %s (%s)", ga_zlib_strerror(status),
			    zs->msg ? zs->msg : "no message");
}

/*
 * Deflate `len` (> 0) bytes in one go.  git keeps the result only when
 * it is smaller than the input, so the output space is capped at `len`:
 * once deflate has filled it without finishing, the member is stored
 * and nothing is lost.  zlib's output does not depend on the room it is
 * given, so what fits is what git writes.  Sets *out (NULL: store) and
 * *out_len.  Fails only if zlib cannot start.
 */
static int deflate_member(unsigned char **out, uint64_t *out_len,
			  const unsigned char *in, uint64_t len, int level)
{
	z_stream zs;
	unsigned char *buf;
	uint64_t cap = len, in_left = len, out_used = 0;
	int status, error;

	*out = NULL;
	*out_len = 0;
	if ((error = deflate_init(&zs, level)) < 0)
		return error;
	buf = ga_xmalloc((size_t)cap);
	zs.next_in = (Bytef *)in;
	zs.next_out = buf;
	for (;;) {
		uInt avail_in = in_left > ZIP_ZLIB_MAX ? ZIP_ZLIB_MAX :
			(uInt)in_left;
		uint64_t room = cap - out_used;
		uInt avail_out = room > ZIP_ZLIB_MAX ? ZIP_ZLIB_MAX :
			(uInt)room;
		int flush = in_left == avail_in ? Z_FINISH : Z_NO_FLUSH;

		zs.avail_in = avail_in;
		zs.avail_out = avail_out;
		status = deflate(&zs, flush);
		in_left -= avail_in - zs.avail_in;
		out_used += avail_out - zs.avail_out;
		if (status == Z_STREAM_END ||
		    (status != Z_OK && status != Z_BUF_ERROR) ||
		    out_used == cap)
			break;
	}
	deflateEnd(&zs);
	/* Not smaller, or broken (git stores then too). */
	if (status != Z_STREAM_END || out_used >= len) {
		free(buf);
		return 0;
	}
	/*
	 * The output waits for its turn in the archive: keep only what it
	 * takes (the room left in a small block would stay in use).
	 */
	*out = ga_xrealloc(buf, (size_t)out_used);
	*out_len = out_used;
	return 0;
}

/*
 * CRC, text bit and body of one buffered member, on any thread.  An
 * error is stored in the job, for the writer to report in order.
 */
static void process_job(struct zip_job *job, int level)
{
	uint64_t deflated_len;
	int error;

	job->method = ZIP_METHOD_STORE;
	job->csize = job->size;	/* 0 for directories */
	if (archive_mode_is_dir(job->mode))
		return;
	if (job->deferred && !job->data && zip_job_load(job) < 0)
		return;
	job->crc = crc32_add((uint32_t)crc32(0, NULL, 0), job->data,
			     job->size);
	job->is_binary = decide_binary(job->text, job->data, job->size);
	/* Symlinks, empty files and -0 are stored. */
	if (!archive_mode_is_regular(job->mode) || level == 0 || job->size == 0)
		return;
	error = deflate_member(&job->deflated, &deflated_len, job->data,
			       job->size, level);
	if (error < 0) {
		job->error = error;
		job->error_msg = ga_error_detach();
	} else if (job->deflated) {
		job->method = ZIP_METHOD_DEFLATE;
		job->csize = deflated_len;
		/* Only the deflated copy is written: let the input go now. */
		zip_job_release_data(job);
	}
}

static void warn_path(const char *path, size_t len)
{
	/* git prints the name with %s: it ends at a NUL, if any. */
	ga_warning("path is not valid UTF-8: %.*s", (int)len, path);
}

static unsigned int path_flags(const char *path, size_t len)
{
	int state = path_utf8_state(path, len);

	if (state < 0)
		warn_path(path, len);
	return state > 0 ? ZIP_FLAG_UTF8 : 0;
}

/*
 * The job for `entry` (zip_job_new()), with its path flags decided (and
 * warned about) now, in add(): git prints the warning right after the
 * entry's -v line, not when the member is written.
 */
static struct zip_job *new_job(struct archive_entry *entry, int own)
{
	return zip_job_new(entry, own,
			   path_flags(entry->path, entry->path_len));
}

/* --- output --- */

static int out_flush(struct zip_writer *w)
{
	int error;

	if (!w->out.len)
		return 0;
	error = w->sink->write(w->sink, w->out.ptr, w->out.len);
	ga_buf_setlen(&w->out, 0);
	return error;
}

/* Append to the archive; large pieces go straight to the sink. */
static int out_write(struct zip_writer *w, const void *p, size_t len)
{
	int error;

	w->offset += len;
	if (w->out.len + len <= ZIP_OUT_BUF) {
		ga_buf_put(&w->out, p, len);
		return 0;
	}
	if ((error = out_flush(w)) < 0)
		return error;
	if (len >= ZIP_OUT_BUF / 2)
		return w->sink->write(w->sink, p, len);
	ga_buf_put(&w->out, p, len);
	return 0;
}

/* Body bytes may exceed size_t on 32-bit hosts; write them in pieces. */
static int out_write_body(struct zip_writer *w, const unsigned char *p,
			  uint64_t len)
{
	int error;

	while (len) {
		size_t n = len > ((size_t)1 << 30) ? ((size_t)1 << 30) :
			(size_t)len;

		if ((error = out_write(w, p, n)) < 0)
			return error;
		p += n;
		len -= n;
	}
	return 0;
}

/* --- records --- */

static void put_ut_extra(struct zip_writer *w, unsigned char *p)
{
	ga_put_le16(p + UT_ID, UT_MAGIC);
	ga_put_le16(p + UT_PAYLOAD_LEN, UT_LEN - UT_FLAGS);
	p[UT_FLAGS] = UT_FLAG_MTIME;
	ga_put_le32(p + UT_MTIME, w->ut_mtime);
}

/*
 * The local header.  A streamed member's CRC and compressed size are not
 * known yet: git writes 0 (or the size, when stored) and repeats the
 * real values in the data descriptor.
 */
static int write_local_header(struct zip_writer *w, struct member *m)
{
	unsigned char hdr[LH_LEN], ut[UT_LEN], z64[Z64L_LEN];
	int zip64 = m->size > ZIP_MAX_32 || m->csize > ZIP_MAX_32 ||
		(m->streamed && m->size > ZIP_STREAM_MAX_32);
	int error;

	m->version = zip64 ? ZIP_VERSION_ZIP64 : ZIP_VERSION_DEFAULT;
	m->offset = w->offset;

	ga_put_le32(hdr + LH_MAGIC, ZIP_LOCAL_MAGIC);
	ga_put_le16(hdr + LH_VERSION, (uint16_t)m->version);
	ga_put_le16(hdr + LH_FLAGS, (uint16_t)m->flags);
	ga_put_le16(hdr + LH_METHOD, (uint16_t)m->method);
	ga_put_le16(hdr + LH_TIME, w->dos_time);
	ga_put_le16(hdr + LH_DATE, w->dos_date);
	ga_put_le32(hdr + LH_CRC, m->streamed ? 0 : m->crc);
	ga_put_le32(hdr + LH_CSIZE, zip64 ? ZIP_MAX_32 : (uint32_t)m->csize);
	ga_put_le32(hdr + LH_SIZE, zip64 ? ZIP_MAX_32 : (uint32_t)m->size);
	ga_put_le16(hdr + LH_NAME_LEN, (uint16_t)m->path_len);
	ga_put_le16(hdr + LH_EXTRA_LEN, zip64 ? UT_LEN + Z64L_LEN : UT_LEN);
	put_ut_extra(w, ut);

	if ((error = out_write(w, hdr, sizeof(hdr))) < 0 ||
	    (error = out_write(w, m->path, m->path_len)) < 0 ||
	    (error = out_write(w, ut, sizeof(ut))) < 0)
		return error;
	if (!zip64)
		return 0;
	ga_put_le16(z64 + Z64L_ID, ZIP64_EXTRA_ID);
	ga_put_le16(z64 + Z64L_PAYLOAD_LEN, Z64L_LEN - Z64L_SIZE);
	ga_put_le64(z64 + Z64L_SIZE, m->size);
	ga_put_le64(z64 + Z64L_CSIZE, m->csize);
	return out_write(w, z64, sizeof(z64));
}

static int write_data_descriptor(struct zip_writer *w, const struct member *m)
{
	unsigned char dd[DD64_LEN];

	ga_put_le32(dd + DD_MAGIC, ZIP_DESC_MAGIC);
	ga_put_le32(dd + DD_CRC, m->crc);
	if (m->size >= ZIP_MAX_32 || m->csize >= ZIP_MAX_32) {
		ga_put_le64(dd + DD_CSIZE, m->csize);
		ga_put_le64(dd + DD64_SIZE, m->size);
		return out_write(w, dd, DD64_LEN);
	}
	ga_put_le32(dd + DD_CSIZE, (uint32_t)m->csize);
	ga_put_le32(dd + DD_SIZE, (uint32_t)m->size);
	return out_write(w, dd, DD_LEN);
}

/*
 * The central directory record.  The zip64 extra appears when a value
 * is above 0xffffffff, and then holds each value that is at least
 * 0xffffffff: git's asymmetry, kept.
 */
static void add_central_record(struct zip_writer *w, const struct member *m)
{
	unsigned char hdr[CD_LEN], ut[UT_LEN], z64[4 + 3 * 8];
	size_t z64_len = 0;
	unsigned int made_by = 0;
	uint32_t ext_attr;

	if (archive_mode_is_dir(m->mode)) {
		ext_attr = ZIP_ATTR_DOS_DIR;
	} else if (archive_mode_is_symlink(m->mode)) {
		ext_attr = (m->mode | 0777) << 16;
		made_by = ZIP_MADE_BY_UNIX;
	} else if (m->mode & 0111) {
		ext_attr = m->mode << 16;
		made_by = ZIP_MADE_BY_UNIX;
	} else {
		ext_attr = 0;
	}
	if (made_by > w->max_made_by)
		w->max_made_by = made_by;

	if (m->csize > ZIP_MAX_32 || m->size > ZIP_MAX_32 ||
	    m->offset > ZIP_MAX_32) {
		z64_len = 4;
		if (m->size >= ZIP_MAX_32) {
			ga_put_le64(z64 + z64_len, m->size);
			z64_len += 8;
		}
		if (m->csize >= ZIP_MAX_32) {
			ga_put_le64(z64 + z64_len, m->csize);
			z64_len += 8;
		}
		if (m->offset >= ZIP_MAX_32) {
			ga_put_le64(z64 + z64_len, m->offset);
			z64_len += 8;
		}
		ga_put_le16(z64, ZIP64_EXTRA_ID);
		ga_put_le16(z64 + 2, (uint16_t)(z64_len - 4));
	}

	ga_put_le32(hdr + CD_MAGIC, ZIP_CDIR_MAGIC);
	ga_put_le16(hdr + CD_MADE_BY, (uint16_t)made_by);
	ga_put_le16(hdr + CD_VERSION, (uint16_t)m->version);
	ga_put_le16(hdr + CD_FLAGS, (uint16_t)m->flags);
	ga_put_le16(hdr + CD_METHOD, (uint16_t)m->method);
	ga_put_le16(hdr + CD_TIME, w->dos_time);
	ga_put_le16(hdr + CD_DATE, w->dos_date);
	ga_put_le32(hdr + CD_CRC, m->crc);
	ga_put_le32(hdr + CD_CSIZE, clamp32(m->csize));
	ga_put_le32(hdr + CD_SIZE, clamp32(m->size));
	ga_put_le16(hdr + CD_NAME_LEN, (uint16_t)m->path_len);
	ga_put_le16(hdr + CD_EXTRA_LEN, (uint16_t)(UT_LEN + z64_len));
	ga_put_le16(hdr + CD_COMMENT_LEN, 0);
	ga_put_le16(hdr + CD_DISK, 0);
	/* The text bit; never decided (directories) means 0, as in git. */
	ga_put_le16(hdr + CD_INT_ATTR, m->is_binary == 0);
	ga_put_le32(hdr + CD_EXT_ATTR, ext_attr);
	ga_put_le32(hdr + CD_OFFSET, clamp32(m->offset));
	put_ut_extra(w, ut);

	ga_buf_put(&w->cdir, hdr, sizeof(hdr));
	ga_buf_put(&w->cdir, m->path, m->path_len);
	ga_buf_put(&w->cdir, ut, sizeof(ut));
	ga_buf_put(&w->cdir, z64, z64_len);
	w->nr_entries++;
}

/* Write a processed job: local header, body, central record. */
static int emit_job(struct zip_writer *w, struct zip_job *job)
{
	struct member m = { 0 };
	int error;

	m.flags = job->flags;
	if (job->error)
		return ga_error_restore(job->error, job->error_msg);
	m.path = job->path;
	m.path_len = job->path_len;
	m.mode = job->mode;
	m.method = job->method;
	m.crc = job->crc;
	m.size = job->size;
	m.csize = job->csize;
	m.is_binary = job->is_binary;
	if ((error = write_local_header(w, &m)) < 0)
		return error;
	if (job->deflated)
		error = out_write_body(w, job->deflated, job->csize);
	else if (m.csize)
		error = out_write_body(w, job->data, m.csize);
	if (error < 0)
		return error;
	add_central_record(w, &m);
	return 0;
}

/* --- streamed members --- */

/*
 * Fill `buf` as git's read_istream() does: up to `cap` bytes, short only
 * at the end, so the text bit sees the same first chunk as git's.
 */
static int stream_fill(struct entry_stream *s, unsigned char *buf, size_t cap,
		       size_t *got)
{
	size_t n;
	int error;

	*got = 0;
	while (*got < cap) {
		if ((error = s->read(s, buf + *got, cap - *got, &n)) < 0)
			return error;
		if (!n)
			break;
		*got += n;
	}
	return 0;
}

static int deflate_to_out(struct zip_writer *w, z_stream *zs, int flush,
			  unsigned char *obuf, size_t ocap, uint64_t *csize)
{
	int status, error;

	for (;;) {
		zs->next_out = obuf;
		zs->avail_out = (uInt)ocap;
		status = deflate(zs, flush);
		if (status != Z_OK && status != Z_STREAM_END &&
		    status != Z_BUF_ERROR)
			return ga_error_set("deflate error (%d)", status);
		if (ocap - zs->avail_out) {
			*csize += ocap - zs->avail_out;
			if ((error = out_write(w, obuf,
					       ocap - zs->avail_out)) < 0)
				return error;
		}
		if (flush == Z_FINISH ? status == Z_STREAM_END :
		    (zs->avail_in == 0 && zs->avail_out != 0))
			return 0;
		if (status == Z_BUF_ERROR && zs->avail_out != 0)
			return ga_error_set("deflate error (%d)", status);
	}
}

/*
 * A blob above core.bigFileThreshold, written as it is read: 16 KiB
 * chunks, deflated without flushes and kept even when larger, followed
 * by a data descriptor.
 */
static int write_streamed(struct zip_writer *w, struct archive_entry *entry)
{
	struct member m = { 0 };
	unsigned char *ibuf = NULL, *obuf = NULL;
	size_t ocap = 2 * ZIP_STREAM_CHUNK, got;
	uint64_t total = 0;
	z_stream zs;
	int zs_live = 0, first = 1, error;

	m.flags = path_flags(entry->path, entry->path_len) | ZIP_FLAG_STREAM;
	m.path = entry->path;
	m.path_len = entry->path_len;
	m.mode = entry->mode;
	m.size = entry->size;
	m.streamed = 1;
	m.is_binary = -1;
	m.crc = (uint32_t)crc32(0, NULL, 0);
	m.method = w->level != 0 && m.size > 0 ? ZIP_METHOD_DEFLATE :
		ZIP_METHOD_STORE;
	m.csize = m.method == ZIP_METHOD_STORE ? m.size : 0;
	if ((error = write_local_header(w, &m)) < 0)
		goto done;

	ibuf = ga_xmalloc(ZIP_STREAM_CHUNK);
	if (m.method == ZIP_METHOD_DEFLATE) {
		if ((error = deflate_init(&zs, w->level)) < 0)
			goto done;
		zs_live = 1;
		obuf = ga_xmalloc(ocap);
		m.csize = 0;
	}
	for (;;) {
		if ((error = stream_fill(entry->stream, ibuf,
					 ZIP_STREAM_CHUNK, &got)) < 0)
			goto done;
		if (!got)
			break;
		total += got;
		m.crc = crc32_add(m.crc, ibuf, got);
		if (first) {
			m.is_binary = decide_binary(entry->text, ibuf, got);
			first = 0;
		}
		if (!zs_live) {
			error = out_write(w, ibuf, got);
		} else {
			zs.next_in = ibuf;
			zs.avail_in = (uInt)got;
			error = deflate_to_out(w, &zs, Z_NO_FLUSH, obuf, ocap,
					       &m.csize);
		}
		if (error < 0)
			goto done;
		if (got < ZIP_STREAM_CHUNK)
			break;
	}
	if (total != m.size) {
		/* The headers already carry the size from the object. */
		error = ga_error_code(GA_EARCHIVE, "cannot stream blob %s",
				      entry->oid_hex ? entry->oid_hex : "");
		goto done;
	}
	if (zs_live) {
		zs.next_in = ibuf;
		zs.avail_in = 0;
		if ((error = deflate_to_out(w, &zs, Z_FINISH, obuf, ocap,
					    &m.csize)) < 0)
			goto done;
	}
	if ((error = write_data_descriptor(w, &m)) < 0)
		goto done;
	add_central_record(w, &m);
done:
	if (zs_live)
		deflateEnd(&zs);
	free(obuf);
	free(ibuf);
	return error;
}

/* --- the queue --- */

static int emit_and_free(struct zip_writer *w, struct zip_job *job)
{
	int error = emit_job(w, job);

	zip_job_free(job);
	return error;
}

/* Write finished jobs from the head of the queue without waiting. */
static int queue_retire_done(struct zip_writer *w)
{
	struct zip_job *job;
	int error;

	while ((job = zip_sched_pop(&w->sched, 0)))
		if ((error = emit_and_free(w, job)) < 0)
			return error;
	return 0;
}

/* Write every job, waiting for each. */
static int queue_drain(struct zip_writer *w)
{
	struct zip_job *job;
	int error;

	while ((job = zip_sched_pop(&w->sched, 1)))
		if ((error = emit_and_free(w, job)) < 0)
			return error;
	return 0;
}

/* Write jobs until one of `cost` may join the queue. */
static int queue_make_room(struct zip_writer *w, size_t cost)
{
	struct zip_job *job;
	int error;

	while ((job = zip_sched_make_room(&w->sched, cost)))
		if ((error = emit_and_free(w, job)) < 0)
			return error;
	return 0;
}

/* --- the writer --- */

/* Process and write `entry` on this thread, borrowing its buffers. */
static int add_inline(struct zip_writer *w, struct archive_entry *entry)
{
	struct zip_job *job = new_job(entry, 0);

	process_job(job, w->level);
	return emit_and_free(w, job);
}

static int add_entry(struct zip_writer *w, struct archive_entry *entry)
{
	const char *oid_hex = entry->oid_hex ? entry->oid_hex : "";
	size_t cost = zip_entry_cost(entry);
	int needs_worker, deferred, error;
	struct zip_job *job;

	if (entry->path_len > ZIP_MAX_PATH ||
	    (!archive_mode_is_dir(entry->mode) &&
	     !archive_mode_is_regular(entry->mode) &&
	     !archive_mode_is_symlink(entry->mode))) {
		/* git's order: earlier members, the warning, then these. */
		if ((error = queue_drain(w)) < 0)
			return error;
		path_flags(entry->path, entry->path_len);
		if (entry->path_len > ZIP_MAX_PATH)
			return ga_error_code(GA_EARCHIVE, "path too long "
					     "(%d chars, SHA1: %s): %.*s",
					     (int)entry->path_len, oid_hex,
					     (int)entry->path_len,
					     entry->path);
		return ga_error_code(GA_EARCHIVE,
				     "unsupported file mode: 0%o (SHA1: %s)",
				     (unsigned int)entry->mode, oid_hex);
	}
	if (!archive_mode_is_dir(entry->mode) && !entry->stream && entry->size &&
	    !entry->data && !entry->deferred)
		GA_BUG("zip: entry without content");
	if (archive_mode_is_regular(entry->mode) && entry->stream) {
		if ((error = queue_drain(w)) < 0)
			return error;
		return write_streamed(w, entry);
	}

	needs_worker = w->sched.nr_threads > 1 &&
		archive_mode_is_regular(entry->mode) &&
		w->level != 0 && entry->size > 0;
	/* A worker reads it when there is room: only the job counts now. */
	deferred = needs_worker && entry->deferred;
	if (deferred)
		cost = sizeof(struct zip_job) + entry->path_len;
	if ((error = queue_retire_done(w)) < 0)
		return error;
	if (!needs_worker && zip_sched_is_empty(&w->sched))
		return add_inline(w, entry);
	if (cost > ZIP_BUDGET && !needs_worker) {
		/* Alone: one copy of a huge member, on this thread. */
		if ((error = queue_drain(w)) < 0)
			return error;
		return add_inline(w, entry);
	}
	if ((error = queue_make_room(w, cost)) < 0)
		return error;

	job = new_job(entry, 1);
	job->cost = cost;
	if (deferred)
		job->load_cost = zip_entry_cost(entry);
	if (needs_worker) {
		if (!zip_sched_start_workers(&w->sched)) {
			/* No thread could start: do the work here. */
			process_job(job, w->level);
			needs_worker = 0;
		}
	} else {
		process_job(job, w->level);
	}
	zip_sched_append(&w->sched, job, needs_worker);
	return queue_retire_done(w);
}

/*
 * git has written every earlier member when an entry fails; so do we,
 * keeping the entry's message over any error of the flush.
 */
static int fail(struct zip_writer *w, int error)
{
	int code = ga_error_last_code();
	char *msg = ga_error_detach();

	w->failed = error;
	out_flush(w);
	ga_error_restore(code ? code : error, msg);
	free(msg);
	return error;
}

static int zip_add(struct archive_writer *base, struct archive_entry *entry)
{
	struct zip_writer *w = (struct zip_writer *)base;
	int error;

	if (w->finished)
		GA_BUG("zip: add() after finish()");
	/* The archive is cut off; the first failure's message stands. */
	if (w->failed)
		return w->failed;
	if ((error = add_entry(w, entry)) < 0)
		return fail(w, error);
	return 0;
}

static int write_trailer(struct zip_writer *w)
{
	unsigned char eocd[EOCD_LEN], z64[Z64E_LEN], loc[Z64LOC_LEN];
	const char *comment = w->args->commit_hex;
	size_t comment_len = comment ? strlen(comment) : 0;
	uint64_t cd_offset = w->offset, cd_size = w->cdir.len;
	int error;

	ga_put_le32(eocd + EOCD_MAGIC, ZIP_EOCD_MAGIC);
	ga_put_le16(eocd + EOCD_DISK, 0);
	ga_put_le16(eocd + EOCD_CD_DISK, 0);
	ga_put_le16(eocd + EOCD_DISK_ENTRIES, w->nr_entries > ZIP_MAX_ENTRIES ?
		    ZIP_MAX_ENTRIES : (uint16_t)w->nr_entries);
	ga_put_le16(eocd + EOCD_ENTRIES, w->nr_entries > ZIP_MAX_ENTRIES ?
		    ZIP_MAX_ENTRIES : (uint16_t)w->nr_entries);
	/* git never clamps the size, it only keeps the low 32 bits. */
	ga_put_le32(eocd + EOCD_CD_SIZE, (uint32_t)cd_size);
	ga_put_le32(eocd + EOCD_CD_OFFSET, cd_offset > ZIP_MAX_32 ?
		    ZIP_MAX_32 : (uint32_t)cd_offset);
	ga_put_le16(eocd + EOCD_COMMENT_LEN, (uint16_t)comment_len);

	if ((error = out_flush(w)) < 0)
		return error;
	if (cd_size && (error = w->sink->write(w->sink, w->cdir.ptr,
						 w->cdir.len)) < 0)
		return error;
	w->offset += cd_size;

	if (w->nr_entries > ZIP_MAX_ENTRIES || cd_offset > ZIP_MAX_32) {
		ga_put_le32(z64 + Z64E_MAGIC, ZIP64_EOCD_MAGIC);
		ga_put_le64(z64 + Z64E_RECORD_LEN, Z64E_RECORD_SIZE);
		ga_put_le16(z64 + Z64E_MADE_BY, (uint16_t)w->max_made_by);
		ga_put_le16(z64 + Z64E_VERSION, ZIP_VERSION_ZIP64);
		ga_put_le32(z64 + Z64E_DISK, 0);
		ga_put_le32(z64 + Z64E_CD_DISK, 0);
		ga_put_le64(z64 + Z64E_DISK_ENTRIES, w->nr_entries);
		ga_put_le64(z64 + Z64E_ENTRIES, w->nr_entries);
		ga_put_le64(z64 + Z64E_CD_SIZE, cd_size);
		ga_put_le64(z64 + Z64E_CD_OFFSET, cd_offset);

		ga_put_le32(loc + Z64LOC_MAGIC, ZIP64_LOCATOR_MAGIC);
		ga_put_le32(loc + Z64LOC_DISK, 0);
		ga_put_le64(loc + Z64LOC_OFFSET, cd_offset + cd_size);
		ga_put_le32(loc + Z64LOC_DISKS, 1);

		if ((error = out_write(w, z64, sizeof(z64))) < 0 ||
		    (error = out_write(w, loc, sizeof(loc))) < 0)
			return error;
	}
	if ((error = out_write(w, eocd, sizeof(eocd))) < 0 ||
	    (error = out_write(w, comment, comment_len)) < 0)
		return error;
	return out_flush(w);
}

static int zip_finish(struct archive_writer *base)
{
	struct zip_writer *w = (struct zip_writer *)base;
	int error;

	if (w->finished)
		GA_BUG("zip: finish() called twice");
	/* Never a central directory after a failure: git writes none. */
	if (w->failed)
		return w->failed;
	if ((error = queue_drain(w)) < 0 ||
	    (error = write_trailer(w)) < 0)
		return fail(w, error);
	w->finished = 1;
	return 0;
}

static void zip_free(struct archive_writer *base)
{
	struct zip_writer *w = (struct zip_writer *)base;

	if (!w)
		return;
	zip_sched_release(&w->sched);
	ga_buf_release(&w->out);
	ga_buf_release(&w->cdir);
	free(w);
}

int zip_writer_new(struct archive_writer **out, struct sink *sink,
		   const struct archive_args *args)
{
	struct zip_writer *w = ga_xcalloc(1, sizeof(*w));
	const struct tm *tm = &args->mtime_local;

	w->base.add = zip_add;
	w->base.finish = zip_finish;
	w->base.free = zip_free;
	w->sink = sink;
	w->args = args;
	w->level = args->level < 0 ? Z_DEFAULT_COMPRESSION : args->level;
	/*
	 * MS-DOS time and date in local time, unclamped: git lets years
	 * before 1980 go negative and keeps the low 16 bits.
	 */
	w->dos_date = (uint16_t)(tm->tm_mday + (tm->tm_mon + 1) * 32 +
				 (tm->tm_year + 1900 - 1980) * 512);
	w->dos_time = (uint16_t)(tm->tm_sec / 2 + tm->tm_min * 32 +
				 tm->tm_hour * 2048);
	w->ut_mtime = (uint32_t)(uint64_t)args->mtime;
	zip_sched_init(&w->sched, args->threads, w->level, process_job);
	ga_buf_grow(&w->out, ZIP_OUT_BUF);
	*out = &w->base;
	return 0;
}

void zip_walk_needs(struct walk_options *wo, int verbose)
{
	wo->want_text_hint = 1;
	wo->reading_bound = 0;
	/*
	 * Deflating is the work, on the writer's threads.  The walk reads
	 * blobs itself (workers reading ahead would only add their own
	 * caches to the peak) and hands large ones on unread, so that a
	 * deflate worker reads each when it has room for it.  Not with -v:
	 * a member that cannot be read would fail after the names of later
	 * entries are listed, where git stops first.
	 */
	wo->threads = 1;
	if (!verbose)
		wo->defer_above = ZIP_DEFER_ABOVE;
}

/*
 * zip-read.h: a streaming reader of zip archives, for `garchive verify`.
 *
 * It reads an archive front to back without seeking (so standard input
 * works): the local entries with their content (stored or deflated,
 * data descriptors, zip64), then the central directory and its end
 * records.  Whatever the central directory says is checked against what
 * the local entries were (offset, name, method, flags, time, CRC and
 * sizes, in order): a zip whose two views disagree reads differently
 * in different tools, and is reported, not trusted.  Content is
 * inflated into the caller's buffer only, bounded by the declared size
 * and by a budget for the whole archive, and its CRC is checked.
 */
#ifndef GARCHIVE_ZIP_READ_H
#define GARCHIVE_ZIP_READ_H

#include <stddef.h>
#include <stdint.h>

struct byte_source;

/* Extra fields: what git writes, and anything else. */
#define ZIP_READ_EXTRA_UT	0x1	/* extended timestamp "UT" */
#define ZIP_READ_EXTRA_ZIP64	0x2
#define ZIP_READ_EXTRA_OTHER	0x4

struct zip_read_entry {
	const char *path;	/* NUL-terminated; may hold NULs */
	size_t path_len;
	uint16_t version, flags, method, dos_time, dos_date;
	uint32_t crc;		/* from the header (0 with a descriptor) */
	uint64_t csize, usize;	/* from the header, zip64 applied */
	unsigned extras;	/* ZIP_READ_EXTRA_* */
	uint32_t ut_mtime;	/* when extras has ZIP_READ_EXTRA_UT */
	uint64_t offset;	/* of the local header */
};

struct zip_read_central {
	const char *path;
	size_t path_len;
	uint16_t made_by, version, flags, method, dos_time, dos_date;
	uint16_t internal_attr;
	uint32_t external_attr, crc;
	uint64_t csize, usize, offset;
	unsigned extras;
	uint32_t ut_mtime;
	size_t comment_len;
};

struct zip_read_summary {
	size_t nr_local, nr_central;
	int has_end;		/* the end of central directory record */
	int zip64_end;		/* zip64 end record and locator */
	const char *comment;	/* archive comment, NUL-terminated */
	size_t comment_len;
	/* Why the central directory does not match the entries, or NULL. */
	const char *inconsistent;
	int descriptors;	/* members with a data descriptor */
	uint64_t end;		/* offset just past the end record */
};

struct zip_reader;

/*
 * A reader of `src` (which must outlive it).  `max_inflated` bounds the
 * bytes of content all members may have together (0: no bound); going
 * past it is GA_ELIMIT (see bytesrc.h).
 */
void zip_reader_new(struct zip_reader **out, struct byte_source *src,
		    uint64_t max_inflated);
void zip_reader_free(struct zip_reader *r);

/*
 * The next local entry, after reading what is left of the previous one.
 * Returns 0, GA_ITEROVER where the central directory starts, GA_ELIMIT,
 * or GA_ERROR naming the byte offset ("truncated zip archive", "CRC
 * mismatch in '<path>'", "'<path>' inflates to more than its declared
 * N bytes", "unsupported compression method N for '<path>'", ...).
 */
int zip_reader_next(struct zip_read_entry **out, struct zip_reader *r);

/* Up to `cap` bytes of the current entry's content; *nread 0 at its end. */
int zip_reader_read(struct zip_reader *r, unsigned char *buf, size_t cap,
		    size_t *nread);

/*
 * The next central directory header, after zip_reader_next() returned
 * GA_ITEROVER.  Returns 0, GA_ITEROVER after the end records (comment
 * included) were read, or GA_ERROR.
 */
int zip_reader_next_central(struct zip_read_central **out,
			    struct zip_reader *r);

/*
 * After the end records: read the rest of the source, at most `max`
 * bytes; *trailing gets their number and *more whether there were more.
 */
int zip_reader_trailer(struct zip_reader *r, uint64_t max,
		       uint64_t *trailing, int *more);

void zip_reader_summary(struct zip_read_summary *out,
			const struct zip_reader *r);

/*
 * The archive comment of the zip file open on `fd` (which must be a
 * regular file; it is read with pread, leaving the offset alone), found
 * in its end record.  *out is NULL when there is no end record; the
 * caller frees it.  Returns 0 or GA_ERROR on a read error.
 */
int zip_read_tail_comment(char **out, int fd);

#endif

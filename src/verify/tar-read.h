/*
 * tar-read.h: a streaming reader of tar archives, for `garchive verify`.
 *
 * It reads what git and garchive write (ustar headers, pax 'x' and 'g'
 * headers) and what other tools write (GNU long names, old and GNU
 * magic, base-256 numbers), one header and its content at a time, never
 * keeping content.  It trusts nothing: checksums are checked, numbers
 * must parse, a header or long name above a limit and an archive that
 * ends early are errors, and the reader never seeks.  Paths are handed
 * out as they are stored, `..` and all: nothing here writes to disk.
 */
#ifndef GARCHIVE_TAR_READ_H
#define GARCHIVE_TAR_READ_H

#include <stddef.h>
#include <stdint.h>

struct byte_source;

/* What an entry's headers hold that git never writes. */
#define TAR_READ_PAX_OTHER	0x01	/* pax records besides path,
					   linkpath and size */
#define TAR_READ_GNU_LONG	0x02	/* GNU 'L'/'K' long name headers */
#define TAR_READ_NOT_USTAR	0x04	/* magic other than "ustar\0" "00" */
#define TAR_READ_OTHER_SIZE	0x08	/* content on a non-regular entry */
#define TAR_READ_ODD_HEADER	0x10	/* fields git fills otherwise: device
					   numbers, checksum layout, bytes
					   past the prefix, name splits */

struct tar_read_entry {
	const char *path;	/* NUL-terminated; may hold NULs before path_len */
	size_t path_len;
	const char *link;	/* link target ('1', '2'), "" otherwise */
	size_t link_len;
	char type;		/* typeflag as stored ('\0' kept) */
	uint32_t perm;		/* mode & 07777 */
	uint64_t size;		/* bytes of content that follow */
	int64_t mtime;
	uint64_t uid, gid;
	char uname[33], gname[33];
	uint64_t offset;	/* of its first header, pax or GNU included */
	unsigned flags;		/* TAR_READ_* */
};

struct tar_read_limits {
	/* Largest pax header or GNU long name accepted (bytes). */
	size_t max_header;
};

/* Defaults: 1 MiB of pax records or long name per entry. */
#define TAR_READ_MAX_HEADER	((size_t)1 << 20)

struct tar_reader;

/*
 * A reader of `src`, which must outlive it.  `limits` may be NULL for
 * the defaults.
 */
void tar_reader_new(struct tar_reader **out, struct byte_source *src,
		    const struct tar_read_limits *limits);
void tar_reader_free(struct tar_reader *r);

/*
 * The next entry, after skipping what is left of the previous one's
 * content.  Pax global headers are read here and not returned.  Returns
 * 0 (the entry stays valid until the next call), GA_ITEROVER at the
 * first zero record (the end of the archive), or GA_ERROR with a message
 * naming the byte offset ("truncated tar archive", "bad header checksum
 * at byte N", "pax header of N bytes at byte M is too large", ...), or
 * the source's error.
 */
int tar_reader_next(struct tar_read_entry **out, struct tar_reader *r);

/*
 * Up to `cap` bytes of the current entry's content; *nread 0 at its end.
 * An archive that ends inside the content is an error.
 */
int tar_reader_read(struct tar_reader *r, unsigned char *buf, size_t cap,
		    size_t *nread);

/* What the pax global headers said, and where the archive ended. */
struct tar_read_summary {
	const char *comment;	/* the first global "comment", or NULL */
	size_t nr_global;	/* global headers seen */
	int global_first;	/* the first header was a global one */
	int global_other;	/* records other than comment and mtime */
	int64_t global_mtime;	/* its "mtime" record, if has_global_mtime */
	int has_global_mtime;
	int64_t first_mtime;	/* mtime field of the first header */
	uint64_t end;		/* offset of the first zero record */
};

void tar_reader_summary(struct tar_read_summary *out,
			const struct tar_reader *r);

/*
 * Read the rest of the source after GA_ITEROVER, at most `max` bytes.
 * *len gets how many bytes followed the end record (zero record
 * included), *zeros whether all were zero, *more whether the source had
 * more than `max`.
 */
int tar_reader_trailer(struct tar_reader *r, uint64_t max, uint64_t *len,
		       int *zeros, int *more);

#endif

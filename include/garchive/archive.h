/*
 * archive.h: the fourth stage, the format writers (tar.c, zip.c).
 *
 * A writer turns walk entries into the bytes of one format and pushes
 * them into a sink.  It does no I/O of its own and reads no clock,
 * locale, config or environment: everything it needs is in
 * struct archive_args.
 */
#ifndef GARCHIVE_ARCHIVE_H
#define GARCHIVE_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct sink;
struct archive_entry;

struct archive_args {
	int64_t mtime;		/* archive time for every entry */
	const char *commit_hex;	/* commit id, or NULL when a tree was named */
	int level;		/* -1 default, else 0..9 (zip) */
	unsigned int tar_umask;	/* tar only */
	int threads;		/* zip deflate workers, 0 = one per CPU */
	/*
	 * The archive time broken down in local time (zip's DOS date and
	 * time follow TZ), filled by main with localtime_r().
	 */
	struct tm mtime_local;
};

struct archive_writer {
	/* Emit one whole entry (header, body, padding) or fail. */
	int (*add)(struct archive_writer *w, struct archive_entry *entry);
	/* Write the trailer / central directory.  May fail. */
	int (*finish)(struct archive_writer *w);
	/* Release; never writes.  Safe on NULL and after failures. */
	void (*free)(struct archive_writer *w);
};

/*
 * The zip writer deflates members on worker threads.  It takes a member
 * larger than this deferred (walk_options.defer_above) when it can, and
 * reads it when a worker has room for it; tar takes none.
 */
#define ZIP_DEFER_ABOVE	((uint64_t)2 << 20)

/*
 * Writers write into `sink`, which they do not own.  `args` must outlive
 * the writer.
 */
int tar_writer_new(struct archive_writer **out, struct sink *sink,
		   const struct archive_args *args);
int zip_writer_new(struct archive_writer **out, struct sink *sink,
		   const struct archive_args *args);

/*
 * Length of the pax record "<len> <keyword>=<value>\n", whose <len>
 * counts its own digits (exposed for the unit tests).
 */
size_t tar_pax_record_len(size_t keyword_len, size_t value_len);

#endif

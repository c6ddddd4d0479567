/*
 * archive.h: the fourth stage, the format writers (tar.c, zip.c).
 *
 * A writer turns walk entries into the bytes of one format and pushes
 * them into a sink.  It does no I/O of its own and reads no clock,
 * locale, config or environment: everything it needs is in
 * struct archive_args.  Its input, struct archive_entry, is what the
 * walk (walk.h) produces.
 */
#ifndef GARCHIVE_ARCHIVE_H
#define GARCHIVE_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct sink;
struct walk_options;

/* Canonical modes, as git writes them after reading a tree. */
#define ARCHIVE_MODE_FILE		0100644
#define ARCHIVE_MODE_EXEC		0100755
#define ARCHIVE_MODE_SYMLINK	0120000
#define ARCHIVE_MODE_DIR		0040000
#define ARCHIVE_MODE_GITLINK	0160000

/* Directories and submodules: entries without content. */
static inline int archive_mode_is_dir(uint32_t mode)
{
	uint32_t type = mode & 0170000;

	return type == ARCHIVE_MODE_DIR || type == ARCHIVE_MODE_GITLINK;
}

/* The type bits of a regular file (a umasked mode may have lost them). */
static inline int archive_mode_is_regular(uint32_t mode)
{
	return (mode & 0170000) == 0100000;
}

static inline int archive_mode_is_symlink(uint32_t mode)
{
	return (mode & 0170000) == ARCHIVE_MODE_SYMLINK;
}

/* The zip "text" bit: from the diff attribute, else sniff the content. */
enum entry_text { ENTRY_TEXT_SNIFF = 0, ENTRY_TEXT, ENTRY_BINARY };

/*
 * A blob read in pieces (above core.bigFileThreshold, unconverted).
 * read() fills up to `cap` bytes, sets *nread (0 at the end) and returns
 * 0 or GA_EARCHIVE/GA_ERROR.
 */
struct entry_stream {
	int (*read)(struct entry_stream *s, unsigned char *buf, size_t cap,
		    size_t *nread);
};

/*
 * A large blob handed on unread (see walk_options.defer_above), so that
 * a writer can read it when it has room, on any of its threads, while
 * the walk goes on.  load() reads it: on success it sets *data, *len,
 * *owner and *release as a taken entry->data (see below), and the
 * caller calls release(owner) once done; on failure it returns the
 * error the walk's own read would have given.  A writer that keeps the
 * entry's `deferred` sets that to NULL and calls free() once; the walk
 * must outlive it.
 */
struct entry_deferred {
	int (*load)(struct entry_deferred *d, const unsigned char **data,
		    uint64_t *len, void **owner, void (**release)(void *owner));
	void (*free)(struct entry_deferred *d);
};

struct archive_entry {
	const char *path;	/* full archive path; dirs and gitlinks end in '/' */
	size_t path_len;
	uint32_t mode;		/* one of the ARCHIVE_MODE_* values */
	const char *oid_hex;	/* object id (fake for extra files), for pax names */
	uint64_t size;		/* bytes of content; 0 for dirs/gitlinks */
	/*
	 * Content: symlink target or file bytes, after conversion.  NULL for
	 * directories, gitlinks and streamed files.  When `data_release` is
	 * set a writer may keep the bytes beyond add() without a copy: it
	 * takes `data_owner` and `data_release`, sets entry->data_release
	 * to NULL, and calls data_release(data_owner) once done with them.
	 */
	unsigned char *data;
	void *data_owner;
	void (*data_release)(void *owner);
	struct entry_stream *stream;	/* non-NULL only for streamed files */
	/*
	 * Non-NULL for a deferred file: `data` is NULL and `size` is the
	 * blob's, whose bytes are the content (nothing converts them).
	 */
	struct entry_deferred *deferred;
	enum entry_text text;
	int is_extra;		/* from --add-file/--add-virtual-file */
};

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
	/*
	 * The entries stop short (the next one could not be read): write
	 * what git has written when it dies there, of the entries added
	 * so far, and no more.  NULL when the writer holds nothing back.
	 */
	int (*abandon)(struct archive_writer *w);
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
 * What each writer asks of the walk that feeds it, set in the walk's
 * options after the caller has filled them: tar takes any regular file
 * as a stream; zip wants the text hint, deflates (so reading is not all
 * the work), has the walk read blobs itself and, unless `verbose`,
 * takes large members deferred.
 */
void tar_walk_needs(struct walk_options *wo);
void zip_walk_needs(struct walk_options *wo, int verbose);

/*
 * Length of the pax record "<len> <keyword>=<value>\n", whose <len>
 * counts its own digits (exposed for the unit tests).
 */
size_t tar_pax_record_len(size_t keyword_len, size_t value_len);

#endif

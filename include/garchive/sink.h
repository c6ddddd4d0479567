/*
 * sink.h: the last stage, where archive bytes go.
 *
 * A sink takes bytes from a format writer and sends them on: to a file
 * descriptor, into a child process (the built-in `gzip -cn`, or a
 * configured tar.<format>.command run through `sh -c`), or through an
 * in-process zlib gzip deflater into another sink.  Writers see only
 * struct sink; they know nothing of fds, processes or compression.
 * The contract every sink keeps is in sink-contract.h.
 */
#ifndef GARCHIVE_SINK_H
#define GARCHIVE_SINK_H

#include <stddef.h>

#include "garchive/errors.h"
#include "garchive/sink-contract.h"

struct ga_buf;
struct gzip_line;
struct walk_options;

/* How a format's bytes are compressed, chosen by format.c. */
enum sink_kind {
	SINK_NONE = 0,	/* plain tar or zip */
	SINK_GZIP,		/* built-in: execve `gzip -cn`, zlib fallback */
	SINK_ZLIB,		/* "git archive gzip": in-process gzip */
	SINK_COMMAND,		/* tar.<format>.command through `sh -c` */
	SINK_ENGINE		/* garchive's own gzip (gzip.h), in process */
};

struct sink_spec {
	enum sink_kind kind;
	/*
	 * SINK_COMMAND: the configured string.  SINK_ENGINE: the
	 * configured `garchive gzip ...` line, or NULL (garchive.gzip).
	 */
	const char *command;
	/*
	 * SINK_ENGINE with a command: that command as format.c parsed it
	 * (gzip-options.h), continued with the level when the sink opens.
	 */
	const struct gzip_line *gzip_line;
	int threads;		/* SINK_ENGINE: as --threads, 0 per CPU */
};

/* Write to `fd` (not closed by free).  Handles short writes and EINTR. */
int sink_open_fd(struct sink **out, int fd);

/* Append to `buf`, for tests. */
int sink_open_memory(struct sink **out, struct ga_buf *buf);

/*
 * The in-process gzip deflater ("git archive gzip"): gzip-wrapped deflate
 * at `level` (-1: zlib's default) with git's header (mtime 0, OS 3),
 * byte-identical to git 2.39's.  Its output goes to `next`, which the
 * new sink owns (finishes and frees) from then on, also when this fails.
 * With `threaded`, deflating runs on a private thread fed through a
 * bounded queue; the bytes are the same either way.  Fails with git's
 * "deflateInit2: stream consistency error (no message)" for a level
 * above 9.
 */
int sink_open_zlib(struct sink **out, int level, struct sink *next,
		     int threaded);

/*
 * Open the sink for `spec` writing its final bytes to `fd`.  `level` is
 * -1 when no -N was given.  Only SINK_GZIP falls back (to the zlib
 * deflater, with git's warning) when `gzip` cannot be started.
 * SINK_ENGINE fails as the command would when its options (with
 * " -<level>" appended) are not garchive gzip's: "'<cmd>' filter
 * reported error".
 */
int sink_open(struct sink **out, const struct sink_spec *spec,
		int level, int fd);

/*
 * What the sink of `spec` asks of the walk, set in the walk's options:
 * without compression, reading is all the work (reading_bound); a child
 * that compresses (gzip -cn, a command) keeps a core busy
 * (cpus_taken_by_filter).  The writer's needs are set after these.
 */
void sink_walk_needs(const struct sink_spec *spec, struct walk_options *wo);

#endif

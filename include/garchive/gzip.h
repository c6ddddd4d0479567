/*
 * gzip.h: garchive's own gzip, whose bytes are GNU gzip's.
 *
 * The engine writes, for any input, level and number of threads, the
 * bytes GNU gzip 1.x (checked against 1.12) writes for `gzip -c -n -N`
 * on the same input read from a regular file: header (no name, mtime 0,
 * OS 3), the same deflate blocks bit for bit, and the trailer.  It runs
 * in-process, as a sink (see sink-contract.h), and on several threads
 * when asked to: the threads parse chunks of the input speculatively
 * and the result is re-synchronised with the one-thread parse, so the
 * bytes never depend on the thread count.
 *
 * It is used by `garchive gzip` (a filter like `gzip -cn`), by tar formats
 * whose tar.<format>.command names `garchive gzip`, and by tgz/tar.gz when
 * garchive.gzip is "builtin".
 */
#ifndef GARCHIVE_GZIP_H
#define GARCHIVE_GZIP_H

#include <stddef.h>
#include <stdint.h>

struct sink;

struct gzip_options {
	int level;		/* 1 to 9; -1 for gzip's default, 6 */
	int threads;		/* worker threads (at most 64); 0 or less:
				   one per CPU; 1: none, all on the
				   caller's thread */
	size_t chunk_size;	/* tests: the unit of parallel work, a
				   multiple of 32 KiB; 0: the default */
	/*
	 * GNU gzip keeps one 64 KiB buffer for all the files it is given,
	 * and the end of a small file can read what the file before left
	 * there.  For the second and later files of one run: the buffer
	 * the member before left (gzip_sink_window()); NULL otherwise.
	 */
	const uint8_t *window;
};

#define GZIP_WINDOW_SIZE 65536

/* What the parallel parse did, for measurements and tests. */
struct gzip_stats {
	uint64_t input;		/* bytes compressed */
	uint64_t parsed;	/* bytes parsed, speculation included */
	uint64_t speculated;	/* bytes parsed from a guessed state */
	uint64_t used;		/* of those, bytes with tokens kept */
	uint64_t resynced;	/* chunks joined to the true parse */
	uint64_t fallbacks;	/* parses re-run from the true state */
	uint64_t fallback_bytes;
	uint64_t sync_distance;	/* summed over the resynced chunks */
	uint64_t max_sync_distance;
	uint64_t blocks;
};

/*
 * A sink that compresses what it is given into `next`, which it owns
 * (finishes and frees) from then on, also when this fails.  Returns 0;
 * writes fail only when `next` does.
 */
int gzip_sink_open(struct sink **out, const struct gzip_options *opts,
		   struct sink *next);

/* The statistics of a sink made by gzip_sink_open(), so far. */
void gzip_sink_stats(const struct sink *s, struct gzip_stats *out);

/*
 * After a successful finish(): gzip's buffer as the stream left it, for
 * the next file of the same run (GZIP_WINDOW_SIZE bytes).
 */
const uint8_t *gzip_sink_window(const struct sink *s);

/* `garchive gzip [options] [FILE...]`, parsed by gzip-options.h. */
struct gzip_command;

/* The usage text of `garchive gzip`. */
const char *gzip_command_usage(void);

/*
 * Compress each file (or stdin) to `out_fd` as one gzip member each, as
 * `gzip -cn` does.  As gzip, a missing operand is reported and skipped
 * (*status 1), a directory too as a warning (*status 2 unless an error
 * comes too; -q silences it), and the other operands are compressed.
 * Returns 0 (see *status), GA_EPIPE when the reader went away,
 * GA_ESILENT after a failed write to `out_fd` (reported as gzip reports
 * it: a blank line, then "garchive gzip: stdout: <reason>"), or
 * GA_ERROR with a message such as "compressed data not written to a
 * terminal..." (stdin only, without -f).  `stats` (may be NULL) gets
 * the totals.
 */
int gzip_command_run(const struct gzip_command *cmd, int out_fd,
		     struct gzip_stats *stats, int *status);

#endif

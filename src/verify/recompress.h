/*
 * recompress.h: which compressor made this file?
 *
 * `garchive verify` feeds the decompressed tar to a few candidate
 * compressors while it reads the file once, and compares what each
 * writes with the file's bytes as they come: a candidate is dropped at
 * its first byte that differs, so wrong ones cost little (deflate
 * streams part in their first block) and the right one is proven byte
 * for byte.  Candidates are in-process zlib (git's own gzip, through
 * sink_open_zlib()) or a command fed through a pipe (`gzip -cn -9`,
 * a configured tar.<format>.command), started through run-command.c.
 *
 * Memory stays bounded: the file's bytes are kept only from the oldest
 * position a live candidate still has to compare, and a candidate that
 * runs too far ahead of the file or lags too far behind it is dropped.
 */
#ifndef GARCHIVE_RECOMPRESS_H
#define GARCHIVE_RECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

enum recompress_kind {
	RECOMPRESS_ZLIB,	/* git's in-process gzip at `level` */
	RECOMPRESS_PROGRAM,	/* `argv`, executed without a shell */
	RECOMPRESS_COMMAND	/* `command`, run as git runs filters */
};

struct recompress_candidate {
	enum recompress_kind kind;
	int level;		/* RECOMPRESS_ZLIB: 0..9 */
	const char *const *argv;	/* RECOMPRESS_PROGRAM: "gzip", "-cn" */
	const char *command;	/* RECOMPRESS_COMMAND: e.g. "xz -c" */
	const char *label;	/* how the report names it */
};

struct recompress;

/*
 * Start the candidates (copied; labels and commands must outlive the
 * set).  A command that cannot be started is dropped with the reason
 * kept, not an error.
 */
void recompress_new(struct recompress **out,
		    const struct recompress_candidate *cands, size_t nr);
void recompress_free(struct recompress *rc);

/* The file's bytes, in order, as they are read. */
void recompress_file_bytes(struct recompress *rc, const unsigned char *data,
			   size_t len);

/* The decompressed bytes, in order.  Returns 0 or GA_ERROR (poll). */
int recompress_feed(struct recompress *rc, const unsigned char *data,
		    size_t len);

/* Whether any candidate is still in the running. */
int recompress_alive(const struct recompress *rc);

/* Drop every candidate, with `why` as the reason. */
void recompress_stop(struct recompress *rc, const char *why);

/*
 * End of the input: finish the live candidates and compare their ends
 * with the file's `file_len` bytes.  Returns 0 or GA_ERROR.
 */
int recompress_finish(struct recompress *rc, uint64_t file_len);

/*
 * After finish: the index of the first candidate (in the order given)
 * that made the file, or -1.  recompress_why(rc, i) says why candidate
 * i did not ("differs from byte 10 on", "could not be run: ...").
 */
int recompress_winner(const struct recompress *rc);
int recompress_matched(const struct recompress *rc, size_t i);
const char *recompress_why(const struct recompress *rc, size_t i);

#endif

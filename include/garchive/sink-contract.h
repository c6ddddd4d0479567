/*
 * sink-contract.h: struct sink, what every sink is.
 *
 * Writers write into one, and sinks are made in two places: sink.c (fd,
 * memory, child processes, zlib) and garchive's gzip engine (gzip.h).
 * The engine needs the contract, not sink.c: so it lives here, and the
 * engine and sink.c do not include each other.
 *
 * - write() takes all `len` bytes or fails (GA_ERROR with a message such
 *   as "write error: No space left on device"; GA_EPIPE when the reader
 *   of our output went away).
 * - finish() flushes, ends the stream, waits for any child and checks its
 *   status ("'<cmd>' filter reported error").  It may fail.
 * - free() releases everything, never writes, and is safe after any
 *   failure and on NULL.  A child still running is killed and reaped.
 */
#ifndef GARCHIVE_SINK_CONTRACT_H
#define GARCHIVE_SINK_CONTRACT_H

#include <stddef.h>

struct sink {
	int (*write)(struct sink *s, const void *buf, size_t len);
	int (*finish)(struct sink *s);
	void (*free)(struct sink *s);
};

#endif

/*
 * output.h: where the archive goes, stdout or -o FILE.  A regular -o
 * file is written through a temporary file beside it and renamed over
 * it on success (see output.c); a run ended by a signal removes the
 * temporary file.
 */
#ifndef GARCHIVE_OUTPUT_H
#define GARCHIVE_OUTPUT_H

#include <sys/types.h>

/* Where the archive goes: stdout, or -o FILE through a temporary file. */
struct output {
	const char *path;	/* as given to -o, NULL for stdout */
	char *target;		/* what it names, links followed */
	char *tmp;		/* temporary file being written, or NULL */
	int fd;
};

/*
 * Open -o `path` (not owned; must outlive `o`) with the process's
 * `umask_bits`.  Returns 0 or GA_ERROR ("could not open '<path>' for
 * writing: <strerror>").
 */
int output_open(struct output *o, const char *path, mode_t umask_bits);

/*
 * The run succeeded: close, and rename the temporary file over the
 * target.  Nothing to do for stdout.  0 or GA_ERROR.
 */
int output_commit(struct output *o);

/* The run failed: close, and remove the temporary file if any. */
void output_abort(struct output *o);

/* Free what `o` owns; after output_commit() or output_abort(). */
void output_release(struct output *o);

#endif

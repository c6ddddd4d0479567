/*
 * progress.h: a progress meter on standard error, as git's progress.c
 * shows one for its long-running commands:
 *
 *	Writing archive:  42% (31000/74000 files), 1.21 GiB | 48.00 MiB/s
 *
 * redrawn in place (carriage return) at most four times a second, and
 * ended with ", done." and a newline.  Without a total, the count is
 * shown without a percentage.  The first line appears only after a
 * quarter of a second, so a quick run shows just the last one.
 *
 * Whether to show one at all is the caller's decision (main's: only
 * when stderr is a terminal that the archive does not go to, or with
 * --progress); this module only draws.
 */
#ifndef GARCHIVE_PROGRESS_H
#define GARCHIVE_PROGRESS_H

#include <stdint.h>

struct progress;

/*
 * A meter titled `title` (not copied) counting to `total` files (0:
 * unknown), drawn on `fd`.  Never fails.
 */
struct progress *progress_start(const char *title, uint64_t total, int fd);

/* Set the total once it is known (0: unknown). */
void progress_set_total(struct progress *p, uint64_t total);

/* `files` done and `bytes` processed so far; redraws when it is time. */
void progress_update(struct progress *p, uint64_t files, uint64_t bytes);

/*
 * The last line, with ", done.": the count is the total from now on.
 * Frees the meter.  A meter freed without it (a failed run) ends its
 * line without "done".  Both accept NULL.
 */
void progress_done(struct progress *p, uint64_t files, uint64_t bytes);
void progress_free(struct progress *p);

/*
 * Whether to show a meter: `setting` is 1 (--progress), 0
 * (--no-progress) or -1 (automatic: stderr is a terminal and `out_fd`
 * is not that terminal; -1 for no output fd).
 */
int progress_wanted(int setting, int out_fd);

#endif

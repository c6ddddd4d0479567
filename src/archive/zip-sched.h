/*
 * zip-sched.h: the members of a zip archive on their way to the sink,
 * processed ahead on worker threads and handed back in archive order.
 *
 * Contract:
 * - The writer thread alone calls these functions; the workers only
 *   run `process` (given to zip_sched_init()) on jobs, each on its own,
 *   and never touch the sink.  `process` computes a job's results (CRC,
 *   text bit, body) and keeps any error in the job, never in the error
 *   slot of the thread it runs on.
 * - zip_sched_pop() and zip_sched_make_room() hand jobs back in the
 *   order zip_sched_append() was given them, each processed; the
 *   caller writes and frees them.  So the bytes written do not depend
 *   on the number of threads.
 * - Memory: the jobs in the queue hold at most ZIP_BUDGET bytes of
 *   input and output (by their `cost`), beside at most one large member
 *   (two when they pair; see zip-sched.c).  A deferred member is read
 *   by a worker only when it fits.  The caller asks for room with
 *   zip_sched_make_room() before it appends a job.
 * - Nothing here prints or fails: a thread that cannot start leaves
 *   fewer workers (zip_sched_start_workers() says how many started).
 */
#ifndef GARCHIVE_ZIP_SCHED_H
#define GARCHIVE_ZIP_SCHED_H

#include "garchive/archive.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Bytes of queued input and output (plus bookkeeping) the workers may
 * hold.  One member that alone needs more may be in memory beside
 * them: git holds such a member and its deflated copy too, and
 * deflating it on a worker lets the members after it go on in
 * parallel.  A second one may join it when the two cost at most half
 * again the larger (a 100 MB member beside one of 50 MB, not two of
 * 100 MB), so that large members do not leave a core idle while the
 * peak stays near git's; any other waits until the first is deflated.
 * A deferred member (entry->deferred) waits unread, and workers go on
 * with the members after it meanwhile; one handed over already read
 * stops the walk until it may join.
 */
#define ZIP_BUDGET	((size_t)12 << 20)

enum job_state { JOB_PENDING, JOB_DONE };

/*
 * One member on its way to the archive.  The writer fills the first
 * part; `process` (a worker's or the writer's) fills the results.
 */
struct zip_job {
	struct zip_job *next;		/* archive order */
	struct zip_job *next_todo;	/* waiting for a worker */
	enum job_state state;
	size_t cost;			/* bytes counted in in_flight */
	size_t load_cost;		/* a deferred job's, once read */
	int large;			/* counted in nr_oversize */

	const char *path;
	size_t path_len;
	char *path_owned;
	unsigned int flags;		/* ZIP_FLAG_UTF8 or 0 */
	uint32_t mode;
	uint64_t size;
	enum entry_text text;
	const unsigned char *data;
	/* Whoever owns `data` when the job must outlive add(). */
	void *data_owner;
	void (*data_release)(void *owner);
	/* Not read yet: `process` loads it (see walk.h). */
	struct entry_deferred *deferred;
	int owns_deferred;

	/* results */
	int method;
	uint32_t crc;
	int is_binary;			/* -1: never decided, as for dirs */
	unsigned char *deflated;	/* the deflated body, when kept */
	uint64_t csize;
	int error;
	char *error_msg;
};

/* The ordered queue and its workers. */
struct zip_sched {
	void (*process)(struct zip_job *job, int level);
	int level;			/* handed to `process` */

	/*
	 * Workers sleep on `work` when nothing is to do, the writer on
	 * `done` while the head is busy; each side is woken only when the
	 * other has something for it, since a wakeup per member costs more
	 * than a small member's deflate.
	 */
	pthread_mutex_t mutex;
	pthread_cond_t work, done;
	int nr_idle;			/* workers asleep on `work` */
	int writer_waits;		/* the writer asleep on `done` */
	/* With writer_waits: it also waits for a job of this cost to fit. */
	int writer_wants_room;
	size_t writer_room;
	struct zip_job *head, *tail;
	struct zip_job *todo_head, *todo_tail;
	size_t in_flight;
	/*
	 * Jobs over the budget holding their input (waiting for a worker
	 * or being deflated), and their cost.  A deflated one holds its
	 * output only and counts with the others in in_flight.
	 */
	size_t nr_oversize, oversize;
	int stop;
	int nr_threads;			/* wanted; 1 = serial */
	int nr_started;
	pthread_t *threads;
};

/*
 * `threads` wanted (0 or less: one per online CPU, at most 64); the
 * workers start with the first zip_sched_start_workers().
 */
void zip_sched_init(struct zip_sched *s, int threads, int level,
		    void (*process)(struct zip_job *job, int level));
/* Stops and joins the workers and frees every job still queued. */
void zip_sched_release(struct zip_sched *s);

/*
 * A job for `entry`, with the path flags `flags`.  With `own` set the
 * job must outlive add(): the path is copied and the content taken
 * over (data_release) or copied.
 */
struct zip_job *zip_job_new(struct archive_entry *entry, int own,
			    unsigned int flags);
void zip_job_free(struct zip_job *job);
/* The job is done with its input: hand it back to its owner. */
void zip_job_release_data(struct zip_job *job);
/* Read a deferred member; a failure stays with the job. */
int zip_job_load(struct zip_job *job);
/* Budget share of a member: its input plus at most as much output. */
size_t zip_entry_cost(const struct archive_entry *entry);

/* The number of workers running (0: none could start). */
int zip_sched_start_workers(struct zip_sched *s);
/*
 * Queue `job` (its `cost` set): for a worker, or processed already.
 * The caller has made room for it (zip_sched_make_room()).
 */
void zip_sched_append(struct zip_sched *s, struct zip_job *job,
		      int for_worker);
/*
 * The first job off the queue if it is done; with `block`, wait for it.
 * NULL when the queue is empty (or the head is busy and !block).
 */
struct zip_job *zip_sched_pop(struct zip_sched *s, int block);
/*
 * NULL once a job of `cost` may join the queue; until then, the job to
 * write first (the head, processed), waiting for it as needed: workers
 * free room as they deflate, not only when the head is written.
 */
struct zip_job *zip_sched_make_room(struct zip_sched *s, size_t cost);
int zip_sched_is_empty(struct zip_sched *s);

#endif

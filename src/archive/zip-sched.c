/*
 * zip-sched.c: the ordered queue of zip members and the worker threads
 * that process them ahead of the writer (contract in zip-sched.h).
 */
#include "zip-sched.h"

#include "garchive/common.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Slack in the pairing rule for the bookkeeping in the costs, so that a
 * large member joins one of the same size only when both are small.
 * Not the budget: that is sized for the members deflated ahead while a
 * large one is, and pairing is a matter of the large ones' own sizes.
 */
#define ZIP_PAIR_SLACK	((size_t)4 << 20)
#define ZIP_MAX_THREADS	64

void zip_job_release_data(struct zip_job *job)
{
	if (job->data_release)
		job->data_release(job->data_owner);
	job->data_release = NULL;
	job->data_owner = NULL;
	job->data = NULL;
}

int zip_job_load(struct zip_job *job)
{
	const unsigned char *data;
	uint64_t len;
	int error;

	error = job->deferred->load(job->deferred, &data, &len,
				    &job->data_owner, &job->data_release);
	if (error < 0) {
		job->error = error;
		job->error_msg = ga_error_detach();
		return error;
	}
	job->data = data;
	job->size = len;
	job->csize = len;
	return 0;
}

void zip_job_free(struct zip_job *job)
{
	if (!job)
		return;
	free(job->path_owned);
	zip_job_release_data(job);
	if (job->owns_deferred)
		job->deferred->free(job->deferred);
	free(job->deflated);
	free(job->error_msg);
	free(job);
}

/*
 * A job for `entry`.  With `own` set the job must outlive add(): the path
 * is copied and the content taken over (data_release) or copied.
 */
struct zip_job *zip_job_new(struct archive_entry *entry, int own,
			    unsigned int flags)
{
	struct zip_job *job = ga_xcalloc(1, sizeof(*job));

	job->path = entry->path;
	job->path_len = entry->path_len;
	job->flags = flags;
	job->mode = entry->mode;
	job->text = entry->text;
	job->is_binary = -1;
	if (!archive_mode_is_dir(entry->mode)) {
		job->size = entry->size;
		job->data = entry->data;
		job->deferred = entry->deferred;
	}
	job->cost = sizeof(*job) + job->path_len;
	if (!own)
		return job;

	job->path_owned = ga_xstrndup(entry->path, entry->path_len);
	job->path = job->path_owned;
	if (job->deferred) {
		job->owns_deferred = 1;
		entry->deferred = NULL;
	} else if (job->data && job->size) {
		if (entry->data_release) {
			job->data_owner = entry->data_owner;
			job->data_release = entry->data_release;
			entry->data_release = NULL;
		} else {
			unsigned char *copy = ga_xmalloc((size_t)job->size);

			memcpy(copy, job->data, (size_t)job->size);
			job->data = copy;
			job->data_owner = copy;
			job->data_release = free;
		}
	}
	return job;
}

/* Budget share of a member: its input plus at most as much output. */
size_t zip_entry_cost(const struct archive_entry *entry)
{
	uint64_t cost = sizeof(struct zip_job) + entry->path_len;

	if (!archive_mode_is_dir(entry->mode))
		cost += 2 * entry->size;
	return cost > SIZE_MAX ? SIZE_MAX : (size_t)cost;
}

/*
 * Whether a job over the budget, costing `cost`, may hold its input
 * now: when no other one does, or one that makes a small enough pair
 * with it.  Mutex held.
 */
static int oversize_fits(const struct zip_sched *s, size_t cost)
{
	size_t larger = cost > s->oversize ? cost : s->oversize;

	return s->nr_oversize == 0 ||
		(s->nr_oversize == 1 &&
		 cost + s->oversize <= larger + larger / 2 + ZIP_PAIR_SLACK);
}

/*
 * Whether a job of `cost` fits the budget beside what the queue holds
 * (the large jobs in memory have their own allowance).  Mutex held.
 */
static int has_room(const struct zip_sched *s, size_t cost)
{
	return s->in_flight + cost <= ZIP_BUDGET + s->oversize;
}

/*
 * Whether a job of `cost`, handed over with its content, may join the
 * queue: a large one when it fits beside the large ones in memory (the
 * small ones staying within the budget), another when the budget has
 * room.  Mutex held.
 */
static int may_join(const struct zip_sched *s, size_t cost)
{
	if (cost > ZIP_BUDGET)
		return oversize_fits(s, cost) && has_room(s, 0);
	return has_room(s, cost);
}

/* Count `job` among the large ones in memory.  Mutex held. */
static void count_large(struct zip_sched *s, struct zip_job *job)
{
	job->large = 1;
	s->nr_oversize++;
	s->oversize += job->cost;
}

/* What a processed job still holds: its deflated copy, or its input. */
static size_t settled_cost(const struct zip_job *job)
{
	size_t cost = sizeof(*job) + job->path_len;

	if (job->deflated)
		cost += (size_t)job->csize;
	else if (job->data)
		cost += (size_t)job->size;
	return cost;
}

/*
 * A job is processed: it counts for what it holds now, and leaves the
 * large ones (its input is gone, or it is stored and written next).
 * Returns whether it was large.  Mutex held.
 */
static int job_settle(struct zip_sched *s, struct zip_job *job)
{
	size_t cost = settled_cost(job);
	int was_large = job->large;

	if (was_large) {
		s->nr_oversize--;
		s->oversize -= job->cost;
		job->large = 0;
	}
	s->in_flight = s->in_flight - job->cost + cost;
	job->cost = cost;
	return was_large;
}

/*
 * Whether a worker may start `job` now.  One handed over with its
 * content counts already.  A deferred one is read now and counts from
 * then on: a large one when it fits beside the large ones in memory,
 * another when the budget has room (or it is next to be written, so
 * that the members after it cannot hold it back).  Mutex held.
 */
static int may_start(const struct zip_sched *s, const struct zip_job *job)
{
	if (!job->load_cost)
		return 1;
	if (job->load_cost > ZIP_BUDGET)
		return oversize_fits(s, job->load_cost);
	return job == s->head || has_room(s, job->load_cost - job->cost);
}

/*
 * The first job waiting for a worker that may start now, off the todo
 * list; the jobs after a deferred one that must wait go first.  Mutex
 * held.
 */
static struct zip_job *todo_take(struct zip_sched *s)
{
	struct zip_job *job, *prev = NULL;

	for (job = s->todo_head; job; prev = job, job = job->next_todo)
		if (may_start(s, job))
			break;
	if (!job)
		return NULL;
	if (prev)
		prev->next_todo = job->next_todo;
	else
		s->todo_head = job->next_todo;
	if (s->todo_tail == job)
		s->todo_tail = prev;
	job->next_todo = NULL;
	if (job->load_cost) {
		s->in_flight = s->in_flight - job->cost + job->load_cost;
		job->cost = job->load_cost;
		job->load_cost = 0;
		if (job->cost > ZIP_BUDGET)
			count_large(s, job);
	}
	return job;
}

static void *worker_main(void *arg)
{
	struct zip_sched *s = arg;
	struct zip_job *job = NULL;

	pthread_mutex_lock(&s->mutex);
	for (;;) {
		while (!s->stop && !(job = todo_take(s))) {
			s->nr_idle++;
			pthread_cond_wait(&s->work, &s->mutex);
			s->nr_idle--;
		}
		if (s->stop)
			break;
		pthread_mutex_unlock(&s->mutex);

		s->process(job, s->level);

		pthread_mutex_lock(&s->mutex);
		job->state = JOB_DONE;
		/* A deferred member may fit now, for a sleeping worker. */
		if (job_settle(s, job) && s->nr_idle && s->todo_head)
			pthread_cond_signal(&s->work);
		if (s->writer_waits &&
		    (job == s->head ||
		     (s->writer_wants_room && may_join(s, s->writer_room))))
			pthread_cond_signal(&s->done);
	}
	pthread_mutex_unlock(&s->mutex);
	/* The error slot is per thread; it would leak with the thread. */
	ga_error_clear();
	return NULL;
}

/* Start the workers the first time a member needs one. */
int zip_sched_start_workers(struct zip_sched *s)
{
	if (s->threads)
		return s->nr_started;
	s->threads = ga_xcalloc((size_t)s->nr_threads, sizeof(*s->threads));
	while (s->nr_started < s->nr_threads) {
		if (pthread_create(&s->threads[s->nr_started], NULL,
				   worker_main, s))
			break;
		s->nr_started++;
	}
	return s->nr_started;
}

/* Take the (finished) head off the queue.  Mutex held. */
static void unlink_head(struct zip_sched *s)
{
	struct zip_job *job = s->head;

	s->head = job->next;
	if (!s->head)
		s->tail = NULL;
	s->in_flight -= job->cost;
	if (job->large) {
		s->nr_oversize--;
		s->oversize -= job->cost;
	}
	/* A deferred job waiting for room may start now. */
	if (s->nr_idle && s->todo_head)
		pthread_cond_signal(&s->work);
}

/*
 * Take the first job off the queue if it is done; with `block`, wait for
 * it.  NULL when the queue is empty (or the head is busy and !block).
 */
struct zip_job *zip_sched_pop(struct zip_sched *s, int block)
{
	struct zip_job *job;

	pthread_mutex_lock(&s->mutex);
	for (;;) {
		job = s->head;
		if (!job || job->state == JOB_DONE)
			break;
		if (!block) {
			job = NULL;
			break;
		}
		s->writer_waits = 1;
		pthread_cond_wait(&s->done, &s->mutex);
		s->writer_waits = 0;
	}
	if (job)
		unlink_head(s);
	pthread_mutex_unlock(&s->mutex);
	return job;
}

/*
 * Take the head off the queue when a job of `cost` may not join yet,
 * waiting for it as needed.
 */
struct zip_job *zip_sched_make_room(struct zip_sched *s, size_t cost)
{
	struct zip_job *job;

	pthread_mutex_lock(&s->mutex);
	while (!may_join(s, cost) && s->head->state != JOB_DONE) {
		s->writer_waits = 1;
		s->writer_wants_room = 1;
		s->writer_room = cost;
		pthread_cond_wait(&s->done, &s->mutex);
		s->writer_waits = 0;
		s->writer_wants_room = 0;
	}
	job = may_join(s, cost) ? NULL : s->head;
	if (job)
		unlink_head(s);
	pthread_mutex_unlock(&s->mutex);
	return job;
}

int zip_sched_is_empty(struct zip_sched *s)
{
	int empty;

	pthread_mutex_lock(&s->mutex);
	empty = !s->head;
	pthread_mutex_unlock(&s->mutex);
	return empty;
}

void zip_sched_append(struct zip_sched *s, struct zip_job *job, int for_worker)
{
	job->state = for_worker ? JOB_PENDING : JOB_DONE;
	if (!for_worker)
		job->cost = settled_cost(job);
	pthread_mutex_lock(&s->mutex);
	if (s->tail)
		s->tail->next = job;
	else
		s->head = job;
	s->tail = job;
	s->in_flight += job->cost;
	if (for_worker && job->cost > ZIP_BUDGET)
		count_large(s, job);
	if (for_worker) {
		if (s->todo_tail)
			s->todo_tail->next_todo = job;
		else
			s->todo_head = job;
		s->todo_tail = job;
		if (s->nr_idle)
			pthread_cond_signal(&s->work);
	}
	pthread_mutex_unlock(&s->mutex);
}

static int thread_count(int wanted)
{
	long n = wanted;

	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if (n > ZIP_MAX_THREADS)
		n = ZIP_MAX_THREADS;
	return (int)n;
}

void zip_sched_init(struct zip_sched *s, int threads, int level,
		    void (*process)(struct zip_job *job, int level))
{
	memset(s, 0, sizeof(*s));
	s->process = process;
	s->level = level;
	s->nr_threads = thread_count(threads);
	pthread_mutex_init(&s->mutex, NULL);
	pthread_cond_init(&s->work, NULL);
	pthread_cond_init(&s->done, NULL);
}

void zip_sched_release(struct zip_sched *s)
{
	struct zip_job *job;
	int i;

	pthread_mutex_lock(&s->mutex);
	s->stop = 1;
	pthread_cond_broadcast(&s->work);
	pthread_mutex_unlock(&s->mutex);
	for (i = 0; i < s->nr_started; i++)
		pthread_join(s->threads[i], NULL);
	free(s->threads);
	while ((job = s->head)) {
		s->head = job->next;
		zip_job_free(job);
	}
	pthread_cond_destroy(&s->work);
	pthread_cond_destroy(&s->done);
	pthread_mutex_destroy(&s->mutex);
}

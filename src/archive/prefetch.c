/*
 * prefetch.c: blob reads ahead of the walk (see prefetch.h).
 *
 * One queue, in tree order, holds a job per blob the scout met.  The
 * walk's thread appends (scouting) and removes at the head (taking);
 * workers take jobs in queue order, so the jobs the walk waits for are
 * always the oldest ones.  One mutex and one condition variable guard
 * it all.
 *
 * Memory: a worker learns a blob's size from its header first and then
 * reserves it against a cap, which also counts the blob the walk took
 * last until the walk asks for the next one.  The cap is the budget, or
 * the largest blob met so far less the budget when that is more: git
 * holds that blob whole at some point, so the peak stays under git's.  A small blob
 * that does not fit waits (unless its job is at the head of the queue
 * and the walk holds nothing); a large one (above the budget) is left to
 * the walk, which streams it (walk_options.stream_large) while the
 * workers read on.  A job no worker has started when the walk needs it
 * is the walk's too, which reads it itself rather than wait; and while
 * the walk waits for a large blob a worker inflates, it reads the next
 * job itself, as one more worker would.  Blobs above
 * core.bigFileThreshold are not read at all (the walk streams them).
 */
#include "prefetch.h"
#include "repo-open.h"
#include "garchive/archive.h"
#include "garchive/common.h"
#include "odb.h"
#include "pathspec.h"
#include "rawtree.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "libgit2.h"

/*
 * Jobs queued ahead of the walk, whatever their size.  The scout tops
 * the queue up in batches, when it is down to half, so that workers
 * are woken once per batch rather than once per blob.
 */
#define PREFETCH_MAX_AHEAD	4096
#define PREFETCH_REFILL_AT	(PREFETCH_MAX_AHEAD / 2)
/*
 * While the walk waits for a blob larger than the budget, it scouts on
 * so that a free worker can read the small blobs after it; each job is
 * about 100 bytes.
 */
#define PREFETCH_MAX_AHEAD_WAITING	(16 * PREFETCH_MAX_AHEAD)
#define PREFETCH_MAX_THREADS	64
/*
 * A blob the walk reads itself rather than wait for a worker that has
 * it (handing one over costs a sleep and a wakeup, about what reading a
 * small blob costs), and how many jobs the workers then skip ahead.
 */
#define PREFETCH_SMALL		((size_t)64 << 10)
#define PREFETCH_SKIP		32

enum job_state { JOB_QUEUED, JOB_RUNNING, JOB_DONE };

struct job {
	struct job *next;
	struct ga_oid id;
	uint32_t mode;
	enum job_state state;
	int dropped;		/* the walk skipped it while it ran */
	/* results */
	struct odb_object *obj;
	uint64_t size;
	int big;
	size_t reserved;	/* bytes counted against the budget */
	int error;
	char *message;
};

/* A tree the scout is in. */
struct scout_frame {
	struct odb_object *obj;
	struct rawtree_iter iter;
	size_t rel_len;
};

/*
 * The workers, shared by the walks of every submodule level: they read
 * for the innermost walk (the active prefetch), the only one that takes
 * blobs while it runs.  The walks nest, so the prefetches form a stack
 * (prefetch.outer).  One mutex and condition variable serve them all.
 */
struct prefetch_pool {
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	struct prefetch *active;
	int nr_idle;			/* workers with nothing to do */
	int stop;
	struct worker *workers;
	int nr_workers;
};

struct worker {
	struct prefetch_pool *pool;
	int nr;				/* its object database in each prefetch */
	pthread_t thread;
	int started;
};

struct prefetch {
	const struct prefetch_options *opts;
	git_odb *odb;			/* the walk's, for scouting */

	/* The scout: its own walk of the trees, on the walk's thread. */
	struct scout_frame *frames;
	size_t depth, alloc_frames;
	struct ga_buf rel;
	int scout_done;

	struct prefetch_pool *pool;
	struct prefetch *outer;		/* active before this one */
	pthread_mutex_t *mutex;		/* the pool's */
	pthread_cond_t *cond;
	git_odb **odbs;			/* one per worker of the pool */
	int nr_running;			/* jobs workers are reading */
	struct job *head, *tail;	/* queue order */
	struct job *todo;		/* first job no worker took */
	size_t nr_queued;
	size_t reserved;		/* bytes read (or being read) ahead */
	size_t held;			/* bytes of the blob the walk has */
	size_t largest;			/* the largest blob size met */
	int stop;
	/*
	 * Who sleeps on the condition variable, so that a change wakes
	 * the threads only when someone waits for it.
	 */
	int nr_over_budget;		/* workers waiting for budget */
	int walk_waits;			/* the walk waits for the head */
};

static void job_free(struct job *job)
{
	if (!job)
		return;
	odb_object_free(job->obj);
	free(job->message);
	free(job);
}

/* ---- workers ---- */

/*
 * The first job from `job` on that no thread has taken.  Jobs are taken
 * in queue order except around the walk (see skip_workers() and
 * prefetch_reading()).  Called with the mutex held.
 */
static struct job *first_queued(struct job *job)
{
	while (job && job->state != JOB_QUEUED)
		job = job->next;
	return job;
}

int prefetch_blob_unreadable(int code, const char *oid_hex)
{
	const git_error *e = git_error_last();

	if (odb_blob_corrupt_error(code) < 0)
		return GA_ECORRUPT;
	if (code != GIT_ENOTFOUND)
		return ga_error_set("unable to read %s: %s", oid_hex,
				    e && e->message ? e->message : "corrupt");
	return ga_error_code(GA_EARCHIVE, "cannot read '%s'", oid_hex);
}

enum room { ROOM_READ, ROOM_WAIT, ROOM_LEAVE };

/*
 * Whether `job` may read its `size` bytes now, must wait, or is to be
 * left to the walk (see the top of this file).  Called with the mutex
 * held.
 */
static enum room room_for(struct prefetch *pf, struct job *job, size_t size)
{
	size_t cap = pf->largest > pf->opts->budget ?
		     pf->largest - pf->opts->budget : 0;

	if (cap < pf->opts->budget)
		cap = pf->opts->budget;
	if (pf->reserved + pf->held + size <= cap)
		return ROOM_READ;
	if (size > pf->opts->budget)
		return ROOM_LEAVE;
	if (job == pf->head && !pf->held)
		return ROOM_READ;
	return ROOM_WAIT;
}

/* A blob of `size` bytes was met.  Mutex held. */
static void met_size(struct prefetch *pf, size_t size)
{
	if (size > pf->largest)
		pf->largest = size;
}

/* Count `size` bytes of `job` as read ahead.  Mutex held. */
static void claim(struct prefetch *pf, struct job *job, size_t size)
{
	pf->reserved += size;
	job->reserved = size;
	/* A long wait: the walk may scout and read meanwhile. */
	if (size > pf->opts->budget && pf->walk_waits && job == pf->head)
		pthread_cond_broadcast(pf->cond);
}

/*
 * Wait until room_for() allows the read and count it; 0 then, or 1
 * when the blob is left to the walk.  Called with the mutex held.
 */
static int reserve(struct prefetch *pf, struct job *job, size_t size)
{
	enum room room;

	met_size(pf, size);
	while ((room = room_for(pf, job, size)) == ROOM_WAIT &&
	       !pf->stop && !job->dropped && pf->pool->active == pf) {
		pf->nr_over_budget++;
		pthread_cond_wait(pf->cond, pf->mutex);
		pf->nr_over_budget--;
	}
	if (room == ROOM_LEAVE)
		return 1;
	claim(pf, job, size);
	return 0;
}

/*
 * Read the header of `job`'s blob from `odb` into *size, as walk.c's
 * file_entry() would.  Returns 1 when the blob is above the threshold
 * and is to be left unread (see set_big()), else 0; *size is 0 when the
 * header cannot be read.  Changes nothing in `job`, which another thread
 * may be reading the header of too (see walk_helps()).
 */
static int read_job_header(struct prefetch *pf, git_odb *odb,
			   const struct job *job, size_t *size)
{
	git_object_t type = GIT_OBJECT_INVALID;

	*size = 0;
	if (odb_read_header(size, &type, odb, &job->id) < 0) {
		git_error_clear();
		*size = 0;
		return 0;
	}
	return job->mode != ARCHIVE_MODE_SYMLINK && type == GIT_OBJECT_BLOB &&
	       *size > pf->opts->big_file_threshold;
}

/* `job` is left unread: the walk streams its `size` bytes. */
static void set_big(struct job *job, size_t size)
{
	job->big = 1;
	job->size = size;
}

/* Read `job`'s blob whole from `odb`, or keep the error for the walk. */
static void read_job(struct job *job, git_odb *odb)
{
	int error;

	if ((error = odb_read(&job->obj, odb, &job->id)) < 0) {
		char hex[GA_OID_MAX_HEXSZ + 1];

		job->obj = NULL;
		ga_oid_fmt(hex, &job->id);
		job->error = prefetch_blob_unreadable(error, hex);
		job->message = ga_error_detach();
	}
}

/*
 * A worker runs `job` of `pf`: the header, a wait for budget, the read.
 * A job of a prefetch that a nested walk's took over from is left to
 * its walk rather than wait for budget: only that walk frees it.
 */
static void run_job(struct worker *wk, struct prefetch *pf, struct job *job)
{
	git_odb *odb = pf->odbs[wk->nr];
	size_t size;
	int stopped;

	if (read_job_header(pf, odb, job, &size)) {
		set_big(job, size);
		return;
	}
	pthread_mutex_lock(pf->mutex);
	stopped = reserve(pf, job, size) || pf->stop || job->dropped ||
		  pf->pool->active != pf;
	pthread_mutex_unlock(pf->mutex);
	if (!stopped)
		read_job(job, odb);
}

/* The prefetch with a job for a worker, or NULL.  Mutex held. */
static struct prefetch *work_for(struct prefetch_pool *pool)
{
	struct prefetch *pf = pool->active;

	return pf && !pf->stop && pf->todo ? pf : NULL;
}

/* `job` of `pf` is read: hand it over.  Called with the mutex held. */
static void job_done(struct prefetch *pf, struct job *job)
{
	pf->nr_running--;
	if (job->dropped) {
		/* Off the queue already; its bytes go back. */
		pf->reserved -= job->reserved;
		job_free(job);
		if (pf->nr_over_budget)
			pthread_cond_broadcast(pf->cond);
	} else {
		job->state = JOB_DONE;
		if (pf->walk_waits && job == pf->head)
			pthread_cond_broadcast(pf->cond);
	}
	/* prefetch_free() waits for its last job. */
	if (pf->stop && !pf->nr_running)
		pthread_cond_broadcast(pf->cond);
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct prefetch_pool *pool = wk->pool;
	struct prefetch *pf;
	struct job *job;

	pthread_mutex_lock(&pool->mutex);
	for (;;) {
		while (!pool->stop && !(pf = work_for(pool))) {
			pool->nr_idle++;
			pthread_cond_wait(&pool->cond, &pool->mutex);
			pool->nr_idle--;
		}
		if (pool->stop)
			break;
		job = pf->todo;
		pf->todo = first_queued(job->next);
		job->state = JOB_RUNNING;
		pf->nr_running++;
		pthread_mutex_unlock(&pool->mutex);

		run_job(wk, pf, job);

		pthread_mutex_lock(&pool->mutex);
		job_done(pf, job);
	}
	pthread_mutex_unlock(&pool->mutex);
	/* The error slot is per thread; it would leak with the thread. */
	ga_error_clear();
	return NULL;
}

/* ---- the scout ---- */

static int push_frame(struct prefetch *pf, const struct ga_oid *id, size_t rel_len)
{
	struct scout_frame *f;
	struct odb_object *obj = NULL;

	if (rawtree_read(&obj, pf->odb, id) < 0)
		return GA_ENOTFOUND;
	GA_ALLOC_GROW(pf->frames, pf->depth + 1, pf->alloc_frames);
	f = &pf->frames[pf->depth++];
	f->obj = obj;
	rawtree_iter_init(&f->iter, odb_object_data(obj),
			  odb_object_size(obj), pf->opts->hashsz);
	f->rel_len = rel_len;
	return 0;
}

static void pop_frame(struct prefetch *pf)
{
	odb_object_free(pf->frames[--pf->depth].obj);
}

/* The scout knows no attributes: an :(attr:) item may match. */
static int unknown_attrs(struct attr_value *out, const char *path,
			 int is_dir, const char *const *names, size_t nr,
			 void *payload)
{
	(void)out, (void)path, (void)is_dir, (void)names, (void)nr;
	(void)payload;
	return GA_ENOTFOUND;
}

/*
 * The next blob or symlink in tree order that the walk may archive, in
 * *id and *mode.  Returns 0, or GA_ITEROVER at the end.  A tree the
 * scout cannot read or parse ends the scouting: the walk meets the same
 * problem itself and reports it.
 */
static int scout_next(struct ga_oid *id, uint32_t *mode, struct prefetch *pf)
{
	const struct pathspec *ps = pf->opts->ps;
	struct rawtree_entry te;
	int error;

	while (pf->depth) {
		struct scout_frame *f = &pf->frames[pf->depth - 1];

		error = rawtree_next(&te, &f->iter);
		if (error == GA_ITEROVER) {
			pop_frame(pf);
			continue;
		}
		if (error < 0)
			goto broken;
		ga_buf_setlen(&pf->rel, f->rel_len);
		ga_buf_put(&pf->rel, te.name, te.name_len);
		if (te.mode == ARCHIVE_MODE_DIR) {
			if (ps && !pathspec_may_match_inside(ps, pf->rel.ptr))
				continue;
			ga_buf_putc(&pf->rel, '/');
			if (push_frame(pf, &te.id, pf->rel.len) < 0)
				goto broken;
			continue;
		}
		if (te.mode == ARCHIVE_MODE_GITLINK)
			continue;
		if (ps && pathspec_match(ps, pf->rel.ptr, 0, unknown_attrs,
					 NULL) == 0)
			continue;
		ga_error_clear();
		ga_oid_cpy(id, &te.id);
		*mode = te.mode;
		return 0;
	}
	pf->scout_done = 1;
	return GA_ITEROVER;
broken:
	ga_error_clear();
	while (pf->depth)
		pop_frame(pf);
	pf->scout_done = 1;
	return GA_ITEROVER;
}

/*
 * Top the queue up to PREFETCH_MAX_AHEAD jobs once it is down to
 * PREFETCH_REFILL_AT (or empty), unless the tree has ended.  Only the
 * walk's thread changes nr_queued and head, so it reads them unlocked.
 */
static void scout_upto(struct prefetch *pf, size_t max_ahead)
{
	struct job *first = NULL, *last = NULL;
	size_t nr = 0, queued = pf->nr_queued;

	while (queued + nr < max_ahead) {
		struct job *job;
		struct ga_oid id;
		uint32_t mode;

		if (scout_next(&id, &mode, pf) < 0)
			break;
		job = ga_xcalloc(1, sizeof(*job));
		ga_oid_cpy(&job->id, &id);
		job->mode = mode;
		if (last)
			last->next = job;
		else
			first = job;
		last = job;
		nr++;
	}
	if (!nr)
		return;
	pthread_mutex_lock(pf->mutex);
	if (pf->tail)
		pf->tail->next = first;
	else
		pf->head = first;
	pf->tail = last;
	if (!pf->todo)
		pf->todo = first;
	pf->nr_queued += nr;
	if (pf->pool->nr_idle)
		pthread_cond_broadcast(pf->cond);
	pthread_mutex_unlock(pf->mutex);
}

static void scout(struct prefetch *pf)
{
	if (pf->scout_done || (pf->nr_queued > PREFETCH_REFILL_AT && pf->head))
		return;
	scout_upto(pf, PREFETCH_MAX_AHEAD);
}

/*
 * Whether the walk, about to wait for the head, should scout further
 * instead: when the head is a blob larger than the budget (a long wait)
 * and the queue has room.  Called with the mutex held.
 */
static int scout_while_waiting(struct prefetch *pf)
{
	return !pf->scout_done && pf->head->reserved > pf->opts->budget &&
		pf->nr_queued + PREFETCH_REFILL_AT <= PREFETCH_MAX_AHEAD_WAITING;
}

/* ---- the walk's side ---- */

/*
 * While a worker inflates a blob larger than the budget for the walk,
 * the walk's own thread would sit idle: it reads the next job no worker
 * has taken instead, as one more worker would, provided the blob fits
 * the budget now (the walk must not wait for budget: only its own takes
 * free it).  Returns 1 when it ran a job or found the queue changed,
 * 0 when it should wait.  Called with the mutex held.
 */
static int walk_helps(struct prefetch *pf)
{
	struct job *job = pf->todo;
	enum room room;
	size_t size;
	int big;

	if (!job || pf->head->reserved <= pf->opts->budget)
		return 0;
	/*
	 * Only the walk frees queued jobs, so `job` stays valid while the
	 * mutex is let go; a worker may take it meanwhile.
	 */
	pthread_mutex_unlock(pf->mutex);
	/* Worker 0's handle: the walk's own would report damage early. */
	big = read_job_header(pf, pf->odbs[0], job, &size);
	pthread_mutex_lock(pf->mutex);
	if (pf->todo != job)
		return 1;
	if (big) {
		set_big(job, size);
	} else {
		met_size(pf, size);
		room = room_for(pf, job, size);
		if (room == ROOM_WAIT)
			return 0;
		big = room == ROOM_LEAVE;
	}
	pf->todo = first_queued(job->next);
	job->state = JOB_RUNNING;
	if (!big) {
		claim(pf, job, size);
		pthread_mutex_unlock(pf->mutex);
		read_job(job, pf->odbs[0]);
		pthread_mutex_lock(pf->mutex);
	}
	job->state = JOB_DONE;
	return 1;
}

/* Take the head off the queue.  Called with the mutex held. */
static struct job *unqueue_head(struct prefetch *pf)
{
	struct job *job = pf->head;

	pf->head = job->next;
	if (!pf->head)
		pf->tail = NULL;
	if (pf->todo == job)
		pf->todo = first_queued(job->next);
	job->next = NULL;
	pf->nr_queued--;
	/* A new head may now go past the budget. */
	if (pf->nr_over_budget)
		pthread_cond_broadcast(pf->cond);
	return job;
}

/*
 * The walk reads the head itself: unless the workers are far enough
 * ahead, let them start PREFETCH_SKIP jobs further on and leave those
 * to the walk.  Called with the mutex held.
 */
static void skip_workers(struct prefetch *pf)
{
	struct job *job = pf->head;
	int i;

	for (i = 0; job && job != pf->todo && i < PREFETCH_SKIP; i++)
		job = job->next;
	if (job != pf->todo)
		return;		/* the workers are ahead already */
	for (i = 0; pf->todo && pf->todo->next && i < PREFETCH_SKIP; i++)
		pf->todo = pf->todo->next;
	pf->todo = first_queued(pf->todo);
}

/* Drop the head, which the walk skipped.  Called with the mutex held. */
static void drop_head(struct prefetch *pf)
{
	struct job *job = unqueue_head(pf);

	if (job->state == JOB_RUNNING) {
		job->dropped = 1;	/* its worker frees it */
		return;
	}
	pf->reserved -= job->reserved;
	if (job->reserved && pf->nr_over_budget)
		pthread_cond_broadcast(pf->cond);
	job_free(job);
}

int prefetch_take(struct prefetch_blob *out, struct prefetch *pf,
		  const struct ga_oid *oid)
{
	struct job *job;

	memset(out, 0, sizeof(*out));
	/* The walk has freed the blob it took last. */
	pthread_mutex_lock(pf->mutex);
	if (pf->held) {
		pf->held = 0;
		if (pf->nr_over_budget)
			pthread_cond_broadcast(pf->cond);
	}
	pthread_mutex_unlock(pf->mutex);
	for (;;) {
		scout(pf);
		pthread_mutex_lock(pf->mutex);
		while (pf->head && !ga_oid_equal(&pf->head->id, oid))
			drop_head(pf);
		if (pf->head)
			break;
		pthread_mutex_unlock(pf->mutex);
		if (pf->scout_done)
			return 0;
	}
	job = pf->head;
	if (job->state == JOB_QUEUED ||
	    (job->state == JOB_RUNNING &&
	     job->reserved <= PREFETCH_SMALL)) {
		/*
		 * No worker has started it (all busy, or not woken yet on
		 * a busy machine), or one is reading a small blob: reading
		 * it here costs no more than waiting, where handing each
		 * small blob over costs a sleep and a wakeup.  The workers
		 * skip on past the next few jobs, which the walk reads
		 * meanwhile, so that they are not always one blob behind.
		 */
		int running = job->state == JOB_RUNNING;

		unqueue_head(pf);
		if (running)
			job->dropped = 1;	/* its worker frees it */
		skip_workers(pf);
		pthread_mutex_unlock(pf->mutex);
		if (!running)
			job_free(job);
		scout(pf);
		return 0;
	}
	while (job->state != JOB_DONE) {
		if (scout_while_waiting(pf)) {
			pthread_mutex_unlock(pf->mutex);
			scout_upto(pf, pf->nr_queued + PREFETCH_REFILL_AT);
			pthread_mutex_lock(pf->mutex);
			continue;
		}
		if (walk_helps(pf))
			continue;
		pf->walk_waits = 1;
		pthread_cond_wait(pf->cond, pf->mutex);
		pf->walk_waits = 0;
	}
	pf->reserved -= job->reserved;
	pf->held = job->reserved;
	unqueue_head(pf);
	pthread_mutex_unlock(pf->mutex);

	/*
	 * A worker's store reports nothing (see odb_open()): the walk
	 * reads a blob a worker could not read itself, so that git's lines
	 * for it are printed once, by the walk's store, in git's order.
	 */
	if (job->error) {
		job_free(job);
		scout(pf);
		return 0;
	}
	out->obj = job->obj;
	out->size = job->size;
	out->big = job->big;
	job->obj = NULL;
	job_free(job);
	/* Keep the workers busy while the walk works on this one. */
	scout(pf);
	return 1;
}

void prefetch_reading(struct prefetch *pf, size_t size, int whole)
{
	pthread_mutex_lock(pf->mutex);
	met_size(pf, size);
	/*
	 * The workers skipped ahead, leaving the next few jobs to the walk,
	 * which takes a while over this one: they had better start on the
	 * next job after it (it may be large too) than leave it to the walk.
	 */
	if (size > pf->opts->budget)
		pf->todo = first_queued(pf->head);
	if (whole)
		pf->held = size;
	pthread_mutex_unlock(pf->mutex);
}

/* ---- setup ---- */

/*
 * Worker `nr`'s own object database.  libgit2 shares one open pack,
 * with its lock and delta base cache, among all the handles that name
 * it by the same path, so workers reading many small blobs would queue
 * on that lock (on 100k small files, two workers were slower than one).
 * Each worker names the directory its own way ("objects/./", then
 * "objects/././", ...) and so gets packs of its own.
 */
static int open_odb(git_odb **out, git_repository *repo, git_odb *odb,
		    int nr)
{
	char *common = repo_commondir(repo);
	struct ga_buf path = GA_BUF_INIT;
	int i, error;

	ga_buf_puts(&path, common);
	free(common);
	ga_buf_puts(&path, "objects");
	for (i = 0; i <= nr; i++)
		ga_buf_puts(&path, "/.");
	error = odb_open(out, path.ptr, odb_shown(odb), 0,
			 odb_hash_algo(odb), odb_reader(odb));
	ga_buf_release(&path);
	return error;
}

int prefetch_pool_new(struct prefetch_pool **out, int threads)
{
	struct prefetch_pool *pool = ga_xcalloc(1, sizeof(*pool));
	int i, nr = threads;

	pthread_mutex_init(&pool->mutex, NULL);
	pthread_cond_init(&pool->cond, NULL);
	if (nr > PREFETCH_MAX_THREADS)
		nr = PREFETCH_MAX_THREADS;
	if (nr < 1)
		nr = 1;
	pool->workers = ga_xcalloc((size_t)nr, sizeof(*pool->workers));
	for (i = 0; i < nr; i++) {
		struct worker *wk = &pool->workers[i];

		wk->pool = pool;
		wk->nr = i;
		if (pthread_create(&wk->thread, NULL, worker_main, wk))
			break;
		wk->started = 1;
		pool->nr_workers++;
	}
	if (!pool->nr_workers) {
		prefetch_pool_free(pool);
		return ga_error_set("cannot start a thread");
	}
	*out = pool;
	return 0;
}

void prefetch_pool_free(struct prefetch_pool *pool)
{
	int i;

	if (!pool)
		return;
	pthread_mutex_lock(&pool->mutex);
	pool->stop = 1;
	pthread_cond_broadcast(&pool->cond);
	pthread_mutex_unlock(&pool->mutex);
	for (i = 0; i < pool->nr_workers; i++)
		pthread_join(pool->workers[i].thread, NULL);
	free(pool->workers);
	pthread_cond_destroy(&pool->cond);
	pthread_mutex_destroy(&pool->mutex);
	free(pool);
}

/* Make `pf` the prefetch the workers read for.  Mutex held. */
static void push_active(struct prefetch *pf)
{
	pf->outer = pf->pool->active;
	pf->pool->active = pf;
	/* Workers waiting for budget of the outer one go idle. */
	pthread_cond_broadcast(pf->cond);
}

/* Take `pf` off the stack of prefetches.  Mutex held. */
static void pop_active(struct prefetch *pf)
{
	struct prefetch **p = &pf->pool->active;

	while (*p && *p != pf)
		p = &(*p)->outer;
	if (*p)
		*p = pf->outer;
	pthread_cond_broadcast(pf->cond);
}

int prefetch_new(struct prefetch **out, struct prefetch_pool *pool,
		 git_repository *repo, git_odb *odb,
		 const struct prefetch_options *opts)
{
	struct prefetch *pf = ga_xcalloc(1, sizeof(*pf));
	int i, error;

	pf->opts = opts;
	pf->odb = odb;
	pf->pool = pool;
	pf->mutex = &pool->mutex;
	pf->cond = &pool->cond;
	/* Pathspecs see whole paths (a submodule's, git 2.41's cwd). */
	ga_buf_puts(&pf->rel, opts->rel_base ? opts->rel_base : "");
	if (push_frame(pf, opts->tree_id, pf->rel.len) < 0)
		pf->scout_done = 1;
	pf->odbs = ga_xcalloc((size_t)pool->nr_workers, sizeof(*pf->odbs));
	for (i = 0; i < pool->nr_workers; i++) {
		if ((error = open_odb(&pf->odbs[i], repo, odb, i)) < 0) {
			prefetch_free(pf);
			return error;
		}
	}
	pthread_mutex_lock(pf->mutex);
	push_active(pf);
	pthread_mutex_unlock(pf->mutex);
	*out = pf;
	return 0;
}

void prefetch_free(struct prefetch *pf)
{
	int i;

	if (!pf)
		return;
	pthread_mutex_lock(pf->mutex);
	pf->stop = 1;
	pthread_cond_broadcast(pf->cond);
	while (pf->nr_running)
		pthread_cond_wait(pf->cond, pf->mutex);
	pop_active(pf);
	pthread_mutex_unlock(pf->mutex);
	/* No worker reads for it now: every job is on the queue. */
	for (i = 0; i < pf->pool->nr_workers; i++)
		git_odb_free(pf->odbs[i]);
	free(pf->odbs);
	while (pf->head)
		job_free(unqueue_head(pf));
	while (pf->depth)
		pop_frame(pf);
	free(pf->frames);
	ga_buf_release(&pf->rel);
	free(pf);
}

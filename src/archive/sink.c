/*
 * sink.c: sinks, the last stage of the pipeline.
 *
 * Four kinds: a plain file descriptor, a memory buffer (tests), a child
 * process fed through a pipe (the built-in `gzip -cn`, or a configured
 * tar.<format>.command), and an in-process gzip deflater that writes into
 * another sink.  The rule that only the built-in `gzip -cn` falls back to
 * the in-process deflater lives here and nowhere else.
 */
#include "garchive/sink.h"
#include "garchive/common.h"
#include "garchive/gzip.h"
#include "garchive/walk.h"
#include "gzip-options.h"
#include "run-command.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <zlib.h>

/*
 * git 2.39 feeds its deflater one tar block (BLOCKSIZE, 10240 bytes) per
 * deflate() call and gives it a 16384-byte output buffer.  At level 0
 * zlib sizes its stored blocks from avail_in and avail_out, so both are
 * reproduced exactly to get git's bytes; only the write(2)s are batched.
 */
#define ZLIB_IN_CHUNK	10240
#define ZLIB_OUT_SLOT	16384
#define ZLIB_OUT_SLOTS	8	/* 128 KiB per write to the next sink */

/*
 * The writer hands the deflater thread buffers of this size (a multiple
 * of ZLIB_IN_CHUNK), at most ZLIB_QUEUE_DEPTH at a time: about 1 MiB in
 * flight, whatever the archive size.
 */
#define ZLIB_QUEUE_BUF	(ZLIB_IN_CHUNK * 25)
#define ZLIB_QUEUE_DEPTH 4

/* ------------------------------------------------------------------ */
/* Plain file descriptor */

struct fd_sink {
	struct sink base;
	int fd;
};

/* git's write_or_die(): EPIPE is the reader leaving, anything else fatal. */
static int write_error(int err)
{
	if (err == EPIPE)
		return ga_error_code(GA_EPIPE, "write error: %s",
				     strerror(err));
	return ga_error_errno(err, "write error");
}

static int fd_write(struct sink *s, const void *buf, size_t len)
{
	struct fd_sink *f = (struct fd_sink *)s;

	if (ga_write_all(f->fd, buf, len) < 0)
		return write_error(errno);
	return 0;
}

/*
 * A sink with nothing to flush and nothing to release but itself: the fd
 * and memory sinks.  new_plain_sink() allocates one of `size` bytes (its
 * struct sink first) that writes with `write`.
 */
static int plain_finish(struct sink *s)
{
	(void)s;
	return 0;
}

static void plain_free(struct sink *s)
{
	free(s);
}

static struct sink *new_plain_sink(size_t size,
				   int (*write)(struct sink *, const void *,
						size_t))
{
	struct sink *s = ga_xcalloc(1, size);

	s->write = write;
	s->finish = plain_finish;
	s->free = plain_free;
	return s;
}

int sink_open_fd(struct sink **out, int fd)
{
	struct sink *s = new_plain_sink(sizeof(struct fd_sink), fd_write);

	((struct fd_sink *)s)->fd = fd;
	*out = s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Memory */

struct mem_sink {
	struct sink base;
	struct ga_buf *buf;
};

static int mem_write(struct sink *s, const void *buf, size_t len)
{
	struct mem_sink *m = (struct mem_sink *)s;

	ga_buf_put(m->buf, buf, len);
	return 0;
}

int sink_open_memory(struct sink **out, struct ga_buf *buf)
{
	struct sink *s = new_plain_sink(sizeof(struct mem_sink), mem_write);

	((struct mem_sink *)s)->buf = buf;
	*out = s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* In-process gzip ("git archive gzip") */

struct zlib_sink {
	struct sink base;
	struct sink *next;
	z_stream zs;
	int zs_ready;
	gz_header gzhead;

	/* Output: ZLIB_OUT_SLOTS slots, each handed to zlib in turn. */
	unsigned char *out;
	size_t out_done;	/* bytes of complete slots not yet written */

	/* Input not yet deflated because it is less than one chunk. */
	unsigned char stage[ZLIB_IN_CHUNK];
	size_t stage_len;

	int failed;		/* the stream is unusable after an error */

	/* Threaded mode: the writer fills buffers, the thread deflates. */
	int threaded;
	pthread_t thread;
	int thread_running;	/* started and not yet joined */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned char *bufs[ZLIB_QUEUE_DEPTH];
	size_t lens[ZLIB_QUEUE_DEPTH];
	size_t ready[ZLIB_QUEUE_DEPTH];	/* ring of filled buffer indexes */
	size_t ready_head, ready_nr;
	size_t spare[ZLIB_QUEUE_DEPTH];	/* stack of empty buffer indexes */
	size_t spare_nr;
	int filling;		/* index the writer fills, or -1 */
	int eof;		/* the writer finished: deflate the rest */
	int abort;		/* free(): stop without finishing */
	int thread_code;	/* the thread's error code, 0 when none */
	char *thread_msg;	/* and its message */
};

static void zlib_reset_slot(struct zlib_sink *z)
{
	z->zs.next_out = z->out + z->out_done;
	z->zs.avail_out = ZLIB_OUT_SLOT;
}

static int zlib_flush_out(struct zlib_sink *z)
{
	int error = 0;

	if (z->out_done)
		error = z->next->write(z->next, z->out, z->out_done);
	z->out_done = 0;
	return error;
}

/*
 * One call of git's tgz_deflate(): deflate `len` bytes (or finish the
 * stream), moving to the next output slot whenever zlib fills one.
 */
static int zlib_deflate(struct zlib_sink *z, const unsigned char *in,
			size_t len, int flush)
{
	int status, error;

	z->zs.next_in = (unsigned char *)in;
	z->zs.avail_in = (uInt)len;
	while (z->zs.avail_in || flush == Z_FINISH) {
		status = deflate(&z->zs, flush);
		if (!z->zs.avail_out || status == Z_STREAM_END) {
			z->out_done = (size_t)(z->zs.next_out - z->out);
			if (status == Z_STREAM_END ||
			    z->out_done == ZLIB_OUT_SLOT * ZLIB_OUT_SLOTS) {
				if ((error = zlib_flush_out(z)) < 0)
					return error;
			}
			zlib_reset_slot(z);
			if (status == Z_STREAM_END)
				break;
		}
		if (status != Z_OK && status != Z_BUF_ERROR)
			return ga_error_set("deflate error (%d)", status);
	}
	return 0;
}

/* Feed bytes in git's 10240-byte units, keeping a partial unit staged. */
static int zlib_feed(struct zlib_sink *z, const unsigned char *p, size_t len)
{
	int error;

	if (z->stage_len) {
		size_t take = ZLIB_IN_CHUNK - z->stage_len;

		if (take > len)
			take = len;
		memcpy(z->stage + z->stage_len, p, take);
		z->stage_len += take;
		p += take;
		len -= take;
		if (z->stage_len < ZLIB_IN_CHUNK)
			return 0;
		z->stage_len = 0;
		if ((error = zlib_deflate(z, z->stage, ZLIB_IN_CHUNK,
					  Z_NO_FLUSH)) < 0)
			return error;
	}
	while (len >= ZLIB_IN_CHUNK) {
		error = zlib_deflate(z, p, ZLIB_IN_CHUNK, Z_NO_FLUSH);
		if (error < 0)
			return error;
		p += ZLIB_IN_CHUNK;
		len -= ZLIB_IN_CHUNK;
	}
	memcpy(z->stage, p, len);
	z->stage_len = len;
	return 0;
}

/* The end of the stream: the partial unit, then one Z_FINISH loop. */
static int zlib_end(struct zlib_sink *z)
{
	int error;

	if (z->stage_len) {
		error = zlib_deflate(z, z->stage, z->stage_len, Z_NO_FLUSH);
		z->stage_len = 0;
		if (error < 0)
			return error;
	}
	return zlib_deflate(z, NULL, 0, Z_FINISH);
}

static void *zlib_thread(void *arg)
{
	struct zlib_sink *z = arg;
	int error = 0;
	size_t idx;

	for (;;) {
		pthread_mutex_lock(&z->lock);
		while (!z->ready_nr && !z->eof && !z->abort)
			pthread_cond_wait(&z->cond, &z->lock);
		if (z->abort || (!z->ready_nr && z->eof)) {
			int finish = !z->abort;

			pthread_mutex_unlock(&z->lock);
			if (finish)
				error = zlib_end(z);
			break;
		}
		idx = z->ready[z->ready_head];
		z->ready_head = (z->ready_head + 1) % ZLIB_QUEUE_DEPTH;
		z->ready_nr--;
		pthread_mutex_unlock(&z->lock);

		error = zlib_feed(z, z->bufs[idx], z->lens[idx]);

		pthread_mutex_lock(&z->lock);
		z->spare[z->spare_nr++] = idx;
		pthread_cond_broadcast(&z->cond);
		pthread_mutex_unlock(&z->lock);
		if (error < 0)
			break;
	}

	if (error < 0) {
		/* The error slot is per thread: carry it to the writer. */
		int code = ga_error_last_code();
		char *msg = ga_error_detach();

		pthread_mutex_lock(&z->lock);
		z->thread_code = code < 0 ? code : GA_ERROR;
		z->thread_msg = msg;
		pthread_cond_broadcast(&z->cond);
		pthread_mutex_unlock(&z->lock);
	}
	/* The error slot is per thread; it would leak with the thread. */
	ga_error_clear();
	return NULL;
}

static void zlib_join(struct zlib_sink *z)
{
	if (!z->thread_running)
		return;
	pthread_join(z->thread, NULL);
	z->thread_running = 0;
}

/* Called with the lock held: the thread's error, restored in this thread. */
static int zlib_thread_error(struct zlib_sink *z)
{
	z->failed = 1;
	return ga_error_restore(z->thread_code, z->thread_msg);
}

static int zlib_write_threaded(struct zlib_sink *z, const unsigned char *p,
			       size_t len)
{
	while (len) {
		size_t idx, take;

		if (z->filling < 0) {
			pthread_mutex_lock(&z->lock);
			while (!z->spare_nr && !z->thread_code)
				pthread_cond_wait(&z->cond, &z->lock);
			if (z->thread_code) {
				int error = zlib_thread_error(z);

				pthread_mutex_unlock(&z->lock);
				return error;
			}
			z->filling = (int)z->spare[--z->spare_nr];
			z->lens[z->filling] = 0;
			pthread_mutex_unlock(&z->lock);
		}
		idx = (size_t)z->filling;
		take = ZLIB_QUEUE_BUF - z->lens[idx];
		if (take > len)
			take = len;
		memcpy(z->bufs[idx] + z->lens[idx], p, take);
		z->lens[idx] += take;
		p += take;
		len -= take;
		if (z->lens[idx] == ZLIB_QUEUE_BUF) {
			pthread_mutex_lock(&z->lock);
			z->ready[(z->ready_head + z->ready_nr) %
				 ZLIB_QUEUE_DEPTH] = idx;
			z->ready_nr++;
			z->filling = -1;
			pthread_cond_broadcast(&z->cond);
			pthread_mutex_unlock(&z->lock);
		}
	}
	return 0;
}

static int zlib_write(struct sink *s, const void *buf, size_t len)
{
	struct zlib_sink *z = (struct zlib_sink *)s;
	int error;

	if (z->failed)
		return ga_error_set("write to a failed gzip stream");
	if (z->threaded)
		return zlib_write_threaded(z, buf, len);
	if ((error = zlib_feed(z, buf, len)) < 0)
		z->failed = 1;
	return error;
}

static int zlib_finish(struct sink *s)
{
	struct zlib_sink *z = (struct zlib_sink *)s;
	int error = 0;

	if (z->failed)
		return ga_error_set("finish of a failed gzip stream");
	if (z->threaded) {
		pthread_mutex_lock(&z->lock);
		if (z->filling >= 0) {
			z->ready[(z->ready_head + z->ready_nr) %
				 ZLIB_QUEUE_DEPTH] = (size_t)z->filling;
			z->ready_nr++;
			z->filling = -1;
		}
		z->eof = 1;
		pthread_cond_broadcast(&z->cond);
		pthread_mutex_unlock(&z->lock);
		zlib_join(z);
		if (z->thread_code)
			error = zlib_thread_error(z);
	} else {
		error = zlib_end(z);
	}
	if (!error)
		error = z->next->finish(z->next);
	if (error < 0)
		z->failed = 1;
	return error;
}

static void zlib_free(struct sink *s)
{
	struct zlib_sink *z = (struct zlib_sink *)s;
	size_t i;

	if (!z)
		return;
	if (z->thread_running) {
		pthread_mutex_lock(&z->lock);
		z->abort = 1;
		pthread_cond_broadcast(&z->cond);
		pthread_mutex_unlock(&z->lock);
		zlib_join(z);
	}
	if (z->threaded) {
		pthread_mutex_destroy(&z->lock);
		pthread_cond_destroy(&z->cond);
	}
	for (i = 0; i < ZLIB_QUEUE_DEPTH; i++)
		free(z->bufs[i]);
	free(z->thread_msg);
	if (z->zs_ready)
		deflateEnd(&z->zs);
	free(z->out);
	if (z->next)
		z->next->free(z->next);
	free(z);
}

static int zlib_start_thread(struct zlib_sink *z)
{
	sigset_t all, old;
	size_t i;
	int err;

	for (i = 0; i < ZLIB_QUEUE_DEPTH; i++) {
		z->bufs[i] = ga_xmalloc(ZLIB_QUEUE_BUF);
		z->spare[z->spare_nr++] = i;
	}
	z->filling = -1;
	pthread_mutex_init(&z->lock, NULL);
	pthread_cond_init(&z->cond, NULL);
	z->threaded = 1;

	/* Signals belong to the main thread, which cleans up on them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&z->thread, NULL, zlib_thread, z);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return ga_error_errno(err, "unable to start the gzip thread");
	z->thread_running = 1;
	return 0;
}

int sink_open_zlib(struct sink **out, int level, struct sink *next,
		     int threaded)
{
	struct zlib_sink *z = ga_xcalloc(1, sizeof(*z));
	int status, error = 0;

	*out = NULL;
	z->base.write = zlib_write;
	z->base.finish = zlib_finish;
	z->base.free = zlib_free;
	z->next = next;
	z->out = ga_xmalloc(ZLIB_OUT_SLOT * ZLIB_OUT_SLOTS);

	/* git_deflate_init_gzip(): gzip wrapper, memLevel 8. */
	status = deflateInit2(&z->zs,
			      level < 0 ? Z_DEFAULT_COMPRESSION : level,
			      Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	if (status != Z_OK) {
		error = ga_error_set("deflateInit2: %s (%s)",
				     ga_zlib_strerror(status),
				     z->zs.msg ? z->zs.msg : "no message");
		goto done;
	}
	z->zs_ready = 1;

	/*
	 * mtime 0, no name, and OS 3 (Unix) whatever the host, for
	 * reproducibility, as git does.
	 */
	z->gzhead.os = 3;
	if ((status = deflateSetHeader(&z->zs, &z->gzhead)) != Z_OK) {
		error = ga_error_set("deflateSetHeader: %s",
				     ga_zlib_strerror(status));
		goto done;
	}
	zlib_reset_slot(z);

	if (threaded)
		error = zlib_start_thread(z);

done:
	if (error < 0)
		zlib_free(&z->base);
	else
		*out = &z->base;
	return error;
}

/* ------------------------------------------------------------------ */
/* Child processes */

/*
 * A filter command with our end of its stdin, started and reaped by
 * run-command.c; its stdout is the archive's destination.
 */
struct command_sink {
	struct sink base;
	char *display;		/* the command as git names it in messages */
	const char *argv[4];	/* what proc.argv points at */
	char level_arg[16];	/* "-<level>" for gzip */
	struct child proc;
	int code, signo;	/* how it ended, once reaped */
	int builtin_gzip;	/* SINK_GZIP: garchive's stand-in for git's
				   in-process gzip */
	int failed;
};

static void command_reap(struct command_sink *c)
{
	if (c->proc.pid <= 0)
		return;
	/* Nothing to wait for counts as a failure. */
	if (child_finish(&c->proc, &c->code, &c->signo) < 0) {
		c->code = 255;
		c->signo = 0;
	}
}

/*
 * Judge the reaped child as git's finish_command() and archive-tar.c do.
 * `broken_pipe`: our write failed with EPIPE, which in git is a death by
 * SIGPIPE (exit 141) unless we can tell the filter failed first.
 */
static int command_outcome(struct command_sink *c, int broken_pipe)
{
	if (!c->code && !c->signo) {
		if (broken_pipe)
			return ga_error_code(GA_EPIPE, "write error: %s",
					     strerror(EPIPE));
		return 0;
	}
	if (c->signo) {
		char *death;

		/*
		 * A filter killed by SIGPIPE lost its own reader: the
		 * reader of garchive's output went away, which garchive
		 * reports as git does when that happens to it.
		 */
		if (c->signo == SIGPIPE && (c->builtin_gzip || broken_pipe))
			return ga_error_code(GA_EPIPE, "write error: %s",
					     strerror(EPIPE));
		if ((death = child_death_message(c->display, c->signo))) {
			ga_report(GA_REPORT_ERROR, "%s", death);
			free(death);
		}
	}
	return ga_error_set("'%s' filter reported error", c->display);
}

static int command_write(struct sink *s, const void *buf, size_t len)
{
	struct command_sink *c = (struct command_sink *)s;
	int err;

	if (c->failed || c->proc.in < 0)
		return ga_error_set("write to a finished '%s' filter",
				    c->display);
	if (!ga_write_all(c->proc.in, buf, len))
		return 0;
	err = errno;
	c->failed = 1;
	if (err != EPIPE)
		return ga_error_errno(err, "write error");
	/* The filter closed its stdin: what happened to it decides. */
	command_reap(c);
	return command_outcome(c, 1);
}

/*
 * Wait until the filter has read everything we wrote, before we end its
 * input.  A filter that goes away first (`head -c 1`, a shell pipeline
 * whose first command is missing) has not filtered the whole archive
 * even when it exits 0; git notices only when the rest no longer fits
 * in the pipe and it dies of SIGPIPE, and our pipe is larger than git's.
 * Returns 1 when the filter left bytes unread, 0 otherwise (also when
 * the kernel cannot tell, as git could not).
 */
static int command_left_unread(struct command_sink *c)
{
	for (;;) {
		struct pollfd p = { c->proc.in, POLLOUT, 0 };
		int unread = 0;

		if (ioctl(c->proc.in, FIONREAD, &unread) < 0 || unread <= 0)
			return 0;
		if (poll(&p, 1, 0) > 0 && (p.revents & POLLERR))
			return 1;
		/* Still reading: look again in a millisecond. */
		poll(NULL, 0, 1);
	}
}

static int command_finish(struct sink *s)
{
	struct command_sink *c = (struct command_sink *)s;
	int unread;

	if (c->failed || c->proc.in < 0)
		return ga_error_set("finish of a finished '%s' filter",
				    c->display);
	unread = command_left_unread(c);
	command_reap(c);
	c->failed = 1;	/* nothing more to do with it */
	return command_outcome(c, unread);
}

static void command_free(struct sink *s)
{
	struct command_sink *c = (struct command_sink *)s;

	if (!c)
		return;
	/*
	 * Still running means the archive was cut short: kill the filter
	 * before closing its input so that it cannot end a truncated
	 * stream with a valid-looking trailer.
	 */
	if (c->proc.pid > 0)
		kill(c->proc.pid, SIGKILL);
	command_reap(c);
	free(c->display);
	free(c);
}

static struct command_sink *command_new(char *display, int builtin_gzip)
{
	struct command_sink *c = ga_xcalloc(1, sizeof(*c));
	struct child init = CHILD_INIT;

	c->base.write = command_write;
	c->base.finish = command_finish;
	c->base.free = command_free;
	c->display = display;
	c->proc = init;
	c->builtin_gzip = builtin_gzip;
	return c;
}

/*
 * Start c->argv with a pipe from us as its stdin and `fd` as its
 * stdout, nothing else inherited.  Returns 0, or the errno value that
 * kept it from running (the message in the error slot is not git's for
 * a filter: the callers word their own).
 */
static int command_start(struct command_sink *c, int use_shell,
			 int no_shell_retry, int fd)
{
	c->proc.argv = c->argv;
	c->proc.use_shell = use_shell;
	c->proc.no_shell_retry = no_shell_retry;
	c->proc.pipe_in = 1;
	c->proc.out_fd = fd;
	c->proc.close_fds = 1;
	if (child_start(&c->proc) < 0)
		return c->proc.failed_errno ? c->proc.failed_errno : ENOEXEC;
	/* A bigger pipe means fewer context switches; best effort. */
	fcntl(c->proc.in, F_SETPIPE_SZ, 1 << 20);
	return 0;
}

/*
 * The built-in `gzip -cn`: exec'd after a PATH lookup, no shell.
 * When gzip cannot be started, fall back to the in-process deflater
 * with a warning.
 */
static int open_gzip(struct sink **out, int level, int fd)
{
	struct command_sink *c;
	struct sink *next = NULL;
	char *display;
	int err;

	if (level >= 0)
		display = ga_xstrfmt("gzip -cn -%d", level);
	else
		display = ga_xstrdup("gzip -cn");
	c = command_new(display, 1);
	c->argv[0] = "gzip";
	c->argv[1] = "-cn";
	if (level >= 0) {
		snprintf(c->level_arg, sizeof(c->level_arg), "-%d", level);
		c->argv[2] = c->level_arg;
	}
	/*
	 * No shell, not even for a gzip that is a script without "#!":
	 * that fails (ENOEXEC) and falls back like a missing one.
	 */
	if (!(err = command_start(c, 0, 1, fd))) {
		*out = &c->base;
		return 0;
	}
	c->display = NULL;
	command_free(&c->base);

	ga_error_clear();
	ga_warning("unable to start '%s' filter, "
		   "falling back to 'git archive gzip': %s",
		   display, strerror(err));
	free(display);
	sink_open_fd(&next, fd);
	return sink_open_zlib(out, level, next, 1);
}

/*
 * A configured tar.<format>.command, with " -<level>" appended when a
 * level was given, started the way git's run-command does it: through
 * the shell when it has shell metacharacters (the appended level has a
 * space, so always then), else exec'd directly after a PATH lookup.
 * Never falls back.
 */
static int open_command(struct sink **out, const char *command, int level,
			int fd)
{
	struct command_sink *c;
	char *display;
	int err, error;

	if (level >= 0)
		display = ga_xstrfmt("%s -%d", command, level);
	else
		display = ga_xstrdup(command);
	c = command_new(display, 0);
	c->argv[0] = display;
	if (!(err = command_start(c, 1, 0, fd))) {
		*out = &c->base;
		return 0;
	}
	/*
	 * git reports a failed execve() other than ENOENT with a
	 * fatal-looking line of its own before its die(); the error slot
	 * holds one message, so it carries both lines.
	 */
	if (err != ENOENT && !child_needs_shell(display))
		error = ga_error_set("cannot exec '%s': %s\n"
				     "fatal: unable to start '%s' filter: %s",
				     display, strerror(err), display,
				     strerror(err));
	else
		error = ga_error_set("unable to start '%s' filter: %s",
				     display, strerror(err));
	command_free(&c->base);
	return error;
}

/*
 * A `garchive gzip` line whose options (with the level) the child would
 * refuse (`error` < 0, its message in the error slot) or would not run
 * as a filter (0): the child's message, then git's for a failed filter.
 */
static int engine_refused(const char *command, int level, int error)
{
	char *display;

	if (error < 0)
		ga_report(GA_REPORT_PLAIN, "garchive gzip: %s",
			  ga_error_message());
	if (level >= 0)
		display = ga_xstrfmt("%s -%d", command, level);
	else
		display = ga_xstrdup(command);
	error = ga_error_set("'%s' filter reported error", display);
	free(display);
	return error;
}

/*
 * garchive's own gzip in process: for garchive.gzip = builtin, or for a
 * tar.<format>.command that names `garchive gzip`, whose options (and the
 * level appended to them, as to any command) it takes as the child would.
 */
static int open_engine(struct sink **out, const struct sink_spec *spec,
		       int level, int fd)
{
	struct gzip_options o = { -1, -1, 0, NULL };
	struct sink *next = NULL;
	int found;

	if (spec->command) {
		if (!spec->gzip_line)
			GA_BUG("SINK_ENGINE command without its parse");
		found = gzip_line_options(&o, spec->gzip_line, level);
		if (found <= 0)
			return engine_refused(spec->command, level, found);
	} else if (level >= 0) {
		o.level = level;
	}
	if (o.threads < 0)
		o.threads = spec->threads;
	sink_open_fd(&next, fd);
	return gzip_sink_open(out, &o, next);
}

int sink_open(struct sink **out, const struct sink_spec *spec,
		int level, int fd)
{
	struct sink *next = NULL;

	*out = NULL;
	switch (spec->kind) {
	case SINK_NONE:
		return sink_open_fd(out, fd);
	case SINK_GZIP:
		return open_gzip(out, level, fd);
	case SINK_ZLIB:
		sink_open_fd(&next, fd);
		return sink_open_zlib(out, level, next, 1);
	case SINK_COMMAND:
		if (!spec->command)
			GA_BUG("SINK_COMMAND without a command");
		return open_command(out, spec->command, level, fd);
	case SINK_ENGINE:
		return open_engine(out, spec, level, fd);
	}
	GA_BUG("unknown sink kind");
}

void sink_walk_needs(const struct sink_spec *spec, struct walk_options *wo)
{
	wo->reading_bound = spec->kind == SINK_NONE;
	/*
	 * gzip -cn (or a command) compresses on a core of its own and sets
	 * the pace: reading ahead on that core would only slow it down.
	 */
	if (spec->kind == SINK_GZIP || spec->kind == SINK_COMMAND)
		wo->cpus_taken_by_filter = 1;
}

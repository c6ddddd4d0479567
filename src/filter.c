/*
 * filter.c: sinks, the last stage of the pipeline.
 *
 * Four kinds: a plain file descriptor, a memory buffer (tests), a child
 * process fed through a pipe (the built-in `gzip -cn`, or a configured
 * tar.<format>.command), and an in-process gzip deflater that writes into
 * another sink.  The rule that only the built-in `gzip -cn` falls back to
 * the in-process deflater lives here and nowhere else.
 */
#include "garchive/filter.h"
#include "garchive/common.h"
#include "garchive/gzip.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <paths.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

extern char **environ;

/* The shell git runs filter commands with (its SHELL_PATH). */
#define FILTER_SHELL "/bin/sh"

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

static int fd_finish(struct sink *s)
{
	(void)s;
	return 0;
}

static void fd_free(struct sink *s)
{
	free(s);
}

int filter_open_fd(struct sink **out, int fd)
{
	struct fd_sink *f = ga_xcalloc(1, sizeof(*f));

	f->base.write = fd_write;
	f->base.finish = fd_finish;
	f->base.free = fd_free;
	f->fd = fd;
	*out = &f->base;
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

int filter_open_memory(struct sink **out, struct ga_buf *buf)
{
	struct mem_sink *m = ga_xcalloc(1, sizeof(*m));

	m->base.write = mem_write;
	m->base.finish = fd_finish;
	m->base.free = fd_free;
	m->buf = buf;
	*out = &m->base;
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

int filter_open_zlib(struct sink **out, int level, struct sink *next,
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

struct child_sink {
	struct sink base;
	char *display;		/* the command as git names it in messages */
	pid_t pid;		/* -1 once reaped */
	int in;			/* our end of the child's stdin, or -1 */
	int status;		/* wait status, once reaped */
	int builtin_gzip;	/* FILTER_GZIP: garchive's stand-in for git's
				   in-process gzip */
	int failed;
};

/* What the child needs, all prepared before fork(). */
struct spawn_plan {
	const char *path;	/* what to execve */
	char **argv;
	char **sh_argv;		/* ENOEXEC retry through the shell, or NULL */
	int out_fd;
	int max_fd;		/* where closing stops without close_range */
};

/* git's is_executable(): a regular file with the owner's x bit. */
static int is_executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) &&
	       (st.st_mode & S_IXUSR);
}

/*
 * git's locate_in_PATH(): an empty PATH finds nothing, an empty element
 * means the current directory.  git itself runs with PATH set (to the
 * default search path when it was unset), so an unset PATH means that.
 */
static char *locate_in_path(const char *file)
{
	const char *p = getenv("PATH");
	struct ga_buf buf = GA_BUF_INIT;

	if (!p)
		p = _PATH_DEFPATH;
	if (!*p)
		return NULL;
	for (;;) {
		const char *end = strchrnul(p, ':');

		ga_buf_setlen(&buf, 0);
		if (end != p) {
			ga_buf_put(&buf, p, (size_t)(end - p));
			ga_buf_putc(&buf, '/');
		}
		ga_buf_puts(&buf, file);
		if (is_executable(buf.ptr))
			return ga_buf_detach(&buf, NULL);
		if (!*end)
			break;
		p = end + 1;
	}
	ga_buf_release(&buf);
	return NULL;
}

/* Only async-signal-safe calls from here to execve(). */
static void child_fail(int report_fd)
{
	int err = errno;
	ssize_t n;

	do {
		n = write(report_fd, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	_exit(127);
}

static void child_close_from(int low, int max_fd)
{
	int fd;

	if (!close_range((unsigned int)low, ~0U, 0))
		return;
	for (fd = low; fd < max_fd; fd++)
		close(fd);
}

__attribute__((noreturn))
static void child_exec(const struct spawn_plan *plan, int in_rd, int report)
{
	struct sigaction sa, old;
	sigset_t none;
	int in_copy, out_copy, sig;

	/*
	 * Move everything above 2 first, so that no dup2() below can
	 * overwrite a descriptor still needed, whatever their numbers.
	 */
	if (report < 3 && (report = fcntl(report, F_DUPFD_CLOEXEC, 3)) < 0)
		_exit(127);
	if ((in_copy = fcntl(in_rd, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (out_copy = fcntl(plan->out_fd, F_DUPFD_CLOEXEC, 3)) < 0)
		child_fail(report);
	if (dup2(in_copy, 0) < 0 || dup2(out_copy, 1) < 0)
		child_fail(report);
	if (report != 3) {
		if (dup3(report, 3, O_CLOEXEC) < 0)
			child_fail(report);
		report = 3;
	}
	/* The filter gets stdin, stdout and stderr, nothing else. */
	child_close_from(4, plan->max_fd);

	/*
	 * Handlers do not survive execve, but ignored signals would:
	 * garchive ignores SIGPIPE, and a filter must die of it when its
	 * reader goes away.  Other ignored signals (nohup) are inherited,
	 * as git does.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (sigaction(sig, NULL, &old))
			continue;
		if (old.sa_handler != SIG_IGN || sig == SIGPIPE)
			sigaction(sig, &sa, NULL);
	}
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL))
		child_fail(report);

	execve(plan->path, plan->argv, environ);
	if (errno == ENOEXEC && plan->sh_argv)
		execve(FILTER_SHELL, plan->sh_argv, environ);
	child_fail(report);
	_exit(127);
}

/*
 * Start `plan` with a new pipe as its stdin.  Returns 0 with *pid and
 * *in set, or an errno value when the program could not be started: the
 * child reports a failed execve() through a close-on-exec pipe, so the
 * answer is known here and not guessed later from an exit status.
 */
static int spawn(pid_t *pid, int *in, const struct spawn_plan *plan)
{
	int data[2] = { -1, -1 }, report[2] = { -1, -1 };
	sigset_t all, old;
	pid_t child;
	int err = 0, child_err;
	ssize_t n;

	if (pipe2(data, O_CLOEXEC) < 0 || pipe2(report, O_CLOEXEC) < 0) {
		err = errno;
		goto done;
	}

	/* No handler may run in the child between fork and exec. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	child = fork();
	if (child == 0)
		child_exec(plan, data[0], report[1]);
	err = child < 0 ? errno : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto done;

	close(report[1]);
	report[1] = -1;
	do {
		n = read(report[0], &child_err, sizeof(child_err));
	} while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(child_err)) {
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
		err = child_err ? child_err : ENOEXEC;
		goto done;
	}

	/* A bigger pipe means fewer context switches; best effort. */
	fcntl(data[1], F_SETPIPE_SZ, 1 << 20);
	*pid = child;
	*in = data[1];
	data[1] = -1;

done:
	if (data[0] >= 0)
		close(data[0]);
	if (data[1] >= 0)
		close(data[1]);
	if (report[0] >= 0)
		close(report[0]);
	if (report[1] >= 0)
		close(report[1]);
	return err;
}

static int max_fd_hint(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > 65536)
		return 65536;
	return (int)rl.rlim_cur;
}

static void child_reap(struct child_sink *c)
{
	if (c->pid < 0)
		return;
	while (waitpid(c->pid, &c->status, 0) < 0) {
		if (errno != EINTR) {
			/* Nothing to wait for: count it as a failure. */
			c->status = 0xff00;
			break;
		}
	}
	c->pid = -1;
}

static void child_close_in(struct child_sink *c)
{
	if (c->in >= 0)
		close(c->in);
	c->in = -1;
}

/*
 * Judge the reaped child as git's finish_command() and archive-tar.c do.
 * `broken_pipe`: our write failed with EPIPE, which in git is a death by
 * SIGPIPE (exit 141) unless we can tell the filter failed first.
 */
static int child_outcome(struct child_sink *c, int broken_pipe)
{
	int st = c->status;

	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		if (broken_pipe)
			return ga_error_code(GA_EPIPE, "write error: %s",
					     strerror(EPIPE));
		return 0;
	}
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st);

		/*
		 * A filter killed by SIGPIPE lost its own reader: the
		 * reader of garchive's output went away, which garchive
		 * reports as git does when that happens to it.
		 */
		if (sig == SIGPIPE && (c->builtin_gzip || broken_pipe))
			return ga_error_code(GA_EPIPE, "write error: %s",
					     strerror(EPIPE));
		if (sig != SIGINT && sig != SIGQUIT && sig != SIGPIPE)
			ga_report(GA_REPORT_ERROR, "%s died of signal %d",
				  c->display, sig);
	}
	return ga_error_set("'%s' filter reported error", c->display);
}

static int child_write(struct sink *s, const void *buf, size_t len)
{
	struct child_sink *c = (struct child_sink *)s;
	int err;

	if (c->failed || c->in < 0)
		return ga_error_set("write to a finished '%s' filter",
				    c->display);
	if (!ga_write_all(c->in, buf, len))
		return 0;
	err = errno;
	c->failed = 1;
	if (err != EPIPE)
		return ga_error_errno(err, "write error");
	/* The filter closed its stdin: what happened to it decides. */
	child_close_in(c);
	child_reap(c);
	return child_outcome(c, 1);
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
static int child_left_unread(struct child_sink *c)
{
	for (;;) {
		struct pollfd p = { c->in, POLLOUT, 0 };
		int unread = 0;

		if (ioctl(c->in, FIONREAD, &unread) < 0 || unread <= 0)
			return 0;
		if (poll(&p, 1, 0) > 0 && (p.revents & POLLERR))
			return 1;
		/* Still reading: look again in a millisecond. */
		poll(NULL, 0, 1);
	}
}

static int child_finish(struct sink *s)
{
	struct child_sink *c = (struct child_sink *)s;
	int unread;

	if (c->failed || c->in < 0)
		return ga_error_set("finish of a finished '%s' filter",
				    c->display);
	unread = child_left_unread(c);
	child_close_in(c);
	child_reap(c);
	c->failed = 1;	/* nothing more to do with it */
	return child_outcome(c, unread);
}

static void child_free(struct sink *s)
{
	struct child_sink *c = (struct child_sink *)s;

	if (!c)
		return;
	/*
	 * Still running means the archive was cut short: kill the filter
	 * before closing its input so that it cannot end a truncated
	 * stream with a valid-looking trailer.
	 */
	if (c->pid > 0)
		kill(c->pid, SIGKILL);
	child_close_in(c);
	child_reap(c);
	free(c->display);
	free(c);
}

static struct child_sink *child_new(char *display, int builtin_gzip)
{
	struct child_sink *c = ga_xcalloc(1, sizeof(*c));

	c->base.write = child_write;
	c->base.finish = child_finish;
	c->base.free = child_free;
	c->display = display;
	c->pid = -1;
	c->in = -1;
	c->builtin_gzip = builtin_gzip;
	return c;
}

/* git's prepare_shell_cmd(): a command with none of these is exec'd. */
static int needs_shell(const char *cmd)
{
	return cmd[strcspn(cmd, "|&;<>()$`\\\"' \t\n*?[#~=%")] != '\0';
}

/*
 * The built-in `gzip -cn`: execve after our own PATH lookup, no shell.
 * When gzip cannot be started, fall back to the in-process deflater
 * with a warning (*started stays 0 and the caller does so).
 */
static int open_gzip(struct sink **out, int level, int fd)
{
	char levelarg[16];
	char *argv[4] = { "gzip", "-cn", NULL, NULL };
	struct spawn_plan plan = { 0 };
	struct child_sink *c;
	struct sink *next = NULL;
	char *display, *path;
	int err;

	if (level >= 0) {
		snprintf(levelarg, sizeof(levelarg), "-%d", level);
		argv[2] = levelarg;
		display = ga_xstrfmt("gzip -cn %s", levelarg);
	} else {
		display = ga_xstrdup("gzip -cn");
	}

	path = locate_in_path("gzip");
	if (!path) {
		err = ENOENT;
	} else {
		/*
		 * No shell, not even for a gzip that is a script without
		 * "#!": that fails (ENOEXEC) and falls back like a missing
		 * one.
		 */
		plan.path = path;
		plan.argv = argv;
		plan.out_fd = fd;
		plan.max_fd = max_fd_hint();
		c = child_new(display, 1);
		err = spawn(&c->pid, &c->in, &plan);
		free(path);
		if (!err) {
			*out = &c->base;
			return 0;
		}
		c->display = NULL;
		child_free(&c->base);
	}

	ga_warning("unable to start '%s' filter, "
		   "falling back to 'git archive gzip': %s",
		   display, strerror(err));
	free(display);
	filter_open_fd(&next, fd);
	return filter_open_zlib(out, level, next, 1);
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
	struct spawn_plan plan = { 0 };
	struct child_sink *c;
	char *display, *path = NULL;
	char *argv[5] = { NULL, NULL, NULL, NULL, NULL };
	char *sh_argv[3] = { FILTER_SHELL, NULL, NULL };
	int err = 0, error = 0;

	if (level >= 0)
		display = ga_xstrfmt("%s -%d", command, level);
	else
		display = ga_xstrdup(command);
	c = child_new(display, 0);

	plan.out_fd = fd;
	plan.max_fd = max_fd_hint();
	if (needs_shell(display)) {
		/* $0 is the command too, so the shell's messages name it. */
		argv[0] = FILTER_SHELL;
		argv[1] = "-c";
		argv[2] = display;
		argv[3] = display;
		plan.path = FILTER_SHELL;
		plan.argv = argv;
	} else {
		if (strchr(display, '/'))
			path = ga_xstrdup(display);
		else if (!(path = locate_in_path(display)))
			err = ENOENT;
		argv[0] = path;
		sh_argv[1] = path;
		plan.path = path;
		plan.argv = argv;
		plan.sh_argv = sh_argv;
	}
	if (!err)
		err = spawn(&c->pid, &c->in, &plan);
	if (err) {
		/*
		 * git reports a failed execve() other than ENOENT with a
		 * fatal-looking line of its own before its die(); the
		 * error slot holds one message, so it carries both lines.
		 */
		if (err != ENOENT && !needs_shell(display))
			error = ga_error_set("cannot exec '%s': %s\n"
					     "fatal: unable to start '%s' "
					     "filter: %s", display,
					     strerror(err), display,
					     strerror(err));
		else
			error = ga_error_set("unable to start '%s' filter: %s",
					     display, strerror(err));
		child_free(&c->base);
	} else {
		*out = &c->base;
	}
	free(path);
	return error;
}

/*
 * garchive's own gzip in process: for garchive.gzip = builtin, or for a
 * tar.<format>.command that names `garchive gzip`, whose options (and the
 * level appended to them, as to any command) it takes as the child would.
 */
static int open_engine(struct sink **out, const struct filter_spec *spec,
		       int level, int fd)
{
	struct gzip_options o = { -1, -1, 0 };
	struct sink *next = NULL;
	char *display = NULL;
	int error = 0;

	if (spec->command) {
		if (level >= 0)
			display = ga_xstrfmt("%s -%d", spec->command, level);
		else
			display = ga_xstrdup(spec->command);
		error = gzip_command_match(&o, display);
		if (error <= 0) {
			if (error < 0)
				ga_report(GA_REPORT_PLAIN, "garchive gzip: %s",
					  ga_error_message());
			error = ga_error_set("'%s' filter reported error",
					     display);
		} else {
			error = 0;
		}
		free(display);
		if (error < 0)
			return error;
	} else if (level >= 0) {
		o.level = level;
	}
	if (o.threads < 0)
		o.threads = spec->threads;
	filter_open_fd(&next, fd);
	return gzip_sink_open(out, &o, next);
}

int filter_open(struct sink **out, const struct filter_spec *spec,
		int level, int fd)
{
	struct sink *next = NULL;

	*out = NULL;
	switch (spec->kind) {
	case FILTER_NONE:
		return filter_open_fd(out, fd);
	case FILTER_GZIP:
		return open_gzip(out, level, fd);
	case FILTER_ZLIB:
		filter_open_fd(&next, fd);
		return filter_open_zlib(out, level, next, 1);
	case FILTER_COMMAND:
		if (!spec->command)
			GA_BUG("FILTER_COMMAND without a command");
		return open_command(out, spec->command, level, fd);
	case FILTER_ENGINE:
		return open_engine(out, spec, level, fd);
	}
	GA_BUG("unknown filter kind");
}

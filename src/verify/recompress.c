/*
 * recompress.c: candidate compressors compared with a file as it is
 * read (see recompress.h).
 */
#include "recompress.h"
#include "run-command.h"
#include "garchive/common.h"
#include "garchive/sink.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Output of a candidate past what has been read of the file. */
#define RC_AHEAD_MAX	((size_t)4 << 20)
/* File bytes kept for a candidate that lags behind. */
#define RC_WINDOW_MAX	((size_t)64 << 20)
#define RC_READ_CHUNK	(64 * 1024)
/* Input queued for a command candidate before the reader waits. */
#define RC_QUEUE_MAX	((size_t)4 << 20)

struct recompress;

/* The sink a zlib candidate writes into: it compares. */
struct compare_sink {
	struct sink base;
	struct cand *cand;
};

struct cand {
	struct recompress_candidate spec;
	struct recompress *rc;
	uint64_t pos;		/* output bytes compared so far */
	struct ga_buf ahead;	/* output not yet comparable */
	int dead;
	int matched;
	char *why;

	struct sink *zlib;	/* RECOMPRESS_ZLIB */
	struct compare_sink cmp;

	struct child child;	/* RECOMPRESS_COMMAND */
	const char *argv[2];
	int running;
	struct ga_buf queue;	/* input not yet written to it */
	size_t queued;		/* bytes of it written */
};

struct recompress {
	struct cand *cands;
	size_t nr;
	/* The file's bytes from offset win_start on. */
	struct ga_buf win;
	uint64_t win_start;
	unsigned char *chunk;
};

static void kill_cand(struct cand *c, char *why)
{
	int code, signo;

	if (c->dead) {
		free(why);
		return;
	}
	c->dead = 1;
	c->why = why;
	ga_buf_release(&c->ahead);
	ga_buf_release(&c->queue);
	if (c->running) {
		/* It reads end of file, or dies of SIGPIPE writing. */
		child_close(&c->child.in);
		child_close(&c->child.out);
		child_finish(&c->child, &code, &signo);
		c->running = 0;
	}
}

static uint64_t win_end(const struct recompress *rc)
{
	return rc->win_start + rc->win.len;
}

/* Compare as much of `p` as the file has; keep the rest ahead. */
static void compare(struct cand *c, const unsigned char *p, size_t len)
{
	struct recompress *rc = c->rc;
	const unsigned char *w;
	size_t avail, n, i;

	if (c->dead)
		return;
	if (c->ahead.len) {
		if (c->ahead.len + len > RC_AHEAD_MAX) {
			kill_cand(c, ga_xstrdup("runs ahead of the file"));
			return;
		}
		ga_buf_put(&c->ahead, p, len);
		return;
	}
	avail = (size_t)(win_end(rc) - c->pos);
	n = len < avail ? len : avail;
	w = (const unsigned char *)rc->win.ptr + (c->pos - rc->win_start);
	if (memcmp(w, p, n)) {
		for (i = 0; w[i] == p[i]; i++)
			;
		kill_cand(c, ga_xstrfmt("differs from byte %" PRIu64 " on",
					c->pos + i));
		return;
	}
	c->pos += n;
	if (n < len) {
		if (len - n > RC_AHEAD_MAX) {
			kill_cand(c, ga_xstrdup("runs ahead of the file"));
			return;
		}
		ga_buf_put(&c->ahead, p + n, len - n);
	}
}

/* New file bytes arrived: compare what was waiting for them. */
static void catch_up(struct cand *c)
{
	struct ga_buf pending = GA_BUF_INIT;

	if (c->dead || !c->ahead.len)
		return;
	pending = c->ahead;
	memset(&c->ahead, 0, sizeof(c->ahead));
	compare(c, (const unsigned char *)pending.ptr, pending.len);
	ga_buf_release(&pending);
}

static int cmp_write(struct sink *s, const void *buf, size_t len)
{
	compare(((struct compare_sink *)s)->cand, buf, len);
	return 0;
}

static int cmp_finish(struct sink *s)
{
	(void)s;
	return 0;
}

/* Embedded in its candidate: the zlib sink "frees" it, nothing more. */
static void cmp_free(struct sink *s)
{
	(void)s;
}

static void start_cand(struct recompress *rc, struct cand *c)
{
	struct child init = CHILD_INIT;

	c->rc = rc;
	if (c->spec.kind == RECOMPRESS_ZLIB) {
		c->cmp.base.write = cmp_write;
		c->cmp.base.finish = cmp_finish;
		c->cmp.base.free = cmp_free;
		c->cmp.cand = c;
		/*
		 * Unthreaded: compare() runs on this thread.  The sink
		 * feeds zlib as git does, so level 0 comes out right too.
		 */
		if (sink_open_zlib(&c->zlib, c->spec.level, &c->cmp.base,
				     0) < 0)
			kill_cand(c, ga_xstrdup(ga_error_message()));
		return;
	}
	c->child = init;
	if (c->spec.kind == RECOMPRESS_PROGRAM) {
		c->child.argv = c->spec.argv;
	} else {
		c->argv[0] = c->spec.command;
		c->argv[1] = NULL;
		c->child.argv = c->argv;
		c->child.use_shell = 1;
	}
	c->child.pipe_in = 1;
	c->child.pipe_out = 1;
	if (child_start(&c->child) < 0) {
		kill_cand(c, ga_xstrfmt("could not be run: %s",
					ga_error_message()));
		return;
	}
	c->running = 1;
	child_nonblocking(&c->child);
}

void recompress_new(struct recompress **out,
		    const struct recompress_candidate *cands, size_t nr)
{
	struct recompress *rc = ga_xcalloc(1, sizeof(*rc));
	size_t i;

	rc->cands = ga_xcalloc(nr ? nr : 1, sizeof(*rc->cands));
	rc->nr = nr;
	rc->chunk = ga_xmalloc(RC_READ_CHUNK);
	for (i = 0; i < nr; i++) {
		rc->cands[i].spec = cands[i];
		start_cand(rc, &rc->cands[i]);
	}
	*out = rc;
}

void recompress_free(struct recompress *rc)
{
	size_t i;

	if (!rc)
		return;
	for (i = 0; i < rc->nr; i++) {
		struct cand *c = &rc->cands[i];

		kill_cand(c, NULL);
		if (c->zlib)
			c->zlib->free(c->zlib);
		free(c->why);
		ga_buf_release(&c->ahead);
		ga_buf_release(&c->queue);
	}
	free(rc->cands);
	free(rc->chunk);
	ga_buf_release(&rc->win);
	free(rc);
}

int recompress_alive(const struct recompress *rc)
{
	size_t i;

	for (i = 0; rc && i < rc->nr; i++)
		if (!rc->cands[i].dead)
			return 1;
	return 0;
}

/* Drop file bytes no live candidate needs any more. */
static void trim_window(struct recompress *rc)
{
	uint64_t low = win_end(rc);
	size_t i, drop;

	for (i = 0; i < rc->nr; i++)
		if (!rc->cands[i].dead && rc->cands[i].pos < low)
			low = rc->cands[i].pos;
	drop = (size_t)(low - rc->win_start);
	/* Move the bytes only when it is worth it. */
	if (drop < rc->win.len / 2 && drop < ((size_t)1 << 20))
		return;
	memmove(rc->win.ptr, rc->win.ptr + drop, rc->win.len - drop);
	ga_buf_setlen(&rc->win, rc->win.len - drop);
	rc->win_start += drop;
}

/* A candidate far behind would make the window grow: drop it. */
static void drop_laggards(struct recompress *rc)
{
	size_t i;

	for (i = 0; i < rc->nr; i++) {
		struct cand *c = &rc->cands[i];

		if (!c->dead && win_end(rc) - c->pos > RC_WINDOW_MAX)
			kill_cand(c, ga_xstrdup("lags too far behind the "
						"file"));
	}
}

void recompress_file_bytes(struct recompress *rc, const unsigned char *data,
			   size_t len)
{
	size_t i;

	if (!recompress_alive(rc))
		return;
	ga_buf_put(&rc->win, data, len);
	for (i = 0; i < rc->nr; i++)
		catch_up(&rc->cands[i]);
	drop_laggards(rc);
	trim_window(rc);
}

/* Hand the candidate whatever its stdout has now.  1 at its end. */
static int drain_output(struct cand *c)
{
	struct recompress *rc = c->rc;

	for (;;) {
		ssize_t n = read(c->child.out, rc->chunk, RC_READ_CHUNK);

		if (n > 0) {
			compare(c, rc->chunk, (size_t)n);
			if (c->dead)
				return 1;
			continue;
		}
		if (n == 0)
			return 1;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN)
			return 0;
		kill_cand(c, ga_xstrfmt("could not be read: %s",
					strerror(errno)));
		return 1;
	}
}

/*
 * Move bytes to and from a command candidate: write what its pipe takes
 * of the queued input, hand it what its output has.  With `wait`, block
 * until one of them can move; otherwise never block.
 */
static int pump_command(struct cand *c, int wait)
{
	while (!c->dead) {
		struct pollfd pfd[2] = {
			{ c->child.out, POLLIN, 0 },
			{ c->child.in, POLLOUT, 0 },
		};
		nfds_t n = c->queue.len - c->queued && c->child.in >= 0 ? 2 : 1;
		ssize_t w;
		int ready = poll(pfd, n, wait ? -1 : 0);

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			return ga_error_errno(errno, "poll");
		if (!ready)
			return 0;
		if (pfd[0].revents && drain_output(c)) {
			if (!c->dead)
				kill_cand(c, ga_xstrdup("ended early"));
			return 0;
		}
		if (n < 2 || !pfd[1].revents)
			return 0;
		w = write(c->child.in, c->queue.ptr + c->queued,
			  c->queue.len - c->queued);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w < 0) {
			kill_cand(c, ga_xstrdup("stopped reading its input"));
			return 0;
		}
		c->queued += (size_t)w;
		if (c->queued == c->queue.len) {
			ga_buf_setlen(&c->queue, 0);
			c->queued = 0;
		}
		return 0;
	}
	return 0;
}

/*
 * Queue input for a command candidate and move what can be moved at
 * once, so that reading the file goes on while the candidate
 * compresses on another CPU; wait only when it falls RC_QUEUE_MAX
 * behind.
 */
static int feed_command(struct cand *c, const unsigned char *p, size_t len)
{
	int error;

	if (c->queued && c->queued == c->queue.len) {
		ga_buf_setlen(&c->queue, 0);
		c->queued = 0;
	}
	if (c->queued > RC_QUEUE_MAX / 2) {
		memmove(c->queue.ptr, c->queue.ptr + c->queued,
			c->queue.len - c->queued);
		ga_buf_setlen(&c->queue, c->queue.len - c->queued);
		c->queued = 0;
	}
	ga_buf_put(&c->queue, p, len);
	if ((error = pump_command(c, 0)) < 0)
		return error;
	while (!c->dead && c->queue.len - c->queued > RC_QUEUE_MAX)
		if ((error = pump_command(c, 1)) < 0)
			return error;
	return 0;
}

/* Close its input and compare everything it still writes. */
static int finish_command(struct cand *c)
{
	int code = 0, signo = 0, error;

	while (!c->dead && c->queue.len - c->queued)
		if ((error = pump_command(c, 1)) < 0)
			return error;
	child_close(&c->child.in);
	while (!c->dead) {
		struct pollfd pfd = { c->child.out, POLLIN, 0 };

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return ga_error_errno(errno, "poll");
		}
		if (drain_output(c))
			break;
	}
	if (c->dead)
		return 0;
	c->running = 0;
	if ((error = child_finish(&c->child, &code, &signo)) < 0)
		return error;
	if (code)
		kill_cand(c, ga_xstrfmt("failed (exit status %d)", code));
	return 0;
}

/*
 * Hand every live candidate `len` bytes of `data` or, with `end`, the end
 * of its input.  A zlib candidate that fails drops out with its message,
 * as a command that fails does; an error of our own in feeding a command
 * stops the run.
 */
static int pass_on(struct recompress *rc, const unsigned char *data,
		   size_t len, int end)
{
	size_t i;
	int error;

	for (i = 0; rc && i < rc->nr; i++) {
		struct cand *c = &rc->cands[i];

		if (c->dead)
			continue;
		if (c->zlib) {
			if ((end ? c->zlib->finish(c->zlib) :
			     c->zlib->write(c->zlib, data, len)) < 0)
				kill_cand(c, ga_xstrdup(ga_error_message()));
		} else if ((error = end ? finish_command(c) :
			    feed_command(c, data, len)) < 0) {
			return error;
		}
	}
	return 0;
}

int recompress_feed(struct recompress *rc, const unsigned char *data,
		    size_t len)
{
	int error = pass_on(rc, data, len, 0);

	if (!error && rc)
		trim_window(rc);
	return error;
}

void recompress_stop(struct recompress *rc, const char *why)
{
	size_t i;

	for (i = 0; rc && i < rc->nr; i++)
		kill_cand(&rc->cands[i], ga_xstrdup(why));
}

int recompress_finish(struct recompress *rc, uint64_t file_len)
{
	size_t i;
	int error;

	if ((error = pass_on(rc, NULL, 0, 1)) < 0)
		return error;
	for (i = 0; rc && i < rc->nr; i++) {
		struct cand *c = &rc->cands[i];

		if (c->dead)
			continue;
		if (c->ahead.len || c->pos > file_len)
			kill_cand(c, ga_xstrfmt("writes more than the file's %"
						PRIu64 " bytes", file_len));
		else if (c->pos < file_len)
			kill_cand(c, ga_xstrfmt("ends at byte %" PRIu64
						" of %" PRIu64, c->pos,
						file_len));
		else
			c->matched = 1;
	}
	return 0;
}

int recompress_winner(const struct recompress *rc)
{
	size_t i;

	for (i = 0; rc && i < rc->nr; i++)
		if (rc->cands[i].matched)
			return (int)i;
	return -1;
}

int recompress_matched(const struct recompress *rc, size_t i)
{
	return rc && i < rc->nr && rc->cands[i].matched;
}

const char *recompress_why(const struct recompress *rc, size_t i)
{
	if (!rc || i >= rc->nr || !rc->cands[i].why)
		return "";
	return rc->cands[i].why;
}

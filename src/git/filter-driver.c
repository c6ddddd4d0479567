/*
 * filter-driver.c: filter.<driver>.smudge and filter.<driver>.process as
 * git 2.39.5 runs them: apply_single_file_filter() and
 * apply_multi_file_filter() of git's convert.c, the long-running
 * process handling of sub-process.c (start, handshake, status lists,
 * stop) and the run-command rules they rely on:
 *
 * - a command with no shell metacharacter is looked up in PATH and
 *   exec'd directly, anything else runs as `/bin/sh -c CMD CMD`;
 * - a smudge command gets the blob on stdin and answers on stdout; we
 *   feed and drain it with poll(), so neither side blocks on a full pipe;
 * - a process filter speaks the long-running filter protocol version 2
 *   over pkt-lines, sequentially as git does (the protocol makes the
 *   filter read a whole blob before it answers).
 *
 * The children are started by run-command.c, with git's rules.
 */
#include "filter-driver.h"

#include "garchive/common.h"
#include "pktline.h"
#include "run-command.h"
#include "quote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAP_CLEAN	(1u << 0)
#define CAP_SMUDGE	(1u << 1)
#define CAP_DELAY	(1u << 2)

/* A running long-running filter, found by its command as in git. */
struct subprocess {
	struct subprocess *next;
	char *cmd;
	struct child child;
	const char *argv[2];	/* the child's: { cmd, NULL } */
	unsigned int caps;
};

/*
 * Start `cmd` as git's start_command() starts a filter: through the
 * shell when it needs one, stdin and stdout piped, stderr shared, in the
 * work tree.  `argv` holds the command for as long as the child runs.
 * Returns 0, or -1 after git's line for a command that cannot run
 * (callers add their own, as git does).
 */
static int start_filter(struct child *c, const char *argv[2],
			const char *cmd, const char *workdir)
{
	struct child init = CHILD_INIT;

	*c = init;
	argv[0] = cmd;
	argv[1] = NULL;
	c->argv = argv;
	c->use_shell = 1;
	c->dir = workdir;
	c->pipe_in = c->pipe_out = 1;
	if (child_start(c) < 0) {
		ga_report(GA_REPORT_PLAIN, "%s%s", child_failure_prefix(c),
			  ga_error_message());
		ga_error_clear();
		return -1;
	}
	return 0;
}

/*
 * git's finish_command(): the exit code, or 128 + the signal number
 * with its "died of signal" line.
 */
static int finish_filter(struct child *c)
{
	int code, signo;
	char *msg;

	if (child_finish(c, &code, &signo) < 0) {
		ga_report(GA_REPORT_ERROR, "%s", ga_error_message());
		ga_error_clear();
		return -1;
	}
	if ((msg = child_death_message(c->argv[0], signo)))
		ga_report(GA_REPORT_ERROR, "%s", msg);
	free(msg);
	return code;
}

/*
 * filter.<driver>.smudge
 */

/* strbuf_expand with only %f: "%%" is '%', unknown "%x" stays. */
static char *expand_command(const char *cmd, const char *path)
{
	struct ga_buf out = GA_BUF_INIT;
	const char *pct;

	for (;;) {
		pct = strchrnul(cmd, '%');
		ga_buf_put(&out, cmd, (size_t)(pct - cmd));
		if (!*pct)
			break;
		cmd = pct + 1;
		if (*cmd == '%') {
			ga_buf_putc(&out, '%');
			cmd++;
		} else if (*cmd == 'f') {
			ga_sq_quote(&out, path);
			cmd++;
		} else {
			ga_buf_putc(&out, '%');
		}
	}
	return ga_buf_detach(&out, NULL);
}

/*
 * Feed `src` to the child and collect its output at the same time, so a
 * filter that writes before it has read everything never blocks us.
 * EPIPE is not an error (the filter may not want all of its input), as
 * in git.
 */
static void pump(struct child *c, const unsigned char *src, size_t len,
		 struct ga_buf *dst, int *write_err, int *read_err)
{
	struct pollfd pfd[2];
	size_t off = 0;
	ssize_t n;
	int nfds;

	if (fcntl(c->in, F_SETFL, fcntl(c->in, F_GETFL) | O_NONBLOCK) < 0)
		*write_err = 1;
	while (c->in >= 0 || c->out >= 0) {
		if (c->in >= 0 && (off == len || *write_err)) {
			if (close(c->in) < 0)
				*write_err = 1;
			c->in = -1;
			continue;
		}
		nfds = 0;
		if (c->in >= 0) {
			pfd[nfds].fd = c->in;
			pfd[nfds].events = POLLOUT;
			nfds++;
		}
		if (c->out >= 0) {
			pfd[nfds].fd = c->out;
			pfd[nfds].events = POLLIN;
			nfds++;
		}
		if (poll(pfd, (nfds_t)nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			*write_err = *read_err = 1;
			child_close(&c->in);
			child_close(&c->out);
			break;
		}
		if (c->in >= 0 && pfd[0].revents) {
			size_t chunk = len - off > 65536 ? 65536 : len - off;

			n = write(c->in, src + off, chunk);
			if (n > 0) {
				off += (size_t)n;
			} else if (n < 0 && errno == EPIPE) {
				off = len;
			} else if (n < 0 && errno != EAGAIN &&
				   errno != EINTR) {
				*write_err = 1;
			}
		}
		if (c->out >= 0 && pfd[nfds - 1].revents) {
			ga_buf_grow(dst, 65536);
			n = read(c->out, dst->ptr + dst->len, 65536);
			if (n > 0) {
				dst->len += (size_t)n;
				dst->ptr[dst->len] = '\0';
			} else if (n == 0) {
				child_close(&c->out);
			} else if (errno != EAGAIN && errno != EINTR) {
				*read_err = 1;
				child_close(&c->out);
			}
		}
	}
}

int filter_run_smudge(struct filter_runner *r, struct ga_buf *dst,
		      const char *path, const unsigned char *src, size_t len,
		      const char *cmd)
{
	struct child c;
	const char *argv[2];
	struct ga_buf out = GA_BUF_INIT;
	char *expanded = expand_command(cmd, path);
	int write_err = 0, read_err = 0, status, ok = 0;

	if (start_filter(&c, argv, expanded, r->workdir) < 0) {
		ga_report(GA_REPORT_ERROR,
			  "cannot fork to run external filter '%s'", cmd);
		ga_report(GA_REPORT_ERROR, "external filter '%s' failed", cmd);
		goto done;
	}
	pump(&c, src, len, &out, &write_err, &read_err);
	if (write_err)
		ga_report(GA_REPORT_ERROR,
			  "cannot feed the input to external filter '%s'", cmd);
	status = finish_filter(&c);
	if (status)
		ga_report(GA_REPORT_ERROR, "external filter '%s' failed %d",
			  cmd, status);
	if (read_err)
		ga_report(GA_REPORT_ERROR,
			  "read from external filter '%s' failed", cmd);
	if (write_err || status)
		ga_report(GA_REPORT_ERROR, "external filter '%s' failed", cmd);
	if (!write_err && !status && !read_err) {
		ga_buf_setlen(dst, 0);
		ga_buf_put(dst, out.ptr ? out.ptr : "", out.len);
		ok = 1;
	}
done:
	ga_buf_release(&out);
	free(expanded);
	return ok;
}

/*
 * subprocess_read_status: the last "status=" of a list wins.  A flush,
 * an empty packet or the end of input (*eof) ends the list.
 */
static int read_status(int fd, struct ga_buf *status, int *eof)
{
	char *buf = ga_xmalloc(PKT_MAX);
	size_t len;
	int ret;

	*eof = 0;
	for (;;) {
		ret = pkt_read(fd, buf, PKT_MAX, &len,
			       PKT_CHOMP_NEWLINE | PKT_GENTLE_ON_EOF);
		if (ret < 0)
			break;
		if (ret == PKT_EOF)
			*eof = 1;
		if (!len)
			break;
		if (!strncmp(buf, "status=", 7)) {
			ga_buf_setlen(status, 0);
			ga_buf_puts(status, buf + 7);
		}
	}
	free(buf);
	return ret < 0 ? ret : 0;
}

/*
 * filter.<driver>.process
 */

static void subprocess_free(struct subprocess *sp)
{
	int code;

	if (!sp)
		return;
	/* As git's exit handler: closing the pipes asks it to stop. */
	if (child_finish(&sp->child, &code, NULL) < 0)
		ga_error_clear();
	free(sp->cmd);
	free(sp);
}

/* subprocess_stop_command: SIGTERM, then wait as git does. */
static void subprocess_stop(struct subprocess *sp)
{
	if (sp->child.pid > 0)
		kill(sp->child.pid, SIGTERM);
	finish_filter(&sp->child);
}

static void subprocess_unlink(struct filter_runner *r, struct subprocess *sp)
{
	struct subprocess **pp;

	for (pp = &r->procs; *pp; pp = &(*pp)->next) {
		if (*pp == sp) {
			*pp = sp->next;
			break;
		}
	}
}

/* git's handshake_version; -1 after git's error line. */
static int handshake_version(struct subprocess *sp, char *buf, int *fatal)
{
	char *line = NULL, *end;
	const char *p;
	long version;
	int in = sp->child.in, out = sp->child.out;

	/* Our lines are far shorter than a packet: no fatal error here. */
	if (pkt_write_fmt_gently(in, "git-filter-client\n")) {
		ga_report(GA_REPORT_ERROR,
			  "Could not write client identification");
		return -1;
	}
	if (pkt_write_fmt_gently(in, "version=2\n")) {
		ga_report(GA_REPORT_ERROR, "Could not write requested version");
		return -1;
	}
	if (pkt_flush_gently(in)) {
		ga_report(GA_REPORT_ERROR, "Could not write flush packet");
		return -1;
	}
	if ((*fatal = pkt_read_line(out, buf, PKT_MAX, &line)) < 0)
		return -1;
	if (!line || strcmp(line, "git-filter-server")) {
		ga_report(GA_REPORT_ERROR,
			  "Unexpected line '%s', expected git-filter-server",
			  line ? line : "<flush packet>");
		return -1;
	}
	if ((*fatal = pkt_read_line(out, buf, PKT_MAX, &line)) < 0)
		return -1;
	p = line && !strncmp(line, "version=", 8) ? line + 8 : NULL;
	errno = 0;
	version = p ? strtol(p, &end, 10) : 0;
	if (!p || errno || *end || end == p || version != (int)version) {
		ga_report(GA_REPORT_ERROR,
			  "Unexpected line '%s', expected version",
			  line ? line : "<flush packet>");
		return -1;
	}
	if ((*fatal = pkt_read_line(out, buf, PKT_MAX, &line)) < 0)
		return -1;
	if (line) {
		ga_report(GA_REPORT_ERROR,
			  "Unexpected line '%s', expected flush", line);
		return -1;
	}
	if (version != 2) {
		ga_report(GA_REPORT_ERROR, "Version %d not supported",
			  (int)version);
		return -1;
	}
	return 0;
}

/* git's handshake_capabilities: git asks for all three it knows. */
static int handshake_capabilities(struct subprocess *sp, char *buf,
				  int *fatal)
{
	static const struct {
		const char *name;
		unsigned int flag;
	} caps[] = {
		{ "clean", CAP_CLEAN },
		{ "smudge", CAP_SMUDGE },
		{ "delay", CAP_DELAY },
	};
	char *line = NULL;
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(caps); i++) {
		if (pkt_write_fmt_gently(sp->child.in, "capability=%s\n",
					 caps[i].name)) {
			ga_report(GA_REPORT_ERROR,
				  "Could not write requested capability");
			return -1;
		}
	}
	if (pkt_flush_gently(sp->child.in)) {
		ga_report(GA_REPORT_ERROR, "Could not write flush packet");
		return -1;
	}
	for (;;) {
		if ((*fatal = pkt_read_line(sp->child.out, buf, PKT_MAX,
					    &line)) < 0)
			return -1;
		if (!line)
			break;
		if (strncmp(line, "capability=", 11))
			continue;
		for (i = 0; i < GA_ARRAY_SIZE(caps); i++)
			if (!strcmp(line + 11, caps[i].name))
				break;
		if (i == GA_ARRAY_SIZE(caps)) {
			*fatal = ga_error_set("subprocess '%s' requested unsupported capability '%s'",
					      sp->cmd, line + 11);
			return -1;
		}
		sp->caps |= caps[i].flag;
	}
	return 0;
}

/*
 * git's subprocess_start: NULL (after git's messages) when the process
 * cannot run or its handshake fails; git then tries again for the next
 * blob.  A fatal protocol error is returned in *fatal.
 */
static struct subprocess *subprocess_start(struct filter_runner *r,
					   const char *cmd, int *fatal)
{
	struct subprocess *sp = ga_xcalloc(1, sizeof(*sp));
	char *buf = ga_xmalloc(PKT_MAX);
	int failed;

	*fatal = 0;
	sp->cmd = ga_xstrdup(cmd);
	if (start_filter(&sp->child, sp->argv, sp->cmd, r->workdir) < 0) {
		ga_report(GA_REPORT_ERROR, "cannot fork to run subprocess '%s'",
			  cmd);
		goto fail;
	}
	failed = handshake_version(sp, buf, fatal) < 0 ||
		 handshake_capabilities(sp, buf, fatal) < 0;
	if (*fatal < 0)
		goto fail;
	if (failed) {
		ga_report(GA_REPORT_ERROR,
			  "initialization for subprocess '%s' failed", cmd);
		subprocess_stop(sp);
		goto fail;
	}
	free(buf);
	sp->next = r->procs;
	r->procs = sp;
	return sp;
fail:
	free(buf);
	subprocess_free(sp);
	return NULL;
}

/*
 * Write one smudge request: metadata, then the content.  Returns 0, 1
 * after git's "error:" line for a write that failed, or GA_ERROR for a
 * line too long for a packet, which git dies of.
 */
static int send_request(struct filter_runner *r, struct subprocess *sp,
			const char *path, const char *oid_hex,
			const unsigned char *src, size_t len)
{
	const struct convert_meta *meta = r->meta;
	int in = sp->child.in, error;

	if ((error = pkt_write_fmt_gently(in, "command=smudge\n")))
		return error;
	if (strlen(path) > PKT_DATA_MAX - strlen("pathname=\n")) {
		ga_report(GA_REPORT_ERROR,
			  "path name too long for external filter");
		return 1;
	}
	if ((error = pkt_write_fmt_gently(in, "pathname=%s\n", path)))
		return error;
	if (meta && meta->ref &&
	    (error = pkt_write_fmt_gently(in, "ref=%s\n", meta->ref)))
		return error;
	if (meta && meta->treeish &&
	    (error = pkt_write_fmt_gently(in, "treeish=%s\n",
					  meta->treeish)))
		return error;
	if (oid_hex &&
	    (error = pkt_write_fmt_gently(in, "blob=%s\n", oid_hex)))
		return error;
	if ((error = pkt_flush_gently(in)) ||
	    (error = pkt_write_data_gently(in, src, len)))
		return error;
	return pkt_flush_gently(in);
}

int filter_run_process(struct filter_runner *r, struct ga_buf *dst,
		       const char *path, const char *oid_hex,
		       const unsigned char *src, size_t len, const char *cmd)
{
	struct subprocess *sp;
	struct ga_buf status = GA_BUF_INIT, out = GA_BUF_INIT;
	int fatal = 0, eof = 0, err;

	for (sp = r->procs; sp; sp = sp->next)
		if (!strcmp(sp->cmd, cmd))
			break;
	if (!sp) {
		sp = subprocess_start(r, cmd, &fatal);
		if (!sp)
			return fatal < 0 ? fatal : 0;
	}
	if (!(sp->caps & CAP_SMUDGE))
		return 0;

	err = send_request(r, sp, path, oid_hex, src, len);
	if (err < 0) {
		fatal = err;
		goto done;
	}
	if (!err) {
		if ((fatal = read_status(sp->child.out, &status, &eof)) < 0)
			goto done;
		err = eof || !status.ptr || strcmp(status.ptr, "success");
	}
	if (!err) {
		fatal = pkt_read_packetized(sp->child.out, &out,
					    PKT_GENTLE_ON_EOF);
		if (fatal < 0)
			goto done;
		err = fatal == PKT_EOF;
	}
	if (!err) {
		/* The status is not reset: an empty list keeps "success". */
		if ((fatal = read_status(sp->child.out, &status, &eof)) < 0)
			goto done;
		err = eof || strcmp(status.ptr, "success");
	}

	if (!err) {
		ga_buf_setlen(dst, 0);
		ga_buf_put(dst, out.ptr ? out.ptr : "", out.len);
	} else if (status.ptr && !strcmp(status.ptr, "error")) {
		;	/* the filter failed on this blob only */
	} else if (status.ptr && !strcmp(status.ptr, "abort")) {
		/* A permanent failure: git stops asking it to smudge. */
		sp->caps &= ~CAP_SMUDGE;
	} else {
		/* Protocol trouble: stop it, restart it for the next blob. */
		ga_report(GA_REPORT_ERROR, "external filter '%s' failed", cmd);
		subprocess_unlink(r, sp);
		subprocess_stop(sp);
		subprocess_free(sp);
	}
done:
	ga_buf_release(&status);
	ga_buf_release(&out);
	if (fatal < 0)
		return fatal;
	return !err;
}

void filter_runner_release(struct filter_runner *r)
{
	struct subprocess *sp;

	/*
	 * git's exit handler for a process filter closes its pipes, which
	 * asks it to shut down, and waits with finish_command(): a death
	 * by signal gets its "error:" line.
	 */
	while ((sp = r->procs)) {
		r->procs = sp->next;
		finish_filter(&sp->child);
		subprocess_free(sp);
	}
}

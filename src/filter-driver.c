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
 * The "fatal:" line git prints for a command that cannot be exec'd (and
 * then carries on) is written by the forked child itself, see
 * child_fail().
 */
#include "filter-driver.h"

#include "convert.h"
#include "garchive/common.h"
#include "pktline.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define CAP_CLEAN	(1u << 0)
#define CAP_SMUDGE	(1u << 1)
#define CAP_DELAY	(1u << 2)

#define SHELL_PATH "/bin/sh"
/* run-command's prepare_shell_cmd: these make git go through the shell. */
#define SHELL_METACHARS "|&;<>()$`\\\"' \t\n*?[#~=%"

struct child {
	pid_t pid;
	int in;			/* the child's stdin (we write), or -1 */
	int out;		/* the child's stdout (we read), or -1 */
};

/* A running long-running filter, found by its command as in git. */
struct subprocess {
	struct subprocess *next;
	char *cmd;
	struct child child;
	unsigned int caps;
};

/*
 * Child processes, as git's run-command starts them
 */

/* Pipes whose ends are not 0, 1 or 2, so dup2 in the child is simple. */
static int pipe_cloexec(int fds[2])
{
	int i;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	for (i = 0; i < 2; i++) {
		if (fds[i] <= 2) {
			int fd = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);

			if (fd < 0) {
				close(fds[0]);
				close(fds[1]);
				return -1;
			}
			close(fds[i]);
			fds[i] = fd;
		}
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* git's is_executable: a regular file with the owner's x bit. */
static int is_executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) &&
	       (st.st_mode & S_IXUSR);
}

/*
 * git's locate_in_PATH.  git runs filters from its own cwd, the work
 * tree; ours may differ, so relative PATH entries are checked against
 * `workdir` (the child chdirs there before exec).
 */
static char *locate_in_path(const char *file, const char *workdir)
{
	const char *p = getenv("PATH"), *end;
	struct ga_buf cand = GA_BUF_INIT, probe = GA_BUF_INIT;

	if (!p || !*p)
		return NULL;
	for (;;) {
		end = strchrnul(p, ':');
		ga_buf_setlen(&cand, 0);
		if (end != p) {
			ga_buf_put(&cand, p, (size_t)(end - p));
			ga_buf_putc(&cand, '/');
		}
		ga_buf_puts(&cand, file);
		ga_buf_setlen(&probe, 0);
		if (workdir && cand.ptr[0] != '/') {
			ga_buf_puts(&probe, workdir);
			ga_buf_putc(&probe, '/');
		}
		ga_buf_puts(&probe, cand.ptr);
		if (is_executable(probe.ptr)) {
			ga_buf_release(&probe);
			return ga_buf_detach(&cand, NULL);
		}
		if (!*end)
			break;
		p = end + 1;
	}
	ga_buf_release(&cand);
	ga_buf_release(&probe);
	return NULL;
}

/* In the child: only async-signal-safe calls from here on. */
static void child_write(const char *s)
{
	size_t len = strlen(s);
	ssize_t n;

	while (len) {
		n = write(2, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/*
 * git's child_err_spew prints "fatal: ..." lines for a child that could
 * not exec.  The child writes them itself, to the same stderr, before
 * telling the parent; strerrordesc_np() is a plain table lookup, safe
 * after fork.
 */
static void __attribute__((noreturn))
child_fail(int notify, const char *msg, int err)
{
	const char *desc = strerrordesc_np(err);
	ssize_t n;

	child_write(msg);
	child_write(desc ? desc : "Unknown error");
	child_write("\n");
	do {
		n = write(notify, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	_exit(1);
}

/*
 * Start `cmd` the way git's start_command does with use_shell: stdin and
 * stdout are pipes, stderr is shared, cwd is `workdir`.  Returns 0, or -1
 * after git's messages for a command that cannot run (callers add their
 * own line, as git does).
 */
static int child_start(struct child *c, const char *cmd, const char *workdir)
{
	struct sigaction sa;
	sigset_t none;
	char *prog = NULL, *msg_run = NULL, *msg_exec = NULL, *msg_cd = NULL;
	const char *argv[5], *sh_argv[3];
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, notify[2] = { -1, -1 };
	int shell, err;
	ssize_t n;
	pid_t pid;

	c->pid = -1;
	c->in = c->out = -1;

	shell = cmd[strcspn(cmd, SHELL_METACHARS)] != '\0';
	if (shell) {
		argv[0] = SHELL_PATH;
		argv[1] = "-c";
		argv[2] = cmd;
		argv[3] = cmd;
		argv[4] = NULL;
	} else {
		if (!strchr(cmd, '/')) {
			prog = locate_in_path(cmd, workdir);
			if (!prog) {
				ga_report(GA_REPORT_ERROR, "cannot run %s: %s",
					  cmd, strerror(ENOENT));
				return -1;
			}
		}
		argv[0] = prog ? prog : cmd;
		argv[1] = NULL;
		/* A script without #! is run by the shell, as execvp does. */
		sh_argv[0] = SHELL_PATH;
		sh_argv[1] = argv[0];
		sh_argv[2] = NULL;
	}

	if (pipe_cloexec(in) < 0 || pipe_cloexec(out) < 0 ||
	    pipe_cloexec(notify) < 0) {
		ga_report(GA_REPORT_ERROR, "cannot create pipe for %s: %s", cmd,
			  strerror(errno));
		goto fail;
	}
	/* Messages are formatted before fork: the child may not malloc. */
	msg_run = ga_xstrfmt("fatal: cannot run %s: ", cmd);
	msg_exec = ga_xstrfmt("fatal: cannot exec '%s': ", cmd);
	msg_cd = ga_xstrfmt("fatal: exec '%s': cd to '%s' failed: ", cmd,
			    workdir ? workdir : "");

	pid = fork();
	if (pid < 0) {
		ga_report(GA_REPORT_ERROR, "cannot fork() for %s: %s", cmd,
			  strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGPIPE, &sa, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			child_fail(notify[1], "fatal: dup2() in child failed: ",
				   errno);
		if (workdir && chdir(workdir) < 0)
			child_fail(notify[1], msg_cd, errno);
		execve(argv[0], (char *const *)argv, environ);
		if (errno == ENOEXEC && !shell)
			execve(SHELL_PATH, (char *const *)sh_argv, environ);
		err = errno;
		child_fail(notify[1], err == ENOENT ? msg_run : msg_exec, err);
	}

	close_fd(&in[0]);
	close_fd(&out[1]);
	close_fd(&notify[1]);
	/* EOF on the notify pipe means exec succeeded. */
	do {
		n = read(notify[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close_fd(&notify[0]);
	if (n > 0) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		goto fail;
	}
	c->pid = pid;
	c->in = in[1];
	c->out = out[0];
	free(prog);
	free(msg_run);
	free(msg_exec);
	free(msg_cd);
	return 0;

fail:
	close_fd(&in[0]);
	close_fd(&in[1]);
	close_fd(&out[0]);
	close_fd(&out[1]);
	close_fd(&notify[0]);
	close_fd(&notify[1]);
	free(prog);
	free(msg_run);
	free(msg_exec);
	free(msg_cd);
	return -1;
}

/*
 * git's wait_or_whine: the exit code, or 128 + signal number with a
 * "died of signal" line except for the signals a user sends on purpose
 * and SIGPIPE.
 */
static int child_wait(struct child *c, const char *argv0)
{
	int status, code = -1, sig;

	close_fd(&c->in);
	close_fd(&c->out);
	if (c->pid < 0)
		return -1;
	while (waitpid(c->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ga_report(GA_REPORT_ERROR, "waitpid for %s failed: %s",
				  argv0, strerror(errno));
			c->pid = -1;
			return -1;
		}
	}
	c->pid = -1;
	if (WIFSIGNALED(status)) {
		sig = WTERMSIG(status);
		if (sig != SIGINT && sig != SIGQUIT && sig != SIGPIPE)
			ga_report(GA_REPORT_ERROR, "%s died of signal %d",
				  argv0, sig);
		code = sig + 128;
	} else if (WIFEXITED(status)) {
		code = WEXITSTATUS(status);
	} else {
		ga_report(GA_REPORT_ERROR, "waitpid is confused (%s)", argv0);
	}
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
			close_fd(&c->in);
			close_fd(&c->out);
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
				close_fd(&c->out);
			} else if (errno != EAGAIN && errno != EINTR) {
				*read_err = 1;
				close_fd(&c->out);
			}
		}
	}
}

int filter_run_smudge(struct filter_runner *r, struct ga_buf *dst,
		      const char *path, const unsigned char *src, size_t len,
		      const char *cmd)
{
	struct child c;
	struct ga_buf out = GA_BUF_INIT;
	char *expanded = expand_command(cmd, path);
	int write_err = 0, read_err = 0, status, ok = 0;

	if (child_start(&c, expanded, r->workdir) < 0) {
		ga_report(GA_REPORT_ERROR,
			  "cannot fork to run external filter '%s'", cmd);
		ga_report(GA_REPORT_ERROR, "external filter '%s' failed", cmd);
		goto done;
	}
	pump(&c, src, len, &out, &write_err, &read_err);
	if (write_err)
		ga_report(GA_REPORT_ERROR,
			  "cannot feed the input to external filter '%s'", cmd);
	status = child_wait(&c, expanded);
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
	if (!sp)
		return;
	/* As git's exit handler: closing the pipes asks it to stop. */
	close_fd(&sp->child.in);
	close_fd(&sp->child.out);
	while (sp->child.pid > 0 && waitpid(sp->child.pid, NULL, 0) < 0 &&
	       errno == EINTR)
		;
	free(sp->cmd);
	free(sp);
}

/* subprocess_stop_command: SIGTERM, then wait as git does. */
static void subprocess_stop(struct subprocess *sp)
{
	if (sp->child.pid > 0)
		kill(sp->child.pid, SIGTERM);
	child_wait(&sp->child, sp->cmd);
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
	if (child_start(&sp->child, cmd, r->workdir) < 0) {
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
		child_wait(&sp->child, sp->cmd);
		subprocess_free(sp);
	}
}

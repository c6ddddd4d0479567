/*
 * run-command.c: child processes, started as git's run-command.c starts
 * them (see run-command.h for the rules).
 */
#include "run-command.h"
#include "garchive/common.h"

#include <errno.h>
#include <fcntl.h>
#include <paths.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The shell git runs command lines with (its SHELL_PATH). */
#define SHELL_PATH "/bin/sh"

/* What the child reports through the pipe when it cannot exec. */
enum child_err {
	CHILD_ERR_CHDIR = 1,
	CHILD_ERR_DUP2,
	CHILD_ERR_SIGPROCMASK,
	CHILD_ERR_ENOENT,
	CHILD_ERR_EXEC
};

struct child_report {
	int err;		/* enum child_err */
	int syserr;		/* errno */
};

/* Everything the child needs, prepared before fork: it may not malloc. */
struct plan {
	const char *path;	/* the program to execve */
	char **argv;
	char **sh_argv;		/* the ENOEXEC retry, or NULL */
	char **envp;
	int fd[3];		/* the child's 0, 1 and 2, or -1: inherit */
	int max_fd;		/* how far close_fds goes without close_range */
	/* Owned by the plan. */
	char *prog;		/* PATH lookup's answer */
	char *shell_cmd;	/* "CMD \"$@\"" */
};

void child_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void set_nonblocking(int fd)
{
	int flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;

	if (flags >= 0)
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

void child_nonblocking(struct child *c)
{
	set_nonblocking(c->in);
	set_nonblocking(c->out);
	set_nonblocking(c->err);
}

int child_needs_shell(const char *cmd)
{
	return cmd[strcspn(cmd, "|&;<>()$`\\\"' \t\n*?[#~=%")] != '\0';
}

static size_t count(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* git's is_executable(): a regular file with the owner's x bit. */
static int is_executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) &&
	       (st.st_mode & S_IXUSR);
}

/*
 * git's locate_in_PATH(): an empty element is the current directory, an
 * empty PATH finds nothing.  git runs with PATH set (to the default
 * search path when it was unset), so an unset PATH means that.  git
 * looks from its own cwd, where its child runs; ours runs in `dir`, so
 * a relative entry is checked from there.
 */
static char *locate_in_path(const char *file, const char *dir)
{
	const char *p = getenv("PATH"), *end;
	struct ga_buf cand = GA_BUF_INIT, probe = GA_BUF_INIT;

	if (!p)
		p = _PATH_DEFPATH;
	if (!*p)
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
		if (dir && cand.ptr[0] != '/') {
			ga_buf_puts(&probe, dir);
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

/*
 * git's prepare_cmd() and prepare_shell_cmd(): the argv executed is
 * "sh -c 'CMD \"$@\"' CMD ARGS..." (without the "$@" when there are no
 * ARGS) for a command line that needs the shell, else argv itself; its
 * program, when it has no '/', is replaced by its place in PATH.  The
 * ENOEXEC retry runs "sh PROGRAM ARGS...".  Returns 0, or -1 (errno
 * ENOENT) when PATH has no such program.
 */
static int plan_argv(struct plan *p, const struct child *c)
{
	size_t n = count(c->argv), i, j = 0;
	char **v = ga_xcalloc(n + 4, sizeof(*v));

	if (c->use_shell && child_needs_shell(c->argv[0])) {
		v[j++] = SHELL_PATH;
		v[j++] = "-c";
		if (n == 1) {
			v[j++] = (char *)c->argv[0];
		} else {
			p->shell_cmd = ga_xstrfmt("%s \"$@\"", c->argv[0]);
			v[j++] = p->shell_cmd;
		}
	}
	for (i = 0; i < n; i++)
		v[j++] = (char *)c->argv[i];
	v[j] = NULL;
	p->argv = v;

	if (!strchr(v[0], '/')) {
		p->prog = locate_in_path(v[0], c->dir);
		if (!p->prog) {
			errno = ENOENT;
			return -1;
		}
		v[0] = p->prog;
	}
	p->path = v[0];
	if (!c->no_shell_retry) {
		p->sh_argv = ga_xcalloc(j + 2, sizeof(*p->sh_argv));
		p->sh_argv[0] = SHELL_PATH;
		memcpy(p->sh_argv + 1, v, j * sizeof(*v));
	}
	return 0;
}

static int env_matches(const char *entry, const char *name, size_t len)
{
	return !strncmp(entry, name, len) && entry[len] == '=';
}

/* environ with c->env applied, as git's prep_childenv(). */
static char **build_env(const struct child *c)
{
	size_t n = count((const char *const *)environ);
	size_t m = count(c->env), i, j, k;
	char **v = ga_xcalloc(n + m + 1, sizeof(*v));

	for (i = 0; i < n; i++)
		v[i] = environ[i];
	for (k = 0; k < m; k++) {
		const char *e = c->env[k];
		const char *eq = strchr(e, '=');
		size_t len = eq ? (size_t)(eq - e) : strlen(e);

		for (i = j = 0; i < n; i++)
			if (!env_matches(v[i], e, len))
				v[j++] = v[i];
		n = j;
		if (eq)
			v[n++] = (char *)e;
		v[n] = NULL;
	}
	v[n] = NULL;
	return v;
}

static void plan_release(struct plan *p)
{
	free(p->argv);
	free(p->sh_argv);
	free(p->envp);
	free(p->prog);
	free(p->shell_cmd);
}

/*
 * A close-on-exec descriptor above 2 in place of `fd`, so that the
 * child's dup2() onto 0, 1 and 2 can never overwrite one still needed.
 */
static int above_stdio(int fd)
{
	int moved;

	if (fd < 0 || fd > 2)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return moved;
}

static int pipe_above_stdio(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	fds[0] = above_stdio(fds[0]);
	fds[1] = above_stdio(fds[1]);
	if (fds[0] >= 0 && fds[1] >= 0)
		return 0;
	child_close(&fds[0]);
	child_close(&fds[1]);
	return -1;
}

static int max_fd_hint(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > 65536)
		return 65536;
	return (int)rl.rlim_cur;
}

/* In the child, from here to exec: async-signal-safe calls only. */

__attribute__((noreturn))
static void child_die(int report, enum child_err err)
{
	struct child_report r;
	ssize_t n;

	r.err = err;
	r.syserr = errno;
	do {
		n = write(report, &r, sizeof(r));
	} while (n < 0 && errno == EINTR);
	_exit(127);
}

/*
 * Handlers do not survive execve, but one could run before it; ignored
 * signals would survive.  garchive ignores SIGPIPE, and a program must
 * die of it when its reader goes away; other ignored signals (nohup)
 * are inherited, as git leaves them.
 */
static void reset_signals(void)
{
	struct sigaction dfl, old;
	int sig;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	for (sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (sigaction(sig, NULL, &old))
			continue;
		if (old.sa_handler != SIG_IGN || sig == SIGPIPE)
			sigaction(sig, &dfl, NULL);
	}
}

/* Only 0, 1 and 2 survive exec: close-on-exec for the rest. */
static void cloexec_from_3(int max_fd)
{
	int fd;

	if (!close_range(3, ~0U, CLOSE_RANGE_CLOEXEC))
		return;
	for (fd = 3; fd < max_fd; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
}

__attribute__((noreturn))
static void run_child(const struct child *c, const struct plan *p,
		      int report)
{
	sigset_t none;
	int fd[3], i;

	for (i = 0; i < 3; i++) {
		fd[i] = p->fd[i];
		if (fd[i] >= 0 && fd[i] <= 2 &&
		    (fd[i] = fcntl(fd[i], F_DUPFD_CLOEXEC, 3)) < 0)
			child_die(report, CHILD_ERR_DUP2);
	}
	/* dup2() clears close-on-exec on 0, 1 and 2. */
	for (i = 0; i < 3; i++)
		if (fd[i] >= 0 && dup2(fd[i], i) < 0)
			child_die(report, CHILD_ERR_DUP2);
	if (c->close_fds)
		cloexec_from_3(p->max_fd);
	if (c->dir && chdir(c->dir) < 0)
		child_die(report, CHILD_ERR_CHDIR);
	reset_signals();
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL))
		child_die(report, CHILD_ERR_SIGPROCMASK);

	execve(p->path, p->argv, p->envp);
	if (errno == ENOEXEC && p->sh_argv)
		execve(SHELL_PATH, p->sh_argv, p->envp);
	child_die(report, errno == ENOENT ? CHILD_ERR_ENOENT : CHILD_ERR_EXEC);
}

/* git's child_err_spew() words, into the error slot. */
static int report_child_error(struct child *c, const struct child_report *r)
{
	const char *name = c->argv[0];

	c->failure = CHILD_FAILED_IN_CHILD;
	c->failed_errno = r->syserr;
	switch (r->err) {
	case CHILD_ERR_CHDIR:
		return ga_error_errno(r->syserr, "exec '%s': cd to '%s' "
				      "failed", name, c->dir);
	case CHILD_ERR_DUP2:
		return ga_error_errno(r->syserr, "dup2() in child failed");
	case CHILD_ERR_SIGPROCMASK:
		return ga_error_errno(r->syserr, "sigprocmask failed "
				      "restoring signals");
	case CHILD_ERR_ENOENT:
		return ga_error_errno(r->syserr, "cannot run %s", name);
	default:
		return ga_error_errno(r->syserr, "cannot exec '%s'", name);
	}
}

/* A failure found in the parent: returns `err` for the message. */
static int failed_here(struct child *c, int err)
{
	c->failure = CHILD_FAILED_HERE;
	c->failed_errno = err;
	return err;
}

/* The pipes and /dev/null the child's 0, 1 and 2 come from. */
static int plan_stdio(struct plan *p, struct child *c, int pipes[3][2],
		      int *null_fd)
{
	static const char *const names[3] = {
		"standard input", "standard output", "standard error"
	};
	const unsigned want_pipe[3] = { c->pipe_in, c->pipe_out, c->pipe_err };
	const unsigned want_null[3] = { c->null_in, c->null_out, c->null_err };
	int i;

	for (i = 0; i < 3; i++) {
		if (want_pipe[i] && pipe_above_stdio(pipes[i]) < 0)
			return ga_error_errno(failed_here(c, errno),
					      "cannot create %s pipe for %s",
					      names[i], c->argv[0]);
		if (want_pipe[i])
			p->fd[i] = pipes[i][i == 0 ? 0 : 1];
		if (!want_null[i] || want_pipe[i])
			continue;
		if (*null_fd < 0 &&
		    (*null_fd = above_stdio(open("/dev/null",
						 O_RDWR | O_CLOEXEC))) < 0)
			return ga_error_errno(failed_here(c, errno),
					      "cannot open /dev/null for %s",
					      c->argv[0]);
		p->fd[i] = *null_fd;
	}
	if (c->out_fd >= 0 && !c->pipe_out && !c->null_out)
		p->fd[1] = c->out_fd;
	return 0;
}

/* Fork, then learn from the report pipe whether the exec happened. */
static int fork_and_exec(struct child *c, const struct plan *p)
{
	struct child_report r;
	int report[2] = { -1, -1 };
	sigset_t all, old;
	ssize_t n;
	pid_t pid;
	int err;

	if (pipe_above_stdio(report) < 0)
		return ga_error_errno(failed_here(c, errno),
				      "cannot create pipe for %s", c->argv[0]);
	/* No handler of ours may run in the child before exec. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		run_child(c, p, report[1]);
	err = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	child_close(&report[1]);
	if (pid < 0) {
		child_close(&report[0]);
		return ga_error_errno(failed_here(c, err),
				      "cannot fork() for %s", c->argv[0]);
	}

	/* End of file: the exec succeeded and closed the pipe. */
	do {
		n = read(report[0], &r, sizeof(r));
	} while (n < 0 && errno == EINTR);
	child_close(&report[0]);
	if (n != (ssize_t)sizeof(r)) {
		c->pid = pid;
		return 0;
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return report_child_error(c, &r);
}

int child_start(struct child *c)
{
	struct plan p = { .fd = { -1, -1, -1 } };
	int pipes[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	int null_fd = -1, error, i;

	c->pid = 0;
	c->in = c->out = c->err = -1;
	c->failure = CHILD_STARTED;
	c->failed_errno = 0;

	if (plan_argv(&p, c) < 0) {
		error = ga_error_errno(failed_here(c, ENOENT),
				       "cannot run %s", c->argv[0]);
		goto done;
	}
	p.envp = c->env ? build_env(c) : environ;
	p.max_fd = c->close_fds ? max_fd_hint() : 0;
	if ((error = plan_stdio(&p, c, pipes, &null_fd)) < 0)
		goto done;
	error = fork_and_exec(c, &p);

done:
	/* The child's ends, and the parent's too when it did not start. */
	child_close(&pipes[0][0]);
	child_close(&pipes[1][1]);
	child_close(&pipes[2][1]);
	child_close(&null_fd);
	if (error < 0) {
		for (i = 0; i < 3; i++) {
			child_close(&pipes[i][0]);
			child_close(&pipes[i][1]);
		}
	} else {
		c->in = pipes[0][1];
		c->out = pipes[1][0];
		c->err = pipes[2][0];
	}
	if (p.envp == environ)
		p.envp = NULL;
	plan_release(&p);
	errno = c->failed_errno;
	return error;
}

const char *child_failure_prefix(const struct child *c)
{
	return c->failure == CHILD_FAILED_IN_CHILD ? "fatal: " : "error: ";
}

int child_finish(struct child *c, int *code, int *signo)
{
	int status;
	pid_t pid;

	child_close(&c->in);
	child_close(&c->out);
	child_close(&c->err);
	*code = 0;
	if (signo)
		*signo = 0;
	if (!c->pid)
		return 0;
	do {
		pid = waitpid(c->pid, &status, 0);
	} while (pid < 0 && errno == EINTR);
	c->pid = 0;
	if (pid < 0)
		return ga_error_errno(errno, "waitpid for %s failed",
				      c->argv[0]);
	if (WIFSIGNALED(status)) {
		*code = 128 + WTERMSIG(status);
		if (signo)
			*signo = WTERMSIG(status);
	} else if (WIFEXITED(status)) {
		*code = WEXITSTATUS(status);
	} else {
		*code = 255;
	}
	return 0;
}

char *child_death_message(const char *name, int signo)
{
	if (!signo || signo == SIGINT || signo == SIGQUIT || signo == SIGPIPE)
		return NULL;
	return ga_xstrfmt("%s died of signal %d", name, signo);
}

int child_exec_instead(const char *const *argv)
{
	int err;

	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], (char *const *)argv);
	err = errno;
	signal(SIGPIPE, SIG_IGN);
	errno = err;
	return -1;
}

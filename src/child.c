/*
 * child.c: subprocesses started as git's run-command starts them.
 */
#include "child.h"
#include "garchive/common.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* What the child reports through the exec-failure pipe. */
enum child_failure { FAIL_EXEC = 1, FAIL_CHDIR, FAIL_DUP };

struct failure_report {
	int kind;
	int err;
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

/*
 * git runs a command through the shell only when its first word needs
 * one; a plain program name is executed directly.
 */
static int needs_shell(const char *cmd)
{
	return strcspn(cmd, "|&;<>()$`\\\"' \t\n*?[#~=%") != strlen(cmd);
}

static size_t count(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* The argv actually executed: "sh -c 'cmd "$@"' cmd args..." or argv. */
static char **build_argv(const struct child *c, char **shell_cmd)
{
	size_t n = count(c->argv), i, j = 0;
	char **v = ga_xcalloc(n + 4, sizeof(*v));

	*shell_cmd = NULL;
	if (c->use_shell && needs_shell(c->argv[0])) {
		v[j++] = "/bin/sh";
		v[j++] = "-c";
		if (n == 1) {
			v[j++] = (char *)c->argv[0];
		} else {
			*shell_cmd = ga_xstrfmt("%s \"$@\"", c->argv[0]);
			v[j++] = *shell_cmd;
		}
	}
	for (i = 0; i < n; i++)
		v[j++] = (char *)c->argv[i];
	v[j] = NULL;
	return v;
}

static int env_matches(const char *entry, const char *name, size_t len)
{
	return !strncmp(entry, name, len) && entry[len] == '=';
}

/* environ with c->env applied, built before fork. */
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

static void report_and_exit(int fd, int kind)
{
	struct failure_report r;
	ssize_t unused;

	r.kind = kind;
	r.err = errno;
	unused = write(fd, &r, sizeof(r));
	(void)unused;
	_exit(kind == FAIL_EXEC && r.err == ENOENT ? 127 : 128);
}

static int dup_or_null(int fd, int target, int use_null, int report_fd)
{
	if (fd < 0 && use_null) {
		fd = open("/dev/null", O_RDWR);
		if (fd < 0)
			report_and_exit(report_fd, FAIL_DUP);
	}
	if (fd >= 0 && fd == target) {
		/* Pipes are close-on-exec; keep this one. */
		if (fcntl(fd, F_SETFD, 0) < 0)
			report_and_exit(report_fd, FAIL_DUP);
	} else if (fd >= 0) {
		if (dup2(fd, target) < 0)
			report_and_exit(report_fd, FAIL_DUP);
		close(fd);
	}
	return 0;
}

static void close_pair(int p[2])
{
	child_close(&p[0]);
	child_close(&p[1]);
}

int child_start(struct child *c)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	int report[2] = { -1, -1 };
	char *shell_cmd = NULL;
	char **argv = NULL, **envp = NULL;
	struct failure_report r;
	ssize_t n;
	int error = 0, err = 0;

	c->pid = 0;
	c->in = c->out = c->err = -1;
	/*
	 * Every pipe is close-on-exec so that no other child inherits our
	 * ends; dup2() clears the flag on the child's 0, 1 and 2.
	 */
	if ((c->pipe_in && pipe2(pin, O_CLOEXEC) < 0) ||
	    (c->pipe_out && pipe2(pout, O_CLOEXEC) < 0) ||
	    (c->pipe_err && pipe2(perr, O_CLOEXEC) < 0) ||
	    pipe2(report, O_CLOEXEC) < 0) {
		err = errno;
		error = ga_error_errno(err, "cannot create pipe for %s",
				       c->argv[0]);
		goto fail;
	}
	argv = build_argv(c, &shell_cmd);
	envp = build_env(c);

	c->pid = fork();
	if (c->pid < 0) {
		err = errno;
		c->pid = 0;
		error = ga_error_errno(err, "cannot fork() for %s",
				       c->argv[0]);
		goto fail;
	}
	if (!c->pid) {
		close(report[0]);
		/* Our SIGPIPE is ignored; an exec'd program must not be. */
		signal(SIGPIPE, SIG_DFL);
		if (pin[1] >= 0)
			close(pin[1]);
		if (pout[0] >= 0)
			close(pout[0]);
		if (perr[0] >= 0)
			close(perr[0]);
		dup_or_null(pin[0], 0, c->null_in, report[1]);
		dup_or_null(pout[1], 1, c->null_out, report[1]);
		dup_or_null(perr[1], 2, c->null_err, report[1]);
		if (c->dir && chdir(c->dir) < 0)
			report_and_exit(report[1], FAIL_CHDIR);
		execvpe(argv[0], argv, envp);
		report_and_exit(report[1], FAIL_EXEC);
	}

	child_close(&report[1]);
	child_close(&pin[0]);
	child_close(&pout[1]);
	child_close(&perr[1]);
	do {
		n = read(report[0], &r, sizeof(r));
	} while (n < 0 && errno == EINTR);
	child_close(&report[0]);
	if (n == (ssize_t)sizeof(r)) {
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		c->pid = 0;
		err = r.err;
		if (r.kind == FAIL_CHDIR)
			error = ga_error_errno(err, "exec '%s': cd to '%s' "
					       "failed", c->argv[0], c->dir);
		else
			error = ga_error_errno(err, "cannot run %s",
					       c->argv[0]);
		goto fail;
	}
	c->in = pin[1];
	c->out = pout[0];
	c->err = perr[0];
	free(argv);
	free(envp);
	free(shell_cmd);
	return 0;

fail:
	close_pair(pin);
	close_pair(pout);
	close_pair(perr);
	close_pair(report);
	free(argv);
	free(envp);
	free(shell_cmd);
	errno = err;
	return error;
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

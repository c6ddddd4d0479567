/*
 * run-command.c unit test: the one module that starts child processes.
 * Each rule of run-command.h, with the words git's start_command()
 * uses for each way a child cannot start: argv or shell, PATH lookup
 * (relative entries from the child's directory, an unset PATH), the
 * ENOEXEC retry, environment edits, working directory, pipes, /dev/null
 * and a given stdout, only 0-2 kept, the signal state a program gets,
 * exit statuses and deaths by signal.
 */
#include "tap.h"

#include "garchive/common.h"
#include "run-command.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[] = "/tmp/garchive-run-command-XXXXXX";

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd < 0 || ga_write_all(fd, text, strlen(text)) < 0 || close(fd))
		abort();
	if (chmod(path, mode))
		abort();
}

/*
 * Run `c` with its stdout piped; the output goes in *out.  Returns the
 * exit code, or -1 when it did not start (the message stays).
 */
static int run(struct child *c, struct ga_buf *out)
{
	int code = -1;

	ga_buf_setlen(out, 0);
	c->pipe_out = 1;
	if (child_start(c) < 0)
		return -1;
	if (ga_buf_read_fd(out, c->out) < 0)
		abort();
	if (child_finish(c, &code, NULL) < 0)
		abort();
	return code;
}

/* The output of `argv` (through the shell rule when use_shell). */
static void check_output(const char *const *argv, int use_shell,
			 const char *want, const char *name)
{
	struct child c = CHILD_INIT;
	struct ga_buf out = GA_BUF_INIT;
	int code;

	c.argv = argv;
	c.use_shell = use_shell;
	code = run(&c, &out);
	ok(code == 0, "%s: exit 0 (%d)", name, code);
	is_str(ga_buf_str(&out, 0), want, name);
	ga_buf_release(&out);
	ga_error_clear();
}

/* A child that cannot start: git's message, where it failed, errno. */
static void check_failure(struct child *c, enum child_failure where,
			  int err, const char *want, const char *name)
{
	struct ga_buf out = GA_BUF_INIT;
	int code = run(c, &out);
	char *prefix_name = ga_xstrfmt("%s: git's prefix", name);

	ok(code == -1, "%s: not started", name);
	ok(c->failure == where, "%s: failed %s", name,
	   where == CHILD_FAILED_HERE ? "here" : "in the child");
	ok(c->failed_errno == err && errno == err, "%s: errno %d (%d)", name,
	   err, c->failed_errno);
	is_str(ga_error_message(), want, name);
	is_str(child_failure_prefix(c),
	       where == CHILD_FAILED_HERE ? "error: " : "fatal: ",
	       prefix_name);
	ok(c->pid == 0 && c->in < 0 && c->out < 0 && c->err < 0,
	   "%s: nothing left running or open", name);
	free(prefix_name);
	ga_buf_release(&out);
	ga_error_clear();
}

static void test_shell_rule(void)
{
	static const char *const direct[] = { "printf", "%s|", "a b", NULL };
	static const char *const line[] = { "printf '%s,'", "x", "y z",
					    NULL };
	static const char *const alone[] = { "echo $0", NULL };

	ok(!child_needs_shell("gzip"), "a plain name needs no shell");
	ok(!child_needs_shell("/usr/bin/gzip"), "nor a path");
	ok(child_needs_shell("gzip -9"), "a space needs one");
	ok(child_needs_shell("a=b"), "'=' needs one");
	ok(child_needs_shell("x%"), "a percent sign needs one");
	ok(child_needs_shell("~/bin/x"), "'~' needs one");

	check_output(direct, 0, "a b|", "argv is exec'd as is");
	check_output(direct, 1, "a b|", "a plain name with use_shell too");
	/* sh -c 'printf '\''%s,'\'' "$@"' "printf '%s,'" x "y z" */
	check_output(line, 1, "x,y z,", "a command line gets the arguments");
	/* sh -c 'echo $0' 'echo $0': $0 is the command itself, as git. */
	check_output(alone, 1, "echo $0\n", "alone, it is its own $0");
}

static void test_environment_and_dir(void)
{
	static const char *const show[] = {
		"echo \"${GA_RC_SET-unset} ${GA_RC_GONE-unset} $PWD\"", NULL
	};
	static const char *const env[] = { "GA_RC_SET=one", "GA_RC_GONE",
					   "GA_RC_SET=two", NULL };
	struct child c = CHILD_INIT;
	struct ga_buf out = GA_BUF_INIT;
	char *want;

	setenv("GA_RC_GONE", "here", 1);
	c.argv = show;
	c.use_shell = 1;
	c.env = env;
	c.dir = tmp;
	ok(run(&c, &out) == 0, "environment and directory: exit 0");
	want = ga_xstrfmt("two unset %s\n", tmp);
	is_str(ga_buf_str(&out, 0), want, "edits apply in order, cwd is dir");
	ok(!strcmp(getenv("GA_RC_GONE"), "here"), "ours is untouched");
	free(want);
	ga_buf_release(&out);
}

static void test_failures(void)
{
	static const char *const missing[] = { "garchive-no-such-program",
					       NULL };
	static const char *const nopath[] = { "/nonexistent/program", NULL };
	static const char *const tru[] = { "true", NULL };
	const char *noexec[] = { NULL, NULL };
	struct child c = CHILD_INIT;
	char *path = ga_path_join(tmp, "noexec"), *want;

	c.argv = missing;
	check_failure(&c, CHILD_FAILED_HERE, ENOENT,
		      "cannot run garchive-no-such-program: No such file or "
		      "directory", "not in PATH");

	c.argv = nopath;
	check_failure(&c, CHILD_FAILED_IN_CHILD, ENOENT,
		      "cannot run /nonexistent/program: No such file or "
		      "directory", "no such path");

	write_file(path, "echo hi\n", 0644);
	noexec[0] = path;
	c.argv = noexec;
	want = ga_xstrfmt("cannot exec '%s': Permission denied", path);
	check_failure(&c, CHILD_FAILED_IN_CHILD, EACCES, want,
		      "not executable");
	free(want);

	c.argv = tru;
	c.dir = "/nonexistent";
	check_failure(&c, CHILD_FAILED_IN_CHILD, ENOENT,
		      "exec 'true': cd to '/nonexistent' failed: No such "
		      "file or directory", "no such directory");
	free(path);
}

static void test_path_and_enoexec(void)
{
	static const char *const script[] = { "garchive-rc-script", "arg",
					      NULL };
	static const char *const tru[] = { "true", NULL };
	char *bin = ga_path_join(tmp, "bin");
	char *path = ga_path_join(bin, "garchive-rc-script");
	char *old = ga_xstrdup(getenv("PATH") ? getenv("PATH") : "");
	char *want;
	struct child c = CHILD_INIT;
	struct ga_buf out = GA_BUF_INIT;

	if (mkdir(bin, 0755))
		abort();
	/* No "#!": execve says ENOEXEC, and the shell runs it. */
	write_file(path, "echo \"script $0 $1\"\n", 0755);

	/* A relative PATH entry counts from where the child runs. */
	setenv("PATH", "bin", 1);
	c.argv = script;
	c.dir = tmp;
	ok(run(&c, &out) == 0, "relative PATH from dir: exit 0");
	is_str(ga_buf_str(&out, 0), "script bin/garchive-rc-script arg\n",
	       "found in dir/bin, run by the shell after ENOEXEC");

	c.no_shell_retry = 1;
	want = ga_xstrfmt("cannot exec '%s': Exec format error", script[0]);
	check_failure(&c, CHILD_FAILED_IN_CHILD, ENOEXEC, want,
		      "no_shell_retry: ENOEXEC is a failure");
	free(want);

	c = (struct child)CHILD_INIT;
	c.argv = script;
	check_failure(&c, CHILD_FAILED_HERE, ENOENT,
		      "cannot run garchive-rc-script: No such file or "
		      "directory", "relative PATH from our cwd otherwise");

	/* git runs with the default search path when PATH was unset. */
	unsetenv("PATH");
	c = (struct child)CHILD_INIT;
	c.argv = tru;
	ok(run(&c, &out) == 0, "unset PATH: the default search path");
	setenv("PATH", "", 1);
	check_failure(&c, CHILD_FAILED_HERE, ENOENT,
		      "cannot run true: No such file or directory",
		      "empty PATH: nothing");
	setenv("PATH", old, 1);

	free(old);
	free(bin);
	free(path);
	ga_buf_release(&out);
}

/* One "SigXxx:" mask of /proc/<pid>/status text. */
static uint64_t sigmask_of(const char *status, const char *field)
{
	const char *p = strstr(status, field);

	return p ? strtoull(p + strlen(field), NULL, 16) : ~(uint64_t)0;
}

static uint64_t bit(int sig)
{
	return (uint64_t)1 << (sig - 1);
}

static void ignore(int sig)
{
	(void)sig;
}

static void test_signals(void)
{
	static const char *const cat[] = { "cat", "/proc/self/status", NULL };
	struct child c = CHILD_INIT;
	struct ga_buf out = GA_BUF_INIT;
	sigset_t block, old;
	uint64_t ign, blk;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, ignore);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);

	c.argv = cat;
	ok(run(&c, &out) == 0, "signals: exit 0");
	ign = sigmask_of(ga_buf_str(&out, 0), "SigIgn:");
	blk = sigmask_of(ga_buf_str(&out, 0), "SigBlk:");
	ok(!(ign & bit(SIGPIPE)), "SIGPIPE is back to its default");
	ok(ign & bit(SIGUSR1), "another ignored signal stays ignored");
	ok(!(ign & bit(SIGUSR2)), "a caught one is default");
	ok(blk == 0, "no signal blocked (%llx)", (unsigned long long)blk);

	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	ga_buf_release(&out);
}

static void test_descriptors(void)
{
	static const char *const echo[] = { "echo", "to the file", NULL };
	static const char *const ls[] = { "ls", "/proc/self/fd", NULL };
	static const char *const err[] = { "cat >&2", NULL };
	static const char *const cat[] = { "cat", NULL };
	char *path = ga_path_join(tmp, "out");
	struct child c = CHILD_INIT;
	struct ga_buf out = GA_BUF_INIT;
	int fd, code;

	/* A given stdout, as the archive's output for a compressor. */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	c.argv = echo;
	c.out_fd = fd;
	ok(child_start(&c) == 0 && child_finish(&c, &code, NULL) == 0 &&
	   code == 0, "out_fd: exit 0");
	close(fd);
	ga_buf_read_file(&out, path);
	is_str(ga_buf_str(&out, 0), "to the file\n", "out_fd is its stdout");

	/* A descriptor without close-on-exec is inherited... */
	if (dup2(2, 47) != 47)
		abort();
	c = (struct child)CHILD_INIT;
	c.argv = ls;
	ok(run(&c, &out) == 0 && strstr(ga_buf_str(&out, 0), "\n47\n"),
	   "an inherited descriptor, as git leaves it");
	/* ...unless only 0, 1 and 2 are wanted. */
	c = (struct child)CHILD_INIT;
	c.argv = ls;
	c.close_fds = 1;
	ok(run(&c, &out) == 0 && !strstr(ga_buf_str(&out, 0), "\n47\n"),
	   "close_fds: not with close_fds");
	close(47);

	/* stdin from /dev/null, stderr to a pipe. */
	c = (struct child)CHILD_INIT;
	c.argv = err;
	c.use_shell = 1;
	c.null_in = 1;
	c.pipe_err = 1;
	ok(child_start(&c) == 0, "null_in, pipe_err: started");
	ga_buf_setlen(&out, 0);
	ga_buf_read_fd(&out, c.err);
	ok(child_finish(&c, &code, NULL) == 0 && code == 0 && !out.len,
	   "stdin is /dev/null, read through stderr");

	/*
	 * Our own stdin closed: pipe() hands out 0, which must not end
	 * up overwritten when the child sets up its 0 and 1.
	 */
	fd = dup(0);
	close(0);
	c = (struct child)CHILD_INIT;
	c.argv = cat;
	c.pipe_in = c.pipe_out = 1;
	ok(child_start(&c) == 0, "with our fd 0 closed: started");
	ok(ga_write_all(c.in, "round trip", 10) == 0, "written");
	child_close(&c.in);
	ga_buf_setlen(&out, 0);
	ga_buf_read_fd(&out, c.out);
	ok(child_finish(&c, &code, NULL) == 0 && code == 0,
	   "with our fd 0 closed: exit 0");
	is_str(ga_buf_str(&out, 0), "round trip", "the pipes are right");
	dup2(fd, 0);
	close(fd);

	free(path);
	ga_buf_release(&out);
}

static void test_finish(void)
{
	static const char *const three[] = { "exit 3", NULL };
	static const char *const term[] = { "kill -TERM $$", NULL };
	static const char *const pipe[] = { "kill -PIPE $$", NULL };
	struct child c = CHILD_INIT;
	char *msg;
	int code, signo;

	c.argv = three;
	c.use_shell = 1;
	ok(child_start(&c) == 0 && child_finish(&c, &code, &signo) == 0 &&
	   code == 3 && signo == 0, "exit status 3");
	ok(child_finish(&c, &code, &signo) == 0 && code == 0,
	   "finishing again: nothing to wait for");

	c = (struct child)CHILD_INIT;
	c.argv = term;
	c.use_shell = 1;
	ok(child_start(&c) == 0 && child_finish(&c, &code, &signo) == 0 &&
	   code == 128 + SIGTERM && signo == SIGTERM, "killed: 128 + signal");
	msg = child_death_message("term", signo);
	is_str(msg, "term died of signal 15", "git's line for it");
	free(msg);

	c = (struct child)CHILD_INIT;
	c.argv = pipe;
	c.use_shell = 1;
	ok(child_start(&c) == 0 && child_finish(&c, &code, &signo) == 0 &&
	   signo == SIGPIPE, "SIGPIPE");
	ok(!child_death_message("pipe", signo), "git says nothing of it");
	ok(!child_death_message("int", SIGINT) &&
	   !child_death_message("quit", SIGQUIT) &&
	   !child_death_message("none", 0), "nor of SIGINT, SIGQUIT, none");
}

int main(void)
{
	char *cmd;

	if (!mkdtemp(tmp))
		abort();
	test_shell_rule();
	test_environment_and_dir();
	test_failures();
	test_path_and_enoexec();
	test_signals();
	test_descriptors();
	test_finish();
	cmd = ga_xstrfmt("rm -rf '%s'", tmp);
	if (system(cmd))
		diag("could not remove %s", tmp);
	free(cmd);
	return tap_done();
}

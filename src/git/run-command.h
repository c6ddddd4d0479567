/*
 * run-command.h: every child process garchive starts, started as git's
 * run-command.c starts its own:
 *
 * - argv, or a command line for the shell: with `use_shell`, argv[0]
 *   goes through `/bin/sh -c` only when it has one of the characters
 *   git's prepare_shell_cmd() looks for (child_needs_shell()); a plain
 *   name is exec'd directly, as git does;
 * - a program name without '/' is looked up in PATH here, before fork
 *   (git's locate_in_PATH(); an unset PATH is the default search path,
 *   as git sets it; a relative entry counts from `dir`, where the child
 *   runs);
 * - a program that execve() refuses as ENOEXEC (a script without "#!")
 *   is run again by /bin/sh, unless `no_shell_retry`;
 * - environment edits, a working directory, pipes to the parent, the
 *   child's stdin/stdout/stderr from /dev/null or from a descriptor;
 * - in the child, before exec: signal handlers back to their defaults
 *   and SIGPIPE too (garchive ignores it, a program it runs must not),
 *   other ignored signals left ignored (nohup), and no signal blocked;
 *   no handler of ours can run between fork and exec;
 * - a failure in the child (chdir, dup2, exec) reported to the parent
 *   through a close-on-exec pipe, so child_start() knows that the
 *   program did not run before anything is written to it, and never
 *   guesses it from an exit status.
 *
 * Nothing here prints: child_start() stores git's message in the error
 * slot, and the caller prints it (with child_failure_prefix()) or not.
 */
#ifndef GARCHIVE_RUN_COMMAND_H
#define GARCHIVE_RUN_COMMAND_H

#include <sys/types.h>

/* Where a failed child_start() found the failure, which git words. */
enum child_failure {
	CHILD_STARTED = 0,
	/*
	 * Found before or at fork: no such program in PATH, no pipe, no
	 * fork.  git prints these with error().
	 */
	CHILD_FAILED_HERE,
	/*
	 * Reported by the child: chdir, dup2, sigprocmask or execve
	 * failed.  git prints these with its die-message routine
	 * ("fatal: ...") and carries on.
	 */
	CHILD_FAILED_IN_CHILD
};

struct child {
	/* Set by the caller. */
	const char *const *argv;	/* NULL-terminated */
	int use_shell;		/* argv[0] may be a shell command line */
	/*
	 * Environment edits applied in order, as git's child_process.env:
	 * "NAME=value" sets, a bare "NAME" removes.  NULL-terminated or NULL.
	 */
	const char *const *env;
	const char *dir;	/* chdir here before exec, or NULL */
	unsigned pipe_in:1, pipe_out:1, pipe_err:1;	/* pipe to the parent */
	unsigned null_in:1, null_out:1, null_err:1;	/* use /dev/null */
	/* No `/bin/sh PROGRAM` after ENOEXEC: run exactly that program. */
	unsigned no_shell_retry:1;
	/* The child keeps descriptors 0, 1 and 2 only, none inherited. */
	unsigned close_fds:1;
	/*
	 * A descriptor of the parent that becomes the child's stdout
	 * (the parent keeps its own copy), or -1.  Not with pipe_out or
	 * null_out.
	 */
	int out_fd;

	/* Filled by child_start(). */
	pid_t pid;		/* 0 when not running */
	int in, out, err;	/* the parent's ends of the pipes, or -1 */
	enum child_failure failure;
	int failed_errno;	/* with a failure: its errno, as errno */
};

#define CHILD_INIT { .out_fd = -1, .in = -1, .out = -1, .err = -1 }

/*
 * git's prepare_shell_cmd() rule: does `cmd` need `sh -c`?  A command
 * without any of |&;<>()$`\"' TAB, LF, space, *?[#~=% is exec'd.
 */
int child_needs_shell(const char *cmd);

/*
 * Start the child.  Returns 0, or GA_ERROR with git's message in the
 * slot when it could not be executed: "cannot run <argv0>: <strerror>"
 * (no such program), "cannot exec '<argv0>': <strerror>" (execve
 * failed otherwise), "exec '<argv0>': cd to '<dir>' failed:
 * <strerror>", "cannot create <stream> pipe for <argv0>: ...", "cannot
 * fork() for <argv0>: ...".  Then nothing is left running, and
 * c->failure, c->failed_errno and errno say what happened.
 */
int child_start(struct child *c);

/*
 * How git prints the failure of the last child_start(): "error: " for
 * one found in the parent, "fatal: " for one the child reported.
 */
const char *child_failure_prefix(const struct child *c);

/*
 * Close the parent's pipe ends that are still open and wait for the
 * child.  `*code` gets its exit status, or 128 + the signal that killed
 * it, as git's finish_command; `*signo` (when not NULL) the signal or 0.
 * Returns 0, or GA_ERROR if waitpid failed.  A child not running (never
 * started, or finished already) gives code 0.
 */
int child_finish(struct child *c, int *code, int *signo);

/*
 * The line git's wait_or_whine() prints (with "error: ") for a child
 * named `name` that died of signal `signo`: "<name> died of signal <n>",
 * malloc'd; NULL when git prints nothing: no signal, SIGINT and SIGQUIT
 * (which the user sent to the whole process group) and SIGPIPE.
 */
char *child_death_message(const char *name, int signo);

/*
 * Make the parent's ends of the pipes non-blocking, for a caller that
 * moves data both ways with poll() and must never block on one side.
 */
void child_nonblocking(struct child *c);

/* Close a parent's pipe end held in *fd, if open. */
void child_close(int *fd);

/*
 * Replace garchive itself with `argv` (a PATH lookup as execvp()'s), as
 * git's help execs man: no child, nothing to wait for.  SIGPIPE goes
 * back to its default first, since main ignores it and a pager must
 * not inherit that.  Returns only on failure: -1 with errno set, and
 * SIGPIPE ignored again.
 */
int child_exec_instead(const char *const *argv);

#endif

/*
 * child.h: starting and reaping subprocesses the way git's run-command
 * does for its transports: optional `sh -c` wrapping with git's rule for
 * when a command needs a shell, environment edits, a working directory,
 * pipes to the parent, and exec failures reported to the parent (so
 * "cannot run ssh: No such file or directory" is known before anything
 * is written to the child).
 */
#ifndef GARCHIVE_CHILD_H
#define GARCHIVE_CHILD_H

#include <sys/types.h>

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

	/* Filled by child_start(). */
	pid_t pid;		/* 0 when not running */
	int in, out, err;	/* the parent's ends of the pipes, or -1 */
};

#define CHILD_INIT { NULL, 0, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1 }

/*
 * Start the child.  Returns 0, or GA_ERROR with git's message ("cannot
 * run <argv0>: <strerror>", "exec '<argv0>': cd to '<dir>' failed:
 * <strerror>") when it could not be executed; then nothing is left
 * running and errno holds the cause.
 */
int child_start(struct child *c);

/*
 * Close the parent's pipe ends that are still open and wait for the
 * child.  `*code` gets its exit status, or 128 + the signal that killed
 * it, as git's finish_command; `*signo` (when not NULL) the signal or 0.
 * Returns 0, or GA_ERROR if waitpid failed.
 */
int child_finish(struct child *c, int *code, int *signo);

/*
 * Make the parent's ends of the pipes non-blocking, for a caller that
 * moves data both ways with poll() and must never block on one side.
 */
void child_nonblocking(struct child *c);

/* Close a parent's pipe end held in *fd, if open. */
void child_close(int *fd);

#endif

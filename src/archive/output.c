/*
 * output.c: -o made atomic.  The archive goes to a temporary file in
 * the target's directory, renamed over the target only on success, and
 * removed when the run fails or is ended by a signal.
 */
#include "output.h"
#include "garchive/common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The temporary -o file, for the signal handler: a run ended by a signal
 * must not leave it behind.  This is garchive's only mutable file-scope
 * state, because a handler can reach nothing else.
 */
static char *volatile signal_tmp;

static void remove_tmp_on_signal(int sig)
{
	char *tmp = signal_tmp;

	if (tmp)
		unlink(tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Catch every signal whose default action ends the process, unless it
 * is ignored (nohup) or handled already (a sanitizer's).  SIGXFSZ is
 * one: a write past the file size limit (ulimit -f).  SIGPIPE is
 * ignored by main and comes back as EPIPE.  SIGKILL cannot be caught:
 * it leaves the temporary file behind.
 */
static void watch_tmp(char *tmp)
{
	static const int sigs[] = {
		SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS,
		SIGFPE, SIGUSR1, SIGSEGV, SIGUSR2, SIGALRM, SIGTERM,
#ifdef SIGSTKFLT
		SIGSTKFLT,
#endif
		SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,
#ifdef SIGPWR
		SIGPWR,
#endif
		SIGSYS
	};
	size_t i;
	int sig;

	signal_tmp = tmp;
	for (i = 0; i < GA_ARRAY_SIZE(sigs); i++) {
		struct sigaction sa;

		if (sigaction(sigs[i], NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_DFL)
			signal(sigs[i], remove_tmp_on_signal);
	}
	/* Real-time signals end a process by default too. */
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
		struct sigaction sa;

		if (sigaction(sig, NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_DFL)
			signal(sig, remove_tmp_on_signal);
	}
}

/*
 * The file -o names, with its symbolic links followed as open() follows
 * them for git: a link is written through, and may point to a file that
 * does not exist yet.  Returns a new string, or NULL with errno ELOOP
 * (git's open() fails the same way).
 */
static char *follow_links(const char *path)
{
	char *cur = ga_xstrdup(path), *next, *slash;
	char buf[PATH_MAX];
	struct stat st;
	ssize_t n;
	int hops;

	for (hops = 0; hops < 40; hops++) {
		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode) ||
		    (n = readlink(cur, buf, sizeof(buf) - 1)) < 0)
			return cur;
		buf[n] = '\0';
		slash = strrchr(cur, '/');
		if (buf[0] == '/' || !slash)
			next = ga_xstrdup(buf);
		else
			next = ga_xstrfmt("%.*s/%s", (int)(slash - cur), cur,
					  buf);
		free(cur);
		cur = next;
	}
	free(cur);
	errno = ELOOP;
	return NULL;
}

static int open_failed_for(const char *path, int err)
{
	return ga_error_errno(err, "could not open '%s' for writing", path);
}

/*
 * Open the output.  A regular file (or a new one) is written through a
 * temporary file beside it (beside a symbolic link's target), renamed
 * over it on success.  Anything else that exists (a device, a FIFO) is
 * written directly, since it cannot be replaced by rename; and so is an
 * existing file that may be written where no file can be made beside it
 * (a directory we cannot write), as git writes every -o file: in place,
 * so that a failure leaves it cut short.
 */
int output_open(struct output *o, const char *path, mode_t umask_bits)
{
	sigset_t all, old_mask;
	struct stat st;
	const char *slash;
	int fd, err;

	o->path = path;
	/* git fails to open "" before doing anything else. */
	if (!*path)
		return open_failed_for(path, ENOENT);
	if (!(o->target = follow_links(path)))
		return open_failed_for(path, errno);
	if (stat(o->target, &st) == 0 && !S_ISREG(st.st_mode)) {
		fd = open(o->target, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd < 0)
			return open_failed_for(path, errno);
		o->fd = fd;
		return 0;
	}
	slash = strrchr(o->target, '/');
	if (slash)
		o->tmp = ga_xstrfmt("%.*s/.garchive-XXXXXX",
				    (int)(slash - o->target), o->target);
	else
		o->tmp = ga_xstrdup(".garchive-XXXXXX");
	/*
	 * A signal between creating the file and watching it would leave
	 * the file behind: hold signals until the handlers are in place.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old_mask);
	fd = mkstemp(o->tmp);
	err = errno;
	if (fd >= 0)
		watch_tmp(o->tmp);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		if (stat(o->target, &st) < 0)
			return open_failed_for(path, err);
		fd = open(o->target, O_WRONLY | O_TRUNC);
		if (fd < 0)
			return open_failed_for(path, errno);
		o->fd = fd;
		return 0;
	}
	/* mkstemp makes 0600; give what open(..., 0666) would have. */
	if (fchmod(fd, 0666 & ~umask_bits) < 0) {
		err = errno;
		close(fd);
		signal_tmp = NULL;
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return open_failed_for(path, err);
	}
	o->fd = fd;
	return 0;
}

int output_commit(struct output *o)
{
	int fd = o->fd;

	if (!o->path)
		return 0;
	o->fd = -1;
	if (close(fd) < 0)
		return ga_error_errno(errno, "write error");
	if (o->tmp) {
		if (rename(o->tmp, o->target) < 0)
			return ga_error_errno(errno, "unable to rename '%s' to "
					      "'%s'", o->tmp, o->target);
		signal_tmp = NULL;
		free(o->tmp);
		o->tmp = NULL;
	}
	return 0;
}

/*
 * Remove what a failed run wrote: the temporary file.  A file written
 * in place stays as it is, cut short, as git leaves it.
 */
void output_abort(struct output *o)
{
	if (o->path && o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp) {
		unlink(o->tmp);
		signal_tmp = NULL;
		free(o->tmp);
		o->tmp = NULL;
	}
}

void output_release(struct output *o)
{
	free(o->target);
	o->target = NULL;
}

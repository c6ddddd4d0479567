/*
 * ask-git.h: the placeholders garchive answers by running git itself,
 * because reproducing them would mean reproducing another program:
 * %(describe) (git describe) and %G* (the gpg or ssh-keygen run that
 * git's gpg-interface.c makes).
 */
#ifndef GARCHIVE_ASK_GIT_H
#define GARCHIVE_ASK_GIT_H

#include <stddef.h>

#include <git2/types.h>

struct ga_buf;

/*
 * Append what `git <args...>` prints on stdout, run as git runs its own
 * subcommands for `repo`: from the top of the work tree (or the git
 * directory), with GIT_DIR set, stdin from /dev/null and stderr
 * discarded.  Like git's pipe_command() callers in pretty.c, the exit
 * status is ignored and a git that cannot run gives nothing.
 */
void ask_git(struct ga_buf *out, git_repository *repo,
	     const char *const *args, size_t nr);

/*
 * The same, returning git's exit status (128 + the signal that killed
 * it), or -1 when git could not be run.
 */
int ask_git_status(struct ga_buf *out, git_repository *repo,
		   const char *const *args, size_t nr);

/* The answers of %G? %GG %GS %GK %GF %GP %GT, in that order. */
#define SIGNATURE_FIELDS 7

struct signature {
	int loaded;
	char *field[SIGNATURE_FIELDS];	/* %GT's NULL until asked for */
};

/*
 * Check the signature of the commit `raw` (its object text, id `hex`)
 * once: an unsigned commit gets git's defaults ('N', trust "undefined")
 * without running anything; a signed one git's own answer.  %GT is only
 * asked for when `want_trust`, as git dies on it when a signature could
 * not be checked at all.
 */
void signature_load(struct signature *sig, git_repository *repo,
		    const char *raw, const char *hex, int want_trust);
void signature_release(struct signature *sig);

#endif

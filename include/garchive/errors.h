/*
 * errors.h: garchive's error codes, all of them.
 *
 * A function that can fail returns 0 or one of these (negative), with
 * the message in the error slot (common.h).  main.c alone turns a code
 * into git's diagnostic and exit status; the other codes are answers
 * that callers branch on.
 */
#ifndef GARCHIVE_ERRORS_H
#define GARCHIVE_ERRORS_H

enum ga_error_code {
	GA_OK		= 0,
	GA_ERROR	= -1,	/* runtime failure: fatal, exit 128 */
	GA_EUSAGE	= -2,	/* command-line misuse: exit 129 */
	GA_EARCHIVE	= -3,	/* failure while writing entries: exit 255 */
	GA_ENOTFOUND	= -4,	/* lookup found nothing; callers branch on it */
	GA_EPIPE	= -5,	/* the reader of our stdout closed it */
	/*
	 * The remote side reported an error (side-band 3, or the stream
	 * broke off), or a remote helper failed when disconnected.  The
	 * message is already on stderr, as git writes it; main prints
	 * nothing more and exits 1, the status of git's
	 * run_remote_archiver().
	 */
	GA_EREMOTE	= -6,
	/*
	 * The failure was already reported (a remote helper died; git
	 * exits 128 without a message of its own): main exits 128
	 * silently.
	 */
	GA_ESILENT	= -7,
	GA_ITEROVER	= -31,	/* iteration has no more items */
	/*
	 * An input ran past the budget its reader was given (verify bounds
	 * what it reads by the size of the archive it expects, so that a
	 * bomb ends early): not damage, just more than the answer needs.
	 */
	GA_ELIMIT	= -40,
	/*
	 * A damaged object (see common.h).  It also comes back through
	 * libgit2's read functions from garchive's own backends, with the
	 * message in libgit2's error, so it is outside libgit2's codes.
	 */
	GA_ECORRUPT	= -100
};

#endif

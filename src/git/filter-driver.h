/*
 * filter-driver.h: running git's filter drivers on checkout, the last
 * step of conversion (convert.h): a filter.<driver>.smudge command gets
 * one blob on stdin and answers on stdout; a filter.<driver>.process
 * filter is started once and speaks git's long-running filter protocol
 * version 2 over pkt-lines.  Which program runs, with which argv and
 * cwd, and every "error:" line when one fails are git's.
 *
 * The caller must ignore SIGPIPE (main does): writing to a filter that
 * exited must give EPIPE, as in git, which ignores it around these
 * writes.  Children get SIGPIPE back to its default.  A runner is used
 * by one thread at a time.
 */
#ifndef GARCHIVE_FILTER_DRIVER_H
#define GARCHIVE_FILTER_DRIVER_H

#include <stddef.h>

struct ga_buf;
struct subprocess;

/*
 * Metadata a process filter receives with each blob (git's struct
 * checkout_metadata); convert_new() takes it for the filters it runs.
 */
struct convert_meta {
	const char *ref;	/* full ref name, or NULL */
	const char *treeish;	/* hex commit id, or tree id for a tree */
};

struct filter_runner {
	const char *workdir;	/* where filters run: git's cwd, the top */
	const struct convert_meta *meta;	/* sent to process filters */
	struct subprocess *procs;	/* process filters started so far */
};

/*
 * git's apply_single_file_filter(): run the smudge command `cmd` ("%f"
 * is the path, quoted) on src[0..len).  Returns 1 with the output in
 * `dst`, or 0 after git's "error:" lines when the command could not run
 * or failed (the caller decides, by filter.<driver>.required, whether
 * that is fatal).
 */
int filter_run_smudge(struct filter_runner *r, struct ga_buf *dst,
		      const char *path, const unsigned char *src, size_t len,
		      const char *cmd);

/*
 * git's apply_multi_file_filter(): have the process filter `cmd`
 * (started on first use, with git's handshake) smudge the blob `oid_hex`
 * at `path`.  Returns 1 with the output in `dst`; 0 when it did not
 * deliver (after git's lines; a filter that answers "abort" is not asked
 * again, one that breaks the protocol is restarted for the next blob);
 * GA_ERROR where git dies.
 */
int filter_run_process(struct filter_runner *r, struct ga_buf *dst,
		       const char *path, const char *oid_hex,
		       const unsigned char *src, size_t len, const char *cmd);

/*
 * Stop the process filters as git does at exit: closing a filter's pipes
 * asks it to shut down, then it is waited for.  Never fails.
 */
void filter_runner_release(struct filter_runner *r);

#endif

/*
 * pretty.h: git's pretty.c format_commit_message() for one commit, the
 * engine behind export-subst's "$Format:<fmt>$" (see subst.h for what
 * it expands).
 *
 * A struct pretty_commit holds the commit and what its placeholders
 * need, each part read on first use: the message re-encoded to UTF-8,
 * grafts, mailmap, ref decorations, trailer settings, signatures.
 */
#ifndef GARCHIVE_PRETTY_H
#define GARCHIVE_PRETTY_H

#include <stddef.h>

#include <git2/oid.h>
#include <git2/types.h>

#include "ask-git.h"
#include "commit.h"
#include "log-tree.h"
#include "mailmap.h"
#include "object-name.h"
#include "trailer.h"
#include "odb/oid.h"

struct ga_buf;
struct ga_config;

struct pretty_commit {
	git_repository *repo;
	const struct ga_commit *commit;
	const struct ga_config *cfg;
	git_odb *odb;
	struct ga_oid oid;
	char hex[GA_OID_MAX_HEXSZ + 1];

	/* %(describe) expansions left; -1 for no limit. */
	int describes_left;
	struct abbrev abbrev;
	int columns;		/* the terminal's, once asked */

	/* The commit object as git reads it: a C string. */
	char *raw;
	/* The same converted to UTF-8 (may be raw), and its encoding. */
	int msg_loaded;
	char *msg;
	char *encoding;

	struct commit_grafts grafts;
	int mailmap_loaded;
	struct mailmap mailmap;
	struct decorations decos;
	struct trailer_config trailers;

	struct signature sig;
};

/*
 * Prepare `pc` for `commit` of `repo`: read core.abbrev from `cfg` and
 * the raw commit.  All must outlive `pc`.  Returns 0 or an error code
 * (git's messages for a bad core.abbrev); pretty_commit_release() frees
 * what it holds in either case.
 */
int pretty_commit_init(struct pretty_commit *pc, git_repository *repo,
		       const struct ga_commit *commit,
		       const struct ga_config *cfg);

/*
 * Append `fmt` expanded for the commit to `out`, whose text (the file
 * being expanded) starts at `base`: padding to a column counts from the
 * text's last newline, as in git.  When a placeholder reads the commit
 * header and the commit declares an encoding other than UTF-8, the text
 * from `base` on is converted back to it, as git does.  Returns 0, or an
 * error code where git dies.
 */
int pretty_format_commit(struct ga_buf *out, size_t base,
			 struct pretty_commit *pc, const char *fmt);

void pretty_commit_release(struct pretty_commit *pc);

#endif

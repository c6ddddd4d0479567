/*
 * commit.h: what pretty formats need of git's commit.c besides libgit2:
 * a header of the raw commit (find_commit_header) and the parents as
 * git sees them through grafts and a shallow file.
 */
#ifndef GARCHIVE_COMMIT_H
#define GARCHIVE_COMMIT_H

#include <git2/oid.h>
#include <git2/types.h>
#include "odb/oid.h"

/*
 * The value of the first header `key` of the raw commit `msg` (a C
 * string), malloc'd, or NULL when it has none.
 */
char *commit_header(const char *msg, const char *key);

enum graft_state {
	GRAFT_NONE,		/* libgit2's parents are git's */
	GRAFT_PARENTS,		/* info/grafts replaces them */
	GRAFT_SHALLOW		/* the shallow file cuts them all */
};

struct commit_grafts {
	int loaded;
	enum graft_state state;
	struct ga_oid *parents;	/* unless GRAFT_NONE */
	size_t nr;
};

/*
 * Find what git's grafts ($GIT_GRAFT_FILE or info/grafts, the first line
 * for the commit wins) and shallow file say of commit `oid`, once (later
 * calls do nothing).  Unreadable or malformed files count as absent.
 */
void commit_grafts_load(struct commit_grafts *g, git_repository *repo,
			const struct ga_oid *oid);
void commit_grafts_release(struct commit_grafts *g);

#endif

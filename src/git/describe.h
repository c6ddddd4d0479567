/*
 * describe.h: git describe for one commit, computed in-process, for
 * %(describe) where the installed git cannot read the repository (a
 * reftable repository and a git older than 2.45).
 *
 * It follows git's builtin/describe.c: the names are the refs under
 * refs/tags/ (read through garchive's ref store, broken ones included),
 * an annotated tag preferred to a lightweight one for the same commit
 * and, between annotated tags, the one with the later tagger date; the
 * commit is walked newest committer date first until 10 candidates are
 * found, and the candidate with the fewest commits not reachable from
 * it wins (ties: the one found first).  Replace refs are not applied.
 */
#ifndef GARCHIVE_DESCRIBE_H
#define GARCHIVE_DESCRIBE_H

#include <stddef.h>

#include <git2/types.h>
#include "odb/oid.h"

struct abbrev;
struct ga_buf;
struct refs_store;

/*
 * Describe commit `oid` of `repo` with the arguments %(describe:...)
 * gives git describe ("--tags", "--no-tags", "--abbrev=<n>",
 * "--match=<pattern>", "--exclude=<pattern>"), refs read from `refs`,
 * ids abbreviated as `abbrev` says (core.abbrev) unless --abbrev does.
 * Appends what git describe prints, without its newline.  Returns 0,
 * or GA_ERROR where git describe dies (no names, no tag can describe
 * the commit, an annotated tag that cannot be read), with its message.
 */
int describe_commit(struct ga_buf *out, git_repository *repo,
		    struct refs_store *refs, const struct abbrev *abbrev,
		    const struct ga_oid *oid, const char *const *args, size_t nr);

#endif

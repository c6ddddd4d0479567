/*
 * object-name.h: abbreviated object names as git's pretty formats write
 * them (%h, %t, %p): git's find_unique_abbrev() with core.abbrev, and
 * the "auto" length it derives from an estimate of the number of
 * objects (repo_approximate_object_count() in git's packfile.c).
 */
#ifndef GARCHIVE_OBJECT_NAME_H
#define GARCHIVE_OBJECT_NAME_H

#include <git2/types.h>
#include "odb/oid.h"

struct ga_buf;
struct ga_config;


struct abbrev {
	git_repository *repo;
	git_odb *odb;
	const struct ga_config *cfg;
	size_t hexsz;		/* hex digits of a whole id of the odb */
	int len;		/* digits: -1 for "auto", hexsz for all */
	int auto_len;		/* "auto", once the objects were counted */
};

/*
 * Read core.abbrev as git does ("auto", false/no/off for whole ids, or a
 * length from 4 to 40).  `repo`, `odb` and `cfg` must outlive `a`.
 * Returns 0, or GA_ERROR with git's message for a bad value (after its
 * "error: abbrev length out of range: <n>" line).
 */
int abbrev_init(struct abbrev *a, git_repository *repo, git_odb *odb,
		const struct ga_config *cfg);

/* Append the shortest unambiguous prefix of `oid`, at least a->len. */
void abbrev_add(struct ga_buf *sb, struct abbrev *a, const struct ga_oid *oid);

/*
 * git's parse_oid_hex(): a whole id of `algo` in hex at `hex` (either
 * case).  Returns 0 and, when `end` is not NULL, points it past the
 * digits; -1 otherwise.
 */
int oid_parse_hex(struct ga_oid *oid, enum ga_hash_algo algo,
		  const char *hex, const char **end);

#endif

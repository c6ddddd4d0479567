/*
 * mailmap.h: git's mailmap.c, which %aN, %aE, %aL and the committer
 * forms use to show canonical names and addresses.
 */
#ifndef GARCHIVE_MAILMAP_H
#define GARCHIVE_MAILMAP_H

#include <stddef.h>

#include <git2/types.h>

struct ga_config;

struct mm_entry;

/* The entries, keyed by old email, then old name (both any case). */
struct mailmap {
	struct mm_entry *entries;
	size_t nr, alloc;
};

/*
 * git's read_mailmap(): the work tree's .mailmap (not in a bare
 * repository), then mailmap.blob (default HEAD:.mailmap in a bare one),
 * then mailmap.file, later lines overriding earlier ones.  Sources that
 * do not exist are skipped; git's non-fatal "error:" lines ("unable to
 * open mailmap at <path>: <reason>", "mailmap is not a blob: <rev>") go
 * through ga_report().
 */
void mailmap_load(struct mailmap *map, git_repository *repo,
		  const struct ga_config *cfg);

/*
 * git's map_user(): look (email, name) up and, when an entry applies,
 * point them at the canonical values and return 1.  Otherwise 0.
 */
int mailmap_map(const struct mailmap *map, const char **email,
		size_t *email_len, const char **name, size_t *name_len);

void mailmap_clear(struct mailmap *map);

#endif

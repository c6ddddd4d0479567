/*
 * log-tree.h: git's ref decorations (log-tree.c load_ref_decorations,
 * format_decorations) for %d and %D: the refs that point at one commit.
 */
#ifndef GARCHIVE_LOG_TREE_H
#define GARCHIVE_LOG_TREE_H

#include <stddef.h>

#include <git2/types.h>
#include "odb/oid.h"

struct ga_buf;
struct ga_config;

struct deco;

struct decorations {
	int loaded;
	struct deco *list;	/* in the order git adds them */
	size_t nr, alloc;
	char *head_branch;	/* where the symbolic HEAD leads, or NULL */
};

/*
 * Collect, once, the decorations of commit `oid` as `git log --decorate`
 * does with no filter (git archive sets none): every ref in byte order,
 * peeled through tags, then HEAD; a replace ref for the commit (unless
 * core.useReplaceRefs is false or GIT_NO_REPLACE_OBJECTS is set) is
 * "replaced", and a `grafted` commit "grafted".
 */
void decorations_load(struct decorations *d, git_repository *repo,
		      git_odb *odb, const struct ga_config *cfg,
		      const struct ga_oid *oid, int grafted);

/*
 * Append them as git's format_decorations() does: newest first, each
 * after `prefix` (then `sep`), "tag: " before tags, "HEAD -> branch" for
 * the branch HEAD leads to, then `suffix`.  Nothing at all without
 * decorations.
 */
void decorations_format(struct ga_buf *sb, const struct decorations *d,
			const char *prefix, const char *sep,
			const char *suffix);

void decorations_release(struct decorations *d);

#endif

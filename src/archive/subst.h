/*
 * subst.h: export-subst, the "$Format:<fmt>$" expansion of git archive.
 *
 * <fmt> is expanded with git's pretty "format:" engine for the archived
 * commit: hashes (auto-abbreviated as git does, or core.abbrev), names
 * and emails (with mailmap for %aN/%aE/%cN/%cE), dates in every style,
 * subject/body, decorations (%d/%D), %(describe[:options]) (only the
 * first one per archive is expanded), trailers, %n/%%/%x.., colours
 * (off unless "always").  Unknown placeholders stay literal.
 */
#ifndef GARCHIVE_SUBST_H
#define GARCHIVE_SUBST_H

#include <stddef.h>

#include <git2/types.h>

struct ga_commit;

struct ga_buf;
struct ga_config;

struct subst;

/*
 * Prepare expansion for `commit` of `repo`.  `cfg` supplies core.abbrev,
 * mailmap.file/mailmap.blob and log settings.  The struct keeps the
 * one-%(describe)-per-archive count.  All must outlive it.
 */
int subst_new(struct subst **out, git_repository *repo,
	      const struct ga_commit *commit, const struct ga_config *cfg);

/*
 * Append `data` to `out` with every "$Format:...$" expanded.  Returns 0
 * or an error code.
 */
int subst_expand(struct ga_buf *out, struct subst *subst,
		 const unsigned char *data, size_t len);

void subst_free(struct subst *subst);

#endif

/*
 * pathspec.h: the <path> arguments of git archive, parsed and matched as
 * git parses and matches pathspecs: plain paths and directories, fnmatch
 * wildcards that also match '/', and magic (":(glob)", ":(icase)",
 * ":(literal)", ":(top)"/":/", ":(exclude)"/":!"/":^", ":(attr:...)"),
 * plus GIT_GLOB_PATHSPECS, GIT_NOGLOB_PATHSPECS, GIT_ICASE_PATHSPECS and
 * GIT_LITERAL_PATHSPECS.
 *
 * Paths matched are relative to the archived tree, without a trailing
 * slash; `is_dir` says whether the entry is a tree.
 */
#ifndef GARCHIVE_PATHSPEC_H
#define GARCHIVE_PATHSPEC_H

#include <stddef.h>

struct attr_value;

/* The environment switches, read by the caller (main) and passed in. */
struct pathspec_env {
	int glob, noglob, icase, literal;
};

/*
 * Attributes for :(attr:...) items: fill out[i] for names[i] of `path`.
 * Returns 0 or an error code.
 */
typedef int (*pathspec_attr_fn)(struct attr_value *out, const char *path,
				int is_dir, const char *const *names,
				size_t nr, void *payload);

struct pathspec;

/*
 * Parse `args`.  `toplevel` is the work tree's top (for the message
 * "<ps>: '<ps>' is outside repository at '<top>'").  Errors (GA_ERROR,
 * git's wording): an empty string, a path outside the repository,
 * unknown or conflicting magic.
 */
int pathspec_parse(struct pathspec **out, char *const *args, size_t nr,
		   const char *toplevel, const struct pathspec_env *env);

size_t pathspec_nr(const struct pathspec *ps);

/* The argument as the user typed it, for "pathspec '%s' did not match". */
const char *pathspec_original(const struct pathspec *ps, size_t i);

/* Whether item i is an exclude item (which never needs to match). */
int pathspec_is_exclude(const struct pathspec *ps, size_t i);

/*
 * Whether the whole pathspec selects the entry `path` (include items
 * OR'ed, then exclude items removing): 1 yes, 0 no, or an error code
 * from `attr`.  An empty pathspec selects everything.
 */
int pathspec_match(const struct pathspec *ps, const char *path, int is_dir,
		   pathspec_attr_fn attr, void *payload);

/*
 * Whether item i alone matches `path` (used to check that every item
 * matches something): 1, 0 or an error code.
 */
int pathspec_item_match(const struct pathspec *ps, size_t i,
			const char *path, int is_dir,
			pathspec_attr_fn attr, void *payload);

/*
 * Whether anything below directory `dir` could be selected: 0 only when
 * it certainly cannot, so the walk may skip the subtree.
 */
int pathspec_may_match_inside(const struct pathspec *ps, const char *dir);

void pathspec_free(struct pathspec *ps);

#endif

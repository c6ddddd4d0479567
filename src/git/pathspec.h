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

/*
 * The environment switches, read by the caller and passed in.
 * `bare`: there is no work tree; `toplevel` is then the git directory
 * (git names it in the "outside repository" message) and an absolute
 * path is always outside.
 */
struct pathspec_env {
	int glob, noglob, icase, literal;
	int bare;
};

/*
 * The `is_dir` argument: 0 for blobs and symlinks, 1 for trees, and
 * PATHSPEC_GITLINK for submodules (which "sub/" selects, as git does).
 */
#define PATHSPEC_GITLINK 2

/*
 * Attributes for :(attr:...) items: fill out[i] for names[i] of `path`.
 * Returns 0 or an error code.  git looks the entry up by its path
 * without a trailing slash, so is_dir is always 0 here.
 */
typedef int (*pathspec_attr_fn)(struct attr_value *out, const char *path,
				int is_dir, const char *const *names,
				size_t nr, void *payload);

struct pathspec;

/*
 * Parse `args`.  `toplevel` is the work tree's top, absolute and with
 * symlinks resolved: absolute arguments are made relative to it, and it
 * is named in "<ps>: '<path>' is outside repository at '<top>'".  As in
 * git archive 2.39.5, relative arguments are taken from the top, even
 * when run from a subdirectory.  `env` may be NULL.  Errors (GA_ERROR,
 * git's wording, checked in git's order): an empty string, unknown or
 * conflicting magic, bad :(attr:...) specs, conflicting switches, a
 * path outside the repository, an absolute path through a missing
 * directory ("Invalid path '<p>': <strerror>", from git's realpath).
 * The switches' values ("bad boolean config value '<v>' for
 * 'GIT_GLOB_PATHSPECS'") are the caller's to check.  Deviation: a
 * :(prefix:N) longer than
 * the path, where git dies with a BUG, is the error "error initializing
 * pathspec_item".
 */
int pathspec_parse(struct pathspec **out, char *const *args, size_t nr,
		   const char *toplevel, const struct pathspec_env *env);

/*
 * The same as git 2.41 and later parse them when run from a
 * subdirectory: `cwd_prefix` ("sub/") comes before each relative path
 * (and is what an exclude-only pathspec implicitly includes), "../x"
 * climbs out of it, and the part of it that remains is matched
 * literally, as git's pathspec item prefix.  Paths matched are then
 * relative to the top of the tree.
 */
int pathspec_parse_in(struct pathspec **out, char *const *args, size_t nr,
		      const char *toplevel, const char *cwd_prefix,
		      const struct pathspec_env *env);

size_t pathspec_nr(const struct pathspec *ps);

/* The argument as the user typed it, for "pathspec '%s' did not match". */
const char *pathspec_original(const struct pathspec *ps, size_t i);

/*
 * Whether item i is an exclude item.  Note that git validates exclude
 * items too: ":!x" alone means "everything but x", which must match
 * something (":!*" fails with "did not match any files").
 */
int pathspec_is_exclude(const struct pathspec *ps, size_t i);

/*
 * Whether the whole pathspec selects the entry `path` (include items
 * OR'ed, then exclude items removing, as git's tree walk decides):
 * 1 yes, 0 no, or an error code from `attr`.  An empty pathspec selects
 * everything; one with only exclude items selects everything else.
 * For a file, symlink or gitlink this says whether it is archived; for
 * a tree, whether the walk enters it (its entry is written only before
 * a selected file inside).  The answer for an entry does not depend on
 * its parents having been entered.
 */
int pathspec_match(const struct pathspec *ps, const char *path, int is_dir,
		   pathspec_attr_fn attr, void *payload);

/*
 * Whether item i alone matches the entry `path`, as git's validation
 * (archive.c's path_exists()) decides: the item taken alone (an exclude
 * item with an implicit "everything" item beside it) selects the file,
 * symlink or gitlink; or, for a tree that pathspec would enter, dir.c's
 * match_pathspec() with is_dir accepts the tree itself (so "dir",
 * "dir/", "d*" and an empty directory count).  1, 0 or an error code.
 * "pathspec '<ps>' did not match any files" when no entry of the tree
 * gives 1; export-ignore plays no part.  git 2.39.5 validates before it
 * switches attributes to the archived tree: an :(attr:) item is checked
 * against the attributes as git finds them then (work-tree files in a
 * non-bare repository).
 */
int pathspec_item_match(const struct pathspec *ps, size_t i,
			const char *path, int is_dir,
			pathspec_attr_fn attr, void *payload);

/*
 * Whether anything below directory `dir` could be selected, i.e.
 * pathspec_match(ps, dir, 1, ...): 0 only when nothing can be, so the
 * walk may skip the subtree.  The item variant prunes the walk of the
 * validation of item i.
 */
int pathspec_may_match_inside(const struct pathspec *ps, const char *dir);
int pathspec_item_may_match_inside(const struct pathspec *ps, size_t i,
				   const char *dir);

void pathspec_free(struct pathspec *ps);

#endif

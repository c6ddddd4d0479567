/*
 * walk.h: the third stage.  Visits the archived tree in git's order
 * (stored tree order, depth-first, pre-order, directories written lazily
 * before their first non-directory entry), applies pathspecs and
 * attributes (export-ignore, export-subst), converts content (eol, ident,
 * working-tree-encoding, smudge/process filters) and then appends the
 * extra files.  What comes out is final (struct archive_entry, in
 * archive.h): a writer only encodes it.
 */
#ifndef GARCHIVE_WALK_H
#define GARCHIVE_WALK_H

#include <stddef.h>
#include <stdint.h>

#include <git2/types.h>

#include "garchive/archive.h"
#include "odb/oid.h"

struct ga_config;
struct pathspec_env;
struct treeish;
struct extra_file;

struct walk;
struct walk_options;

/*
 * --recurse-submodules: where a gitlink is met, the walk may descend
 * into another repository's tree (see submodule.h, which provides
 * these).  A gitlink taken into is walked as if the submodule's tree
 * were a subtree at its path: in that position of tree order, with its
 * directory entry written lazily.
 */
struct walk_gitlink {
	git_odb *odb;		/* the submodule's objects (not owned) */
	struct ga_oid tree_id;	/* its commit's tree */
	void *level;		/* for the gitlinks inside it */
};

struct walk_submodules {
	/*
	 * The submodule at `path` (relative to the root of the tree that
	 * `level` stands for; NULL: the archived tree) at `commit`.
	 * Returns 0 with *out filled, GA_ENOTFOUND to archive the gitlink
	 * as git does (it is skipped, and warned about once), or an error.
	 * The same answer every time for the same gitlink.
	 */
	int (*find)(struct walk_gitlink *out, void *level, const char *path,
		    const struct ga_oid *commit, void *payload);
	/*
	 * A walk over a submodule find() gave, below the walk `parent`
	 * was made with.
	 */
	int (*walk)(struct walk **out, const struct walk_gitlink *found,
		    const struct walk_options *parent, void *payload);
	void *payload;
};

struct walk_options {
	const struct treeish *treeish;
	const struct ga_config *config;
	const char *prefix;		/* --prefix value */
	const char *cwd_prefix;		/* "" or "sub/" when run in a subdirectory */
	/*
	 * git 2.41 and later: "sub/" (the cwd prefix), and the tree walked
	 * is treeish->tree_id at that path of treeish->root_tree_id.
	 * Pathspecs are relative to it ("../x" climbs out) and see whole
	 * paths, as do export-ignore and export-subst, read from the whole
	 * tree's attribute files (conversion and zip's diff attribute look
	 * up the path in the archive, as git does); the pre-archive checks
	 * cover the whole tree.  NULL: git 2.39, which archives the
	 * subtree as if it were the whole tree.
	 */
	const char *cwd_base;
	char *const *pathspecs;
	size_t nr_pathspecs;
	const struct extra_file *extras;
	size_t nr_extras;
	int worktree_attributes;
	int want_text_hint;		/* zip: look up "diff" for entry->text */
	int threads;			/* blob prefetch workers, 0 = default */
	/*
	 * Reading blobs is all the work (a plain tar): the walk may spend
	 * more memory reading ahead.  Otherwise a later stage (a
	 * compressing filter) sets the pace, and the walk keeps its
	 * read-ahead small.
	 */
	int reading_bound;
	/*
	 * CPUs that a later stage keeps busy in another process (gzip or
	 * a tar.<format>.command): without --threads, the read-ahead
	 * leaves them to it rather than compete for them.
	 */
	int cpus_taken_by_filter;
	/*
	 * Regular files larger than this whose content no conversion
	 * changes come deferred (entry->deferred) when the walk reads
	 * blobs itself (threads = 1); 0: never.  For a writer that
	 * compresses on worker threads (zip): the walk does not stop at
	 * a large member while an earlier one is deflated.
	 */
	uint64_t defer_above;
	/*
	 * The writer takes any regular file as a stream (tar): the walk
	 * streams those larger than its read-ahead budget whose content no
	 * conversion changes, rather than hold them whole.
	 */
	int stream_large;
	/* --recurse-submodules, or NULL. */
	const struct walk_submodules *submodules;
	void *submodule_level;		/* this walk's level (NULL: the top) */
	/*
	 * A submodule's walk: its tree is at `rel_base` ("sub/") of the
	 * superproject's (pathspecs match the whole path), its root gets
	 * a directory entry (the prefix, written lazily like any
	 * directory), and the superproject's walk checked the pathspecs.
	 */
	int nested;
	const char *rel_base;
	/*
	 * The read-ahead workers of the walk this one nests in (set by
	 * that walk): all levels share them.  NULL: start its own.
	 */
	struct prefetch_pool *prefetch_pool;
	/* Decided from the environment and config (walk_env_load()): */
	const char *toplevel;		/* work tree top, for pathspec messages */
	const char *attr_system_file;	/* NULL with GIT_ATTR_NOSYSTEM */
	const char *attr_global_file;	/* core.attributesFile or XDG default */
	const char *attr_info_file;	/* $GIT_DIR/info/attributes */
	const char *attr_info_file_shown; /* its name in messages, or NULL */
	/*
	 * The tree-ish attributes come from instead of the work tree
	 * (git 2.41's GIT_ATTR_SOURCE or --attr-source, else git 2.43's
	 * attr.tree), or NULL.  Resolved at the first attribute lookup,
	 * as git does; a name that does not resolve is fatal, unless it
	 * came from attr.tree (`attr_source_lenient`), which is then
	 * ignored.  It matters only with --worktree-attributes: the
	 * archived tree's attributes are read from the index, which git
	 * reads whatever the source.
	 */
	const char *attr_source;
	int attr_source_lenient;
	const struct pathspec_env *pathspec_env; /* NULL: all off */
};

struct walk;
struct walk_env;
struct prefetch_pool;

/*
 * Fill the fields of `wo` that the environment and the configuration
 * decide (toplevel, attr_*_file, pathspec_env), as git decides them
 * for `repo`: GIT_ATTR_NOSYSTEM, core.attributesFile (else the XDG
 * default), $GIT_DIR/info/attributes, GIT_ATTR_SOURCE (else attr.tree)
 * and the GIT_*_PATHSPECS switches.
 * They point into *out, which the caller frees with walk_env_free()
 * after the walk; *out is set (and must be freed) even on failure.
 * Errors: "unable to get the top directory", a bad boolean in the
 * environment.
 */
int walk_env_load(struct walk_env **out, struct walk_options *wo,
		  git_repository *repo, const struct ga_config *cfg);
void walk_env_free(struct walk_env *env);

/*
 * Prepare a walk over `opts->treeish` in `repo`.  Validates every
 * pathspec first ("pathspec '<ps>' did not match any files").  `opts`
 * and everything it points to must outlive the walk.
 */
int walk_new(struct walk **out, git_repository *repo,
	     const struct walk_options *opts);

/*
 * The next entry in archive order.  The entry and its buffers belong to
 * the walk and stay valid until the next call.  Returns 0, GA_ITEROVER
 * at the end, or an error (GA_EARCHIVE: "cannot read '<oid>'", ...).
 */
int walk_next(struct archive_entry **out, struct walk *walk);

void walk_free(struct walk *walk);

#endif

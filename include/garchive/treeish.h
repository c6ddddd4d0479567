/*
 * treeish.h: the second stage.  Resolves <tree-ish> to the tree that is
 * archived, the commit (if any) whose id goes into the pax header or zip
 * comment, and the one timestamp every entry gets.
 */
#ifndef GARCHIVE_TREEISH_H
#define GARCHIVE_TREEISH_H

#include <stdint.h>

#include <git2/oid.h>
#include <git2/types.h>
#include "odb/oid.h"

struct ga_commit;

struct treeish {
	struct ga_oid tree_id;	/* the archived tree */
	/*
	 * With keep_prefix: the whole tree of the tree-ish, of which
	 * tree_id is the subtree at the cwd prefix; else tree_id.
	 */
	struct ga_oid root_tree_id;
	/*
	 * With keep_prefix: the tree-ish has no directory at the cwd
	 * prefix, so nothing of its tree is archived (git 2.41 and later
	 * write an archive without entries; 2.39 failed).
	 */
	int no_subtree;
	struct ga_commit *commit; /* NULL when a tree was named (owned) */
	struct ga_oid commit_id;
	int64_t mtime;		/* archive time, seconds since the epoch */
	char *refname;		/* full ref name found by DWIM, or NULL */
	size_t hexsz;		/* hex digits of an object id: 40 or 64 */
};

struct ga_config;

struct treeish_options {
	const char *name;	/* the <tree-ish> argument */
	const char *cwd_prefix;	/* "" or "sub/dir/": archive that subtree */
	const char *mtime;	/* --mtime value or NULL */
	/*
	 * $SOURCE_DATE_EPOCH or NULL: the time of a tree (not of a commit)
	 * when --mtime is not given.
	 */
	const char *source_date_epoch;
	int remote;		/* serving a --remote client */
	int allow_unreachable;	/* uploadArchive.allowUnreachable */
	/*
	 * git 2.41 and later keep the cwd prefix for pathspecs and
	 * attributes rather than archive the subtree as if it were the
	 * whole tree: a tree-ish without that subdirectory is then no
	 * error (see treeish.no_subtree).
	 */
	int keep_prefix;
	/*
	 * The configuration "@{upstream}" and "@{push}" read; NULL: the
	 * repository's own, loaded when one of them is met.
	 */
	const struct ga_config *config;
};

/*
 * Resolve `opts->name` in `repo`.  Errors are git's: "not a valid object
 * name: X", "not a tree object: <hex>", "current working directory is
 * untracked" (unless keep_prefix), "no such ref: X" (remote), "invalid SOURCE_DATE_EPOCH
 * value: 'X'".  The archive time is --mtime; else the committer time of
 * a commit; else, for a tree, SOURCE_DATE_EPOCH when set and not empty,
 * or "now".
 */
int treeish_resolve(struct treeish *out, git_repository *repo,
		    const struct treeish_options *opts);
void treeish_release(struct treeish *t);

/*
 * The attribute source `name` (--attr-source, GIT_ATTR_SOURCE,
 * attr.tree) as git's repo_get_oid_treeish() resolves it, `cwd_prefix`
 * ("" or "dir/") giving "<rev>:./path" its meaning.  Returns 1 with *out
 * the tree it is or leads to, 0 when it names an object without a tree
 * (a blob: git then finds no attributes in it), GA_ENOTFOUND when the
 * name does not resolve (git's error lines, such as an ambiguous
 * abbreviation's, already reported), or another error.
 */
int treeish_attr_source(struct ga_oid *out, git_repository *repo,
			const char *name, const char *cwd_prefix);

/*
 * git's get_oid(): the object `name` names ("HEAD:.mailmap", a blob's
 * id...), as the tree-ish is resolved but without peeling it.  Returns
 * 0, GA_ENOTFOUND (git's error lines, such as an ambiguous
 * abbreviation's, already reported), or another error.
 */
int treeish_get_oid(struct ga_oid *out, git_repository *repo,
		    const char *name);

/*
 * Parse a --mtime value into seconds since the epoch.  Returns 0 or
 * GA_ERROR.  `now` is the time relative dates count from.
 */
int treeish_parse_date(int64_t *out, const char *s, int64_t now);

#endif

/*
 * rawtree.h: tree objects read the way git reads them.
 *
 * libgit2 normalises modes differently from git (any execute bit makes
 * a file executable, unknown modes become blobs, modes above 16 bits
 * make the whole tree unreadable), while git canonicalises every mode
 * (owner-execute bit decides, unknown types become gitlinks) and has
 * its own messages for malformed trees.  So the walk parses raw tree
 * objects itself, without copying them.
 */
#ifndef GARCHIVE_RAWTREE_H
#define GARCHIVE_RAWTREE_H

#include <stddef.h>
#include <stdint.h>

#include <git2/types.h>

#include "odb/oid.h"

struct rawtree_entry {
	const char *name;	/* NUL-terminated inside the tree data */
	size_t name_len;
	uint32_t mode;		/* canonical, as git's canon_mode() */
	uint32_t raw_mode;	/* as written in the tree */
	struct ga_oid id;
};

struct rawtree_iter {
	const unsigned char *p;
	size_t left;
	size_t hashsz;
};

/* git's canon_mode(): what a tree entry's mode means. */
uint32_t rawtree_canon_mode(uint32_t mode);

void rawtree_iter_init(struct rawtree_iter *it, const void *data,
		       size_t size, size_t hashsz);

/*
 * The next entry.  Returns 0, GA_ITEROVER, or GA_ERROR with git's
 * message ("too-short tree object", "malformed mode in tree entry",
 * "empty filename in tree entry", "too-short tree file").
 */
int rawtree_next(struct rawtree_entry *out, struct rawtree_iter *it);

/*
 * Read tree `id` from `odb` into *out (free with odb_object_free).
 * Returns 0, GA_ECORRUPT with git's message when it is damaged (see
 * odb.h), or GA_ENOTFOUND when it is missing or not a tree (the caller
 * words the error, which differs from place to place in git).
 */
struct odb_object;
int rawtree_read(struct odb_object **out, git_odb *odb,
		 const struct ga_oid *id);

/*
 * Find the entry at `path` ("a/b/c", or "a/b/" for a directory) below
 * tree `root`, as git's get_tree_entry() does (a search in each tree
 * stops at the first name past the one it looks for).  Returns 0, GA_ENOTFOUND, GA_ECORRUPT for a damaged tree, or
 * GA_ERROR for a malformed one.
 */
int rawtree_lookup(struct rawtree_entry *out, git_odb *odb,
		   const struct ga_oid *root, const char *path, size_t hashsz);

/*
 * The entry `name` (no '/') of tree `tree` at hand, as one step of
 * rawtree_lookup().  Returns 0, GA_ENOTFOUND, or GA_ERROR for a
 * malformed tree.
 */
int rawtree_find(struct rawtree_entry *out, const struct odb_object *tree,
		 const char *name, size_t hashsz);

/*
 * rawtree_lookup() for one path after another below the same root.  A
 * cursor keeps the trees along the path it found last, so that the
 * next lookup reads only the trees it does not hold yet: the walk looks
 * up "<dir>/.gitattributes" for each directory it enters, and from the
 * root each time that costs the square of the depth.  It holds the
 * trees of one path, no more: a path that leaves them frees those below
 * the fork.  The answers are rawtree_lookup()'s, also in a malformed
 * tree (an unsorted one, or names holding '/'): a tree is taken from
 * the cursor only where the search in its parent cannot end elsewhere
 * for the new path.
 */
struct rawtree_level;
struct rawtree_cursor {
	git_odb *odb;
	size_t hashsz;
	struct ga_oid root;
	struct rawtree_level *levels;	/* [0] is the root's, if nr */
	size_t nr, alloc;
	char *path;			/* the part of the last path held */
	size_t path_alloc;
};

void rawtree_cursor_init(struct rawtree_cursor *c, git_odb *odb,
			 size_t hashsz);

/* rawtree_lookup(out, c->odb, root, path, c->hashsz), with the cursor. */
int rawtree_cursor_lookup(struct rawtree_entry *out, struct rawtree_cursor *c,
			  const struct ga_oid *root, const char *path);

/* Free the trees held; the cursor may be used again. */
void rawtree_cursor_release(struct rawtree_cursor *c);

/*
 * Count the entries other than trees (files, symbolic links, gitlinks)
 * below tree `root`, for a progress meter's total.  Returns 0, or
 * GA_ENOTFOUND / GA_ERROR for a tree that cannot be read or parsed (the
 * count is then unknown; the walk reports the error in its own words).
 */
int rawtree_count(uint64_t *out, git_odb *odb, const struct ga_oid *root,
		  size_t hashsz);

#endif

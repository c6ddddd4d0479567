/*
 * index-file.h: the index (.git/index) read as git 2.39's read-cache.c
 * reads it, for ":<path>" and ":<stage>:<path>" in every repository,
 * SHA-256 ones included, whose index libgit2 cannot read.
 *
 * The layout is git's Documentation/technical/index-format.txt: a
 * header ("DIRC", version 2, 3 or 4, entry count), the entries (v4
 * with prefix-compressed paths), extensions, and a trailing hash of the
 * repository's length.  As in git 2.39 the trailing hash is not checked
 * (only git fsck checks it).  Optional extensions git does not know
 * (signature starting with an upper-case letter) are skipped with its
 * "ignoring <ext> extension" line; a required one is refused.  A sparse
 * index ("sdir") is expanded through its trees, as git expands it on
 * reading.  A split index ("link" naming a shared index) is refused:
 * garchive does not read shared indexes.
 *
 * Damage git would read out of bounds on (an entry or a name past the
 * end of the file) ends the read with git's "index file corrupt".
 */
#ifndef GARCHIVE_INDEX_FILE_H
#define GARCHIVE_INDEX_FILE_H

#include <stddef.h>
#include <stdint.h>

#include <git2/types.h>

#include "odb/oid.h"

/* git's in-core flag bits of an entry, as read. */
#define INDEX_FILE_STAGE_MASK		0x3000u
#define INDEX_FILE_STAGE_SHIFT		12
#define INDEX_FILE_EXTENDED		0x4000u
#define INDEX_FILE_INTENT_TO_ADD	(1u << 29)
#define INDEX_FILE_SKIP_WORKTREE	(1u << 30)

/* The mode of a directory entry of a sparse index. */
#define INDEX_FILE_SPARSE_DIR_MODE	0040000u

struct index_file_entry {
	char *name;		/* NUL-terminated, name_len bytes */
	size_t name_len;
	uint32_t mode;
	uint32_t flags;		/* stage, extended flags */
	struct ga_oid id;
};

struct index_file {
	unsigned version;
	enum ga_hash_algo algo;
	struct index_file_entry *entries;	/* in file order */
	size_t nr, alloc;
	int sparse;		/* "sdir": directories stand for trees */
	int split;		/* "link" names a shared index */
	struct ga_oid shared;	/* which one, when split */
};

/*
 * Parse the `size` bytes at `data` as an index file of a repository
 * whose objects `algo` names; `shown` names the file in messages.
 * Returns 0, or GA_ERROR with git's message ("<shown>: index file
 * smaller than expected", "unknown index entry format 0x<flags>",
 * "malformed name field in the index, near path '<path>'", or "index
 * file corrupt" after git's "error:" line, reported through
 * ga_report(): "bad signature 0x<sig>", "bad index version <n>", "index
 * uses <ext> extension, which we do not understand").  Does not refuse
 * a split index (see index_file_read()).  index_file_release() frees
 * *ix in any case.
 */
int index_file_parse(struct index_file *ix, const void *data, size_t size,
		     const char *shown, enum ga_hash_algo algo);

/*
 * Read and parse the index file at `path`: a missing one is an empty
 * index, as git takes it.  A split index is refused ("<shown>: garchive
 * cannot read a split index yet").  Returns 0 or GA_ERROR ("<shown>:
 * index file open failed: <strerror>" and the messages above).
 */
int index_file_read(struct index_file *ix, const char *path,
		    const char *shown, enum ga_hash_algo algo);

/*
 * git's ensure_full_index(): each directory entry of a sparse index
 * replaced by the files below its tree in `odb`, with the skip-worktree
 * flag.  As git, a tree that cannot be read is reported ("error: Could
 * not read <id>", "error: Object <id> not a tree") and leaves out what
 * is below it.  Nothing to do for an index without "sdir".  Returns 0,
 * GA_ECORRUPT for a damaged object, or GA_ERROR for a malformed tree.
 */
int index_file_expand(struct index_file *ix, git_odb *odb);

/*
 * git's lookup of ":<stage>:<path>" (get_oid_with_context()): the entry
 * of `path` (`len` bytes) at `stage`, found by git's binary search, so
 * that an unsorted index answers as git's does; a directory entry is
 * not an answer.  Returns the entry (owned by `ix`) or NULL.
 */
const struct index_file_entry *index_file_find(const struct index_file *ix,
					       const char *path, size_t len,
					       int stage);

void index_file_release(struct index_file *ix);

#endif

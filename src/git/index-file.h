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
 * reading.  A split index ("link" naming a shared index) is merged with
 * its shared index as git's read_index_from() and split-index.c's
 * merge_base_index() merge them: the shared index's entries, those the
 * replace bitmap marks taking the split index's nameless entries in
 * order, those the delete bitmap marks removed, and the split index's
 * other entries added as add_index_entry() adds them.  git also
 * refreshes the shared index's modification time (freshen_shared_index());
 * garchive reads and leaves the repository as it is.
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
#include "ewah.h"

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
	struct ewah delete_bm;	/* the link's bitmaps (none: empty) */
	struct ewah replace_bm;
	struct ga_oid checksum;	/* the trailing hash, as read */
};

/*
 * Parse the `size` bytes at `data` as an index file of a repository
 * whose objects `algo` names; `shown` names the file in messages.
 * Returns 0, or GA_ERROR with git's message ("<shown>: index file
 * smaller than expected", "unknown index entry format 0x<flags>",
 * "malformed name field in the index, near path '<path>'", or "index
 * file corrupt" after git's "error:" line, reported through
 * ga_report(): "bad signature 0x<sig>", "bad index version <n>", "index
 * uses <ext> extension, which we do not understand", "corrupt link
 * extension (too short)", "corrupt delete bitmap in link extension",
 * "corrupt replace bitmap in link extension", "garbage at the end of
 * link extension"), or git's "cannot use split index with a sparse
 * index".  A split index is parsed, not merged (see index_file_read()
 * and index_file_merge()).  index_file_release() frees *ix in any case.
 */
int index_file_parse(struct index_file *ix, const void *data, size_t size,
		     const char *shown, enum ga_hash_algo algo);

/*
 * git's merge_base_index(): the split index `ix` merged with `base`,
 * its shared index, into *ix; base's entries move into ix and base is
 * left empty (still to be released).  A split entry whose path git's
 * verify_path() refuses is left out after git's "error: invalid path
 * '<path>'" line.  Returns 0, or GA_ERROR with git's message ("position
 * for replacement <n> exceeds base index size <m>", "position for delete
 * <n> exceeds base index size <m>", "too many replacements (<n> vs
 * <m>)", "corrupt link extension, entry <n> should have zero length
 * name", "... should have non-zero length name", or "index file
 * corrupt" for a bitmap that runs past its words).
 */
int index_file_merge(struct index_file *ix, struct index_file *base);

/*
 * Read and parse the index file at `path`: a missing one is an empty
 * index, as git takes it.  A split index is merged with its shared
 * index, read as git reads it: "sharedindex.<hex>" in `gitdir` (a path
 * ending in '/'), else beside `path`, which must have it.  `shown`
 * and `gitdir_shown` (no final '/') name the index and the git dir in
 * messages.  Returns 0 or GA_ERROR ("<shown>: index file open failed:
 * <strerror>", "broken index, expect <hex> in <gitdir_shown>/
 * sharedindex.<hex>, got <hex>", and the messages above).
 */
int index_file_read(struct index_file *ix, const char *path,
		    const char *shown, const char *gitdir,
		    const char *gitdir_shown, enum ga_hash_algo algo);

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

/*
 * packed.h: the packed-refs file, read as git's packed-backend.c reads
 * it.
 *
 *	# pack-refs with: peeled fully-peeled sorted
 *	<id> SP <refname> LF
 *	^<peeled id> LF			(after a ref to an annotated tag)
 *
 * The header's traits say which refs have their peeled value recorded
 * ("peeled": those under refs/tags/; "fully-peeled": all of them) and
 * whether the records are sorted; unsorted records are sorted here, as
 * git sorts them.  A line that does not parse ends the read with git's
 * "unexpected line in <path>: <line>" or "unterminated line in <path>:
 * <line>" (git dies with them).
 */
#ifndef GARCHIVE_REFS_PACKED_H
#define GARCHIVE_REFS_PACKED_H

#include <stddef.h>

#include "refs/refs-raw.h"

enum packed_peeled {
	PACKED_PEELED_NONE,
	PACKED_PEELED_TAGS,
	PACKED_PEELED_FULLY
};

struct packed_record {
	size_t start, len;	/* the record's lines, its "^" line included */
};

struct packed_refs {
	char *path;			/* for messages */
	char *buf;			/* the file, NUL-terminated */
	size_t len;
	enum ga_hash_algo algo;
	enum packed_peeled peeled;
	struct packed_record *recs;	/* in byte order of their names */
	size_t nr;
};

/*
 * Take the `len` bytes at `buf` (malloc'd, at least len + 1 bytes; the
 * store owns it from here, even on failure) as the packed-refs file
 * `path`.  Returns 0, or GA_ERROR with git's message.  Release with
 * packed_release() in any case.
 */
int packed_parse(struct packed_refs *p, char *buf, size_t len,
		 const char *path, enum ga_hash_algo algo);

/*
 * Read the file at `path`; a missing file is an empty one.  Returns 0,
 * or GA_ERROR ("couldn't read <path>: <strerror>", or damage).
 */
int packed_load(struct packed_refs *p, const char *path,
		enum ga_hash_algo algo);

void packed_release(struct packed_refs *p);

/*
 * The id of `refname`, as git's packed_read_raw_ref() (the record's own
 * line only).  Returns 0 with `out` set (flags REFS_ISPACKED, and
 * REFS_PEELED with the peeled value when the file records it),
 * GA_ENOTFOUND, or GA_ERROR.
 */
int packed_read(struct refs_raw *out, const struct packed_refs *p,
		const char *refname);

/* The index of the first record whose name is not below `name`. */
size_t packed_seek(const struct packed_refs *p, const char *name);

/*
 * Record `i` in full, as git's packed ref iterator reads it: a bad name
 * is flagged REFS_BAD_NAME | REFS_ISBROKEN with the null id (GA_ERROR,
 * "packed refname is dangerous: <name>", when it could escape refs/).
 */
int packed_record(struct refs_raw *out, const struct packed_refs *p,
		  size_t i);

/*
 * An iteration over the records whose names start with `prefix`; `p`
 * must outlive it.
 */
struct refs_iter *packed_iter_new(const struct packed_refs *p,
				  const char *prefix);

#endif

/*
 * pack.h: pack indexes, pack entries and deltas, parsed from memory.
 *
 * The formats are git's (Documentation/technical/pack-format.txt): an
 * index lists the ids of a pack's objects in order with their offsets
 * (version 1: SHA-1 only; version 2: ids of the repository's hash, 20 or
 * 32 bytes); an entry is a header (type and size in a varint), for a
 * delta the base (an offset back, or the base's id), then a zlib stream.
 * A delta is the base's size, the result's size, and copy/insert ops.
 *
 * Nothing here trusts a number read from the file: every offset is
 * checked against the bytes there are, and no allocation is sized by a
 * size from the file before the bytes that must back it were seen.
 * Errors are returned as codes; the messages are git's and are made by
 * the caller (store.c), which knows the names git uses.
 */
#ifndef GARCHIVE_ODB_PACK_H
#define GARCHIVE_ODB_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "odb/oid.h"

/* Object types as a pack stores them (git's enum object_type). */
enum ga_obj_type {
	GA_OBJ_BAD = -1,
	GA_OBJ_NONE = 0,
	GA_OBJ_COMMIT = 1,
	GA_OBJ_TREE = 2,
	GA_OBJ_BLOB = 3,
	GA_OBJ_TAG = 4,
	GA_OBJ_OFS_DELTA = 6,
	GA_OBJ_REF_DELTA = 7
};

/* A pack index, checked as git's check_packed_git_idx() checks it. */
struct ga_pack_idx {
	const unsigned char *map;
	size_t size;
	size_t rawsz;			/* bytes of an id */
	int version;			/* 1 or 2 */
	uint32_t nr;			/* objects */
	const unsigned char *fanout;	/* 256 big-endian counts */
	const unsigned char *names;	/* first id (v1: first entry) */
	size_t stride;			/* bytes from one id to the next */
	const unsigned char *offsets;	/* v2: 4-byte offsets */
	const unsigned char *large;	/* v2: 8-byte offsets */
};

/* Why an index was refused; the caller words it as git. */
enum ga_idx_error {
	GA_IDX_OK = 0,
	GA_IDX_TOO_SMALL,		/* "index file %s is too small" */
	GA_IDX_VERSION,			/* "... is version %u and is not supported" */
	GA_IDX_NON_MONOTONIC,		/* "non-monotonic index %s" */
	GA_IDX_V1_SIZE,			/* "wrong index v1 file size in %s" */
	GA_IDX_V2_SIZE			/* "wrong index v2 file size in %s" */
};

/*
 * Check the index of `size` bytes at `map` for ids of `rawsz` bytes and
 * fill `idx`.  Returns GA_IDX_OK or why it is refused; *version is the
 * version it says (for GA_IDX_VERSION's message).
 */
enum ga_idx_error ga_pack_idx_parse(struct ga_pack_idx *idx,
				    const unsigned char *map, size_t size,
				    size_t rawsz, uint32_t *version);

/* The id at position `pos` (< nr). */
const unsigned char *ga_pack_idx_name(const struct ga_pack_idx *idx,
				      uint32_t pos);

/*
 * The position of id `raw` (rawsz bytes) in the index: 1 with *pos set,
 * or 0 when it is not listed.
 */
int ga_pack_idx_find(const struct ga_pack_idx *idx, const unsigned char *raw,
		     uint32_t *pos);

/*
 * The first position whose id starts with the `nibbles` hex digits of
 * `raw` (the digit past them ignored), or nr when none: *pos, and 1 when
 * that one matches.
 */
int ga_pack_idx_find_prefix(const struct ga_pack_idx *idx,
			    const unsigned char *raw, size_t nibbles,
			    uint32_t *pos);
/* Whether the id at `pos` starts with those digits. */
int ga_pack_idx_matches(const struct ga_pack_idx *idx, uint32_t pos,
			const unsigned char *raw, size_t nibbles);

/*
 * The pack offset of the object at `pos`.  Returns 0, or -1 when a v2
 * large offset points where git stops: past the table and the pack
 * checksum after it, to the last 8 bytes of the file or beyond (git
 * dies: "offset beyond end of pack index for %s (truncated index?)").
 */
int ga_pack_idx_offset(const struct ga_pack_idx *idx, uint32_t pos,
		       uint64_t *offset);

/* The pack checksum the index records (rawsz bytes). */
const unsigned char *ga_pack_idx_pack_checksum(const struct ga_pack_idx *idx);

/*
 * An entry's header at `p` (`len` bytes there): type and size, as git's
 * unpack_object_header_buffer().  Returns the bytes used, or 0 for a
 * header that runs out of bytes or overflows 64 bits ("bad object
 * header").
 */
size_t ga_pack_entry_header(const unsigned char *p, size_t len,
			    enum ga_obj_type *type, uint64_t *size);

/*
 * An OFS_DELTA's base offset after the header at `p` (`len` bytes), for
 * the entry at `entry_offset`: 0 when it is malformed or does not point
 * before the entry (git: "failed to validate delta base reference").
 * *used is the bytes read.
 */
uint64_t ga_pack_ofs_base(const unsigned char *p, size_t len,
			  uint64_t entry_offset, size_t *used);

/* What inflating an entry found. */
enum ga_inflate_result {
	GA_INFLATE_OK = 0,
	GA_INFLATE_ZLIB,		/* zlib refused it: *zstatus, *zmsg */
	GA_INFLATE_SIZE,		/* it ended before or after `size` */
	GA_INFLATE_TRUNCATED		/* it ran into the end of the data */
};

/*
 * Inflate the zlib stream at `p` (`len` bytes) into `size` bytes at
 * `out`, as git's unpack_compressed_entry(): the stream must end exactly
 * there.  On GA_INFLATE_ZLIB, *zstatus is zlib's status and *zmsg its
 * message (static, or NULL).
 */
enum ga_inflate_result ga_pack_inflate(unsigned char *out, uint64_t size,
				       const unsigned char *p, size_t len,
				       int *zstatus, const char **zmsg);

/*
 * The first bytes of a delta's zlib stream, for its sizes: inflate up
 * to `cap` bytes into `out`.  Returns the bytes inflated (git's
 * get_size_from_delta() reads 20), or -1 when zlib refused the data.
 */
long ga_pack_inflate_head(unsigned char *out, size_t cap,
			  const unsigned char *p, size_t len);

/*
 * A delta's two sizes, as git's get_delta_hdr_size(): returns 0 and
 * moves *p, or -1 when the varint runs out or overflows.
 */
int ga_delta_size(const unsigned char **p, const unsigned char *end,
		  uint64_t *size);

/* Why a delta could not be applied, as git's patch_delta() tells it. */
enum ga_delta_error {
	GA_DELTA_BAD_SIZE = -1,		/* too short, or not for this base:
					   no message */
	GA_DELTA_WILD = -2,		/* "delta replay has gone wild" */
	GA_DELTA_OPCODE_0 = -3		/* "unexpected delta opcode 0" */
};

/*
 * Apply `delta` to `base`, as git's patch_delta(): the base size the
 * delta names must be base_len, every copy must lie inside the base and
 * the ops must make exactly the result size it names.  Returns 0 with
 * *out (malloc'd, with a NUL after it) and *out_len, or an
 * enum ga_delta_error.  The ops are checked before the result is
 * allocated, so its size is what they make, not only a number named.
 */
int ga_delta_apply(unsigned char **out, size_t *out_len,
		   const unsigned char *base, size_t base_len,
		   const unsigned char *delta, size_t delta_len);

/*
 * The same, with *out from `alloc` (which does not fail): the result
 * goes straight into a buffer its reader owns, with no copy.
 */
int ga_delta_apply_alloc(unsigned char **out, size_t *out_len,
			 const unsigned char *base, size_t base_len,
			 const unsigned char *delta, size_t delta_len,
			 void *(*alloc)(void *ctx, size_t len), void *ctx);

#endif

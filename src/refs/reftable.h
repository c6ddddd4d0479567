/*
 * reftable.h: one reftable file, read from memory, as
 * Documentation/technical/reftable describes it and git 2.45 and later
 * write it.
 *
 *	header ("REFT", version, block size, update indices[, hash id])
 *	ref blocks ('r')   ref index blocks ('i')   obj blocks ('o')
 *	log blocks ('g', deflated)   log index blocks ('i')
 *	footer (the header again, section positions, CRC-32)
 *
 * Version 1 tables hold SHA-1 ids; version 2 names its hash ("sha1",
 * "s256").  A block holds records whose keys are prefix-compressed
 * against the record before, and ends with a table of restart points
 * (records stored whole) for a binary search.  Blocks may be padded to
 * the table's block size; the last block of a section is not.  The
 * first block shares the file's first block_size bytes with the header,
 * and its offsets count from the start of the file.
 *
 * Every offset and length is checked against the bytes there are; a
 * varint that overflows, a prefix longer than the key before it, a
 * restart point outside its block, an index that does not point
 * backwards, a log block that inflates to more or less than it says:
 * each ends the read with GA_ERROR and "<name>: corrupt reftable file",
 * git's words for REFTABLE_FORMAT_ERROR.  Obj blocks (ids to refs) are
 * never read.
 */
#ifndef GARCHIVE_REFS_REFTABLE_H
#define GARCHIVE_REFS_REFTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "garchive/common.h"
#include "odb/oid.h"

/* The largest block the format can describe (a 24-bit length). */
#define REFTABLE_BLOCK_MAX 0xffffffu

#define REFTABLE_BLOCK_REF	'r'
#define REFTABLE_BLOCK_LOG	'g'
#define REFTABLE_BLOCK_INDEX	'i'
#define REFTABLE_BLOCK_OBJ	'o'

/* Value types of ref records, and of log records. */
#define REFTABLE_REF_DELETION	0
#define REFTABLE_REF_VAL1	1
#define REFTABLE_REF_VAL2	2
#define REFTABLE_REF_SYMREF	3
#define REFTABLE_LOG_DELETION	0
#define REFTABLE_LOG_UPDATE	1

struct reftable_table {
	const unsigned char *data;	/* the whole file */
	uint64_t size;
	uint64_t end;			/* where the footer starts */
	const char *name;		/* for messages */
	unsigned version;
	size_t header_size;
	size_t hash_size;
	enum ga_hash_algo algo;
	uint32_t block_size;		/* 0: unaligned */
	uint64_t min_update_index, max_update_index;
	uint64_t ref_index_pos, log_pos, log_index_pos;
	int has_refs, has_logs;
};

/*
 * Check the header and footer of the `size` bytes at `data` (kept, not
 * copied), a table of ids of `algo`, named `name` in messages (kept
 * too).  Returns 0 or GA_ERROR.
 */
int reftable_table_init(struct reftable_table *t, const unsigned char *data,
			uint64_t size, enum ga_hash_algo algo,
			const char *name);

/* One block, its records decoded on demand. */
struct reftable_block {
	const unsigned char *data;	/* data[header_off] is the type */
	size_t len;			/* block_len: the restarts end here */
	size_t header_off;		/* file header bytes before it */
	unsigned char type;
	size_t restart_off;		/* the records end here */
	size_t restart_count;
	size_t full_len;		/* to the next block */
	struct ga_buf inflated;		/* a log block's records */
	const char *name;		/* for messages */
};

/*
 * Parse the block at `data`, `avail` bytes before the footer, with
 * `header_off` bytes of file header before its type byte (the first
 * block) in a table of `block_size` (0: unaligned).  A log block is
 * inflated into b->inflated, its size checked against what its header
 * says.  Returns 0 or GA_ERROR.  Release with reftable_block_release().
 */
int reftable_block_parse(struct reftable_block *b, const unsigned char *data,
			 size_t avail, size_t header_off, uint32_t block_size,
			 const char *name);
void reftable_block_release(struct reftable_block *b);

/* A decoded record of any block type. */
struct reftable_record {
	struct ga_buf key;		/* ref: name; log: name \0 index */
	unsigned char value_type;
	uint64_t update_index;		/* ref: from the table's minimum */
	unsigned char id1[GA_OID_MAX_RAWSZ];	/* value; log: old id */
	unsigned char id2[GA_OID_MAX_RAWSZ];	/* peeled; log: new id */
	struct ga_buf target;		/* symbolic ref */
	struct ga_buf who_name, who_email, message;
	uint64_t time;
	int tz;
	uint64_t position;		/* index: the block it points to */
};

void reftable_record_release(struct reftable_record *rec);

/* A log record's ref name (its key up to the NUL). */
size_t reftable_log_name_len(const struct reftable_record *rec);

/*
 * The next record of block `b` at offset *next, decoded into `rec`
 * against the key `rec` holds (the record before), of ids of
 * `hash_size` bytes.  Returns 0 (and moves *next on), 1 when the
 * records are over, or GA_ERROR.
 */
int reftable_block_next(struct reftable_record *rec,
			const struct reftable_block *b, size_t *next,
			size_t hash_size);

/*
 * Position *next and `rec` for the first record of `b` whose key is not
 * below `want` (`len` bytes), through the restart points: returns 0
 * with that record decoded in `rec` (*next past it), 1 when every key
 * is below, or GA_ERROR.
 */
int reftable_block_seek(struct reftable_record *rec,
			const struct reftable_block *b, size_t *next,
			size_t hash_size, const unsigned char *want,
			size_t len);

/* A walk through the ref or log section of a table, in key order. */
struct reftable_cursor {
	const struct reftable_table *t;
	unsigned char type;
	struct reftable_block block;
	uint64_t block_pos;
	size_t next;
	struct reftable_record rec;
	int pending;			/* rec holds the next record */
	int done;
};

/*
 * Start `c` (zeroed, or used before) on the ref (REFTABLE_BLOCK_REF) or
 * log section of `t` at the first key not below `want`, through the
 * section's index when it has one.  Returns 0 or GA_ERROR.
 */
int reftable_cursor_seek(struct reftable_cursor *c,
			 const struct reftable_table *t, unsigned char type,
			 const unsigned char *want, size_t len);

/*
 * The next record, in c->rec: 0, 1 at the end of the section, or
 * GA_ERROR.  A ref's update index is made absolute.
 */
int reftable_cursor_next(struct reftable_cursor *c);
void reftable_cursor_release(struct reftable_cursor *c);

/* Compare keys as the format orders them (bytes, shorter first). */
int reftable_key_cmp(const unsigned char *a, size_t alen,
		     const unsigned char *b, size_t blen);

#endif

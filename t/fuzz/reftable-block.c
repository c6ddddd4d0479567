/*
 * Fuzz one reftable block (src/refs/reftable.c): the block header, the
 * restart table, prefix-compressed keys and the records of every block
 * type, and a log block's deflated records.  The first byte picks:
 *
 * - bits 0-1: the file header before the block (none, version 1's 24
 *   bytes, version 2's 28), as for a table's first block;
 * - bit 2: ids of SHA-256 (32 bytes) instead of SHA-1;
 * - bit 3: a block size of 256 (padding) instead of unaligned;
 * - bit 4: build a log block: the rest is its records, deflated here
 *   behind a 'g' header that says their size, so that log records are
 *   explored behind a valid zlib stream.
 *
 * Every record is decoded once from the start, then the block is
 * searched (through the restart points) for each key found and for a
 * few made-up ones.  A seek lands on a record whose key is not below
 * the one sought; nothing reads past the block; each record takes
 * bytes, so the walks end.
 */
#include "fuzz.h"

#include <zlib.h>

#include "refs/reftable.h"

static void walk(const struct reftable_block *b, size_t hash_size)
{
	struct reftable_record rec, at;
	struct ga_strvec keys = GA_STRVEC_INIT;
	size_t next = b->header_off + 4, i, steps = 0, n;
	static const char *const made_up[] = { "", "refs/", "\xff" };
	int ret;

	memset(&rec, 0, sizeof(rec));
	memset(&at, 0, sizeof(at));
	while ((ret = reftable_block_next(&rec, b, &next, hash_size)) == 0) {
		FUZZ_CHECK(next <= b->restart_off);
		FUZZ_CHECK(++steps <= b->len);
		if (keys.nr < 32)
			ga_strvec_push(&keys, ga_xstrndup(rec.key.ptr,
							  rec.key.len));
	}
	FUZZ_CHECK(ret == 1 || ret == GA_ERROR);
	for (i = 0; i < keys.nr + 3; i++) {
		const char *want = i < keys.nr ? keys.v[i]
					       : made_up[i - keys.nr];

		n = strlen(want);
		ret = reftable_block_seek(&at, b, &next, hash_size,
					  (const unsigned char *)want, n);
		FUZZ_CHECK(ret == 0 || ret == 1 || ret == GA_ERROR);
		if (!ret)
			FUZZ_CHECK(reftable_key_cmp((unsigned char *)at.key.ptr,
						    at.key.len,
						    (const unsigned char *)want,
						    n) >= 0);
	}
	ga_strvec_clear(&keys);
	reftable_record_release(&rec);
	reftable_record_release(&at);
	ga_error_clear();
}

/* A 'g' block of the records at data, deflated. */
static unsigned char *log_block(size_t *len, size_t header_off,
				const uint8_t *data, size_t size)
{
	uLongf zlen = compressBound(size);
	unsigned char *b = ga_xcalloc(1, header_off + 4 + zlen);
	size_t sz = header_off + 4 + size;

	if (header_off)
		memcpy(b, "REFT", 4);
	b[header_off] = 'g';
	b[header_off + 1] = (unsigned char)(sz >> 16);
	b[header_off + 2] = (unsigned char)(sz >> 8);
	b[header_off + 3] = (unsigned char)sz;
	FUZZ_CHECK(compress(b + header_off + 4, &zlen, data, size) == Z_OK);
	*len = header_off + 4 + zlen;
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t header_offs[] = { 0, 24, 28, 0 };
	struct reftable_block b;
	size_t header_off, hash_size, len;
	unsigned char *buf;

	if (size < 1 || size > REFTABLE_BLOCK_MAX)
		return 0;
	header_off = header_offs[data[0] & 3];
	hash_size = data[0] & 4 ? 32 : 20;
	if (data[0] & 0x10) {
		buf = log_block(&len, header_off, data + 1, size - 1);
	} else {
		len = size - 1;
		buf = ga_xmalloc(len + 1);
		memcpy(buf, data + 1, len);
	}
	memset(&b, 0, sizeof(b));
	if (!reftable_block_parse(&b, buf, len, header_off,
				  data[0] & 8 ? 256 : 0, "fuzz")) {
		FUZZ_CHECK(b.restart_off <= b.len);
		FUZZ_CHECK(b.full_len > 0);
		FUZZ_CHECK(b.type == REFTABLE_BLOCK_LOG || b.len <= len);
		walk(&b, hash_size);
	}
	reftable_block_release(&b);
	ga_error_clear();
	free(buf);
	return 0;
}

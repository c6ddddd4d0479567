/*
 * Fuzz a whole reftable (src/refs/reftable.c): header and footer (CRC,
 * version, hash id, section positions), then the walk through its ref
 * and log sections, block after block (padding, unpadded ends of
 * sections), and seeks through the indexes (levels pointing back, a
 * linear search without one).  The first byte picks the hash (bit 0:
 * SHA-256); the rest is the file.  Tables git made seed it.
 *
 * Walks end (each record and block takes bytes, so no walk yields more
 * records than the file has bytes); every failure is GA_ERROR with a
 * message.  (Key order is not checked: a damaged table may hold its
 * keys in any order, and git reads it as it comes.)
 */
#include "fuzz.h"

#include "refs/reftable.h"

static int walk(const struct reftable_table *t, unsigned char type,
		const char *from, struct ga_strvec *keys)
{
	struct reftable_cursor c;
	size_t n = strlen(from);
	uint64_t steps = 0;
	int ret;

	memset(&c, 0, sizeof(c));
	ret = reftable_cursor_seek(&c, t, type, (const unsigned char *)from,
				   n);
	while (!ret && !(ret = reftable_cursor_next(&c))) {
		FUZZ_CHECK(++steps <= t->size);
		if (keys && keys->nr < 16 && !memchr(c.rec.key.ptr, 0,
						      c.rec.key.len))
			ga_strvec_push(keys, ga_xstrndup(c.rec.key.ptr,
							 c.rec.key.len));
	}
	FUZZ_CHECK(ret == 1 || ret == GA_ERROR);
	FUZZ_CHECK(ret != GA_ERROR || *ga_error_message());
	reftable_cursor_release(&c);
	ga_error_clear();
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reftable_table t;
	struct ga_strvec keys = GA_STRVEC_INIT;
	unsigned char *copy;
	size_t i;

	if (size < 1)
		return 0;
	copy = ga_xmalloc(size);
	memcpy(copy, data + 1, size - 1);
	if (!reftable_table_init(&t, copy, size - 1,
				 data[0] & 1 ? GA_HASH_SHA256 : GA_HASH_SHA1,
				 "fuzz.ref")) {
		walk(&t, REFTABLE_BLOCK_REF, "", &keys);
		walk(&t, REFTABLE_BLOCK_LOG, "", NULL);
		for (i = 0; i < keys.nr; i++) {
			walk(&t, REFTABLE_BLOCK_REF, keys.v[i], NULL);
			walk(&t, REFTABLE_BLOCK_LOG, keys.v[i], NULL);
		}
		walk(&t, REFTABLE_BLOCK_REF, "refs/heads/", NULL);
		walk(&t, REFTABLE_BLOCK_REF, "\xff", NULL);
	}
	ga_error_clear();
	ga_strvec_clear(&keys);
	free(copy);
	return 0;
}

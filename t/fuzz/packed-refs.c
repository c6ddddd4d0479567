/*
 * Fuzz the packed-refs reader (src/refs/packed.c): the header and its
 * traits, the check of the last record, the split into records ("^"
 * lines kept with theirs), the sort of an unsorted file, look-ups by
 * binary search and the full read of each record (names, ids, peeled
 * lines).  The first byte picks the hash (bit 0: SHA-256); the rest is
 * the file.
 *
 * A parse succeeds with records in order, or fails with git's "unexpected
 * line" or "unterminated line" message; each record found by iteration
 * is found again by name unless its line is damaged.
 */
#include "fuzz.h"

#include "refs/packed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct packed_refs p;
	struct refs_raw raw, again;
	char *buf;
	size_t i;
	int ret;

	if (size < 1)
		return 0;
	buf = ga_xmalloc(size);
	memcpy(buf, data + 1, size - 1);
	memset(&raw, 0, sizeof(raw));
	memset(&again, 0, sizeof(again));
	ret = packed_parse(&p, buf, size - 1, "packed-refs",
			   data[0] & 1 ? GA_HASH_SHA256 : GA_HASH_SHA1);
	if (ret) {
		FUZZ_CHECK(ret == GA_ERROR);
		FUZZ_CHECK(strstr(ga_error_message(),
				  " line in packed-refs: "));
	}
	for (i = 0; !ret && i < p.nr; i++) {
		FUZZ_CHECK(p.recs[i].start + p.recs[i].len <= p.len);
		if (packed_record(&raw, &p, i) < 0) {
			ga_error_clear();
			continue;
		}
		FUZZ_CHECK(packed_seek(&p, raw.name.ptr) <= i ||
			   strlen(raw.name.ptr) != raw.name.len);
		if (strlen(raw.name.ptr) == raw.name.len &&
		    !packed_read(&again, &p, raw.name.ptr))
			FUZZ_CHECK(again.flags & REFS_ISPACKED);
		ga_error_clear();
	}
	refs_raw_release(&raw);
	refs_raw_release(&again);
	packed_release(&p);
	ga_error_clear();
	return 0;
}

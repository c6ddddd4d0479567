/*
 * Fuzz the index reader (src/git/index-file.c): the header, entries of
 * versions 2 to 4 (v4's prefix-compressed names), extended flags and
 * extensions, then git's binary search for every entry read.  The
 * first byte picks the hash (bit 0: SHA-256); the rest is the file.
 *
 * A parse succeeds, or fails with GA_ERROR and a message; every entry
 * of a successful parse has a NUL-terminated name of its length, and
 * in a sorted index each is found again by name and stage.  A split
 * index (a "link" extension, its EWAH bitmaps) is then merged with
 * the same file read as its shared index, which reaches the bitmap
 * walk and git's add_index_entry() order; the merge succeeds or fails
 * as the parse does, and leaves the same invariants.
 */
#include "fuzz.h"

#include "git/index-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct index_file ix, base;
	const struct index_file_entry *e, *found;
	enum ga_hash_algo algo;
	int ret, sorted = 1;
	size_t i;

	if (size < 1)
		return 0;
	algo = data[0] & 1 ? GA_HASH_SHA256 : GA_HASH_SHA1;
	ret = index_file_parse(&ix, data + 1, size - 1, "index", algo);
	if (ret) {
		FUZZ_CHECK(ret == GA_ERROR);
		FUZZ_CHECK(*ga_error_message());
	}
	if (!ret && ix.split) {
		FUZZ_CHECK(!index_file_parse(&base, data + 1, size - 1,
					     "sharedindex", algo));
		ret = index_file_merge(&ix, &base);
		FUZZ_CHECK(base.nr == 0);
		index_file_release(&base);
		if (ret) {
			FUZZ_CHECK(ret == GA_ERROR);
			FUZZ_CHECK(*ga_error_message());
		}
	}
	for (i = 0; !ret && i < ix.nr; i++) {
		e = &ix.entries[i];
		FUZZ_CHECK(e->name && strlen(e->name) <= e->name_len);
		FUZZ_CHECK(e->name[e->name_len] == '\0');
		if (i && strcmp(ix.entries[i - 1].name, e->name) >= 0)
			sorted = 0;
	}
	for (i = 0; !ret && sorted && i < ix.nr; i++) {
		int stage;

		e = &ix.entries[i];
		stage = (int)((e->flags & INDEX_FILE_STAGE_MASK) >>
			      INDEX_FILE_STAGE_SHIFT);
		found = index_file_find(&ix, e->name, e->name_len, stage);
		FUZZ_CHECK(found == (e->mode == INDEX_FILE_SPARSE_DIR_MODE ?
				     NULL : e));
	}
	index_file_release(&ix);
	index_file_release(&ix);
	ga_error_clear();
	return 0;
}

/*
 * Fuzz the zip reader of `garchive verify`: the input is the archive,
 * read as from a pipe (front to back), local entries with their content
 * (stored or inflated, bounded by a 1 MiB budget), then the central
 * directory and the end records.  Nothing may crash, loop or read out
 * of bounds; a member never yields more than it declares.
 */
#include "fuzz.h"

#include "bytesrc.h"
#include "zip-read.h"

#define FUZZ_BUDGET ((uint64_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem_source src;
	struct zip_reader *r;
	struct zip_read_entry *e;
	struct zip_read_central *c;
	struct zip_read_summary s;
	unsigned char buf[1000];
	uint64_t total = 0, trailing;
	int error, more;

	mem_source_init(&src, data, size);
	zip_reader_new(&r, &src.base, FUZZ_BUDGET);
	while ((error = zip_reader_next(&e, r)) == 0) {
		uint64_t got = 0;
		size_t n;

		FUZZ_CHECK(e->path[e->path_len] == '\0');
		FUZZ_CHECK(e->offset < size);
		while ((error = zip_reader_read(r, buf, sizeof(buf), &n)) == 0
		       && n)
			got += n;
		if (error)
			break;
		total += got;
		FUZZ_CHECK(total <= FUZZ_BUDGET);
	}
	if (error == GA_ITEROVER)
		while ((error = zip_reader_next_central(&c, r)) == 0)
			FUZZ_CHECK(c->path[c->path_len] == '\0');
	if (error == GA_ITEROVER)
		FUZZ_CHECK(zip_reader_trailer(r, 4096, &trailing, &more) == 0);
	zip_reader_summary(&s, r);
	FUZZ_CHECK(s.nr_central <= size / 46 + 1);
	FUZZ_CHECK(!s.comment || s.comment[s.comment_len] == '\0');
	ga_error_clear();
	zip_reader_free(r);
	return 0;
}

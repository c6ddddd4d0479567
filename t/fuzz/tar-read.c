/*
 * Fuzz the tar reader of `garchive verify`: the input is the archive.
 * Every entry's content is read to the end, then the trailer.  The
 * reader must never crash, read out of bounds or loop, whatever the
 * headers claim; its answers must stay inside what it was given.
 */
#include "fuzz.h"

#include "bytesrc.h"
#include "tar-read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tar_read_limits limits = { 4096 };
	struct mem_source src;
	struct tar_reader *r;
	struct tar_read_entry *e;
	struct tar_read_summary s;
	unsigned char buf[700];
	uint64_t last = 0, len;
	int error, zeros, more;

	mem_source_init(&src, data, size);
	tar_reader_new(&r, &src.base, &limits);
	while ((error = tar_reader_next(&e, r)) == 0) {
		uint64_t got = 0;
		size_t n;

		FUZZ_CHECK(e->path[e->path_len] == '\0');
		FUZZ_CHECK(e->link[e->link_len] == '\0');
		FUZZ_CHECK(e->offset >= last && e->offset < size);
		FUZZ_CHECK(e->perm <= 07777);
		last = e->offset + 1;
		while ((error = tar_reader_read(r, buf, sizeof(buf), &n)) == 0
		       && n)
			got += n;
		if (error)
			break;
		FUZZ_CHECK(got == e->size);
	}
	tar_reader_summary(&s, r);
	FUZZ_CHECK(s.end <= size);
	if (error == GA_ITEROVER) {
		FUZZ_CHECK(tar_reader_trailer(r, 2048, &len, &zeros, &more)
			   == 0);
		FUZZ_CHECK(len <= 2048 + 512);
	}
	ga_error_clear();
	tar_reader_free(r);
	return 0;
}

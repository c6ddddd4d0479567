/*
 * ewah.c: EWAH bitmaps read as git 2.39 reads them (see ewah.h).
 */
#include "ewah.h"
#include "garchive/common.h"

#include <stdlib.h>

#define EWAH_RUN_BIT		1u
#define EWAH_RUN_LEN_SHIFT	1
#define EWAH_RUN_LEN_MASK	0xffffffffu
#define EWAH_LITERAL_SHIFT	33

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_be64(const unsigned char *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

int ewah_read(struct ewah *bm, size_t *used, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t data_len;
	uint32_t nr;
	size_t i;

	ewah_release(bm);
	if (len < 4)
		goto eof_bits;
	bm->bit_size = get_be32(p);
	p += 4;
	len -= 4;
	if (len < 4) {
		ga_report(GA_REPORT_ERROR,
			  "corrupt ewah bitmap: eof before length");
		return GA_ERROR;
	}
	nr = get_be32(p);
	p += 4;
	len -= 4;
	/*
	 * git allocates the words before it checks that the file has
	 * them; here nothing is allocated for words the file lacks.
	 */
	data_len = (uint64_t)nr * 8;
	if (len < data_len) {
		ga_report(GA_REPORT_ERROR, "corrupt ewah bitmap: eof in data "
			  "(%llu bytes short)",
			  (unsigned long long)(data_len - len));
		return GA_ERROR;
	}
	bm->words = ga_xmalloc(nr ? (size_t)data_len : 1);
	for (i = 0; i < nr; i++)
		bm->words[i] = get_be64(p + i * 8);
	bm->nr = nr;
	p += data_len;
	len -= (size_t)data_len;
	if (len < 4) {
		ga_report(GA_REPORT_ERROR,
			  "corrupt ewah bitmap: eof before rlw");
		return GA_ERROR;
	}
	p += 4;
	*used = (size_t)(p - (const unsigned char *)data);
	return 0;
eof_bits:
	ga_report(GA_REPORT_ERROR, "corrupt ewah bitmap: eof before bit size");
	return GA_ERROR;
}

int ewah_each_bit(const struct ewah *bm,
		  int (*fn)(uint64_t pos, void *payload), void *payload)
{
	uint64_t pos = 0, k;
	size_t at = 0;
	int ret;

	while (at < bm->nr) {
		uint64_t word = bm->words[at++];
		uint64_t run = (word >> EWAH_RUN_LEN_SHIFT) & EWAH_RUN_LEN_MASK;
		uint64_t literals = word >> EWAH_LITERAL_SHIFT;

		run *= EWAH_WORD_BITS;
		if (word & EWAH_RUN_BIT) {
			for (k = 0; k < run; k++, pos++)
				if ((ret = fn(pos, payload)))
					return ret;
		} else {
			pos += run;
		}
		for (k = 0; k < literals; k++, at++) {
			int c;

			if (at >= bm->nr)
				return 1;
			for (c = 0; c < EWAH_WORD_BITS; c++, pos++)
				if ((bm->words[at] >> c & 1) &&
				    (ret = fn(pos, payload)))
					return ret;
		}
	}
	return 0;
}

void ewah_release(struct ewah *bm)
{
	if (!bm)
		return;
	free(bm->words);
	bm->words = NULL;
	bm->nr = 0;
	bm->bit_size = 0;
}

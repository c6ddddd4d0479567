/*
 * ewah.h: git's EWAH compressed bitmaps, read only, as the link
 * extension of a split index stores them (git 2.39's ewah/ewah_io.c
 * ewah_read_mmap() and ewah/ewah_bitmap.c ewah_each_bit()).
 *
 * On disk: the bit size (be32), the number of 64-bit words (be32), the
 * words (be64), and the position of the last run-length word (be32).
 * A run-length word holds a run bit (bit 0), a run length in words
 * (bits 1-32) and a count of literal words that follow it (bits 33-63).
 */
#ifndef GARCHIVE_EWAH_H
#define GARCHIVE_EWAH_H

#include <stddef.h>
#include <stdint.h>

#define EWAH_WORD_BITS 64

struct ewah {
	uint64_t *words;	/* host order */
	size_t nr;
	uint32_t bit_size;	/* as read; git's walk does not look at it */
};

/*
 * Parse one bitmap from the `len` bytes at `data`, replacing what `bm`
 * held.  The words are copied, never more than `len` bytes of them.
 * Returns 0 with the bytes the bitmap took in *used, or GA_ERROR after
 * git's line ("error: corrupt ewah bitmap: eof before bit size", "eof
 * before length", "eof in data (<n> bytes short)", "eof before rlw")
 * is reported through ga_report().  The last-word position is not
 * checked: git only appends through it.
 */
int ewah_read(struct ewah *bm, size_t *used, const void *data, size_t len);

/*
 * git's ewah_each_bit(): fn(pos, payload) for every set bit, in
 * order, bits past bit_size included, as git visits them.  A non-zero
 * return from fn stops the walk and is returned.  Returns 0, or 1 when
 * a run-length word counts literal words the bitmap does not have
 * (git reads past its buffer there; this stops).
 */
int ewah_each_bit(const struct ewah *bm,
		  int (*fn)(uint64_t pos, void *payload), void *payload);

/* Free the words; `bm` may be zeroed or released already. */
void ewah_release(struct ewah *bm);

#endif

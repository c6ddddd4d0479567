/*
 * pack.c: pack indexes, pack entries and deltas (see pack.h).
 */
#include "odb/pack.h"
#include "garchive/common.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

/* git's DELTA_SIZE_MIN: the two sizes of one byte each, and one op. */
#define DELTA_SIZE_MIN 4

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* The fan-out table: counts that never go down.  Returns the last. */
static int check_fanout(const unsigned char *fan, uint32_t *nr)
{
	uint32_t i, prev = 0;

	for (i = 0; i < 256; i++) {
		uint32_t n = be32(fan + 4 * i);

		if (n < prev)
			return -1;
		prev = n;
	}
	*nr = prev;
	return 0;
}

/*
 * Version 2: after the header and fan-out, ids, CRCs, 4-byte offsets,
 * then at most one 8-byte offset per object but the first (git's
 * bounds; computed in 64 bits, so a count of 2^31 cannot wrap).
 */
static enum ga_idx_error parse_v2(struct ga_pack_idx *idx)
{
	uint64_t nr = idx->nr, rawsz = idx->rawsz;
	uint64_t min = 8 + 1024 + nr * (rawsz + 8) + 2 * rawsz;
	uint64_t max = min + (nr ? (nr - 1) * 8 : 0);

	if ((uint64_t)idx->size < min || (uint64_t)idx->size > max)
		return GA_IDX_V2_SIZE;
	idx->names = idx->map + 8 + 1024;
	idx->stride = idx->rawsz;
	idx->offsets = idx->names + nr * (rawsz + 4);
	idx->large = idx->offsets + nr * 4;
	return GA_IDX_OK;
}

enum ga_idx_error ga_pack_idx_parse(struct ga_pack_idx *idx,
				    const unsigned char *map, size_t size,
				    size_t rawsz, uint32_t *version)
{
	memset(idx, 0, sizeof(*idx));
	idx->map = map;
	idx->size = size;
	idx->rawsz = rawsz;
	*version = 1;
	if (size < 1024 + 2 * rawsz)
		return GA_IDX_TOO_SMALL;
	if (!memcmp(map, "\377tOc", 4)) {
		*version = be32(map + 4);
		if (*version != 2)
			return GA_IDX_VERSION;
		if (size < 8 + 1024 + 2 * rawsz)
			return GA_IDX_TOO_SMALL;
	}
	idx->version = (int)*version;
	idx->fanout = map + (idx->version == 2 ? 8 : 0);
	if (check_fanout(idx->fanout, &idx->nr) < 0)
		return GA_IDX_NON_MONOTONIC;
	if (idx->version == 2)
		return parse_v2(idx);
	/* Version 1 exists only for SHA-1: 4-byte offset, then the id. */
	if ((uint64_t)size != 1024 + (uint64_t)idx->nr * (rawsz + 4) +
			      2 * rawsz)
		return GA_IDX_V1_SIZE;
	idx->names = map + 1024 + 4;
	idx->stride = rawsz + 4;
	return GA_IDX_OK;
}

const unsigned char *ga_pack_idx_name(const struct ga_pack_idx *idx,
				      uint32_t pos)
{
	return idx->names + (size_t)pos * idx->stride;
}

const unsigned char *ga_pack_idx_pack_checksum(const struct ga_pack_idx *idx)
{
	return idx->map + idx->size - 2 * idx->rawsz;
}

/* The range [*lo, *hi) of positions whose first byte is `first`. */
static void fan_range(const struct ga_pack_idx *idx, unsigned first,
		      uint32_t *lo, uint32_t *hi)
{
	*lo = first ? be32(idx->fanout + 4 * (first - 1)) : 0;
	*hi = be32(idx->fanout + 4 * first);
}

int ga_pack_idx_find(const struct ga_pack_idx *idx, const unsigned char *raw,
		     uint32_t *pos)
{
	uint32_t lo, hi;

	fan_range(idx, raw[0], &lo, &hi);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int cmp = memcmp(raw, ga_pack_idx_name(idx, mid), idx->rawsz);

		if (!cmp) {
			*pos = mid;
			return 1;
		}
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

/* Compare the first `nibbles` hex digits of two ids. */
static int cmp_nibbles(const unsigned char *a, const unsigned char *b,
		       size_t nibbles)
{
	size_t whole = nibbles / 2;
	int cmp = memcmp(a, b, whole);

	if (cmp || !(nibbles & 1))
		return cmp;
	return (int)(a[whole] & 0xf0) - (int)(b[whole] & 0xf0);
}

int ga_pack_idx_matches(const struct ga_pack_idx *idx, uint32_t pos,
			const unsigned char *raw, size_t nibbles)
{
	return pos < idx->nr &&
	       !cmp_nibbles(raw, ga_pack_idx_name(idx, pos), nibbles);
}

int ga_pack_idx_find_prefix(const struct ga_pack_idx *idx,
			    const unsigned char *raw, size_t nibbles,
			    uint32_t *pos)
{
	uint32_t lo, hi;

	if (nibbles < 2) {
		lo = 0;
		hi = idx->nr;
	} else {
		fan_range(idx, raw[0], &lo, &hi);
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (cmp_nibbles(raw, ga_pack_idx_name(idx, mid), nibbles) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return ga_pack_idx_matches(idx, lo, raw, nibbles);
}

int ga_pack_idx_offset(const struct ga_pack_idx *idx, uint32_t pos,
		       uint64_t *offset)
{
	uint32_t off;

	if (idx->version == 1) {
		*offset = be32(ga_pack_idx_name(idx, pos) - 4);
		return 0;
	}
	off = be32(idx->offsets + (size_t)pos * 4);
	if (!(off & 0x80000000)) {
		*offset = off;
		return 0;
	}
	/*
	 * git's bound is the end of the file, not of the table: it reads
	 * an entry that runs into the trailing checksums, unless it ends
	 * in the last 8 bytes or after (check_pack_index_ptr()).  With
	 * SHA-256's longer checksums more of them pass for offsets.
	 */
	off &= 0x7fffffff;
	if ((uint64_t)off * 8 + 8 >=
	    (uint64_t)(idx->map + idx->size - idx->large))
		return -1;
	*offset = be64(idx->large + (size_t)off * 8);
	return 0;
}

size_t ga_pack_entry_header(const unsigned char *p, size_t len,
			    enum ga_obj_type *type, uint64_t *size)
{
	size_t used = 0;
	unsigned shift = 4;
	unsigned char c;

	if (!len)
		return 0;
	c = p[used++];
	*type = (enum ga_obj_type)((c >> 4) & 7);
	*size = c & 15;
	while (c & 0x80) {
		if (used >= len || shift > 64 - 7)
			return 0;
		c = p[used++];
		*size += (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	}
	return used;
}

uint64_t ga_pack_ofs_base(const unsigned char *p, size_t len,
			  uint64_t entry_offset, size_t *used)
{
	uint64_t back;
	size_t n = 0;
	unsigned char c;

	if (!len)
		return 0;
	c = p[n++];
	back = c & 127;
	while (c & 128) {
		back += 1;
		if (n >= len || !back || (back >> (64 - 7)))
			return 0;
		c = p[n++];
		back = (back << 7) + (c & 127);
	}
	if (!back || back >= entry_offset)
		return 0;
	*used = n;
	return entry_offset - back;
}

/* One inflate call, for inputs and outputs larger than zlib's uInt. */
static int inflate_some(z_stream *zs, const unsigned char **in, size_t *in_left,
			unsigned char **out, uint64_t *out_left)
{
	uInt give_in = *in_left > UINT_MAX ? UINT_MAX : (uInt)*in_left;
	uInt give_out = *out_left > UINT_MAX ? UINT_MAX : (uInt)*out_left;
	int st;

	zs->next_in = (unsigned char *)*in;
	zs->avail_in = give_in;
	zs->next_out = *out;
	zs->avail_out = give_out;
	st = inflate(zs, Z_FINISH);
	*in_left -= give_in - zs->avail_in;
	*in = zs->next_in;
	*out_left -= give_out - zs->avail_out;
	*out = zs->next_out;
	return st;
}

enum ga_inflate_result ga_pack_inflate(unsigned char *out, uint64_t size,
				       const unsigned char *p, size_t len,
				       int *zstatus, const char **zmsg)
{
	unsigned char spare;
	uint64_t left = size;
	z_stream zs;
	int st;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return GA_INFLATE_ZLIB;
	do {
		st = inflate_some(&zs, &p, &len, &out, &left);
	} while (st == Z_OK && left && len);
	/* One byte more tells a stream that holds more than `size`. */
	if (st == Z_OK || (st == Z_BUF_ERROR && !left)) {
		unsigned char *o = &spare;
		uint64_t one = 1;

		st = inflate_some(&zs, &p, &len, &o, &one);
		if (!one)
			st = Z_OK;
	}
	*zstatus = st;
	*zmsg = zs.msg;
	inflateEnd(&zs);
	if (st == Z_STREAM_END)
		return left ? GA_INFLATE_SIZE : GA_INFLATE_OK;
	if (st == Z_OK)
		return GA_INFLATE_SIZE;
	if (st == Z_BUF_ERROR)
		return len ? GA_INFLATE_SIZE : GA_INFLATE_TRUNCATED;
	return GA_INFLATE_ZLIB;
}

long ga_pack_inflate_head(unsigned char *out, size_t cap,
			  const unsigned char *p, size_t len)
{
	uint64_t left = cap;
	unsigned char *o = out;
	z_stream zs;
	int st;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return -1;
	do {
		st = inflate_some(&zs, &p, &len, &o, &left);
	} while (st == Z_OK && left && len);
	inflateEnd(&zs);
	if (st != Z_OK && st != Z_STREAM_END && st != Z_BUF_ERROR)
		return -1;
	return (long)(cap - left);
}

int ga_delta_size(const unsigned char **p, const unsigned char *end,
		  uint64_t *size)
{
	const unsigned char *d = *p;
	unsigned shift = 0;
	unsigned char c;

	*size = 0;
	do {
		if (d >= end || shift > 63)
			return -1;
		c = *d++;
		*size |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*p = d;
	return 0;
}

/* A copy op's offset and size; -1 when its bytes run out. */
static int copy_op(const unsigned char **p, const unsigned char *end,
		   unsigned char cmd, uint64_t *off, uint64_t *len)
{
	static const unsigned char bits[7] = { 1, 2, 4, 8, 16, 32, 64 };
	const unsigned char *d = *p;
	int i;

	*off = 0;
	*len = 0;
	for (i = 0; i < 7; i++) {
		uint64_t *v = i < 4 ? off : len;
		unsigned shift = 8 * (unsigned)(i < 4 ? i : i - 4);

		if (!(cmd & bits[i]))
			continue;
		if (d >= end)
			return -1;
		*v |= (uint64_t)*d++ << shift;
	}
	if (!*len)
		*len = 0x10000;
	*p = d;
	return 0;
}

/*
 * Check the ops from `d` to `end` against a base of `base_len` bytes and
 * a result of `want`: each copy inside the base, each insert inside the
 * delta, and exactly `want` bytes made.  Returns 0 or an
 * enum ga_delta_error.
 */
static int check_ops(const unsigned char *d, const unsigned char *end,
		     size_t base_len, uint64_t want)
{
	uint64_t left = want;

	while (d < end) {
		unsigned char cmd = *d++;

		if (cmd & 0x80) {
			uint64_t off, len;

			if (copy_op(&d, end, cmd, &off, &len) < 0 ||
			    off + len > base_len || len > left)
				return GA_DELTA_WILD;
			left -= len;
		} else if (cmd) {
			if (cmd > left || cmd > (size_t)(end - d))
				return GA_DELTA_WILD;
			d += cmd;
			left -= cmd;
		} else {
			return GA_DELTA_OPCODE_0;
		}
	}
	return left ? GA_DELTA_WILD : 0;
}

static void *delta_malloc(void *ctx, size_t len)
{
	(void)ctx;
	return ga_xmalloc(len);
}

int ga_delta_apply(unsigned char **out, size_t *out_len,
		   const unsigned char *base, size_t base_len,
		   const unsigned char *delta, size_t delta_len)
{
	return ga_delta_apply_alloc(out, out_len, base, base_len, delta,
				    delta_len, delta_malloc, NULL);
}

int ga_delta_apply_alloc(unsigned char **out, size_t *out_len,
			 const unsigned char *base, size_t base_len,
			 const unsigned char *delta, size_t delta_len,
			 void *(*alloc)(void *ctx, size_t len), void *ctx)
{
	const unsigned char *d = delta, *end = delta + delta_len;
	unsigned char *res, *o;
	uint64_t want;
	int error;

	if (delta_len < DELTA_SIZE_MIN || ga_delta_size(&d, end, &want) < 0 ||
	    want != base_len || ga_delta_size(&d, end, &want) < 0 ||
	    want > SIZE_MAX - 1)
		return GA_DELTA_BAD_SIZE;
	/* The ops are checked first: `want` is then what they make. */
	if ((error = check_ops(d, end, base_len, want)) < 0)
		return error;
	o = res = alloc(ctx, (size_t)want + 1);
	while (d < end) {
		unsigned char cmd = *d++;

		if (cmd & 0x80) {
			uint64_t off, len;

			copy_op(&d, end, cmd, &off, &len);
			memcpy(o, base + off, (size_t)len);
			o += len;
		} else {
			memcpy(o, d, cmd);
			d += cmd;
			o += cmd;
		}
	}
	*o = '\0';
	*out = res;
	*out_len = (size_t)want;
	return 0;
}

/*
 * gzip-huff.c: where gzip ends its blocks, and what it writes for each.
 *
 * gzip counts every token as it is made (ct_tally) and ends the block
 * when its buffers are full (32767 symbols) or, every 4096 symbols at
 * levels 3 and up, when an estimate says the block already compresses
 * well.  The split here replays those rules over the final tokens, with
 * the position and buffer base gzip had at each count.  A finished block
 * is then planned as gzip's flush_block() does it: Huffman trees built
 * with gzip's exact tie-breaking, the cost of each kind of block, and
 * the choice between stored, fixed and dynamic (gnu-gzip-deflate.md
 * sections 6 to 9).  Encoding a planned block needs only its position in
 * the bit stream, so blocks can be encoded on any thread.
 */
#include "gzip-int.h"
#include "garchive/common.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BITS	15	/* longest literal/length or distance code */
#define MAX_BL_BITS	7	/* longest code-length code */
#define HEAP_SIZE	(2 * GZIP_L_CODES + 1)
#define BLOCK_MAX_SYMS	32767	/* gzip's buffers hold one more */
#define BLOCK_MAX_DISTS	32768
#define ESTIMATE_EVERY	4096
#define REP_3_6		16	/* the previous length 3-6 times */
#define REPZ_3_10	17	/* 3-10 zero lengths */
#define REPZ_11_138	18	/* 11-138 zero lengths */

/* The order RFC 1951 sends the code-length code lengths in. */
static const uint8_t bl_order[GZIP_BL_CODES] = {
	16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15
};

/*
 * RFC 1951's length codes, by length - 3 (0 to 255): codes 0-7 have no
 * extra bits, then each group of four codes one more bit than the last;
 * 258 (255) has a code of its own, 28, rather than 27 with all ones.
 */
static inline unsigned length_code(unsigned lc)
{
	unsigned k;

	if (lc < 8)
		return lc;
	if (lc == 255)
		return 28;
	k = 31 - (unsigned)__builtin_clz(lc);
	return 4 * (k - 1) + ((lc >> (k - 2)) & 3);
}

static inline unsigned length_extra(unsigned code)
{
	return code < 8 || code == 28 ? 0 : code / 4 - 1;
}

static inline unsigned length_base(unsigned code)
{
	if (code < 8)
		return code;
	if (code == 28)
		return 255;
	return (4 + (code & 3)) << (code / 4 - 1);
}

/* Distance codes, by distance - 1 (0 to 32767): two per extra bit. */
static inline unsigned dist_code(unsigned d)
{
	unsigned k;

	if (d < 4)
		return d;
	k = 31 - (unsigned)__builtin_clz(d);
	return 2 * k + ((d >> (k - 1)) & 1);
}

static inline unsigned dist_extra(unsigned code)
{
	return code < 4 ? 0 : code / 2 - 1;
}

static inline unsigned dist_base(unsigned code)
{
	return code < 4 ? code : (2 + (code & 1)) << (code / 2 - 1);
}

static inline unsigned bl_extra(unsigned code)
{
	return code == REP_3_6 ? 2 : code == REPZ_3_10 ? 3 :
	       code == REPZ_11_138 ? 7 : 0;
}

/* RFC 1951's fixed literal/length code lengths (288 symbols). */
static inline uint8_t fixed_lit_len(unsigned n)
{
	return n < 144 ? 8 : n < 256 ? 9 : n < 280 ? 7 : 8;
}

/* ---- blocks ---- */

struct gzip_block *gzip_block_new(void)
{
	struct gzip_block *b = ga_xcalloc(1, sizeof(*b));

	b->alloc = BLOCK_MAX_SYMS + 1;
	b->tok = ga_xmalloc(b->alloc * sizeof(*b->tok));
	return b;
}

void gzip_block_reserve_raw(struct gzip_block *b, size_t len)
{
	if (len + 1 > b->raw_alloc) {
		free(b->raw);
		b->raw_alloc = len + 1;
		b->raw = ga_xmalloc(b->raw_alloc);
	}
}

void gzip_block_free(struct gzip_block *b)
{
	if (!b)
		return;
	free(b->tok);
	free(b->raw);
	free(b->out);
	free(b);
}

/* ---- Huffman trees as gzip's trees.c builds them ---- */

struct tree {
	int elems;
	int max_len;
	int extra_base;		/* first symbol with extra bits */
	unsigned (*extra)(unsigned code);
	const uint8_t *fixed;	/* lengths of the fixed code, or NULL */

	/* work space: leaves, then internal nodes */
	uint32_t freq[HEAP_SIZE];
	uint16_t dad[HEAP_SIZE];
	uint8_t len[HEAP_SIZE];
	uint8_t depth[HEAP_SIZE];
	int heap[HEAP_SIZE];
	int heap_len, heap_max;
	uint16_t count[MAX_BITS + 1];
	int max_code;
};

/* gzip's "smaller": by frequency, then by depth, ties to n. */
static inline int smaller(const struct tree *t, int n, int m)
{
	return t->freq[n] < t->freq[m] ||
	       (t->freq[n] == t->freq[m] && t->depth[n] <= t->depth[m]);
}

/* Sift heap[k] down; ties prefer the right child, and stop the sift. */
static void sift_down(struct tree *t, int k)
{
	int v = t->heap[k];
	int j = k << 1;

	while (j <= t->heap_len) {
		if (j < t->heap_len && smaller(t, t->heap[j + 1], t->heap[j]))
			j++;
		if (smaller(t, v, t->heap[j]))
			break;
		t->heap[k] = t->heap[j];
		k = j;
		j <<= 1;
	}
	t->heap[k] = v;
}

/*
 * Code lengths from the tree: each node one longer than its parent,
 * capped at max_len; gzip then repairs an overflow by moving leaves down
 * and hands the lengths out again, longest to the nodes removed first.
 */
static void tree_lengths(struct tree *t, int64_t *opt, int64_t *stat)
{
	int h, n, m, bits, overflow = 0;

	memset(t->count, 0, sizeof(t->count));
	t->len[t->heap[t->heap_max]] = 0;
	for (h = t->heap_max + 1; h < HEAP_SIZE; h++) {
		unsigned xbits = 0;

		n = t->heap[h];
		bits = t->len[t->dad[n]] + 1;
		if (bits > t->max_len) {
			bits = t->max_len;
			overflow++;
		}
		t->len[n] = (uint8_t)bits;
		if (n > t->max_code)
			continue;
		t->count[bits]++;
		if (n >= t->extra_base)
			xbits = t->extra((unsigned)(n - t->extra_base));
		*opt += (int64_t)t->freq[n] * (bits + xbits);
		if (t->fixed)
			*stat += (int64_t)t->freq[n] * (t->fixed[n] + xbits);
	}
	if (!overflow)
		return;
	do {
		bits = t->max_len - 1;
		while (!t->count[bits])
			bits--;
		t->count[bits]--;
		t->count[bits + 1] += 2;
		t->count[t->max_len]--;
		overflow -= 2;
	} while (overflow > 0);
	h = HEAP_SIZE;
	for (bits = t->max_len; bits; bits--) {
		n = t->count[bits];
		while (n) {
			m = t->heap[--h];
			if (m > t->max_code)
				continue;
			if (t->len[m] != bits) {
				*opt += ((int64_t)bits - t->len[m]) *
					(int64_t)t->freq[m];
				t->len[m] = (uint8_t)bits;
			}
			n--;
		}
	}
}

/* gzip's build_tree(): a Huffman tree over t->freq[0..elems). */
static void tree_build(struct tree *t, int64_t *opt, int64_t *stat)
{
	int n, m, node = t->elems;

	t->heap_len = 0;
	t->heap_max = HEAP_SIZE;
	t->max_code = -1;
	for (n = 0; n < t->elems; n++) {
		if (t->freq[n]) {
			t->heap[++t->heap_len] = t->max_code = n;
			t->depth[n] = 0;
		} else {
			t->len[n] = 0;
		}
	}
	/*
	 * At least two codes, so that one bit is always sent: forced
	 * leaves of frequency 1, whose cost is taken back.
	 */
	while (t->heap_len < 2) {
		int add = t->max_code < 2 ? ++t->max_code : 0;

		t->heap[++t->heap_len] = add;
		t->freq[add] = 1;
		t->depth[add] = 0;
		(*opt)--;
		if (t->fixed)
			*stat -= t->fixed[add];
	}
	for (n = t->heap_len / 2; n >= 1; n--)
		sift_down(t, n);
	do {
		n = t->heap[1];
		t->heap[1] = t->heap[t->heap_len--];
		sift_down(t, 1);
		m = t->heap[1];
		t->heap[--t->heap_max] = n;
		t->heap[--t->heap_max] = m;
		t->freq[node] = t->freq[n] + t->freq[m];
		t->depth[node] = (uint8_t)((t->depth[n] >= t->depth[m] ?
					    t->depth[n] : t->depth[m]) + 1);
		t->dad[n] = t->dad[m] = (uint16_t)node;
		t->heap[1] = node++;
		sift_down(t, 1);
	} while (t->heap_len >= 2);
	t->heap[--t->heap_max] = t->heap[1];
	tree_lengths(t, opt, stat);
}

static unsigned reverse_bits(unsigned code, unsigned len)
{
	unsigned r = 0;

	while (len--) {
		r = (r << 1) | (code & 1);
		code >>= 1;
	}
	return r;
}

/* Canonical codes for lengths[0..=max_code], bit-reversed for sending. */
static void make_codes(uint16_t *codes, const uint8_t *lengths, int max_code,
		       const uint16_t *count)
{
	uint16_t next[MAX_BITS + 1];
	unsigned code = 0;
	int bits, n;

	next[0] = 0;
	for (bits = 1; bits <= MAX_BITS; bits++) {
		code = (code + count[bits - 1]) << 1;
		next[bits] = (uint16_t)code;
	}
	for (n = 0; n <= max_code; n++) {
		if (!lengths[n])
			continue;
		codes[n] = (uint16_t)reverse_bits(next[lengths[n]]++,
						  lengths[n]);
	}
}

/*
 * The code-length symbols that describe lengths[0..count), as gzip's
 * scan_tree/send_tree walk them: runs of a length are sent as the length
 * then REP_3_6, runs of zeros as REPZ_3_10 or REPZ_11_138.  `emit` gets
 * each symbol and its extra bits.
 */
typedef void (*run_fn)(void *payload, unsigned sym, unsigned extra);

static void walk_lengths(const uint8_t *lengths, int count, run_fn emit,
			 void *payload)
{
	int n, prevlen = -1, curlen, nextlen = lengths[0], run = 0;
	int max_run = 7, min_run = 4;

	if (!nextlen) {
		max_run = 138;
		min_run = 3;
	}
	for (n = 0; n < count; n++) {
		curlen = nextlen;
		nextlen = n + 1 < count ? lengths[n + 1] : 0xffff;
		if (++run < max_run && curlen == nextlen)
			continue;
		if (run < min_run) {
			while (run--)
				emit(payload, (unsigned)curlen, 0);
		} else if (curlen) {
			if (curlen != prevlen) {
				emit(payload, (unsigned)curlen, 0);
				run--;
			}
			emit(payload, REP_3_6, (unsigned)run - 3);
		} else if (run <= 10) {
			emit(payload, REPZ_3_10, (unsigned)run - 3);
		} else {
			emit(payload, REPZ_11_138, (unsigned)run - 11);
		}
		run = 0;
		prevlen = curlen;
		if (!nextlen) {
			max_run = 138;
			min_run = 3;
		} else if (curlen == nextlen) {
			max_run = 6;
			min_run = 3;
		} else {
			max_run = 7;
			min_run = 4;
		}
	}
}

static void count_run(void *payload, unsigned sym, unsigned extra)
{
	(void)extra;
	((uint32_t *)payload)[sym]++;
}

static void fixed_codes(struct gzip_block *b)
{
	uint16_t count[MAX_BITS + 1] = { 0 };
	unsigned n;

	for (n = 0; n < GZIP_L_CODES + 2; n++) {
		b->llen[n] = fixed_lit_len(n);
		count[b->llen[n]]++;
	}
	make_codes(b->lcode, b->llen, GZIP_L_CODES + 1, count);
	for (n = 0; n < GZIP_D_CODES; n++) {
		b->dlen[n] = 5;
		b->dcode[n] = (uint16_t)reverse_bits(n, 5);
	}
}

void gzip_block_plan(struct gzip_block *b)
{
	struct tree *t = ga_xmalloc(sizeof(*t));
	uint8_t fixed[GZIP_L_CODES + 2];
	uint8_t dfixed[GZIP_D_CODES];
	uint32_t blfreq[GZIP_BL_CODES] = { 0 };
	int64_t opt = 0, stat = 0;
	uint64_t opt_bytes, static_bytes, stored_len;
	int n;

	for (n = 0; n < GZIP_L_CODES + 2; n++)
		fixed[n] = fixed_lit_len((unsigned)n);
	memset(dfixed, 5, sizeof(dfixed));

	/* Literal/length tree. */
	t->elems = GZIP_L_CODES;
	t->max_len = MAX_BITS;
	t->extra_base = GZIP_END_BLOCK + 1;
	t->extra = length_extra;
	t->fixed = fixed;
	memcpy(t->freq, b->lfreq, sizeof(b->lfreq));
	t->freq[GZIP_END_BLOCK] = 1;
	tree_build(t, &opt, &stat);
	memcpy(b->llen, t->len, GZIP_L_CODES);
	b->lmax = t->max_code;
	make_codes(b->lcode, b->llen, b->lmax, t->count);

	/* Distance tree. */
	t->elems = GZIP_D_CODES;
	t->extra_base = 0;
	t->extra = dist_extra;
	t->fixed = dfixed;
	memcpy(t->freq, b->dfreq, sizeof(b->dfreq));
	tree_build(t, &opt, &stat);
	memcpy(b->dlen, t->len, GZIP_D_CODES);
	b->dmax = t->max_code;
	make_codes(b->dcode, b->dlen, b->dmax, t->count);

	/* The tree that sends the other two. */
	walk_lengths(b->llen, b->lmax + 1, count_run, blfreq);
	walk_lengths(b->dlen, b->dmax + 1, count_run, blfreq);
	t->elems = GZIP_BL_CODES;
	t->max_len = MAX_BL_BITS;
	t->extra = bl_extra;
	t->fixed = NULL;
	memcpy(t->freq, blfreq, sizeof(blfreq));
	tree_build(t, &opt, &stat);
	memcpy(b->bllen, t->len, GZIP_BL_CODES);
	make_codes(b->blcode, b->bllen, t->max_code, t->count);
	for (b->blmax = GZIP_BL_CODES - 1; b->blmax >= 3; b->blmax--)
		if (b->bllen[bl_order[b->blmax]])
			break;
	/* 3 bits per code-length length, then HLIT, HDIST and HCLEN. */
	opt += 3 * (b->blmax + 1) + 5 + 5 + 4;
	free(t);

	b->opt_bits = (uint64_t)opt;
	b->static_bits = (uint64_t)stat;
	/* In bytes, with the 3-bit block header, rounded up. */
	opt_bytes = (b->opt_bits + 3 + 7) >> 3;
	static_bytes = (b->static_bits + 3 + 7) >> 3;
	if (static_bytes <= opt_bytes)
		opt_bytes = static_bytes;
	stored_len = b->end - b->start;
	if (b->may_store && stored_len + 4 <= opt_bytes)
		b->type = GZIP_STORED;
	else if (static_bytes == opt_bytes)
		b->type = GZIP_FIXED;
	else
		b->type = GZIP_DYNAMIC;
	if (b->type == GZIP_FIXED)
		fixed_codes(b);
}

uint64_t gzip_block_size(const struct gzip_block *b, uint64_t bitpos)
{
	switch (b->type) {
	case GZIP_STORED:
		/* header, padding to a byte, LEN and NLEN, the bytes */
		return 3 + ((8 - ((bitpos + 3) & 7)) & 7) + 32 +
		       8 * (b->end - b->start);
	case GZIP_FIXED:
		return 3 + b->static_bits;
	case GZIP_DYNAMIC:
		return 3 + b->opt_bits;
	}
	GA_BUG("bad gzip block type");
}

/* ---- bits ---- */

struct bits {
	uint8_t *p;
	uint64_t acc;
	unsigned n;
};

static inline void put_bits(struct bits *w, uint32_t value, unsigned len)
{
	w->acc |= (uint64_t)value << w->n;
	w->n += len;
	if (w->n >= 32) {
		ga_put_le32(w->p, (uint32_t)w->acc);
		w->p += 4;
		w->acc >>= 32;
		w->n -= 32;
	}
}

/* Write out whole bytes; a partial last byte stays in the accumulator. */
static inline void flush_bytes(struct bits *w)
{
	while (w->n >= 8) {
		*w->p++ = (uint8_t)w->acc;
		w->acc >>= 8;
		w->n -= 8;
	}
}

static void put_run(void *payload, unsigned sym, unsigned extra)
{
	struct bits *w = ((void **)payload)[0];
	const struct gzip_block *b = ((void **)payload)[1];

	put_bits(w, b->blcode[sym], b->bllen[sym]);
	if (sym >= REP_3_6)
		put_bits(w, extra, bl_extra(sym));
}

static void put_trees(struct bits *w, const struct gzip_block *b)
{
	void *payload[2] = { w, (void *)b };
	int rank;

	put_bits(w, (uint32_t)(b->lmax + 1 - 257), 5);
	put_bits(w, (uint32_t)b->dmax, 5);
	put_bits(w, (uint32_t)(b->blmax + 1 - 4), 4);
	for (rank = 0; rank <= b->blmax; rank++)
		put_bits(w, b->bllen[bl_order[rank]], 3);
	walk_lengths(b->llen, b->lmax + 1, put_run, payload);
	walk_lengths(b->dlen, b->dmax + 1, put_run, payload);
}

static void put_tokens(struct bits *w, const struct gzip_block *b)
{
	const uint16_t *lcode = b->lcode, *dcode = b->dcode;
	const uint8_t *llen = b->llen, *dlen = b->dlen;
	uint32_t i;

	for (i = 0; i < b->n; i++) {
		gzip_tok t = b->tok[i];
		unsigned dist = GZIP_TOK_DIST(t);

		if (!dist) {
			put_bits(w, lcode[t & 0xff], llen[t & 0xff]);
		} else {
			unsigned lc = t & 0xff, code = length_code(lc);
			unsigned d = dist - 1, dc = dist_code(d);
			unsigned sym = GZIP_END_BLOCK + 1 + code;

			put_bits(w, lcode[sym] |
				 ((lc - length_base(code)) << llen[sym]),
				 llen[sym] + length_extra(code));
			put_bits(w, dcode[dc] |
				 ((d - dist_base(dc)) << dlen[dc]),
				 dlen[dc] + dist_extra(dc));
		}
	}
	put_bits(w, lcode[GZIP_END_BLOCK], llen[GZIP_END_BLOCK]);
}

void gzip_block_encode(struct gzip_block *b)
{
	unsigned lead = (unsigned)(b->bitpos & 7);
	size_t room = (size_t)((lead + b->bits + 7) / 8) + 8;
	struct bits w;

	if (room > b->out_alloc) {
		free(b->out);
		b->out_alloc = room + room / 4;
		b->out = ga_xmalloc(b->out_alloc);
	}
	/* The first byte's leading bits belong to the block before. */
	b->out[0] = 0;
	w.p = b->out;
	w.acc = 0;
	w.n = lead;
	put_bits(&w, (uint32_t)(b->type << 1) | (b->last ? 1 : 0), 3);
	if (b->type == GZIP_STORED) {
		uint32_t len = (uint32_t)(b->end - b->start);

		/* Pad to a byte, then LEN and its complement. */
		w.n = (w.n + 7) & ~7u;
		flush_bytes(&w);
		ga_put_le16(w.p, (uint16_t)len);
		ga_put_le16(w.p + 2, (uint16_t)~len);
		memcpy(w.p + 4, b->raw, len);
		w.p += 4 + len;
	} else {
		if (b->type == GZIP_DYNAMIC)
			put_trees(&w, b);
		put_tokens(&w, b);
		flush_bytes(&w);
		if (w.n)
			*w.p++ = (uint8_t)w.acc;
	}
	b->out_len = (size_t)(w.p - b->out);
	if (b->out_len != (lead + b->bits + 7) / 8)
		GA_BUG("gzip block size differs from its plan");
}

/* ---- the split ---- */

static void split_new_block(struct gzip_split *sp)
{
	if (sp->nspare) {
		struct gzip_block *b = sp->spare[--sp->nspare];

		/* Everything but the buffers starts afresh. */
		b->n = 0;
		memset(b->lfreq, 0, sizeof(b->lfreq));
		memset(b->dfreq, 0, sizeof(b->dfreq));
		b->last = b->may_store = 0;
		b->out_len = 0;
		sp->cur = b;
	} else {
		sp->cur = gzip_block_new();
	}
	sp->cur->seq = sp->seq++;
	sp->cur->start = sp->pos;
	sp->ndist = 0;
}

void gzip_split_init(struct gzip_split *sp, int level, gzip_block_fn done,
		     void *payload)
{
	memset(sp, 0, sizeof(*sp));
	sp->level = level;
	sp->lazy = GZIP_IS_LAZY(level);
	sp->done = done;
	sp->payload = payload;
	split_new_block(sp);
}

void gzip_split_release(struct gzip_split *sp)
{
	gzip_block_free(sp->cur);
	sp->cur = NULL;
	while (sp->nspare)
		gzip_block_free(sp->spare[--sp->nspare]);
	free(sp->spare);
	sp->spare = NULL;
	sp->alloc_spare = 0;
}

void gzip_split_recycle(struct gzip_split *sp, struct gzip_block *b)
{
	/* A few are enough: blocks are written out about as made. */
	if (sp->nspare >= 64) {
		gzip_block_free(b);
		return;
	}
	GA_ALLOC_GROW(sp->spare, sp->nspare + 1, sp->alloc_spare);
	sp->spare[sp->nspare++] = b;
}

static void split_end_block(struct gzip_split *sp, uint64_t frame, int last)
{
	struct gzip_block *b = sp->cur;

	b->end = sp->pos;
	b->last = last;
	/* gzip can store a block only while its start is in its buffer. */
	b->may_store = b->start >= frame;
	sp->cur = NULL;
	if (!last)
		split_new_block(sp);
	sp->done(sp->payload, b);
}

/*
 * gzip's guess, every 4096 symbols from level 3 on, that the block is
 * worth ending: few matches, and an upper bound of its compressed size
 * under half the input it covers.
 */
static int split_estimate(const struct gzip_split *sp, uint64_t tally)
{
	const struct gzip_block *b = sp->cur;
	uint64_t out = (uint64_t)b->n * 8;
	uint64_t in = tally - b->start;
	unsigned c;

	for (c = 0; c < GZIP_D_CODES; c++)
		out += (uint64_t)b->dfreq[c] * (5 + dist_extra(c));
	out >>= 3;
	return sp->ndist < b->n / 2 && out < in / 2;
}

/* Count one token; returns 1 when gzip's tally would ask for a flush. */
static inline int split_count(struct gzip_split *sp, gzip_tok t,
			      uint64_t tally)
{
	struct gzip_block *b = sp->cur;
	unsigned dist = GZIP_TOK_DIST(t);

	t &= ~GZIP_TOK_DIRTY;
	b->tok[b->n++] = t;
	if (!dist) {
		b->lfreq[t]++;
		sp->pos++;
	} else {
		unsigned lc = t & 0xff;

		b->lfreq[GZIP_END_BLOCK + 1 + length_code(lc)]++;
		b->dfreq[dist_code(dist - 1)]++;
		sp->ndist++;
		sp->pos += lc + 3;
	}
	if (sp->level > 2 && !(b->n % ESTIMATE_EVERY) &&
	    split_estimate(sp, tally))
		return 1;
	return b->n == BLOCK_MAX_SYMS || sp->ndist == BLOCK_MAX_DISTS;
}

void gzip_split_body(struct gzip_split *sp, const gzip_tok *tok, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		/* gzip counts a lazy token one byte after its start. */
		uint64_t tally = sp->pos + (uint64_t)sp->lazy;

		if (split_count(sp, tok[i], tally))
			split_end_block(sp, gzip_frame_at(tally), 0);
	}
}

void gzip_split_tail(struct gzip_split *sp, const struct gzip_tail *tail)
{
	size_t i;

	for (i = 0; i < tail->n; i++) {
		const struct gzip_tail_tok *t = &tail->t[i];

		if (split_count(sp, t->tok, t->tally) && t->may_flush)
			split_end_block(sp, t->frame, 0);
	}
	split_end_block(sp, tail->final_frame, 1);
}

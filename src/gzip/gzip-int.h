/*
 * gzip-int.h: what the files of garchive's gzip engine share.
 *
 * The engine writes the bytes GNU gzip 1.x writes for `gzip -c -n -N`,
 * and does it in three stages:
 *
 *   gzip-lz.c    LZ77 parsing: the same matches and the same lazy
 *                decisions as gzip, as a stream of tokens.  The bulk of
 *                the input is parsed by a fast parser that works in
 *                absolute positions (gzip's 64 KiB window and its slides
 *                make no difference to the tokens there); the last few
 *                hundred bytes, where gzip's window bookkeeping does show
 *                (end-of-input effects), by an emulation of that window.
 *   gzip-huff.c  Blocks: where gzip ends a block (its tally rules),
 *                which kind it writes, its Huffman trees and the bits.
 *   gzip.c       The container, the chunks, the worker threads.
 *   gzip-join.c  Where a speculative parse joins the true one.
 *   gzip-cmd.c   `garchive gzip`, the command around the engine.
 *   gzip-options.c  its options, for the command and for a
 *                tar.<format>.command that names it.
 *
 * Positions are absolute input offsets (uint64_t) unless said otherwise.
 * The numbers below are those of RFC 1951 and of gzip's deflate.c as
 * documented in gnu-gzip-deflate.md (window 32 KiB, a 64 KiB buffer that
 * slides by 32 KiB, 15-bit hash, at least 262 bytes of lookahead).
 */
#ifndef GARCHIVE_GZIP_INT_H
#define GARCHIVE_GZIP_INT_H

#include <stddef.h>
#include <stdint.h>

#define GZIP_WSIZE		32768u
#define GZIP_WMASK		(GZIP_WSIZE - 1)
#define GZIP_HASH_SIZE		32768u
#define GZIP_HASH_MASK		(GZIP_HASH_SIZE - 1)
#define GZIP_MIN_MATCH		3u
#define GZIP_MAX_MATCH		258u
/* A search may look at MAX_MATCH bytes, an insertion at MIN_MATCH more. */
#define GZIP_MIN_LOOKAHEAD	(GZIP_MAX_MATCH + GZIP_MIN_MATCH + 1)
/* The farthest distance gzip ever uses: 32506, not 32768. */
#define GZIP_MAX_DIST		(GZIP_WSIZE - GZIP_MIN_LOOKAHEAD)
/* Lazy levels drop a 3-byte match farther than this. */
#define GZIP_TOO_FAR		4096u
/* gzip slides its buffer once the current position reaches this index. */
#define GZIP_SLIDE_AT		(GZIP_WSIZE + GZIP_MAX_DIST)

/*
 * The fast parser stops this far before the end of the input, at a loop
 * top where gzip has surely not seen the end yet (at least
 * GZIP_MIN_LOOKAHEAD bytes ahead, even after a match of MAX_MATCH - 1
 * bytes took the loop past the stop); the window emulation does the rest.
 */
#define GZIP_TAIL		1024u

/* Extra bytes readable past the data the fast parser may look at. */
#define GZIP_READ_PAD		16u

/* The tuning of one level (gzip's configuration table). */
struct gzip_level {
	uint16_t good;		/* quarter the chain above this length */
	uint16_t lazy;		/* lazy levels: search only below this */
				/* fast levels: insert matches up to this */
	uint16_t nice;		/* stop searching at this length */
	uint16_t chain;		/* candidates examined at most */
};

const struct gzip_level *gzip_level_params(int level);

/* Levels 1 to 3 take gzip's "fast" loop, 4 to 9 the lazy one. */
#define GZIP_IS_LAZY(level)	((level) > 3)

/*
 * A token: a literal byte or a match.
 *   bits 0-7    the literal, or the match length minus 3
 *   bits 8-22   the match distance (1 to 32506), 0 for a literal
 *   bit 23      "dirty" (lazy levels, parsers only): this literal was
 *               emitted while a match of 3 or more was pending, so the
 *               parse state after it is not the plain one (see gzip.c)
 */
typedef uint32_t gzip_tok;

#define GZIP_TOK_DIRTY		(1u << 23)
#define GZIP_TOK_LIT(c)		((gzip_tok)(c))
#define GZIP_TOK_MATCH(len, dist) \
	((gzip_tok)(((uint32_t)(dist) << 8) | ((uint32_t)(len) - 3)))
#define GZIP_TOK_DIST(t)	(((t) >> 8) & 0x7fff)
#define GZIP_TOK_SAME(a, b)	((((a) ^ (b)) & ~GZIP_TOK_DIRTY) == 0)

/* The number of input bytes a token stands for. */
static inline uint32_t gzip_tok_len(gzip_tok t)
{
	return GZIP_TOK_DIST(t) ? (t & 0xff) + 3 : 1;
}

/*
 * The parse state at a loop top: the position the next step starts at
 * and, for the lazy levels, the decision gzip has put off.  `pending` set
 * means the byte at pos - 1 is not emitted yet: it starts a match of
 * `len` bytes at `start` (when len >= 3) that the next step compares with
 * what it finds at pos.
 */
struct gzip_lz_state {
	uint64_t pos;
	int pending;
	uint32_t len;
	uint64_t start;
};

/* What a parse produced: tokens from `first` on. */
struct gzip_seg {
	uint64_t first;		/* position of the first token */
	uint64_t covered;	/* position after the last token */
	gzip_tok *tok;
	size_t n, alloc;
	struct gzip_lz_state end;	/* the state where the parse stopped */
};

void gzip_seg_reserve(struct gzip_seg *seg, size_t more);
void gzip_seg_release(struct gzip_seg *seg);

/*
 * Where the fast levels inserted nothing: the inside of each match longer
 * than the level's insert limit.  A ring of [from, to) intervals in
 * increasing order, of which only the last window's worth is kept.
 */
struct gzip_skips {
	uint64_t (*iv)[2];
	size_t first, n, alloc;
};

void gzip_skips_add(struct gzip_skips *s, uint64_t from, uint64_t to);
/* Forget the intervals that end at or before `pos`. */
void gzip_skips_forget(struct gzip_skips *s, uint64_t pos);
void gzip_skips_release(struct gzip_skips *s);
/* Record the skipped parts of `n` tokens starting at `pos`. */
void gzip_skips_note(struct gzip_skips *s, int level, uint64_t pos,
		     const gzip_tok *tok, size_t n);

/*
 * The fast parser.  Like gzip's, its hash tables hold 16-bit offsets
 * from a base position (0: empty) and slide by 32 KiB as the parse moves
 * on; unlike gzip's, the base is independent of the buffer, which can be
 * of any size: the parse reads input through `buf`, whose first byte is
 * input position `base`.  Table bases and buffer bases are multiples of
 * 32 KiB.
 */
struct gzip_lz {
	int level;
	const struct gzip_level *cfg;
	uint16_t *head;		/* GZIP_HASH_SIZE chain heads */
	uint16_t *prev;		/* GZIP_WSIZE links, by offset % WSIZE */
	int tables;		/* the tables hold something */
	uint64_t tbase;		/* the position of offset 0 */
	const uint8_t *buf;	/* buf[i] is input byte base + i */
	uint64_t base;
};

void gzip_lz_init(struct gzip_lz *lz, int level);
void gzip_lz_release(struct gzip_lz *lz);
/* Empty the hash tables. */
void gzip_lz_clear(struct gzip_lz *lz);
/*
 * Read the input from `buf`, whose first byte is input position `base`
 * (a multiple of the window size, at most a window before the next
 * position to parse), keeping what the tables hold.
 */
void gzip_lz_set_buffer(struct gzip_lz *lz, const uint8_t *buf,
			uint64_t base);
/*
 * Insert the positions [from, to) into empty tables, as gzip would have
 * by then: all of them at lazy levels, at fast levels all but those in
 * `skips` (NULL: all).  `to` is where the parse will start.
 */
void gzip_lz_insert(struct gzip_lz *lz, uint64_t from, uint64_t to,
		    const struct gzip_skips *skips);
/*
 * Parse from `*st` until the first loop top at or after `stop`, appending
 * tokens to `seg` and leaving the state there in `*st` (and seg->end).
 * The buffer must hold the input up to stop + GZIP_TAIL and the tables
 * the 32 KiB before st->pos.
 */
void gzip_lz_parse(struct gzip_lz *lz, struct gzip_seg *seg,
		   struct gzip_lz_state *st, uint64_t stop);

/*
 * gzip's buffer base at a loop top at `pos` in the bulk of the input:
 * the buffer slides right after the first step that ends at or past
 * index GZIP_SLIDE_AT + 1, and every loop top is the end of a step.
 */
static inline uint64_t gzip_frame_at(uint64_t pos)
{
	if (pos < GZIP_SLIDE_AT + 1)
		return 0;
	return GZIP_WSIZE * ((pos - (GZIP_SLIDE_AT + 1)) / GZIP_WSIZE + 1);
}

/* A token of the end of the input, with what gzip's tally saw. */
struct gzip_tail_tok {
	gzip_tok tok;
	uint64_t tally;		/* gzip's position when it counted it */
	uint64_t frame;		/* gzip's buffer base at that moment */
	int may_flush;		/* 0: counted after the loop, no flush */
};

struct gzip_tail {
	struct gzip_tail_tok *t;
	size_t n, alloc;
	uint64_t final_frame;	/* the buffer base at the last block */
	/*
	 * In: gzip's buffer before its first read (NULL: zeros, as in a
	 * new process).  Out, when not NULL: the buffer at the end.
	 */
	const uint8_t *window_in;
	uint8_t *window_out;	/* GZIP_BUFFER bytes */
};

/* The size of gzip's buffer. */
#define GZIP_BUFFER		(2 * GZIP_WSIZE)

/* Copy input [pos, pos + len) to dst; the range is always available. */
typedef void (*gzip_read_fn)(void *payload, uint8_t *dst, uint64_t pos,
			     size_t len);

/*
 * Parse the end of an input of `total` bytes as gzip does, from the loop
 * top `*st` (pos 0 for a whole input, else at least GZIP_MIN_LOOKAHEAD
 * bytes before the end), appending to `out` (whose window_in and
 * window_out are set by the caller).  `read` gives input bytes from up
 * to 96 KiB before st->pos; `skips` (fast levels) says which of the
 * 32 KiB before it gzip left out of its tables.
 */
void gzip_tail_run(struct gzip_tail *out, int level, uint64_t total,
		   const struct gzip_lz_state *st,
		   const struct gzip_skips *skips, gzip_read_fn read,
		   void *payload);
void gzip_tail_release(struct gzip_tail *tail);

/* ---- the join (gzip-join.c) ---- */

/* The true parse, from where its tokens are not yet final. */
struct gzip_join_true {
	const struct gzip_seg *seg;
	size_t idx;		/* seg->tok[idx] is the first token... */
	uint64_t pos;		/* ... and starts here */
	int dirty;		/* the token before is a dirty literal */
	/*
	 * Fast levels: the intervals the true parse left out before pos,
	 * at least those of the window before it (NULL: none).
	 */
	const struct gzip_skips *skips;
};

/*
 * The first position y where the true parse `t` and the parse `b` from a
 * guessed state at b->first make the same tokens from then on.  Returns
 * 1 with y and the indexes in t->seg and b of the tokens starting at y,
 * 0 when the tokens run out first.
 */
int gzip_join_find(size_t *ja, size_t *jb, uint64_t *y, int level,
		   const struct gzip_join_true *t, const struct gzip_seg *b);

/* ---- blocks (gzip-huff.c) ---- */

#define GZIP_L_CODES	286	/* literals, END_BLOCK, length codes */
#define GZIP_D_CODES	30
#define GZIP_BL_CODES	19
#define GZIP_END_BLOCK	256

enum gzip_block_type { GZIP_STORED = 0, GZIP_FIXED = 1, GZIP_DYNAMIC = 2 };

/* One deflate block, from the split through its bits. */
struct gzip_block {
	uint64_t seq;		/* order in the stream */
	uint64_t start, end;	/* input positions it covers */
	int last;		/* the final block (BFINAL) */
	int may_store;		/* its bytes still in gzip's buffer */
	gzip_tok *tok;
	uint32_t n, alloc;
	uint32_t lfreq[GZIP_L_CODES];
	uint32_t dfreq[GZIP_D_CODES];

	/* gzip_block_plan() */
	enum gzip_block_type type;
	uint64_t opt_bits, static_bits;	/* gzip's opt_len, static_len */
	int lmax, dmax, blmax;	/* highest code sent per tree */
	uint8_t llen[GZIP_L_CODES + 2], dlen[GZIP_D_CODES];
	uint8_t bllen[GZIP_BL_CODES];
	uint16_t lcode[GZIP_L_CODES + 2], dcode[GZIP_D_CODES];
	uint16_t blcode[GZIP_BL_CODES];

	/* the stream position, then gzip_block_encode() */
	uint64_t bitpos;	/* where its first bit goes */
	uint64_t bits;		/* its size */
	uint8_t *raw;		/* stored blocks: the input bytes */
	size_t raw_alloc;
	uint8_t *out;		/* its bits, from bit bitpos % 8 on */
	size_t out_len;		/* bytes with its bits (the last maybe
				   shared with the next block) */
	size_t out_alloc;
};

struct gzip_block *gzip_block_new(void);
void gzip_block_free(struct gzip_block *b);
/* Room for the input bytes of a stored block. */
void gzip_block_reserve_raw(struct gzip_block *b, size_t len);

/*
 * Decide what gzip writes for a finished block: build its trees and pick
 * stored, fixed or dynamic as gzip's flush_block() does.
 */
void gzip_block_plan(struct gzip_block *b);
/* The size in bits of a planned block that starts at bit `bitpos`. */
uint64_t gzip_block_size(const struct gzip_block *b, uint64_t bitpos);
/* Write the bits of a planned block whose bitpos and raw are set. */
void gzip_block_encode(struct gzip_block *b);

/*
 * The block split: gzip's ct_tally() rules, replayed over the final
 * tokens.  Each block that ends goes to `done`, which owns it from then.
 */
typedef void (*gzip_block_fn)(void *payload, struct gzip_block *b);

struct gzip_split {
	int level;
	int lazy;
	uint64_t pos;		/* input covered by the tokens so far */
	uint64_t seq;
	struct gzip_block *cur;
	uint32_t ndist;
	gzip_block_fn done;
	void *payload;
	struct gzip_block **spare;	/* written blocks, for reuse */
	size_t nspare, alloc_spare;
};

void gzip_split_init(struct gzip_split *sp, int level, gzip_block_fn done,
		     void *payload);
void gzip_split_release(struct gzip_split *sp);
/* A block `done` got is written out: keep it for the next ones. */
void gzip_split_recycle(struct gzip_split *sp, struct gzip_block *b);
/* Tokens of the bulk of the input, starting at sp->pos. */
void gzip_split_body(struct gzip_split *sp, const gzip_tok *tok, size_t n);
/* Tokens of the end, with what gzip's tally saw; then the last block. */
void gzip_split_tail(struct gzip_split *sp, const struct gzip_tail *tail);

#endif

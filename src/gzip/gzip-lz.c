/*
 * gzip-lz.c: LZ77 parsing with GNU gzip's decisions.
 *
 * gzip hashes every 3-byte string into a 15-bit key, chains the
 * positions with equal keys, and at each step looks down the chain of
 * the current position for the longest earlier match, within limits set
 * by the level (gnu-gzip-deflate.md sections 2 to 5).  Levels 1 to 3
 * take the first match they find worth having; levels 4 to 9 put each
 * decision off by one byte, to see whether the next position starts a
 * longer match ("lazy" matching).
 *
 * Two parsers live here.  gzip_lz_parse() is the fast one: it works on a
 * buffer of any size in absolute positions, compares eight bytes at a
 * time and keeps no 64 KiB window.  That changes nothing as long as gzip
 * has not seen the end of its input: before that, gzip always has at
 * least 262 bytes of lookahead, never searches past index 65274 of its
 * buffer, and its slides only forget positions that are out of reach
 * anyway.  gzip_tail_run() handles the rest: it rebuilds gzip's buffer
 * as it is at a loop top shortly before the end (bytes left behind by
 * earlier slides included) and runs gzip's loop on it literally, with
 * the end-of-input rules that follow (no search past index 65274 when
 * the last read did not slide, matches that run into stale bytes, the
 * lookahead cap, the literal emitted after the loop).
 */
#include "gzip-int.h"
#include "garchive/common.h"

#include <stdlib.h>
#include <string.h>

/*
 * gzip's configuration table (good, lazy, nice, chain), as documented in
 * gnu-gzip-deflate.md section 2; zlib's has the same numbers.
 */
static const struct gzip_level levels[10] = {
	{ 0, 0, 0, 0 },
	{ 4, 4, 8, 4 },
	{ 4, 5, 16, 8 },
	{ 4, 6, 32, 32 },
	{ 4, 4, 16, 16 },
	{ 8, 16, 32, 32 },
	{ 8, 16, 128, 128 },
	{ 8, 32, 128, 256 },
	{ 32, 128, 258, 1024 },
	{ 32, 258, 258, 4096 },
};

const struct gzip_level *gzip_level_params(int level)
{
	if (level < 1 || level > 9)
		GA_BUG("gzip level out of range");
	return &levels[level];
}

/* ---- segments and skipped intervals ---- */

void gzip_seg_reserve(struct gzip_seg *seg, size_t more)
{
	if (seg->n + more > seg->alloc)
		GA_ALLOC_GROW(seg->tok, seg->n + more, seg->alloc);
}

void gzip_seg_release(struct gzip_seg *seg)
{
	free(seg->tok);
	memset(seg, 0, sizeof(*seg));
}

void gzip_skips_add(struct gzip_skips *s, uint64_t from, uint64_t to)
{
	if (s->first + s->n == s->alloc) {
		/* Move the live part down before growing. */
		if (s->first) {
			memmove(s->iv, s->iv + s->first,
				s->n * sizeof(*s->iv));
			s->first = 0;
		}
		if (s->n == s->alloc)
			GA_ALLOC_GROW(s->iv, s->n + 1, s->alloc);
	}
	s->iv[s->first + s->n][0] = from;
	s->iv[s->first + s->n][1] = to;
	s->n++;
}

void gzip_skips_forget(struct gzip_skips *s, uint64_t pos)
{
	while (s->n && s->iv[s->first][1] <= pos) {
		s->first++;
		s->n--;
	}
	if (!s->n)
		s->first = 0;
}

void gzip_skips_release(struct gzip_skips *s)
{
	free(s->iv);
	memset(s, 0, sizeof(*s));
}

void gzip_skips_note(struct gzip_skips *s, int level, uint64_t pos,
		     const gzip_tok *tok, size_t n)
{
	uint32_t limit;
	size_t i;

	if (GZIP_IS_LAZY(level))
		return;
	limit = gzip_level_params(level)->lazy;
	for (i = 0; i < n; i++) {
		uint32_t len = gzip_tok_len(tok[i]);

		if (len > limit)
			gzip_skips_add(s, pos + 1, pos + len);
		pos += len;
	}
}

/* ---- the fast parser ---- */

static inline uint32_t load16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* gzip's key of the 3 bytes at p: only the low 5 bits of p[0] count. */
static inline uint32_t hash3(const uint8_t *p)
{
	return (((uint32_t)p[0] << 10) ^ ((uint32_t)p[1] << 5) ^ p[2]) &
	       GZIP_HASH_MASK;
}

void gzip_lz_init(struct gzip_lz *lz, int level)
{
	memset(lz, 0, sizeof(*lz));
	lz->level = level;
	lz->cfg = gzip_level_params(level);
	lz->head = ga_xcalloc(GZIP_HASH_SIZE, sizeof(*lz->head));
	lz->prev = ga_xcalloc(GZIP_WSIZE, sizeof(*lz->prev));
}

void gzip_lz_release(struct gzip_lz *lz)
{
	free(lz->head);
	free(lz->prev);
	memset(lz, 0, sizeof(*lz));
}

void gzip_lz_clear(struct gzip_lz *lz)
{
	memset(lz->head, 0, GZIP_HASH_SIZE * sizeof(*lz->head));
	lz->tables = 0;
}

/*
 * Move the tables' base on by 32 KiB, as gzip's fill_window() does:
 * positions before the new base are forgotten (0), the others move down.
 * A link is a position whose offset is taken modulo WSIZE, so the links
 * stay where they are.
 */
static void slide(struct gzip_lz *lz)
{
	uint16_t *t;
	size_t i;

	for (t = lz->head, i = 0; i < GZIP_HASH_SIZE; i++)
		t[i] = t[i] >= GZIP_WSIZE ? (uint16_t)(t[i] - GZIP_WSIZE) : 0;
	for (t = lz->prev, i = 0; i < GZIP_WSIZE; i++)
		t[i] = t[i] >= GZIP_WSIZE ? (uint16_t)(t[i] - GZIP_WSIZE) : 0;
	lz->tbase += GZIP_WSIZE;
}

void gzip_lz_set_buffer(struct gzip_lz *lz, const uint8_t *buf,
			uint64_t base)
{
	if (base % GZIP_WSIZE)
		GA_BUG("gzip buffer not aligned");
	lz->buf = buf;
	lz->base = base;
	/* Only positions a window before the next one can go. */
	while (lz->tables && lz->tbase < base)
		slide(lz);
}

static inline void insert_one(uint16_t *head, uint16_t *prev,
			      const uint8_t *w, uint32_t i)
{
	uint32_t h = hash3(w + i);

	prev[i & GZIP_WMASK] = head[h];
	head[h] = (uint16_t)i;
}

void gzip_lz_insert(struct gzip_lz *lz, uint64_t from, uint64_t to,
		    const struct gzip_skips *skips)
{
	size_t k = skips ? skips->first : 0;
	size_t kend = skips ? skips->first + skips->n : 0;
	const uint8_t *w;
	uint64_t p;

	/* The base: the window boundary at or before `from`. */
	lz->tbase = (from > lz->base ? from : lz->base) / GZIP_WSIZE *
		    GZIP_WSIZE;
	lz->tables = 1;
	w = lz->buf + (lz->tbase - lz->base);
	/* Offset 0 means "empty": it cannot be inserted, as in gzip. */
	if (from <= lz->tbase)
		from = lz->tbase + 1;
	for (p = from; p < to; p++) {
		while (k < kend && skips->iv[k][1] <= p)
			k++;
		if (k < kend && skips->iv[k][0] <= p) {
			p = skips->iv[k][1] - 1;
			continue;
		}
		insert_one(lz->head, lz->prev, w, (uint32_t)(p - lz->tbase));
	}
}

/*
 * gzip's longest_match(): the best match for the string at s among the
 * chain that starts at cur, better than `best` bytes.  The candidates
 * and the order they are tried in are gzip's, and so are the rules that
 * decide (strictly longer wins, stop at `nice`, `chain` candidates at
 * most, none at distance 32506 except the first); only the comparing is
 * done differently.  gzip checks bytes best-1, best, 0 and 1 before it
 * compares; that can only reject candidates that are not longer, so any
 * such filter gives the same result.  Byte 2 always matches: same key
 * and same bytes 0 and 1 leave it no other value.
 */
static inline uint32_t load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t longest(const uint8_t *w, const uint16_t *prev,
			       uint32_t s, uint32_t cur, uint32_t best,
			       uint32_t chain, uint32_t nice, uint32_t *start)
{
	const uint8_t *scan = w + s;
	uint32_t limit = s > GZIP_MAX_DIST ? s - GZIP_MAX_DIST : 0;
	uint32_t first = load16(scan);
	/*
	 * A longer match has bytes 0 to best equal: check the four that
	 * end there, or the first three while best is 2.
	 */
	uint32_t at = best >= 3 ? best - 3 : 0;
	uint32_t mask = best >= 3 ? 0xffffffffu : 0x00ffffffu;
	uint32_t tail = load32(scan + at) & mask;

	do {
		const uint8_t *m = w + cur;

		if ((load32(m + at) & mask) == tail && load16(m) == first) {
			uint32_t len = 2, bit;
			uint64_t x;

			for (;;) {
				x = load64(scan + len) ^ load64(m + len);
				if (x) {
					bit = (uint32_t)__builtin_ctzll(x);
					len += bit / 8;
					break;
				}
				len += 8;
				if (len >= GZIP_MAX_MATCH)
					break;
			}
			if (len > GZIP_MAX_MATCH)
				len = GZIP_MAX_MATCH;
			if (len > best) {
				*start = cur;
				best = len;
				if (len >= nice)
					break;
				at = best - 3;
				mask = 0xffffffffu;
				tail = load32(scan + at);
			}
		}
		cur = prev[cur & GZIP_WMASK];
	} while (cur > limit && --chain != 0);
	return best;
}

/*
 * The tables slide when the parse reaches this offset from their base:
 * the last offset a step inserts (257 past its loop top) still fits in
 * 16 bits, and after the slide every position a search may use (32506
 * back at most) is still there.  gzip slides at about the same point.
 */
#define SLIDE_AT	(GZIP_SLIDE_AT + 1)

/* gzip's lazy loop (deflate() in deflate.c), levels 4 to 9. */
static void parse_lazy(struct gzip_lz *lz, struct gzip_seg *seg,
		       struct gzip_lz_state *st, uint64_t stop_pos)
{
	uint16_t *head = lz->head, *prev = lz->prev;
	const uint32_t max_lazy = lz->cfg->lazy, good = lz->cfg->good;
	const uint32_t nice = lz->cfg->nice, chain = lz->cfg->chain;
	const uint8_t *w = lz->buf + (lz->tbase - lz->base);
	uint32_t s = (uint32_t)(st->pos - lz->tbase);
	uint32_t stop = (uint32_t)(stop_pos - lz->tbase);
	int pending = st->pending;
	uint32_t ml = st->len;
	uint32_t ms = pending && ml >= GZIP_MIN_MATCH ?
		      (uint32_t)(st->start - lz->tbase) : 0;
	gzip_tok *t = seg->tok + seg->n;

	while (s < stop) {
		uint32_t h, cur, pl, pm;

		if (s >= SLIDE_AT) {
			slide(lz);
			w += GZIP_WSIZE;
			s -= GZIP_WSIZE;
			stop -= GZIP_WSIZE;
			ms -= GZIP_WSIZE;
		}
		h = hash3(w + s);
		cur = head[h];
		pl = ml;
		pm = ms;
		head[h] = (uint16_t)s;
		prev[s & GZIP_WMASK] = (uint16_t)cur;
		ml = GZIP_MIN_MATCH - 1;
		if (cur && pl < max_lazy && s - cur <= GZIP_MAX_DIST) {
			ml = longest(w, prev, s, cur, pl,
				     pl >= good ? chain >> 2 : chain, nice,
				     &ms);
			if (ml == GZIP_MIN_MATCH && s - ms > GZIP_TOO_FAR)
				ml = GZIP_MIN_MATCH - 1;
		}
		if (pl >= GZIP_MIN_MATCH && ml <= pl) {
			/* The match found one byte back stands. */
			uint32_t end = s - 1 + pl, q;

			*t++ = GZIP_TOK_MATCH(pl, s - 1 - pm);
			for (q = s + 1; q < end; q++)
				insert_one(head, prev, w, q);
			s = end;
			pending = 0;
			ml = GZIP_MIN_MATCH - 1;
		} else if (pending) {
			/* The byte back is a literal, maybe a cut match. */
			*t++ = GZIP_TOK_LIT(w[s - 1]) |
			       (pl >= GZIP_MIN_MATCH ? GZIP_TOK_DIRTY : 0);
			s++;
		} else {
			pending = 1;
			s++;
		}
	}
	seg->n = (size_t)(t - seg->tok);
	st->pos = lz->tbase + s;
	st->pending = pending;
	st->len = ml;
	st->start = ml >= GZIP_MIN_MATCH ? lz->tbase + ms : 0;
}

/* gzip's deflate_fast(), levels 1 to 3. */
static void parse_fast(struct gzip_lz *lz, struct gzip_seg *seg,
		       struct gzip_lz_state *st, uint64_t stop_pos)
{
	uint16_t *head = lz->head, *prev = lz->prev;
	const uint32_t max_insert = lz->cfg->lazy;
	const uint32_t nice = lz->cfg->nice, chain = lz->cfg->chain;
	const uint8_t *w = lz->buf + (lz->tbase - lz->base);
	uint32_t s = (uint32_t)(st->pos - lz->tbase);
	uint32_t stop = (uint32_t)(stop_pos - lz->tbase);
	uint32_t ms = 0;
	gzip_tok *t = seg->tok + seg->n;

	while (s < stop) {
		uint32_t h, cur, ml = 0;

		if (s >= SLIDE_AT) {
			slide(lz);
			w += GZIP_WSIZE;
			s -= GZIP_WSIZE;
			stop -= GZIP_WSIZE;
		}
		h = hash3(w + s);
		cur = head[h];
		head[h] = (uint16_t)s;
		prev[s & GZIP_WMASK] = (uint16_t)cur;
		if (cur && s - cur <= GZIP_MAX_DIST)
			ml = longest(w, prev, s, cur, GZIP_MIN_MATCH - 1,
				     chain, nice, &ms);
		if (ml >= GZIP_MIN_MATCH) {
			*t++ = GZIP_TOK_MATCH(ml, s - ms);
			if (ml <= max_insert) {
				uint32_t end = s + ml, q;

				for (q = s + 1; q < end; q++)
					insert_one(head, prev, w, q);
			}
			s += ml;
		} else {
			*t++ = GZIP_TOK_LIT(w[s]);
			s++;
		}
	}
	seg->n = (size_t)(t - seg->tok);
	st->pos = lz->tbase + s;
	st->pending = 0;
	st->len = GZIP_MIN_MATCH - 1;
	st->start = 0;
}

void gzip_lz_parse(struct gzip_lz *lz, struct gzip_seg *seg,
		   struct gzip_lz_state *st, uint64_t stop)
{
	if (!seg->n)
		seg->first = st->pending ? st->pos - 1 : st->pos;
	if (stop > st->pos) {
		gzip_seg_reserve(seg, (size_t)(stop - st->pos) + 2);
		if (GZIP_IS_LAZY(lz->level))
			parse_lazy(lz, seg, st, stop);
		else
			parse_fast(lz, seg, st, stop);
	}
	seg->covered = st->pending ? st->pos - 1 : st->pos;
	seg->end = *st;
}

/* ---- the end of the input: gzip's window, emulated ---- */

/*
 * gzip's compression state between two steps, in its own terms: indices
 * into its 64 KiB buffer `win`, whose first byte is input position
 * `frame`.  The buffer has a little room past 64 KiB that gzip's own does
 * not; nothing here reads it.
 */
struct tail_em {
	uint8_t win[2 * GZIP_WSIZE + 64];
	uint16_t head[GZIP_HASH_SIZE];
	uint16_t prev[GZIP_WSIZE];
	unsigned strstart, lookahead, match_start, ins_h;
	int eofile;
	uint64_t frame, total;
	const struct gzip_level *cfg;
	gzip_read_fn read;
	void *payload;
	struct gzip_tail *out;
};

static void tail_emit(struct tail_em *e, gzip_tok tok, int may_flush)
{
	struct gzip_tail *o = e->out;
	struct gzip_tail_tok *t;

	GA_ALLOC_GROW(o->t, o->n + 1, o->alloc);
	t = &o->t[o->n++];
	t->tok = tok;
	t->tally = e->frame + e->strstart;
	t->frame = e->frame;
	t->may_flush = may_flush;
}

static inline unsigned tail_insert(struct tail_em *e, unsigned s)
{
	unsigned cur;

	e->ins_h = ((e->ins_h << 5) ^ e->win[s + GZIP_MIN_MATCH - 1]) &
		   GZIP_HASH_MASK;
	cur = e->head[e->ins_h];
	e->prev[s & GZIP_WMASK] = (uint16_t)cur;
	e->head[e->ins_h] = (uint16_t)s;
	return cur;
}

/* gzip's fill_window(), reading as much as there is room for. */
static void tail_fill(struct tail_em *e)
{
	unsigned more = 2 * GZIP_WSIZE - e->lookahead - e->strstart;
	unsigned i;

	if (e->strstart >= GZIP_SLIDE_AT) {
		memcpy(e->win, e->win + GZIP_WSIZE, GZIP_WSIZE);
		e->match_start -= GZIP_WSIZE;
		e->strstart -= GZIP_WSIZE;
		e->frame += GZIP_WSIZE;
		for (i = 0; i < GZIP_HASH_SIZE; i++)
			e->head[i] = e->head[i] >= GZIP_WSIZE ?
				     (uint16_t)(e->head[i] - GZIP_WSIZE) : 0;
		for (i = 0; i < GZIP_WSIZE; i++)
			e->prev[i] = e->prev[i] >= GZIP_WSIZE ?
				     (uint16_t)(e->prev[i] - GZIP_WSIZE) : 0;
		more += GZIP_WSIZE;
	}
	if (!e->eofile) {
		unsigned at = e->strstart + e->lookahead;
		uint64_t pos = e->frame + at;
		uint64_t left = e->total - pos;
		unsigned n = left < more ? (unsigned)left : more;

		if (!n) {
			/* gzip zeroes the 2 bytes a last hash would read. */
			e->eofile = 1;
			e->win[at] = 0;
			e->win[at + 1] = 0;
		} else {
			e->read(e->payload, e->win + at, pos, n);
			e->lookahead += n;
		}
	}
}

static void tail_refill(struct tail_em *e)
{
	while (e->lookahead < GZIP_MIN_LOOKAHEAD && !e->eofile)
		tail_fill(e);
}

/* gzip's longest_match() as it is, byte by byte. */
static unsigned tail_longest(struct tail_em *e, unsigned cur, unsigned best)
{
	const uint8_t *scan = e->win + e->strstart;
	const uint8_t *strend = scan + GZIP_MAX_MATCH;
	unsigned chain = e->cfg->chain;
	unsigned limit = e->strstart > GZIP_MAX_DIST ?
			 e->strstart - GZIP_MAX_DIST : 0;
	uint8_t end1 = scan[best - 1], end0 = scan[best];

	if (best >= e->cfg->good)
		chain >>= 2;
	do {
		const uint8_t *m = e->win + cur, *a, *b;
		unsigned len;

		if (m[best] != end0 || m[best - 1] != end1 ||
		    m[0] != scan[0] || m[1] != scan[1])
			continue;
		/* Byte 2 is taken as equal, as gzip does. */
		a = scan + 3;
		b = m + 3;
		while (a < strend && *a == *b) {
			a++;
			b++;
		}
		len = (unsigned)(a - scan);
		if (len > best) {
			e->match_start = cur;
			best = len;
			if (len >= e->cfg->nice)
				break;
			end1 = scan[best - 1];
			end0 = scan[best];
		}
	} while ((cur = e->prev[cur & GZIP_WMASK]) > limit && --chain != 0);
	return best;
}

static int tail_can_search(struct tail_em *e, unsigned cur)
{
	return cur != 0 && e->strstart - cur <= GZIP_MAX_DIST &&
	       e->strstart <= 2 * GZIP_WSIZE - GZIP_MIN_LOOKAHEAD;
}

static void tail_lazy(struct tail_em *e, const struct gzip_lz_state *st)
{
	unsigned match_length = st->len, prev_length, prev_match;
	int available = st->pending;

	while (e->lookahead) {
		unsigned cur = tail_insert(e, e->strstart);

		prev_length = match_length;
		prev_match = e->match_start;
		match_length = GZIP_MIN_MATCH - 1;
		if (tail_can_search(e, cur) && prev_length < e->cfg->lazy) {
			match_length = tail_longest(e, cur, prev_length);
			if (match_length > e->lookahead)
				match_length = e->lookahead;
			if (match_length == GZIP_MIN_MATCH &&
			    e->strstart - e->match_start > GZIP_TOO_FAR)
				match_length--;
		}
		if (prev_length >= GZIP_MIN_MATCH &&
		    match_length <= prev_length) {
			tail_emit(e, GZIP_TOK_MATCH(prev_length,
				  e->strstart - 1 - prev_match), 1);
			e->lookahead -= prev_length - 1;
			prev_length -= 2;
			do {
				e->strstart++;
				tail_insert(e, e->strstart);
			} while (--prev_length);
			available = 0;
			match_length = GZIP_MIN_MATCH - 1;
			e->strstart++;
		} else if (available) {
			tail_emit(e, GZIP_TOK_LIT(e->win[e->strstart - 1]), 1);
			e->strstart++;
			e->lookahead--;
		} else {
			available = 1;
			e->strstart++;
			e->lookahead--;
		}
		tail_refill(e);
	}
	/* gzip counts the last pending byte without asking for a flush. */
	if (available)
		tail_emit(e, GZIP_TOK_LIT(e->win[e->strstart - 1]), 0);
}

static void tail_fast(struct tail_em *e)
{
	unsigned match_length = 0;

	while (e->lookahead) {
		unsigned cur = tail_insert(e, e->strstart);

		if (tail_can_search(e, cur)) {
			match_length = tail_longest(e, cur,
						    GZIP_MIN_MATCH - 1);
			if (match_length > e->lookahead)
				match_length = e->lookahead;
		}
		if (match_length >= GZIP_MIN_MATCH) {
			tail_emit(e, GZIP_TOK_MATCH(match_length,
				  e->strstart - e->match_start), 1);
			e->lookahead -= match_length;
			if (match_length <= e->cfg->lazy) {
				match_length--;
				do {
					e->strstart++;
					tail_insert(e, e->strstart);
				} while (--match_length);
				e->strstart++;
			} else {
				e->strstart += match_length;
				match_length = 0;
				e->ins_h = ((unsigned)e->win[e->strstart]
					    << 5 ^ e->win[e->strstart + 1]) &
					   GZIP_HASH_MASK;
			}
		} else {
			tail_emit(e, GZIP_TOK_LIT(e->win[e->strstart]), 1);
			e->lookahead--;
			e->strstart++;
		}
		tail_refill(e);
	}
}

/*
 * gzip's buffer at a loop top at `pos` before the end was seen: input
 * from the base on, as far as it goes; past the end of the input, what
 * earlier reads left there.  While the buffer has not slid, that is
 * what it held before the first read: zeros in a new process, or what
 * the file before left (gzip -c FILE... reuses its buffer).  After
 * slides, the last read came right after one (the one before filled the
 * buffer): the upper half past the end of the input still holds what it
 * held before that slide, the input 32 KiB back.
 */
static void tail_load(struct tail_em *e, uint64_t pos, const uint8_t *before)
{
	uint64_t have = e->total - e->frame;
	unsigned data = have < GZIP_BUFFER ? (unsigned)have : GZIP_BUFFER;

	memset(e->win, 0, sizeof(e->win));
	if (!e->frame && before)
		memcpy(e->win, before, GZIP_BUFFER);
	if (data)
		e->read(e->payload, e->win, e->frame, data);
	if (e->frame && data < GZIP_BUFFER)
		e->read(e->payload, e->win + data,
			e->frame + data - GZIP_WSIZE, GZIP_BUFFER - data);
	e->strstart = (unsigned)(pos - e->frame);
	e->lookahead = data - e->strstart;
}

/* The tables at `pos`, rebuilt from the positions gzip had inserted. */
static void tail_tables(struct tail_em *e, uint64_t pos,
			const struct gzip_skips *skips)
{
	uint64_t from = pos > GZIP_WSIZE ? pos - GZIP_WSIZE : 0;
	size_t k = skips ? skips->first : 0;
	size_t kend = skips ? skips->first + skips->n : 0;
	uint64_t p;

	if (from <= e->frame)
		from = e->frame + 1;
	for (p = from; p < pos; p++) {
		unsigned i = (unsigned)(p - e->frame), h;

		while (k < kend && skips->iv[k][1] <= p)
			k++;
		if (k < kend && skips->iv[k][0] <= p) {
			p = skips->iv[k][1] - 1;
			continue;
		}
		h = hash3(e->win + i);
		e->prev[i & GZIP_WMASK] = e->head[h];
		e->head[h] = (uint16_t)i;
	}
}

void gzip_tail_run(struct gzip_tail *out, int level, uint64_t total,
		   const struct gzip_lz_state *st,
		   const struct gzip_skips *skips, gzip_read_fn read,
		   void *payload)
{
	struct tail_em *e = ga_xcalloc(1, sizeof(*e));
	uint64_t pos = st->pos;
	unsigned s;

	if (pos && total - pos < GZIP_MIN_LOOKAHEAD)
		GA_BUG("gzip tail starts too late");
	e->cfg = gzip_level_params(level);
	e->total = total;
	e->read = read;
	e->payload = payload;
	e->out = out;
	e->frame = pos ? gzip_frame_at(pos) : 0;
	tail_load(e, pos, out->window_in);
	/* Only a whole input shorter than that has its end seen at once. */
	e->eofile = total - pos < GZIP_MIN_LOOKAHEAD;
	tail_tables(e, pos, skips);
	s = e->strstart;
	e->ins_h = (((s ? (unsigned)e->win[s - 1] : 0) << 10) ^
		    ((unsigned)e->win[s] << 5) ^ e->win[s + 1]) &
		   GZIP_HASH_MASK;
	if (st->pending && st->len >= GZIP_MIN_MATCH)
		e->match_start = (unsigned)(st->start - e->frame);
	if (GZIP_IS_LAZY(level))
		tail_lazy(e, st);
	else
		tail_fast(e);
	out->final_frame = e->frame;
	if (out->window_out)
		memcpy(out->window_out, e->win, GZIP_BUFFER);
	free(e);
}

void gzip_tail_release(struct gzip_tail *tail)
{
	free(tail->t);
	memset(tail, 0, sizeof(*tail));
}

/*
 * gzip-join.c: where a parse from a guessed state meets the true parse.
 *
 * With several threads, every chunk but the first is parsed from a
 * guessed state while the chunks before it are still being parsed (see
 * gzip.c).  The true parse that reaches the chunk takes the guessed
 * tokens over at the first position y from which the two provably make
 * the same tokens:
 *
 *  - Levels 4 to 9 insert every position into the hash tables, so at a
 *    loop top the tables hold exactly the 32 KiB before it, whatever the
 *    parse was; what else decides the future is the pending lazy match.
 *    Two parses that both end a token at y with no match pending there
 *    (the token before y is a match, or a literal emitted with no match
 *    of 3 or more waiting) make the same tokens from y on.  The guessed
 *    state, "nothing pending" with the exact tables, is such a state.
 *  - Levels 1 to 3 leave the inside of long matches out of the tables, so
 *    the tables depend on the parse.  Two parses that left out the same
 *    positions over a whole window before a common loop top y have the
 *    same tables at y, and make the same tokens from y on.  The tokens
 *    before y need not agree, only what they left out.
 */
#include "gzip-int.h"
#include "garchive/common.h"

#include <stdlib.h>

/*
 * Levels 1 to 3: what the two parses left out of their tables (the
 * inside of matches longer than the insert limit), as intervals in
 * position order, each kept until it is paired with an equal one on the
 * other side or found to have none.
 */
struct skip_match {
	struct gzip_skips q[2];	/* 0: the true parse, 1: the guessed */
	uint64_t differ;	/* the last position the sets may differ at */
	uint32_t limit;		/* the insert limit */
};

static void skip_differ(struct skip_match *m, uint64_t end)
{
	if (end - 1 > m->differ || m->differ == UINT64_MAX)
		m->differ = end - 1;
}

static void skip_push(struct skip_match *m, int side, uint64_t pos,
		      gzip_tok t)
{
	uint32_t len = gzip_tok_len(t);

	if (len > m->limit)
		gzip_skips_add(&m->q[side], pos + 1, pos + len);
}

static const uint64_t *skip_head(const struct gzip_skips *q)
{
	return q->n ? q->iv[q->first] : NULL;
}

static void skip_pop(struct gzip_skips *q)
{
	q->first++;
	if (!--q->n)
		q->first = 0;
}

/*
 * Pair the intervals both sides have made so far; an interval with no
 * equal one on the other side, whose tokens are known up to `known[]`,
 * is a difference.
 */
static void skip_settle(struct skip_match *m, const uint64_t known[2])
{
	struct gzip_skips *qa = &m->q[0], *qb = &m->q[1];

	for (;;) {
		const uint64_t *a = skip_head(qa), *b = skip_head(qb);

		if (a && b) {
			if (a[0] == b[0] && a[1] == b[1]) {
				skip_pop(qa);
				skip_pop(qb);
			} else if (a[0] <= b[0]) {
				skip_differ(m, a[1]);
				skip_pop(qa);
			} else {
				skip_differ(m, b[1]);
				skip_pop(qb);
			}
		} else if (a && known[1] >= a[0]) {
			skip_differ(m, a[1]);
			skip_pop(qa);
		} else if (b && known[0] >= b[0]) {
			skip_differ(m, b[1]);
			skip_pop(qb);
		} else {
			return;
		}
	}
}

/*
 * Start matching: the guessed parse's tables before b->first were a
 * guess, and the true parse may be past b->first already, its intervals
 * from there on in t->skips: they must be paired like the others.
 */
static struct skip_match *skip_start(int level,
				     const struct gzip_join_true *t,
				     const struct gzip_seg *b)
{
	struct skip_match *m = ga_xcalloc(1, sizeof(*m));
	size_t i;

	m->limit = gzip_level_params(level)->lazy;
	m->differ = b->first ? b->first - 1 : UINT64_MAX;
	for (i = 0; t->skips && i < t->skips->n; i++) {
		const uint64_t *iv = t->skips->iv[t->skips->first + i];

		if (iv[1] > b->first)
			gzip_skips_add(&m->q[0], iv[0], iv[1]);
	}
	return m;
}

static void skip_free(struct skip_match *m)
{
	if (!m)
		return;
	gzip_skips_release(&m->q[0]);
	gzip_skips_release(&m->q[1]);
	free(m);
}

int gzip_join_find(size_t *ja, size_t *jb, uint64_t *y, int level,
		   const struct gzip_join_true *t, const struct gzip_seg *b)
{
	const struct gzip_seg *a = t->seg;
	size_t ia = t->idx;
	uint64_t pos[2] = { t->pos, b->first };
	int lazy = GZIP_IS_LAZY(level);
	int a_clean = !t->dirty, b_clean = 1;
	struct skip_match *m = NULL;
	size_t ib = 0;
	int found = 0;

	if (!lazy)
		m = skip_start(level, t, b);
	for (;;) {
		if (pos[0] == pos[1]) {
			if (ib >= b->n)
				break;
			if (lazy ? a_clean && b_clean :
			    (m->differ == UINT64_MAX ||
			     pos[0] - m->differ > GZIP_WSIZE)) {
				*ja = ia;
				*jb = ib;
				*y = pos[0];
				found = 1;
				break;
			}
		}
		if (pos[0] <= pos[1]) {
			if (ia >= a->n)
				break;
			a_clean = !(a->tok[ia] & GZIP_TOK_DIRTY);
			if (m)
				skip_push(m, 0, pos[0], a->tok[ia]);
			pos[0] += gzip_tok_len(a->tok[ia++]);
		} else {
			if (ib >= b->n)
				break;
			b_clean = !(b->tok[ib] & GZIP_TOK_DIRTY);
			if (m)
				skip_push(m, 1, pos[1], b->tok[ib]);
			pos[1] += gzip_tok_len(b->tok[ib++]);
		}
		if (m)
			skip_settle(m, pos);
	}
	skip_free(m);
	return found;
}


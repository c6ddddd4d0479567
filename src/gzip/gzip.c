/*
 * gzip.c: garchive's gzip engine as a sink, on one thread or several.
 *
 * The input is cut into chunks (of CHUNK_SIZE bytes with workers, smaller
 * without, so that a chunk's tokens stay in the cache).  Each chunk keeps its
 * own copy of the window before it (and of some bytes after it), so that
 * it can be parsed on its own.  With one thread, chunk k+1 simply carries
 * on from the state where the parse of chunk k stopped: that is gzip's
 * own parse.  With more, every chunk but the first is parsed from a
 * guessed state while the chunks before it are still being parsed, and
 * the parse that reaches it then joins it ("re-synchronises") at the
 * first position where the two provably agree from there on
 * (gzip-join.c says when that is).
 *
 * The true parse of chunk k runs on past the end of chunk k (OVERRUN) to
 * meet the guessed parse of chunk k+1, which may also start before its
 * chunk (WARM_UP).  When they do not meet (inside a long run of the same
 * bytes the two can stay out of step), the true parse is carried on, from
 * its exact state, as an extra job: slower, never wrong.
 *
 * The final tokens then go, in order, through the block split (on the
 * main thread: it is cheap and sequential by nature), each block's trees
 * and size are settled there too, and the blocks are encoded at their
 * known bit offsets by the workers and written out in order.  The CRC of
 * each chunk is computed by its parse job and the CRCs combined.
 *
 * Memory is bounded by the number of chunks alive, 2 per thread plus a
 * few, whatever the input size.
 */
#include "garchive/gzip.h"
#include "garchive/common.h"
#include "garchive/sink-contract.h"
#include "gzip-int.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#define CHUNK_SIZE	((uint64_t)1 << 20)
/*
 * Fast levels join much later than lazy ones (a window of agreeing
 * tables after the last difference, typically 50-200 KiB into a chunk
 * on source tars, against tens of bytes for lazy levels), so their
 * chunks are larger, to keep the share parsed twice small.
 */
#define CHUNK_SIZE_FAST	((uint64_t)2 << 20)
#define CHUNK_SIZE_ONE	((uint64_t)256 << 10)	/* one thread */
/*
 * How far the true parse of a chunk runs past it, by kind of level.  On
 * source tars, lazy levels joined within 2 KiB of the chunk start, fast
 * levels in 97 chunks of 100 within this overrun; otherwise the true
 * parse is carried on by an extra job.
 */
#define LAZY_OVERRUN	8192u
#define FAST_OVERRUN	(6 * GZIP_WSIZE)
/*
 * Where the guessed parse of a fast-level chunk starts: two windows
 * early, so that it can have left out the same positions as the true
 * parse for a whole window by the time the chunk starts.
 */
#define FAST_WARM_UP	(2 * GZIP_WSIZE)
/* A parse carried on after a failed join goes this far per job. */
#define CONT_STEP	(CHUNK_SIZE / 4)
/*
 * Input kept after the split passed it: stored blocks (up to 64 KiB,
 * starting in gzip's buffer) and the end of the input (gzip's buffer
 * plus what a slide left behind) read that far back.
 */
#define KEEP_BEHIND	((uint64_t)192 << 10)
#define OUT_BUF		(256u << 10)
#define GZIP_HEADER	10
#define GZIP_TRAILER	8

enum job_kind { JOB_PARSE, JOB_CONTINUE, JOB_ENCODE };

struct job {
	enum job_kind kind;
	struct job *next;
	int queued, done;
	struct chunk *chunk;		/* PARSE, CONTINUE: its buffer */
	struct gzip_block *block;	/* ENCODE */
	/* CONTINUE: a parse from an exact state */
	struct gzip_lz_state st;
	uint64_t stop;
	struct gzip_skips skips;
	struct gzip_seg seg;
};

struct chunk {
	uint64_t idx;
	uint64_t x, xend;	/* the chunk's own part of the input */
	uint64_t base;		/* data[0] is input byte base */
	uint64_t fill_end;	/* the buffer is full at this position */
	uint8_t *data;
	size_t len;		/* bytes in data */
	int dispatched;
	int exact;		/* parsed from the true state */
	int carry;		/* ... the one the previous chunk ended in */
	struct gzip_lz_state st;	/* where its parse starts */
	uint64_t stop;
	struct gzip_seg seg;
	struct job job;
	uint32_t crc;		/* of its own part */
};

struct out_item {
	struct gzip_block *block;
	struct job job;
	struct out_item *next;
};

struct gzip_sink {
	struct sink base;
	struct sink *next;
	int level, lazy, threads;
	uint64_t chunk_size;
	uint32_t warm_up, overrun, history, pad;

	/* Buffers of chunks gone, for the next ones. */
	uint8_t **free_data;
	size_t nfree_data, alloc_free_data;
	gzip_tok **free_tok;
	size_t nfree_tok, alloc_free_tok;
	size_t data_size, tok_size;

	uint64_t total;		/* bytes received */
	int ended;		/* finish() saw the end of the input */
	int failed;

	/* Chunks alive, oldest first; their indexes are consecutive. */
	struct chunk **chunks;
	size_t nchunks, alloc_chunks, max_chunks;
	uint64_t created;	/* chunks created so far */
	uint64_t parse_chunks;	/* chunks parsed: known at the end */

	/* The join: true tokens from tseg->tok[tidx] on are not yet split. */
	struct gzip_seg *tseg;
	struct job *towner;	/* a continuation job owning tseg */
	size_t tidx;
	int tspec;		/* tseg came from a guessed start */
	int tdirty;		/* the last token split is a dirty literal */
	uint64_t tnext;		/* the next chunk with a guessed parse */
	struct job *cont;	/* a continuation job under way */

	struct gzip_split split;
	struct gzip_skips skips;	/* fast levels: the last window's */
	struct gzip_lz lz;	/* the parser of the one-thread mode */
	struct gzip_lz_state lz_next;	/* ... and where it stopped */

	/* Output, in block order. */
	struct out_item *oq_head, *oq_tail;
	uint64_t bitpos;
	uint8_t partial;	/* the last byte, while it has free bits */
	unsigned partial_bits;
	uint8_t *obuf;
	size_t olen;
	uint32_t crc;

	/* Workers. */
	pthread_t *workers;
	int nworkers;
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct job *q_head, *q_tail;	/* parses */
	struct job *e_head, *e_tail;	/* encodes, taken first */
	uint64_t finished_jobs;	/* counts up as jobs end */
	int quit;

	struct gzip_stats stats;
	const uint8_t *window_in;	/* see gzip_options.window */
	uint8_t *window_out;
};

/* ---- jobs ---- */

static void run_parse(struct gzip_lz *lz, struct chunk *c,
		      struct gzip_lz_state *st, uint64_t stop,
		      const struct gzip_skips *skips, struct gzip_seg *seg,
		      int carry)
{
	if (carry) {
		gzip_lz_set_buffer(lz, c->data, c->base);
	} else {
		gzip_lz_clear(lz);
		gzip_lz_set_buffer(lz, c->data, c->base);
		gzip_lz_insert(lz, st->pos > GZIP_WSIZE ?
			       st->pos - GZIP_WSIZE : 0, st->pos, skips);
	}
	gzip_lz_parse(lz, seg, st, stop);
}

static void run_job(struct gzip_lz *lz, struct job *j)
{
	struct chunk *c = j->chunk;

	switch (j->kind) {
	case JOB_PARSE: {
		struct gzip_lz_state st = c->st;

		run_parse(lz, c, &st, c->stop, NULL, &c->seg, c->carry);
		c->crc = (uint32_t)crc32(0, c->data + (c->x - c->base),
					 (uInt)(c->xend - c->x));
		break;
	}
	case JOB_CONTINUE:
		run_parse(lz, c, &j->st, j->stop, &j->skips, &j->seg, 0);
		break;
	case JOB_ENCODE:
		gzip_block_encode(j->block);
		break;
	}
}

static void *worker_main(void *arg)
{
	struct gzip_sink *g = arg;
	struct gzip_lz lz;
	struct job *j;

	gzip_lz_init(&lz, g->level);
	pthread_mutex_lock(&g->lock);
	for (;;) {
		while (!g->quit && !g->e_head && !g->q_head)
			pthread_cond_wait(&g->work, &g->lock);
		if (g->quit)
			break;
		if (g->e_head) {
			j = g->e_head;
			if (!(g->e_head = j->next))
				g->e_tail = NULL;
		} else {
			j = g->q_head;
			if (!(g->q_head = j->next))
				g->q_tail = NULL;
		}
		pthread_mutex_unlock(&g->lock);
		run_job(&lz, j);
		pthread_mutex_lock(&g->lock);
		j->done = 1;
		g->finished_jobs++;
		pthread_cond_broadcast(&g->done);
	}
	pthread_mutex_unlock(&g->lock);
	gzip_lz_release(&lz);
	/* The error slot is per thread; it would leak with the thread. */
	ga_error_clear();
	return NULL;
}

/* Run `j` now (one thread) or hand it to the workers. */
static void submit(struct gzip_sink *g, struct job *j)
{
	j->next = NULL;
	j->queued = 1;
	j->done = 0;
	if (!g->nworkers) {
		run_job(&g->lz, j);
		j->done = 1;
		return;
	}
	pthread_mutex_lock(&g->lock);
	if (j->kind == JOB_ENCODE) {
		if (g->e_tail)
			g->e_tail->next = j;
		else
			g->e_head = j;
		g->e_tail = j;
	} else {
		if (g->q_tail)
			g->q_tail->next = j;
		else
			g->q_head = j;
		g->q_tail = j;
	}
	pthread_cond_signal(&g->work);
	pthread_mutex_unlock(&g->lock);
}

static int job_done(struct gzip_sink *g, struct job *j)
{
	int done;

	if (!g->nworkers)
		return j->done;
	pthread_mutex_lock(&g->lock);
	done = j->done;
	pthread_mutex_unlock(&g->lock);
	return done;
}

/* Wait until job j is done. */
static void wait_for_job(struct gzip_sink *g, struct job *j)
{
	if (!g->nworkers)
		GA_BUG("gzip engine waits with no worker");
	pthread_mutex_lock(&g->lock);
	while (!j->done)
		pthread_cond_wait(&g->done, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

/* ---- chunks ---- */

static struct chunk *chunk_at(const struct gzip_sink *g, uint64_t idx)
{
	uint64_t first;

	if (!g->nchunks)
		return NULL;
	first = g->chunks[0]->idx;
	if (idx < first || idx - first >= g->nchunks)
		return NULL;
	return g->chunks[idx - first];
}

/* Copy input [pos, pos + len), which the chunks alive still hold. */
static void read_input(void *payload, uint8_t *dst, uint64_t pos, size_t len)
{
	const struct gzip_sink *g = payload;

	while (len) {
		const struct chunk *c = chunk_at(g, pos / g->chunk_size);
		size_t take;

		if (!c || pos < c->base || pos >= c->base + c->len)
			GA_BUG("gzip input no longer held");
		take = (size_t)(c->base + c->len - pos);
		if (take > len)
			take = len;
		memcpy(dst, c->data + (pos - c->base), take);
		dst += take;
		pos += take;
		len -= take;
	}
}

static uint64_t chunk_base(const struct gzip_sink *g, uint64_t idx)
{
	uint64_t x = idx * g->chunk_size;

	return x > g->history ? x - g->history : 0;
}

static struct chunk *chunk_new(struct gzip_sink *g)
{
	struct chunk *c = ga_xcalloc(1, sizeof(*c));

	c->idx = g->created++;
	c->x = c->idx * g->chunk_size;
	c->xend = c->x + g->chunk_size;
	c->base = chunk_base(g, c->idx);
	c->fill_end = c->xend + g->overrun + g->pad;
	c->data = g->nfree_data ? g->free_data[--g->nfree_data]
				: ga_xmalloc(g->data_size);
	c->seg.tok = g->nfree_tok ? g->free_tok[--g->nfree_tok]
				  : ga_xmalloc(g->tok_size * sizeof(gzip_tok));
	c->seg.alloc = g->tok_size;
	c->job.kind = JOB_PARSE;
	c->job.chunk = c;
	GA_ALLOC_GROW(g->chunks, g->nchunks + 1, g->alloc_chunks);
	g->chunks[g->nchunks++] = c;
	return c;
}

/* Where chunk c's parse starts and stops, and from what state. */
static void chunk_plan(struct gzip_sink *g, struct chunk *c)
{
	uint64_t last_stop = g->total > GZIP_TAIL ? g->total - GZIP_TAIL : 0;

	c->stop = c->xend + g->overrun;
	if (g->ended && c->stop > last_stop)
		c->stop = last_stop;
	memset(&c->st, 0, sizeof(c->st));
	c->st.len = GZIP_MIN_MATCH - 1;
	if (c->idx == 0) {
		c->exact = 1;
	} else if (!g->nworkers) {
		/* One thread: on from where the chunk before stopped. */
		c->exact = c->carry = 1;
		c->st = g->lz_next;
	} else {
		c->st.pos = c->x - (c->x > g->warm_up ? g->warm_up : c->x);
	}
}

static void chunk_dispatch(struct gzip_sink *g, struct chunk *c)
{
	c->dispatched = 1;
	chunk_plan(g, c);
	g->stats.parsed += c->stop > c->st.pos ? c->stop - c->st.pos : 0;
	if (!c->exact)
		g->stats.speculated += c->stop - c->st.pos;
	submit(g, &c->job);
	if (!g->nworkers)
		g->lz_next = c->seg.end;
}

/* Keep a chunk's buffers for the next chunks, or free them. */
static void chunk_free(struct gzip_sink *g, struct chunk *c)
{
	if (c->seg.tok && c->seg.alloc == g->tok_size) {
		GA_ALLOC_GROW(g->free_tok, g->nfree_tok + 1,
			      g->alloc_free_tok);
		g->free_tok[g->nfree_tok++] = c->seg.tok;
	} else {
		free(c->seg.tok);
	}
	GA_ALLOC_GROW(g->free_data, g->nfree_data + 1, g->alloc_free_data);
	g->free_data[g->nfree_data++] = c->data;
	free(c);
}

static void free_pools(struct gzip_sink *g)
{
	while (g->nfree_data)
		free(g->free_data[--g->nfree_data]);
	while (g->nfree_tok)
		free(g->free_tok[--g->nfree_tok]);
	free(g->free_data);
	free(g->free_tok);
}

/* ---- output ---- */

static int out_flush(struct gzip_sink *g)
{
	int error = 0;

	if (g->olen)
		error = g->next->write(g->next, g->obuf, g->olen);
	g->olen = 0;
	return error;
}

static int out_put(struct gzip_sink *g, const uint8_t *p, size_t len)
{
	while (len) {
		size_t take = OUT_BUF - g->olen;

		if (take > len)
			take = len;
		memcpy(g->obuf + g->olen, p, take);
		g->olen += take;
		p += take;
		len -= take;
		if (g->olen == OUT_BUF) {
			int error = out_flush(g);

			if (error < 0)
				return error;
		}
	}
	return 0;
}

/* Append an encoded block, merging the byte it shares with the last. */
static int out_block(struct gzip_sink *g, struct gzip_block *b)
{
	uint64_t end = (b->bitpos & 7) + b->bits;
	size_t full = (size_t)(end / 8);

	if ((b->bitpos & 7) != g->partial_bits)
		GA_BUG("gzip block out of step");
	b->out[0] |= g->partial;
	g->partial_bits = (unsigned)(end & 7);
	g->partial = g->partial_bits ? b->out[full] : 0;
	return out_put(g, b->out, full);
}

/* Write out the blocks that are encoded, in order. */
static int pump_output(struct gzip_sink *g)
{
	while (g->oq_head && job_done(g, &g->oq_head->job)) {
		struct out_item *it = g->oq_head;
		int error;

		if (!(g->oq_head = it->next))
			g->oq_tail = NULL;
		error = out_block(g, it->block);
		gzip_split_recycle(&g->split, it->block);
		free(it);
		if (error < 0)
			return error;
	}
	return 0;
}

/* The split ended a block: settle it and have it encoded. */
static void block_done(void *payload, struct gzip_block *b)
{
	struct gzip_sink *g = payload;
	struct out_item *it = ga_xcalloc(1, sizeof(*it));

	gzip_block_plan(b);
	b->bitpos = g->bitpos;
	b->bits = gzip_block_size(b, g->bitpos);
	g->bitpos += b->bits;
	if (b->type == GZIP_STORED) {
		gzip_block_reserve_raw(b, (size_t)(b->end - b->start));
		read_input(g, b->raw, b->start, (size_t)(b->end - b->start));
	}
	g->stats.blocks++;
	it->block = b;
	it->job.kind = JOB_ENCODE;
	it->job.block = b;
	if (g->oq_tail)
		g->oq_tail->next = it;
	else
		g->oq_head = it;
	g->oq_tail = it;
	submit(g, &it->job);
}

/* ---- the join ---- */

/* Split the true tokens tseg->tok[tidx..upto). */
static void feed(struct gzip_sink *g, size_t upto)
{
	struct gzip_seg *s = g->tseg;
	uint64_t from = g->split.pos;

	if (upto <= g->tidx)
		return;
	gzip_skips_note(&g->skips, g->level, from, s->tok + g->tidx,
			upto - g->tidx);
	gzip_split_body(&g->split, s->tok + g->tidx, upto - g->tidx);
	if (g->tspec)
		g->stats.used += g->split.pos - from;
	g->tdirty = !!(s->tok[upto - 1] & GZIP_TOK_DIRTY);
	g->tidx = upto;
	if (g->split.pos > GZIP_WSIZE)
		gzip_skips_forget(&g->skips, g->split.pos - GZIP_WSIZE);
}

/*
 * Split the true tokens that start before `limit`, where the guessed parse
 * to join starts: the join is at a token boundary of the true parse at or
 * after `limit`, so these end before it.
 */
static void feed_before(struct gzip_sink *g, uint64_t limit)
{
	const struct gzip_seg *s = g->tseg;
	uint64_t pos = g->split.pos;
	size_t i = g->tidx;

	while (i < s->n && pos < limit)
		pos += gzip_tok_len(s->tok[i++]);
	feed(g, i);
}

/* Drop tseg once all of it is split; free what owned it. */
static void drop_tseg(struct gzip_sink *g)
{
	if (g->towner) {
		gzip_seg_release(&g->towner->seg);
		gzip_skips_release(&g->towner->skips);
		free(g->towner);
	}
	g->towner = NULL;
	g->tseg = NULL;
}

static void take_tseg(struct gzip_sink *g, struct gzip_seg *s, size_t idx,
		      struct job *owner, int spec)
{
	drop_tseg(g);
	g->tseg = s;
	g->tidx = idx;
	g->towner = owner;
	g->tspec = spec;
}

/* Carry the true parse on from where tseg ends, into chunk c. */
static void start_continuation(struct gzip_sink *g, struct chunk *c)
{
	struct job *j = ga_xcalloc(1, sizeof(*j));
	uint64_t from;
	size_t i;

	j->kind = JOB_CONTINUE;
	j->chunk = c;
	j->st = g->tseg->end;
	j->stop = j->st.pos + CONT_STEP;
	if (j->stop > c->stop)
		j->stop = c->stop;
	from = j->st.pos > GZIP_WSIZE ? j->st.pos - GZIP_WSIZE : 0;
	for (i = 0; i < g->skips.n; i++) {
		const uint64_t *iv = g->skips.iv[g->skips.first + i];

		if (iv[1] > from)
			gzip_skips_add(&j->skips, iv[0], iv[1]);
	}
	g->stats.fallbacks++;
	g->stats.fallback_bytes += j->stop > j->st.pos ? j->stop - j->st.pos
						       : 0;
	g->stats.parsed += j->stop > j->st.pos ? j->stop - j->st.pos : 0;
	g->cont = j;
	submit(g, j);
}

/*
 * Where the true tokens not yet split meet chunk c's guessed parse (see
 * gzip-join.c): 1 with the indexes of the tokens that start there.
 */
static int join_next(const struct gzip_sink *g, const struct chunk *c,
		     size_t *ja, size_t *jb, uint64_t *y)
{
	struct gzip_join_true a;

	a.seg = g->tseg;
	a.idx = g->tidx;
	a.pos = g->split.pos;
	a.dirty = g->tdirty;
	a.skips = &g->skips;
	return gzip_join_find(ja, jb, y, g->level, &a, &c->seg);
}

/*
 * Move the join forward as far as the parses done allow.  Returns 1 when
 * all the chunks' tokens are split (only at the end).
 */
static int pump_join(struct gzip_sink *g)
{
	for (;;) {
		struct chunk *c;
		size_t ja, jb;
		uint64_t y;

		if (!g->tseg) {
			if (g->ended && !g->parse_chunks)
				return 1;
			c = chunk_at(g, 0);
			if (!c || !c->dispatched || !job_done(g, &c->job))
				return 0;
			take_tseg(g, &c->seg, 0, NULL, 0);
			g->tnext = 1;
			continue;
		}
		if (g->ended && g->tnext >= g->parse_chunks) {
			feed(g, g->tseg->n);
			return 1;
		}
		if (g->cont) {
			struct job *j = g->cont;

			if (!job_done(g, j))
				return 0;
			g->cont = NULL;
			feed(g, g->tseg->n);
			take_tseg(g, &j->seg, 0, j, 0);
			c = chunk_at(g, g->tnext);
			if (j->seg.end.pos >= c->stop) {
				/* The chunk is parsed again in full. */
				gzip_seg_release(&c->seg);
				g->tnext++;
			}
			continue;
		}
		/*
		 * Tokens before the next guessed parse starts are final; with
		 * one thread there is no guessing, and all of them are.
		 */
		if (g->nworkers)
			feed_before(g, g->tnext * g->chunk_size - g->warm_up);
		else
			feed(g, g->tseg->n);
		c = chunk_at(g, g->tnext);
		if (!c || !c->dispatched || !job_done(g, &c->job))
			return 0;
		if (c->exact) {
			feed(g, g->tseg->n);
			take_tseg(g, &c->seg, 0, NULL, 0);
			g->tnext++;
			continue;
		}
		if (join_next(g, c, &ja, &jb, &y)) {
			uint64_t dist = y - c->x;

			feed(g, ja);
			take_tseg(g, &c->seg, jb, NULL, 1);
			g->tnext++;
			g->stats.resynced++;
			g->stats.sync_distance += y > c->x ? dist : 0;
			if (y > c->x && dist > g->stats.max_sync_distance)
				g->stats.max_sync_distance = dist;
			continue;
		}
		feed(g, g->tseg->n);
		start_continuation(g, c);
	}
}

/* Free the oldest chunks once nothing needs them. */
static void pump_free(struct gzip_sink *g)
{
	while (g->nchunks) {
		struct chunk *c = g->chunks[0];

		if (!c->dispatched || !job_done(g, &c->job) ||
		    g->tnext <= c->idx || g->tseg == &c->seg ||
		    (g->cont && g->cont->chunk == c) ||
		    g->split.pos < c->xend + KEEP_BEHIND)
			return;
		g->crc = (uint32_t)crc32_combine(g->crc, c->crc,
						 (z_off_t)g->chunk_size);
		chunk_free(g, c);
		memmove(g->chunks, g->chunks + 1,
			--g->nchunks * sizeof(*g->chunks));
	}
}

static int pump(struct gzip_sink *g)
{
	int error;

	pump_join(g);
	if ((error = pump_output(g)) < 0)
		return error;
	pump_free(g);
	return 0;
}

/* How many jobs have ended so far: read it before looking at them. */
static uint64_t jobs_seen(struct gzip_sink *g)
{
	uint64_t n;

	pthread_mutex_lock(&g->lock);
	n = g->finished_jobs;
	pthread_mutex_unlock(&g->lock);
	return n;
}

/* Wait until another job than the `seen` first ones has ended. */
static void wait_jobs(struct gzip_sink *g, uint64_t seen)
{
	if (!g->nworkers)
		GA_BUG("gzip engine stuck with one thread");
	pthread_mutex_lock(&g->lock);
	while (g->finished_jobs == seen)
		pthread_cond_wait(&g->done, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

/* ---- the sink ---- */

static int gz_fail(struct gzip_sink *g, int error)
{
	g->failed = 1;
	return error;
}

/* Make room for one more chunk. */
static int room_for_chunk(struct gzip_sink *g)
{
	for (;;) {
		uint64_t seen = jobs_seen(g);
		int error;

		if ((error = pump(g)) < 0)
			return error;
		if (g->nchunks < g->max_chunks)
			return 0;
		wait_jobs(g, seen);
	}
}

static int gz_write(struct sink *s, const void *buf, size_t len)
{
	struct gzip_sink *g = (struct gzip_sink *)s;
	const uint8_t *p = buf;
	int error;

	if (g->failed)
		return ga_error_set("write to a failed gzip stream");
	while (len) {
		uint64_t next_base = chunk_base(g, g->created);
		size_t take = len, i;

		if (g->total == next_base) {
			if ((error = room_for_chunk(g)) < 0)
				return gz_fail(g, error);
			chunk_new(g);
			continue;
		}
		if (next_base > g->total && next_base - g->total < take)
			take = (size_t)(next_base - g->total);
		for (i = 0; i < g->nchunks; i++) {
			struct chunk *c = g->chunks[i];

			if (!c->dispatched && c->fill_end - g->total < take)
				take = (size_t)(c->fill_end - g->total);
		}
		for (i = 0; i < g->nchunks; i++) {
			struct chunk *c = g->chunks[i];

			if (c->dispatched || g->total < c->base)
				continue;
			memcpy(c->data + c->len, p, take);
			c->len += take;
		}
		g->total += take;
		p += take;
		len -= take;
		for (i = 0; i < g->nchunks; i++) {
			struct chunk *c = g->chunks[i];

			if (!c->dispatched && c->base + c->len == c->fill_end)
				chunk_dispatch(g, c);
		}
		if ((error = pump(g)) < 0)
			return gz_fail(g, error);
	}
	return 0;
}

static int write_trailer(struct gzip_sink *g)
{
	uint8_t t[GZIP_TRAILER];
	int error;

	if (g->partial_bits) {
		if ((error = out_put(g, &g->partial, 1)) < 0)
			return error;
		g->partial_bits = 0;
	}
	ga_put_le32(t, g->crc);
	ga_put_le32(t + 4, (uint32_t)g->total);
	if ((error = out_put(g, t, sizeof(t))) < 0)
		return error;
	return out_flush(g);
}

static int gz_finish(struct sink *s)
{
	struct gzip_sink *g = (struct gzip_sink *)s;
	struct gzip_tail tail = { 0 };
	struct gzip_lz_state st = { 0 };
	size_t i;
	int error;

	if (g->failed)
		return ga_error_set("finish of a failed gzip stream");
	g->ended = 1;
	g->parse_chunks = g->total > GZIP_TAIL ?
		(g->total - GZIP_TAIL + g->chunk_size - 1) / g->chunk_size : 0;
	for (i = 0; i < g->nchunks; i++) {
		struct chunk *c = g->chunks[i];

		if (c->xend > g->total)
			c->xend = g->total > c->x ? g->total : c->x;
		if (c->dispatched)
			continue;
		if (c->idx < g->parse_chunks) {
			chunk_dispatch(g, c);
		} else {
			c->dispatched = 1;
			c->job.done = 1;
			c->crc = (uint32_t)crc32(0, c->data + (c->x - c->base),
						 (uInt)(c->xend - c->x));
		}
	}
	for (;;) {
		uint64_t seen = jobs_seen(g);

		if (pump_join(g))
			break;
		if ((error = pump_output(g)) < 0)
			return gz_fail(g, error);
		wait_jobs(g, seen);
	}

	/* The end of the input, as gzip's window sees it. */
	st.len = GZIP_MIN_MATCH - 1;
	if (g->tseg)
		st = g->tseg->end;
	tail.window_in = g->window_in;
	tail.window_out = g->window_out = ga_xmalloc(GZIP_BUFFER);
	gzip_tail_run(&tail, g->level, g->total, &st, &g->skips, read_input,
		      g);
	gzip_split_tail(&g->split, &tail);
	gzip_tail_release(&tail);

	while (g->oq_head) {
		if ((error = pump_output(g)) < 0)
			return gz_fail(g, error);
		if (g->oq_head)
			wait_for_job(g, &g->oq_head->job);
	}
	for (i = 0; i < g->nchunks; i++) {
		struct chunk *c = g->chunks[i];

		g->crc = (uint32_t)crc32_combine(g->crc, c->crc,
						 (z_off_t)(c->xend - c->x));
	}
	g->stats.input = g->total;
	if ((error = write_trailer(g)) < 0 ||
	    (error = g->next->finish(g->next)) < 0)
		return gz_fail(g, error);
	g->failed = 1;	/* nothing more to write */
	return 0;
}

static void stop_workers(struct gzip_sink *g)
{
	int i;

	if (!g->nworkers)
		return;
	pthread_mutex_lock(&g->lock);
	g->quit = 1;
	pthread_cond_broadcast(&g->work);
	pthread_mutex_unlock(&g->lock);
	for (i = 0; i < g->nworkers; i++)
		pthread_join(g->workers[i], NULL);
	g->nworkers = 0;
}

static void gz_free(struct sink *s)
{
	struct gzip_sink *g = (struct gzip_sink *)s;
	size_t i;

	if (!g)
		return;
	stop_workers(g);
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->work);
	pthread_cond_destroy(&g->done);
	free(g->workers);
	drop_tseg(g);
	if (g->cont) {
		gzip_seg_release(&g->cont->seg);
		gzip_skips_release(&g->cont->skips);
		free(g->cont);
	}
	for (i = 0; i < g->nchunks; i++)
		chunk_free(g, g->chunks[i]);
	free(g->chunks);
	while (g->oq_head) {
		struct out_item *it = g->oq_head;

		g->oq_head = it->next;
		gzip_block_free(it->block);
		free(it);
	}
	gzip_split_release(&g->split);
	gzip_skips_release(&g->skips);
	gzip_lz_release(&g->lz);
	free_pools(g);
	free(g->window_out);
	free(g->obuf);
	if (g->next)
		g->next->free(g->next);
	free(g);
}

/* More workers than this only cost memory: chunks are 1 MiB. */
#define MAX_WORKERS	64

static int cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_WORKERS ? MAX_WORKERS : (int)n;
}

static int start_workers(struct gzip_sink *g, int n)
{
	sigset_t all, old;
	int err = 0;

	g->workers = ga_xcalloc((size_t)n, sizeof(*g->workers));
	/* Signals belong to the main thread, which cleans up on them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	while (g->nworkers < n) {
		err = pthread_create(&g->workers[g->nworkers], NULL,
				     worker_main, g);
		if (err)
			break;
		g->nworkers++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err && !g->nworkers)
		return ga_error_errno(err, "unable to start the gzip threads");
	return 0;
}

/*
 * The chunks that must be alive at once for the join to reach chunk k:
 * those the split still reads behind (up to KEEP_BEHIND before where it
 * stands, which is at least the warm-up before chunk k), chunk k, and
 * those after it whose history starts before chunk k is full (its
 * overrun and pad).  Fewer, and a write would wait for a chunk to be
 * freed that only more input could free.
 */
static size_t join_span(const struct gzip_sink *g)
{
	uint64_t cs = g->chunk_size;
	uint64_t behind = KEEP_BEHIND + g->warm_up;
	uint64_t ahead = g->history + g->overrun + g->pad;

	return (size_t)((behind + cs - 1) / cs + 1 + (ahead + cs - 1) / cs);
}

static void put_header(struct gzip_sink *g)
{
	uint8_t *h = g->obuf;

	/* Magic, deflate, no flags, mtime 0 (as with -n). */
	memset(h, 0, GZIP_HEADER);
	h[0] = 0x1f;
	h[1] = 0x8b;
	h[2] = 8;
	/* gzip marks -1 "fastest" and -9 "best"; OS 3 is Unix. */
	h[8] = g->level == 1 ? 4 : g->level == 9 ? 2 : 0;
	h[9] = 3;
	g->olen = GZIP_HEADER;
}

int gzip_sink_open(struct sink **out, const struct gzip_options *opts,
		   struct sink *next)
{
	struct gzip_sink *g = ga_xcalloc(1, sizeof(*g));
	int threads = opts->threads > 0 ? opts->threads : cpu_count();

	if (threads > MAX_WORKERS)
		threads = MAX_WORKERS;
	int error = 0;

	*out = NULL;
	g->base.write = gz_write;
	g->base.finish = gz_finish;
	g->base.free = gz_free;
	g->next = next;
	g->window_in = opts->window;
	g->level = opts->level < 0 ? 6 : opts->level;
	if (g->level < 1 || g->level > 9)
		GA_BUG("gzip level out of range");
	g->lazy = GZIP_IS_LAZY(g->level);
	g->crc = (uint32_t)crc32(0, NULL, 0);
	g->obuf = ga_xmalloc(OUT_BUF);
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->work, NULL);
	pthread_cond_init(&g->done, NULL);
	gzip_lz_init(&g->lz, g->level);
	gzip_split_init(&g->split, g->level, block_done, g);
	put_header(g);
	g->pad = GZIP_TAIL;
	if (threads > 1) {
		g->warm_up = g->lazy ? 0 : FAST_WARM_UP;
		g->overrun = g->lazy ? LAZY_OVERRUN : FAST_OVERRUN;
		error = start_workers(g, threads);
	}
	g->chunk_size = opts->chunk_size ? opts->chunk_size :
			!g->nworkers ? CHUNK_SIZE_ONE :
			g->lazy ? CHUNK_SIZE : CHUNK_SIZE_FAST;
	if (g->chunk_size % GZIP_WSIZE)
		GA_BUG("gzip chunk size not a multiple of the window");
	g->history = GZIP_WSIZE + g->warm_up;
	g->data_size = (size_t)(g->history + g->chunk_size + g->overrun +
				g->pad) + GZIP_READ_PAD;
	/* A parse makes a token per byte at most, and one pending. */
	g->tok_size = (size_t)(g->warm_up + g->chunk_size + g->overrun) + 4;
	g->max_chunks = 2 * (size_t)(g->nworkers ? g->nworkers : 1) +
			join_span(g);
	if (error < 0)
		gz_free(&g->base);
	else
		*out = &g->base;
	return error;
}

void gzip_sink_stats(const struct sink *s, struct gzip_stats *out)
{
	const struct gzip_sink *g = (const struct gzip_sink *)s;

	*out = g->stats;
}

const uint8_t *gzip_sink_window(const struct sink *s)
{
	const struct gzip_sink *g = (const struct gzip_sink *)s;

	if (!g->window_out)
		GA_BUG("gzip window asked for before the end");
	return g->window_out;
}

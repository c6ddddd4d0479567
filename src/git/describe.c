/*
 * describe.c: git describe for one commit, in-process (see describe.h).
 *
 * The facts followed are those of git's builtin/describe.c (2.55); the
 * code is garchive's.  Only what %(describe:...) can ask for is done:
 * --tags, --abbrev, --match and --exclude on one commit; --all, --long,
 * --contains, --candidates and --dirty cannot be given.
 */
#include "describe.h"

#include "commit.h"
#include "garchive/common.h"
#include "object-name.h"
#include "refs/refs.h"
#include "sane-ctype.h"
#include "wildmatch.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libgit2.h"
#include "odb/odb.h"

/* git describe considers at most this many candidate tags. */
#define MAX_CANDIDATES 10
/* git's MINIMUM_ABBREV. */
#define MIN_ABBREV 4

/* Object flags of the walk: SEEN, then one bit per candidate. */
#define SEEN 1u

struct describe_opts {
	int tags;
	int abbrev;		/* -1: core.abbrev's */
	struct ga_strvec match, exclude;
};

/* A name a commit may get: a ref under refs/tags/. */
struct name {
	struct ga_oid peeled;		/* what the tag finally points at */
	struct ga_oid oid;		/* the ref's own value */
	int prio;		/* annotated 2, lightweight 1 */
	char *path;		/* the ref's name after refs/tags/ */
	int tag_read;		/* the tag object below was read */
	int tag_ok;		/* and parses as a tag */
	char *tag_name;		/* its "tag" header (NULL: none) */
	uint64_t tag_date;	/* its tagger date, 0 without one */
	struct ga_oid tagged;		/* its "object" */
	int name_checked, misnamed;
};

struct commit_node {
	struct ga_oid oid;
	unsigned flags;
	int parsed;
	uint64_t date;
	size_t *parents;	/* indices into describe.nodes */
	size_t nr_parents;
};

/* An index from ids to positions in an array, open addressing. */
struct oid_index {
	size_t *slot;		/* position + 1; 0 is empty */
	size_t size;		/* a power of two */
	size_t nr;
};

struct queue_item {
	size_t node;
	size_t ctr;
};

/* git's commit-date priority queue: newest first, then FIFO. */
struct queue {
	struct queue_item *item;
	size_t nr, alloc, ctr;
};

struct candidate {
	struct name *name;
	int depth;
	int found_order;
	unsigned flag_within;
};

struct describe {
	git_repository *repo;
	git_odb *odb;
	enum ga_hash_algo algo;		/* of the described commit's id */
	struct describe_opts opts;
	struct name *names;
	size_t nr_names, alloc_names;
	struct oid_index name_index;	/* by peeled id */
	struct commit_node *nodes;
	size_t nr_nodes, alloc_nodes;
	struct oid_index node_index;
};

/* ------------------------------------------------------------------ */
/* The id index.                                                      */

static size_t oid_hash(const struct ga_oid *oid)
{
	size_t h;

	memcpy(&h, oid->id, sizeof(h));
	return h;
}

/* The position of `oid` in `base` (entries of `stride` bytes), or -1. */
static long index_find(const struct oid_index *ix, const void *base,
		       size_t stride, const struct ga_oid *oid)
{
	size_t i;

	if (!ix->size)
		return -1;
	for (i = oid_hash(oid) & (ix->size - 1); ix->slot[i];
	     i = (i + 1) & (ix->size - 1)) {
		size_t pos = ix->slot[i] - 1;
		const struct ga_oid *at = (const struct ga_oid *)(const void *)
			((const char *)base + pos * stride);

		if (ga_oid_equal(at, oid))
			return (long)pos;
	}
	return -1;
}

static void index_place(struct oid_index *ix, const struct ga_oid *oid, size_t pos)
{
	size_t i = oid_hash(oid) & (ix->size - 1);

	while (ix->slot[i])
		i = (i + 1) & (ix->size - 1);
	ix->slot[i] = pos + 1;
}

/* Add position `pos`, whose id is `oid`; the index stays half empty. */
static void index_add(struct oid_index *ix, const void *base, size_t stride,
		      const struct ga_oid *oid, size_t pos)
{
	if (2 * (ix->nr + 1) > ix->size) {
		struct oid_index grown = { NULL, ix->size ? 2 * ix->size : 64,
					   ix->nr };
		size_t i;

		grown.slot = ga_xcalloc(grown.size, sizeof(*grown.slot));
		for (i = 0; i < ix->size; i++) {
			size_t at;

			if (!ix->slot[i])
				continue;
			at = ix->slot[i] - 1;
			index_place(&grown, (const struct ga_oid *)(const void *)
				    ((const char *)base + at * stride), at);
		}
		free(ix->slot);
		*ix = grown;
	}
	index_place(ix, oid, pos);
	ix->nr++;
}

/* ------------------------------------------------------------------ */
/* Options, as %(describe:...) passes them to git describe.           */

static int parse_opts(struct describe_opts *o, const char *const *args,
		      size_t nr)
{
	size_t i;

	o->tags = 0;
	o->abbrev = -1;
	for (i = 0; i < nr; i++) {
		const char *a = args[i], *v;

		if (!strcmp(a, "describe"))
			continue;
		if (!strcmp(a, "--tags")) {
			o->tags = 1;
		} else if (!strcmp(a, "--no-tags")) {
			o->tags = 0;
		} else if (ga_skip_prefix(a, "--abbrev=", &v)) {
			char *end;
			long n = strtol(v, &end, 10);

			if (!*v || *end)
				return ga_error_set("option `abbrev' expects "
						    "a numerical value");
			/* git's OPT__ABBREV clamps, 0 stays "no suffix". */
			if (n && n < MIN_ABBREV)
				n = MIN_ABBREV;
			else if (n > GA_OID_MAX_HEXSZ)
				n = GA_OID_MAX_HEXSZ;
			o->abbrev = (int)n;
		} else if (ga_skip_prefix(a, "--match=", &v)) {
			ga_strvec_push(&o->match, ga_xstrdup(v));
		} else if (ga_skip_prefix(a, "--exclude=", &v)) {
			ga_strvec_push(&o->exclude, ga_xstrdup(v));
		} else if (a[0] != '-') {
			continue;	/* the commit */
		} else {
			return ga_error_set("unknown option `%s'", a + 2);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Tags.                                                              */

/* git's parse_tag(): the name, date and target of tag `n->oid`. */
static void read_tag(struct describe *d, struct name *n)
{
	struct odb_object *obj = NULL;
	const char *p, *tail, *nl;

	if (n->tag_read)
		return;
	n->tag_read = 1;
	if (odb_read(&obj, d->odb, &n->oid) < 0) {
		git_error_clear();
		return;
	}
	if (odb_object_type(obj) != GIT_OBJECT_TAG)
		goto done;
	p = odb_object_data(obj);
	tail = p + odb_object_size(obj);
	if ((size_t)(tail - p) < ga_hash_hexsz(d->algo) + 24 ||
	    memcmp(p, "object ", 7) ||
	    oid_parse_hex(&n->tagged, d->algo, p + 7, &p) < 0 || *p++ != '\n' ||
	    tail - p < 5 || memcmp(p, "type ", 5) ||
	    !(nl = memchr(p, '\n', (size_t)(tail - p))))
		goto done;
	p = nl + 1;
	if (tail - p > 4 && !memcmp(p, "tag ", 4)) {
		if (!(nl = memchr(p + 4, '\n', (size_t)(tail - p - 4))))
			goto done;
		n->tag_name = ga_xstrndup(p + 4, (size_t)(nl - p - 4));
		p = nl + 1;
	}
	if (tail - p > 7 && !memcmp(p, "tagger ", 7)) {
		const char *gt = memchr(p, '>', (size_t)(tail - p));

		if (gt)
			n->tag_date = strtoull(gt + 1, NULL, 10);
	}
	n->tag_ok = 1;
done:
	odb_object_free(obj);
}

/* What `oid` peels to through tags; 0, or -1 when it cannot be read. */
static int peel(struct describe *d, struct ga_oid *out, const struct ga_oid *oid)
{
	return ga_peel_tags(out, d->odb, oid);
}

static struct name *find_name(struct describe *d, const struct ga_oid *peeled)
{
	long at = index_find(&d->name_index, d->names, sizeof(*d->names),
			     peeled);

	return at < 0 ? NULL : &d->names[at];
}

/*
 * Whether a tag of priority `prio`, id `oid`, takes the place of `e`: a
 * higher priority does, and of two annotated tags the later tagger date
 * (one whose tag cannot be read gives way).
 */
static int takes_place_of(struct describe *d, struct name *e, int prio,
			  const struct ga_oid *oid)
{
	struct name probe;
	int later;

	if (!e || e->prio < prio)
		return 1;
	if (e->prio != 2 || prio != 2)
		return 0;
	read_tag(d, e);
	if (!e->tag_ok)
		return 1;
	memset(&probe, 0, sizeof(probe));
	ga_oid_cpy(&probe.oid, oid);
	read_tag(d, &probe);
	later = probe.tag_ok && e->tag_date < probe.tag_date;
	free(probe.tag_name);
	return later;
}

static int matches_any(const struct ga_strvec *patterns, const char *path)
{
	size_t i;

	for (i = 0; i < patterns->nr; i++)
		if (!wildmatch(patterns->v[i], path, 0))
			return 1;
	return 0;
}

static int add_name(const struct refs_entry *ref, void *payload)
{
	struct describe *d = payload;
	const char *path = ref->name + strlen("refs/tags/");
	struct ga_oid oid, peeled;
	struct name *e;
	int annotated, prio;

	if (d->opts.exclude.nr && matches_any(&d->opts.exclude, path))
		return 0;
	if (d->opts.match.nr && !matches_any(&d->opts.match, path))
		return 0;
	ga_oid_cpy(&oid, &ref->oid);
	if ((ref->flags & REFS_PEELED) && !ga_oid_is_null(&ref->peeled))
		ga_oid_cpy(&peeled, &ref->peeled);
	else if ((ref->flags & REFS_PEELED) || peel(d, &peeled, &oid) < 0)
		ga_oid_cpy(&peeled, &oid);
	annotated = !ga_oid_equal(&oid, &peeled);
	prio = annotated ? 2 : 1;
	e = find_name(d, &peeled);
	if (!takes_place_of(d, e, prio, &oid))
		return 0;
	if (!e) {
		GA_ALLOC_GROW(d->names, d->nr_names + 1, d->alloc_names);
		e = &d->names[d->nr_names];
		memset(e, 0, sizeof(*e));
		ga_oid_cpy(&e->peeled, &peeled);
		index_add(&d->name_index, d->names, sizeof(*d->names),
			  &peeled, d->nr_names++);
	}
	free(e->path);
	free(e->tag_name);
	memset(e, 0, sizeof(*e));
	ga_oid_cpy(&e->peeled, &peeled);
	ga_oid_cpy(&e->oid, &oid);
	e->prio = prio;
	e->path = ga_xstrdup(path);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Commits and the queue.                                             */

static size_t node_of(struct describe *d, const struct ga_oid *oid)
{
	long at = index_find(&d->node_index, d->nodes, sizeof(*d->nodes), oid);
	struct commit_node *n;

	if (at >= 0)
		return (size_t)at;
	GA_ALLOC_GROW(d->nodes, d->nr_nodes + 1, d->alloc_nodes);
	n = &d->nodes[d->nr_nodes];
	memset(n, 0, sizeof(*n));
	ga_oid_cpy(&n->oid, oid);
	index_add(&d->node_index, d->nodes, sizeof(*d->nodes), oid,
		  d->nr_nodes);
	return d->nr_nodes++;
}

/* git's parse_commit_date(): the committer line's time, else 0. */
static uint64_t committer_date(const char *p, const char *tail)
{
	const char *eol, *gt;

	if (tail - p < 6 || memcmp(p, "author", 6) ||
	    !(eol = memchr(p, '\n', (size_t)(tail - p))))
		return 0;
	p = eol + 1;
	if (tail - p < 9 || memcmp(p, "committer", 9))
		return 0;
	eol = memchr(p, '\n', (size_t)(tail - p));
	if (!eol)
		eol = tail;
	for (gt = eol; gt > p && gt[-1] != '>'; gt--)
		;
	if (gt == p)
		return 0;
	return strtoull(gt, NULL, 10);
}

static void add_parent(struct describe *d, size_t at, const struct ga_oid *oid)
{
	size_t p = node_of(d, oid);
	struct commit_node *n = &d->nodes[at];

	n->parents = ga_xrealloc(n->parents,
				 (n->nr_parents + 1) * sizeof(*n->parents));
	n->parents[n->nr_parents++] = p;
}

/*
 * git's parse_commit(): parents (through grafts and the shallow file)
 * and date.  A commit that cannot be read has neither, as in git.
 */
static void parse_node(struct describe *d, size_t at)
{
	struct odb_object *obj = NULL;
	struct commit_grafts grafts = { 0 };
	const char *p, *tail;
	struct ga_oid id, parent;
	size_t i, hexsz = ga_hash_hexsz(d->algo);

	if (d->nodes[at].parsed)
		return;
	d->nodes[at].parsed = 1;
	ga_oid_cpy(&id, &d->nodes[at].oid);
	if (odb_read(&obj, d->odb, &id) < 0) {
		git_error_clear();
		return;
	}
	if (odb_object_type(obj) != GIT_OBJECT_COMMIT)
		goto done;
	p = odb_object_data(obj);
	tail = p + odb_object_size(obj);
	if (tail - p < (ptrdiff_t)(5 + hexsz + 1) || memcmp(p, "tree ", 5))
		goto done;
	p += 5 + hexsz + 1;
	commit_grafts_load(&grafts, d->repo, &id);
	while (tail - p > (ptrdiff_t)(7 + hexsz) && !memcmp(p, "parent ", 7) &&
	       !oid_parse_hex(&parent, d->algo, p + 7, NULL) &&
	       p[7 + hexsz] == '\n') {
		if (grafts.state == GRAFT_NONE)
			add_parent(d, at, &parent);
		p += 7 + hexsz + 1;
	}
	if (grafts.state == GRAFT_PARENTS)
		for (i = 0; i < grafts.nr; i++)
			add_parent(d, at, &grafts.parents[i]);
	d->nodes[at].date = committer_date(p, tail);
done:
	commit_grafts_release(&grafts);
	odb_object_free(obj);
}

/* Whether a comes out of the queue before b. */
static int queue_before(const struct describe *d, const struct queue_item *a,
			const struct queue_item *b)
{
	uint64_t da = d->nodes[a->node].date, db = d->nodes[b->node].date;

	if (da != db)
		return da > db;
	return a->ctr < b->ctr;
}

static void queue_swap(struct queue *q, size_t i, size_t j)
{
	struct queue_item t = q->item[i];

	q->item[i] = q->item[j];
	q->item[j] = t;
}

static void queue_put(const struct describe *d, struct queue *q, size_t node)
{
	size_t i;

	GA_ALLOC_GROW(q->item, q->nr + 1, q->alloc);
	i = q->nr++;
	q->item[i].node = node;
	q->item[i].ctr = q->ctr++;
	while (i && queue_before(d, &q->item[i], &q->item[(i - 1) / 2])) {
		queue_swap(q, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static size_t queue_get(const struct describe *d, struct queue *q)
{
	size_t top = q->item[0].node, i = 0;

	q->item[0] = q->item[--q->nr];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, best = i;

		if (l < q->nr && queue_before(d, &q->item[l], &q->item[best]))
			best = l;
		if (r < q->nr && queue_before(d, &q->item[r], &q->item[best]))
			best = r;
		if (best == i)
			break;
		queue_swap(q, i, best);
		i = best;
	}
	return top;
}

/* ------------------------------------------------------------------ */
/* The search.                                                        */

static int append_name(struct ga_buf *out, struct describe *d,
		       struct name *n)
{
	if (n->prio == 2) {
		read_tag(d, n);
		if (!n->tag_ok)
			return ga_error_set("annotated tag %s not available",
					    n->path);
		if (!n->name_checked) {
			/* git warns "is externally known as" on stderr. */
			n->misnamed = strcmp(n->tag_name ? n->tag_name : "",
					     n->path) != 0;
			n->name_checked = 1;
		}
		ga_buf_puts(out, n->tag_name ? n->tag_name : "");
	} else {
		ga_buf_puts(out, n->path);
	}
	return 0;
}

static void append_suffix(struct ga_buf *out, const struct abbrev *abbrev,
			  int len, int depth, const struct ga_oid *oid)
{
	struct abbrev a = *abbrev;

	if (len >= 0)
		a.len = len > (int)a.hexsz ? (int)a.hexsz : len;
	ga_buf_printf(out, "-%d-g", depth);
	abbrev_add(out, &a, oid);
}

static int by_depth(const void *a_, const void *b_)
{
	const struct candidate *a = a_, *b = b_;

	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return a->found_order - b->found_order;
}

/*
 * After the search stopped, count for the best candidate the commits
 * still queued that it cannot reach: walk on until every queued commit
 * is one it reaches.
 */
static void finish_depth(struct describe *d, struct queue *q,
			 struct candidate *best)
{
	unsigned char *unflagged = ga_xcalloc(d->nr_nodes + 1, 1);
	size_t nr_unflagged = 0, alloc = d->nr_nodes + 1, i;

	for (i = 0; i < q->nr; i++) {
		size_t c = q->item[i].node;

		if (!(d->nodes[c].flags & best->flag_within) && !unflagged[c]) {
			unflagged[c] = 1;
			nr_unflagged++;
		}
	}
	while (q->nr) {
		size_t c = queue_get(d, q);

		if (d->nodes[c].flags & best->flag_within) {
			if (!nr_unflagged)
				break;
		} else {
			if (unflagged[c]) {
				unflagged[c] = 0;
				nr_unflagged--;
			}
			best->depth++;
		}
		for (i = 0; i < d->nodes[c].nr_parents; i++) {
			size_t p = d->nodes[c].parents[i];
			unsigned seen, before, after;

			parse_node(d, p);
			if (d->nr_nodes + 1 > alloc) {
				unflagged = ga_xrealloc(unflagged,
							d->nr_nodes + 1);
				memset(unflagged + alloc, 0,
				       d->nr_nodes + 1 - alloc);
				alloc = d->nr_nodes + 1;
			}
			seen = d->nodes[p].flags & SEEN;
			if (!seen)
				queue_put(d, q, p);
			before = d->nodes[p].flags & best->flag_within;
			d->nodes[p].flags |= d->nodes[c].flags;
			after = d->nodes[p].flags & best->flag_within;
			if (!seen && !after && !unflagged[p]) {
				unflagged[p] = 1;
				nr_unflagged++;
			}
			if (seen && !before && after && unflagged[p]) {
				unflagged[p] = 0;
				nr_unflagged--;
			}
		}
	}
	free(unflagged);
}

/* Stop when every queued path is covered by the best candidates. */
static int covered(const struct candidate *m, size_t nr, unsigned flags)
{
	int best_depth = INT_MAX;
	unsigned best_within = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (m[i].depth < best_depth) {
			best_depth = m[i].depth;
			best_within = m[i].flag_within;
		} else if (m[i].depth == best_depth) {
			best_within |= m[i].flag_within;
		}
	}
	return (flags & best_within) == best_within;
}

static int search(struct ga_buf *out, struct describe *d,
		  const struct abbrev *abbrev, size_t start)
{
	struct candidate m[MAX_CANDIDATES];
	struct queue q = { 0 };
	size_t match_cnt = 0, annotated_cnt = 0, unannotated_cnt = 0, i;
	size_t gave_up_on = SIZE_MAX;
	unsigned long seen_commits = 0;
	struct ga_oid start_oid = d->nodes[start].oid;
	char hex[GA_OID_MAX_HEXSZ + 1];
	int error;

	d->nodes[start].flags = SEEN;
	queue_put(d, &q, start);
	while (q.nr) {
		size_t c = queue_get(d, &q);
		struct name *n;

		seen_commits++;
		if (match_cnt == MAX_CANDIDATES || match_cnt == d->nr_names) {
			gave_up_on = c;
			break;
		}
		n = find_name(d, &d->nodes[c].oid);
		if (n && !d->opts.tags && n->prio < 2) {
			unannotated_cnt++;
		} else if (n) {
			struct candidate *t = &m[match_cnt++];

			t->name = n;
			t->depth = (int)seen_commits - 1;
			t->flag_within = 1u << match_cnt;
			t->found_order = (int)match_cnt;
			d->nodes[c].flags |= t->flag_within;
			if (n->prio == 2)
				annotated_cnt++;
		}
		for (i = 0; i < match_cnt; i++)
			if (!(d->nodes[c].flags & m[i].flag_within))
				m[i].depth++;
		if (annotated_cnt && !q.nr &&
		    covered(m, match_cnt, d->nodes[c].flags))
			break;
		for (i = 0; i < d->nodes[c].nr_parents; i++) {
			size_t p = d->nodes[c].parents[i];

			parse_node(d, p);
			if (!(d->nodes[p].flags & SEEN))
				queue_put(d, &q, p);
			d->nodes[p].flags |= d->nodes[c].flags;
		}
	}
	ga_oid_fmt(hex, &start_oid);
	if (!match_cnt) {
		free(q.item);
		if (unannotated_cnt)
			return ga_error_set("No annotated tags can describe "
					    "'%s'.\nHowever, there were "
					    "unannotated tags: try --tags.",
					    hex);
		return ga_error_set("No tags can describe '%s'.\n"
				    "Try --always, or create some tags.", hex);
	}
	qsort(m, match_cnt, sizeof(*m), by_depth);
	if (gave_up_on != SIZE_MAX)
		queue_put(d, &q, gave_up_on);
	finish_depth(d, &q, &m[0]);
	free(q.item);
	if ((error = append_name(out, d, m[0].name)) < 0)
		return error;
	if (m[0].name->misnamed || d->opts.abbrev)
		append_suffix(out, abbrev, d->opts.abbrev, m[0].depth,
			      &start_oid);
	return 0;
}

static int describe(struct ga_buf *out, struct describe *d,
		    struct refs_store *refs, const struct abbrev *abbrev,
		    const struct ga_oid *oid)
{
	struct name *n;
	size_t start;
	int error;

	error = refs_for_each(refs, "refs/tags/", REFS_EACH_INCLUDE_BROKEN,
			      add_name, d);
	if (error < 0)
		return error;
	if (!d->nr_names)
		return ga_error_set("No names found, cannot describe "
				    "anything.");
	start = node_of(d, oid);
	parse_node(d, start);
	n = find_name(d, oid);
	if (n && (d->opts.tags || n->prio == 2)) {
		/* The commit is tagged itself. */
		if ((error = append_name(out, d, n)) < 0)
			return error;
		if (n->misnamed)
			append_suffix(out, abbrev, d->opts.abbrev, 0,
				      n->prio == 2 ? &n->tagged : oid);
		return 0;
	}
	return search(out, d, abbrev, start);
}

int describe_commit(struct ga_buf *out, git_repository *repo,
		    struct refs_store *refs, const struct abbrev *abbrev,
		    const struct ga_oid *oid, const char *const *args, size_t nr)
{
	struct describe d;
	size_t i;
	int error;

	memset(&d, 0, sizeof(d));
	d.repo = repo;
	d.algo = oid->algo;
	if (git_repository_odb(&d.odb, repo) < 0)
		return ga_error_from_git(NULL);
	if (!(error = parse_opts(&d.opts, args, nr)))
		error = describe(out, &d, refs, abbrev, oid);
	for (i = 0; i < d.nr_names; i++) {
		free(d.names[i].path);
		free(d.names[i].tag_name);
	}
	for (i = 0; i < d.nr_nodes; i++)
		free(d.nodes[i].parents);
	free(d.names);
	free(d.nodes);
	free(d.name_index.slot);
	free(d.node_index.slot);
	ga_strvec_clear(&d.opts.match);
	ga_strvec_clear(&d.opts.exclude);
	git_odb_free(d.odb);
	return error;
}

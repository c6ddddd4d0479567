/*
 * treeish-search.c: ":/<text>" and "<rev>^{/<text>}", git's
 * get_oid_oneline() (object-name.c) over garchive's object and ref
 * stores, so that both hashes and both ref formats are served by one
 * walk.
 *
 * The order is git 2.39's and 2.51's: a queue by committer date, the
 * youngest first, commits of the same date in the order they were
 * queued (the start list first, then parents as their children are
 * popped, in parent order).  git 2.47 to 2.50 walk the start list
 * reversed (57fb139b5e, fixed by d6ec08788e); that is a bug, not
 * followed.
 */
#include "treeish-search.h"
#include "garchive/common.h"
#include "commit.h"
#include "odb.h"
#include "refs/refs.h"

#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A queued commit: its date and when it was queued. */
struct queued {
	int64_t time;
	uint64_t ctr;
	struct ga_oid id;
};

/* git's prio_queue with compare_commits_by_commit_date. */
struct date_queue {
	struct queued *items;
	size_t nr, alloc;
	uint64_t ctr;
};

/* The commits already queued (git's ONELINE_SEEN mark). */
struct seen_set {
	struct ga_oid *slots;	/* algo GA_HASH_UNKNOWN: empty */
	size_t nr, cap;		/* cap: a power of two */
};

static int before(const struct queued *a, const struct queued *b)
{
	if (a->time != b->time)
		return a->time > b->time;
	return a->ctr < b->ctr;
}

static void queue_swap(struct date_queue *q, size_t i, size_t j)
{
	struct queued tmp = q->items[i];

	q->items[i] = q->items[j];
	q->items[j] = tmp;
}

static void queue_put(struct date_queue *q, const struct ga_oid *id,
		      int64_t time)
{
	size_t i, parent;

	GA_ALLOC_GROW(q->items, q->nr + 1, q->alloc);
	i = q->nr++;
	q->items[i].time = time;
	q->items[i].ctr = q->ctr++;
	ga_oid_cpy(&q->items[i].id, id);
	while (i && before(&q->items[i], &q->items[parent = (i - 1) / 2])) {
		queue_swap(q, i, parent);
		i = parent;
	}
}

static void queue_get(struct ga_oid *out, struct date_queue *q)
{
	size_t i = 0, child;

	ga_oid_cpy(out, &q->items[0].id);
	q->items[0] = q->items[--q->nr];
	while ((child = 2 * i + 1) < q->nr) {
		if (child + 1 < q->nr &&
		    before(&q->items[child + 1], &q->items[child]))
			child++;
		if (!before(&q->items[child], &q->items[i]))
			break;
		queue_swap(q, i, child);
		i = child;
	}
}

static size_t seen_slot(const struct seen_set *s, const struct ga_oid *id)
{
	size_t h = ((size_t)id->id[0] << 24 | (size_t)id->id[1] << 16 |
		    (size_t)id->id[2] << 8 | id->id[3]) & (s->cap - 1);

	while (s->slots[h].algo != GA_HASH_UNKNOWN &&
	       !ga_oid_equal(&s->slots[h], id))
		h = (h + 1) & (s->cap - 1);
	return h;
}

/* Mark `id`: 1 when it was new, 0 when it was marked already. */
static int seen_add(struct seen_set *s, const struct ga_oid *id)
{
	size_t h, i;

	if (2 * (s->nr + 1) > s->cap) {
		struct seen_set bigger = { NULL, 0, s->cap ? 2 * s->cap : 64 };

		bigger.slots = ga_xcalloc(bigger.cap, sizeof(*bigger.slots));
		for (i = 0; i < s->cap; i++)
			if (s->slots[i].algo != GA_HASH_UNKNOWN)
				bigger.slots[seen_slot(&bigger,
						       &s->slots[i])] =
					s->slots[i];
		bigger.nr = s->nr;
		free(s->slots);
		*s = bigger;
	}
	h = seen_slot(s, id);
	if (s->slots[h].algo != GA_HASH_UNKNOWN)
		return 0;
	s->slots[h] = *id;
	s->nr++;
	return 1;
}

/* Whether the message of `c` matches, as git's get_oid_oneline() asks. */
static int message_matches(const struct ga_commit *c, const regex_t *re,
			   int negative)
{
	const char *p = strstr(c->raw, "\n\n");

	return negative ^ (p && !regexec(re, p + 2, 0, NULL, 0));
}

int treeish_search_commits(struct ga_oid *out, git_odb *odb,
			   const struct ga_oid *starts, size_t nr,
			   const char *pattern)
{
	struct date_queue q = { 0 };
	struct seen_set seen = { 0 };
	struct ga_commit *c = NULL, *parent = NULL;
	struct ga_oid id;
	regex_t re;
	int negative = 0, error = GA_ENOTFOUND;
	size_t i;

	if (pattern[0] == '!') {
		pattern++;
		if (pattern[0] == '-') {
			pattern++;
			negative = 1;
		} else if (pattern[0] != '!') {
			return GA_ENOTFOUND;	/* reserved */
		}
	}
	if (regcomp(&re, pattern, REG_EXTENDED))
		return GA_ENOTFOUND;
	/*
	 * git marks and queues the whole start list, a commit listed
	 * twice (HEAD and its branch) twice; the second is a copy of the
	 * first, of the same date, so queueing it once finds the same.
	 */
	for (i = 0; i < nr; i++) {
		if (!seen_add(&seen, &starts[i]) ||
		    ga_commit_read(&c, odb, &starts[i]) < 0)
			continue;
		queue_put(&q, &starts[i], c->time);
		ga_commit_free(c);
		c = NULL;
	}
	ga_error_clear();
	while (q.nr) {
		queue_get(&id, &q);
		if (ga_commit_read(&c, odb, &id) < 0) {
			ga_error_clear();
			continue;
		}
		/* git's pop_most_recent_commit(): parents that parse. */
		for (i = 0; i < c->nr_parents; i++) {
			if (ga_commit_read(&parent, odb, &c->parents[i]) < 0) {
				ga_error_clear();
				continue;
			}
			if (seen_add(&seen, &c->parents[i]))
				queue_put(&q, &c->parents[i], parent->time);
			ga_commit_free(parent);
			parent = NULL;
		}
		if (message_matches(c, &re, negative)) {
			ga_oid_cpy(out, &id);
			error = 0;
			break;
		}
		ga_commit_free(c);
		c = NULL;
	}
	ga_commit_free(c);
	regfree(&re);
	free(q.items);
	free(seen.slots);
	return error;
}

struct start_list {
	git_odb *odb;
	struct ga_oid *ids;
	size_t nr, alloc;
};

/*
 * git's handle_one_ref(): the commit a ref leads to through tags,
 * checked against its id as git's parse_object() checks it (a mismatch
 * is reported as git reports it).
 */
static void add_start(struct start_list *l, const struct ga_oid *ref_id)
{
	struct odb_object *obj = NULL;
	struct ga_oid id, actual;

	if (ga_peel_tags(&id, l->odb, ref_id) < 0 ||
	    odb_read(&obj, l->odb, &id) < 0)
		goto done;
	if (odb_object_type(obj) != GIT_OBJECT_COMMIT)
		goto done;
	odb_hash_object(&actual, id.algo, GIT_OBJECT_COMMIT,
			odb_object_data(obj), odb_object_size(obj));
	if (!ga_oid_equal(&actual, &id)) {
		char hex[GA_OID_MAX_HEXSZ + 1];

		/* git's parse_object() says so, and the ref is left out. */
		ga_oid_fmt(hex, &id);
		ga_report(GA_REPORT_ERROR, "hash mismatch %s", hex);
		goto done;
	}
	GA_ALLOC_GROW(l->ids, l->nr + 1, l->alloc);
	ga_oid_cpy(&l->ids[l->nr++], &id);
done:
	odb_object_free(obj);
	ga_error_clear();
}

static int each_ref(const struct refs_entry *e, void *payload)
{
	add_start(payload, &e->oid);
	return 0;
}

int treeish_search_refs(struct ga_oid *out, git_odb *odb,
			struct refs_store *refs, const char *pattern)
{
	struct start_list l = { odb, NULL, 0, 0 };
	struct ga_oid head;
	size_t i;
	int error;

	if ((error = refs_for_each(refs, "refs/", 0, each_ref, &l)) < 0)
		goto done;
	/* git's refs_head_ref(): HEAD when it resolves, detached or not. */
	error = refs_resolve(NULL, &head, NULL, refs, "HEAD",
			     REFS_RESOLVE_READING);
	if (error == GA_ENOTFOUND)
		ga_error_clear();
	else if (error < 0)
		goto done;
	else
		add_start(&l, &head);
	/*
	 * git builds its list with commit_list_insert(), which puts each
	 * ref in front: HEAD first, then the refs in reverse name order.
	 */
	for (i = 0; i < l.nr / 2; i++) {
		struct ga_oid tmp = l.ids[i];

		l.ids[i] = l.ids[l.nr - 1 - i];
		l.ids[l.nr - 1 - i] = tmp;
	}
	error = treeish_search_commits(out, odb, l.ids, l.nr, pattern);
done:
	free(l.ids);
	return error;
}

/*
 * treeish-search.c: ":/<text>" and "<rev>^{/<text>}" (see
 * treeish-search.h).
 *
 * git keeps the commits to visit in a list ordered by committer date,
 * newest first: the tips go in by a stable sort, and a parent seen for
 * the first time goes in after every commit of its date or newer
 * (commit_list_insert_by_date()).  Which of two matching commits of one
 * date is found depends on that order, so the list is kept here exactly
 * so, as a linked list, not as a heap that would break ties otherwise.
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

#include "libgit2.h"

/* A commit met on the walk. */
struct node {
	struct ga_oid id;
	int64_t date;
	struct ga_oid *parents;
	size_t nr_parents;
	char *raw;		/* until its message is tested */
	int parsed;		/* date and parents are read */
	int failed;		/* it could not be read */
	int seen;		/* it is or was in the list */
	int tested;		/* its message was tested */
};

/* An entry of the list: a node, and the next entry (or NONE). */
struct entry {
	size_t node;
	size_t next;
};

#define NONE ((size_t)-1)

struct walk {
	git_repository *repo;
	git_odb *odb;
	struct node *nodes;
	size_t nr, alloc;
	size_t *slots;		/* open addressing: node index + 1, or 0 */
	size_t nr_slots;
	struct entry *entries;
	size_t nr_entries, alloc_entries;
	size_t head;
};

static size_t slot_of(const struct walk *w, const struct ga_oid *id)
{
	size_t h = (size_t)id->id[0] | (size_t)id->id[1] << 8 |
		   (size_t)id->id[2] << 16 | (size_t)id->id[3] << 24;

	return h & (w->nr_slots - 1);
}

static void rehash(struct walk *w)
{
	size_t i, s;

	free(w->slots);
	w->nr_slots = w->nr_slots ? w->nr_slots * 2 : 64;
	w->slots = ga_xcalloc(w->nr_slots, sizeof(*w->slots));
	for (i = 0; i < w->nr; i++) {
		for (s = slot_of(w, &w->nodes[i].id); w->slots[s];
		     s = (s + 1) & (w->nr_slots - 1))
			;
		w->slots[s] = i + 1;
	}
}

/* The node of `id`, made (unread) when it is new. */
static size_t node_of(struct walk *w, const struct ga_oid *id)
{
	size_t s;

	if (w->nr_slots) {
		for (s = slot_of(w, id); w->slots[s];
		     s = (s + 1) & (w->nr_slots - 1))
			if (ga_oid_equal(&w->nodes[w->slots[s] - 1].id, id))
				return w->slots[s] - 1;
	}
	GA_ALLOC_GROW(w->nodes, w->nr + 1, w->alloc);
	memset(&w->nodes[w->nr], 0, sizeof(w->nodes[w->nr]));
	ga_oid_cpy(&w->nodes[w->nr].id, id);
	w->nr++;
	if (w->nr * 2 > w->nr_slots) {
		rehash(w);
	} else {
		for (s = slot_of(w, id); w->slots[s];
		     s = (s + 1) & (w->nr_slots - 1))
			;
		w->slots[s] = w->nr;
	}
	return w->nr - 1;
}

static void walk_release(struct walk *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++) {
		free(w->nodes[i].parents);
		free(w->nodes[i].raw);
	}
	free(w->nodes);
	free(w->slots);
	free(w->entries);
}

/*
 * git's parse_commit(): read the date and parents of node `n` once.
 * Returns 0, or -1 when it cannot be read as a commit (with git's
 * "Could not read" for a missing one when `say`).
 */
static int parse_node(struct walk *w, size_t n, int say)
{
	struct odb_object *obj = NULL;
	struct ga_commit c = { 0 };
	struct commit_grafts grafts = { 0 };
	struct node *node = &w->nodes[n];
	char hex[GA_OID_MAX_HEXSZ + 1];

	if (node->parsed)
		return 0;
	if (node->failed)
		return -1;
	if (odb_read(&obj, w->odb, &node->id) < 0) {
		git_error_clear();
		ga_error_clear();
		if (say)
			ga_report(GA_REPORT_ERROR, "Could not read %s",
				  ga_oid_fmt(hex, &node->id));
		node->failed = 1;
		return -1;
	}
	if (odb_object_type(obj) != GIT_OBJECT_COMMIT ||
	    ga_commit_parse(&c, &node->id, odb_object_data(obj),
			    odb_object_size(obj)) < 0) {
		odb_object_free(obj);
		ga_error_clear();
		node->failed = 1;
		return -1;
	}
	odb_object_free(obj);
	commit_grafts_load(&grafts, w->repo, &node->id);
	node->date = c.time;
	node->raw = c.raw;
	c.raw = NULL;
	if (grafts.state == GRAFT_NONE) {
		node->parents = c.parents;
		node->nr_parents = c.nr_parents;
		c.parents = NULL;
	} else if (grafts.state == GRAFT_PARENTS) {
		node->parents = grafts.parents;
		node->nr_parents = grafts.nr;
		grafts.parents = NULL;
	}
	node->parsed = 1;
	commit_grafts_release(&grafts);
	ga_commit_release(&c);
	return 0;
}

/*
 * git's commit_list_insert_by_date(): node `n` goes in after every entry
 * not older than it.  The entry is linked by index: a pointer into the
 * array would not survive its growing.
 */
static void insert_by_date(struct walk *w, size_t n)
{
	size_t prev = NONE, cur = w->head, e;
	int64_t date = w->nodes[n].date;

	while (cur != NONE && w->nodes[w->entries[cur].node].date >= date) {
		prev = cur;
		cur = w->entries[cur].next;
	}
	GA_ALLOC_GROW(w->entries, w->nr_entries + 1, w->alloc_entries);
	e = w->nr_entries++;
	w->entries[e].node = n;
	w->entries[e].next = cur;
	if (prev == NONE)
		w->head = e;
	else
		w->entries[prev].next = e;
}

/*
 * The tips, parsed, into the list sorted by date, newest first; ties
 * keep their order (git's stable commit_list_sort_by_date()): each goes
 * in after the tips not older than it, as a parent does.
 */
static void start_list(struct walk *w, const struct ga_oid *tips, size_t nr)
{
	size_t i, n;

	w->head = NONE;
	for (i = 0; i < nr; i++) {
		n = node_of(w, &tips[i]);
		if (parse_node(w, n, 0) < 0)
			continue;
		w->nodes[n].seen = 1;
		insert_by_date(w, n);
	}
}

/* Whether the message of the raw commit `raw` matches. */
static int message_matches(const char *raw, const regex_t *re, int negative)
{
	const char *p = strstr(raw, "\n\n");
	int match = p && !regexec(re, p + 2, 0, NULL, 0);

	return negative ? !match : match;
}

int treeish_search(struct ga_oid *out, git_repository *repo, git_odb *odb,
		   const struct ga_oid *tips, size_t nr, const char *pattern)
{
	struct walk w = { 0 };
	regex_t re;
	int negative = 0, error = GA_ENOTFOUND;
	size_t e, n, i, p;

	if (pattern[0] == '!') {
		pattern++;
		if (pattern[0] == '-')
			negative = 1, pattern++;
		else if (pattern[0] != '!')
			return GA_ENOTFOUND;	/* reserved for later forms */
	}
	if (regcomp(&re, pattern, REG_EXTENDED))
		return GA_ENOTFOUND;
	w.repo = repo;
	w.odb = odb;
	start_list(&w, tips, nr);
	while (w.head != NONE) {
		e = w.head;
		n = w.entries[e].node;
		w.head = w.entries[e].next;
		/* git's pop_most_recent_commit(): parents go in first. */
		for (i = 0; i < w.nodes[n].nr_parents; i++) {
			p = node_of(&w, &w.nodes[n].parents[i]);
			if (parse_node(&w, p, 1) < 0 || w.nodes[p].seen)
				continue;
			w.nodes[p].seen = 1;
			insert_by_date(&w, p);
		}
		/* A tip named twice was tested the first time. */
		if (w.nodes[n].tested)
			continue;
		w.nodes[n].tested = 1;
		if (message_matches(w.nodes[n].raw, &re, negative)) {
			ga_oid_cpy(out, &w.nodes[n].id);
			error = 0;
			break;
		}
		free(w.nodes[n].raw);
		w.nodes[n].raw = NULL;
	}
	regfree(&re);
	walk_release(&w);
	return error;
}

/* The tips of ":/": git's handle_one_ref(), into a growing array. */
struct tips {
	git_odb *odb;
	struct ga_oid *ids;
	size_t nr, alloc;
};

/*
 * The commit a ref's object is or its tags lead to; 0 when there is
 * none (a missing tag target is warned about, as git's deref_tag()).
 */
static int ref_commit(struct ga_oid *out, git_odb *odb, const char *refname,
		      const struct ga_oid *id)
{
	struct odb_object *obj = NULL;
	struct ga_oid cur;
	git_object_t type;
	int is_tag = 0, hops;

	ga_oid_cpy(&cur, id);
	for (hops = 0; hops < 100000; hops++) {
		if (odb_read(&obj, odb, &cur) < 0) {
			git_error_clear();
			ga_error_clear();
			if (is_tag)
				ga_warning("missing object referenced by '%s'",
					   refname);
			return 0;
		}
		if (odb_object_type(obj) == GIT_OBJECT_COMMIT) {
			odb_object_free(obj);
			ga_oid_cpy(out, &cur);
			return 1;
		}
		if (odb_object_type(obj) != GIT_OBJECT_TAG ||
		    ga_tag_target(&cur, &type, id->algo,
				  odb_object_data(obj),
				  odb_object_size(obj)) < 0) {
			odb_object_free(obj);
			return 0;
		}
		odb_object_free(obj);
		is_tag = 1;
	}
	return 0;
}

static int add_tip(struct tips *t, const char *refname,
		   const struct ga_oid *id)
{
	struct ga_oid commit;

	if (!ref_commit(&commit, t->odb, refname, id))
		return 0;
	GA_ALLOC_GROW(t->ids, t->nr + 1, t->alloc);
	ga_oid_cpy(&t->ids[t->nr++], &commit);
	return 0;
}

static int each_ref(const struct refs_entry *e, void *payload)
{
	return add_tip(payload, e->name, &e->oid);
}

int treeish_search_refs(struct ga_oid *out, git_repository *repo,
			git_odb *odb, struct refs_store *refs,
			const char *pattern)
{
	struct tips t = { 0 };
	struct ga_oid head, tmp;
	size_t i;
	int error;

	t.odb = odb;
	if ((error = refs_for_each(refs, "", 0, each_ref, &t)) < 0)
		goto done;
	if (refs_resolve(NULL, &head, NULL, refs, "HEAD",
			 REFS_RESOLVE_READING) == 0)
		add_tip(&t, "HEAD", &head);
	else
		ga_error_clear();
	/* git puts each in front of the list: the last one first. */
	for (i = 0; i < t.nr / 2; i++) {
		ga_oid_cpy(&tmp, &t.ids[i]);
		ga_oid_cpy(&t.ids[i], &t.ids[t.nr - 1 - i]);
		ga_oid_cpy(&t.ids[t.nr - 1 - i], &tmp);
	}
	error = treeish_search(out, repo, odb, t.ids, t.nr, pattern);
done:
	free(t.ids);
	return error;
}

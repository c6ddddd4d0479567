/*
 * rawtree.c: parse tree objects as git's tree-walk.c does.
 */
#include "rawtree.h"
#include "garchive/common.h"
#include "odb.h"

#include <stdlib.h>
#include <string.h>

#include "libgit2.h"

uint32_t rawtree_canon_mode(uint32_t mode)
{
	switch (mode & 0170000) {
	case 0100000:
		return (mode & 0100) ? 0100755 : 0100644;
	case 0120000:
		return 0120000;
	case 0040000:
		return 0040000;
	}
	return 0160000;	/* anything else is taken for a gitlink */
}

void rawtree_iter_init(struct rawtree_iter *it, const void *data,
		       size_t size, size_t hashsz)
{
	it->p = data;
	it->left = size;
	it->hashsz = hashsz;
}

int rawtree_next(struct rawtree_entry *out, struct rawtree_iter *it)
{
	const unsigned char *p = it->p, *nul;
	uint32_t mode = 0;
	size_t used;

	if (!it->left)
		return GA_ITEROVER;
	/*
	 * git first checks that the buffer can hold an entry and that the
	 * byte before the last object id is the NUL ending a name.
	 */
	if (it->left < it->hashsz + 3 || p[it->left - (it->hashsz + 1)])
		return ga_error_set("too-short tree object");
	if (*p == ' ')
		return ga_error_set("malformed mode in tree entry");
	/* The NUL checked above bounds this scan. */
	while (*p != ' ') {
		if (*p < '0' || *p > '7')
			return ga_error_set("malformed mode in tree entry");
		mode = (mode << 3) + (uint32_t)(*p - '0');
		p++;
	}
	p++;
	nul = memchr(p, '\0', it->left - (size_t)(p - it->p));
	if (!nul)
		return ga_error_set("too-short tree file");
	if (nul == p)
		return ga_error_set("empty filename in tree entry");
	used = (size_t)(nul + 1 - it->p) + it->hashsz;
	if (used > it->left)
		return ga_error_set("too-short tree file");

	out->name = (const char *)p;
	out->name_len = (size_t)(nul - p);
	out->raw_mode = mode;
	out->mode = rawtree_canon_mode(mode);
	ga_oid_from_raw(&out->id, ga_hash_by_rawsz(it->hashsz), nul + 1);
	it->p += used;
	it->left -= used;
	return 0;
}

int rawtree_read(struct odb_object **out, git_odb *odb,
		 const struct ga_oid *id)
{
	int error;

	*out = NULL;
	if ((error = odb_read(out, odb, id)) < 0) {
		if (odb_corrupt_error(error) < 0)
			return GA_ECORRUPT;
		git_error_clear();
		return GA_ENOTFOUND;
	}
	if (odb_object_type(*out) != GIT_OBJECT_TREE) {
		odb_object_free(*out);
		*out = NULL;
		return GA_ENOTFOUND;
	}
	return 0;
}

/*
 * One step of git's find_tree_entry(): entries are taken to be sorted,
 * so the search stops at the first name past `path`.  Returns 0 with
 * *rest pointing past the entry's name and its '/' ("" when `path` ends
 * there), or GA_ENOTFOUND or an error.
 */
static int find_entry(struct rawtree_entry *out, const char **rest,
		      const struct odb_object *obj, const char *path,
		      size_t hashsz)
{
	size_t len = strlen(path);
	struct rawtree_iter it;
	int error, cmp;

	rawtree_iter_init(&it, odb_object_data(obj),
			  odb_object_size(obj), hashsz);
	while ((error = rawtree_next(out, &it)) == 0) {
		if (out->name_len > len)
			continue;
		cmp = memcmp(path, out->name, out->name_len);
		if (cmp > 0)
			continue;
		if (cmp < 0)
			break;
		if (out->name_len == len) {
			*rest = path + len;
			return 0;
		}
		if (path[out->name_len] != '/')
			continue;
		if (out->mode != 0040000)
			break;
		*rest = path + out->name_len + 1;
		return 0;
	}
	return error < 0 && error != GA_ITEROVER ? error : GA_ENOTFOUND;
}

int rawtree_find(struct rawtree_entry *out, const struct odb_object *tree,
		 const char *name, size_t hashsz)
{
	const char *rest;
	int error = find_entry(out, &rest, tree, name, hashsz);

	return error < 0 ? error : *rest ? GA_ENOTFOUND : 0;
}

int rawtree_lookup(struct rawtree_entry *out, git_odb *odb,
		   const struct ga_oid *root, const char *path, size_t hashsz)
{
	struct odb_object *obj = NULL;
	struct ga_oid id;
	int error;

	ga_oid_cpy(&id, root);
	for (;;) {
		const char *rest;

		if ((error = rawtree_read(&obj, odb, &id)) < 0)
			return error;
		error = find_entry(out, &rest, obj, path, hashsz);
		odb_object_free(obj);
		if (error < 0)
			return error;
		/* out->name pointed into the freed tree: not used below. */
		out->name = NULL;
		if (!*rest)
			return 0;
		ga_oid_cpy(&id, &out->id);
		path = rest;
	}
}

struct rawtree_level {
	struct odb_object *obj;	/* the tree */
	size_t end;		/* bytes of the path that lead to it */
	int stable;		/* see entry_is_stable() */
};

void rawtree_cursor_init(struct rawtree_cursor *c, git_odb *odb,
			 size_t hashsz)
{
	memset(c, 0, sizeof(*c));
	c->odb = odb;
	c->hashsz = hashsz;
}

/* Keep the trees of the first `nr` levels only. */
static void cursor_cut(struct rawtree_cursor *c, size_t nr)
{
	while (c->nr > nr)
		odb_object_free(c->levels[--c->nr].obj);
}

void rawtree_cursor_release(struct rawtree_cursor *c)
{
	cursor_cut(c, 0);
	free(c->levels);
	free(c->path);
	c->levels = NULL;
	c->path = NULL;
	c->alloc = c->path_alloc = 0;
}

/*
 * Whether find_entry() in `obj` finds the directory `e`, found there
 * for `path`, for any path that starts as `path` does up to the '/'
 * after e's name.  Entries before `e` that are shorter than that part
 * compare the same for every such path.  A longer one that sorts below
 * it does too (it is skipped, or compared and passed); one that does
 * not (in an unsorted tree, or a name holding '/') may stop the search
 * or match itself for another path.
 */
static int entry_is_stable(const struct odb_object *obj, size_t hashsz,
			   const char *path, const struct rawtree_entry *e)
{
	size_t s = e->name_len + 1;
	struct rawtree_iter it;
	struct rawtree_entry x;

	rawtree_iter_init(&it, odb_object_data(obj), odb_object_size(obj),
			  hashsz);
	while (rawtree_next(&x, &it) == 0 && x.name != e->name)
		if (x.name_len >= s && memcmp(path, x.name, s) <= 0)
			return 0;
	return 1;
}

/* How many levels the cursor holds that `path` goes through too. */
static size_t levels_kept(const struct rawtree_cursor *c, const char *path,
			  size_t len)
{
	size_t k;

	for (k = 1; k < c->nr; k++) {
		const struct rawtree_level *l = &c->levels[k];
		size_t from = c->levels[k - 1].end;

		/* A path that ends at the level needs its parent's entry. */
		if (!l->stable || l->end >= len ||
		    memcmp(c->path + from, path + from, l->end - from))
			break;
	}
	return k;
}

int rawtree_cursor_lookup(struct rawtree_entry *out, struct rawtree_cursor *c,
			  const struct ga_oid *root, const char *path)
{
	struct odb_object *obj = NULL;
	int error;

	if (c->nr && !ga_oid_equal(&c->root, root))
		cursor_cut(c, 0);
	if (!c->nr) {
		if ((error = rawtree_read(&obj, c->odb, root)) < 0)
			return error;
		GA_ALLOC_GROW(c->levels, 1, c->alloc);
		c->levels[0].obj = obj;
		c->levels[0].end = 0;
		c->levels[0].stable = 1;
		c->nr = 1;
		ga_oid_cpy(&c->root, root);
	}
	cursor_cut(c, levels_kept(c, path, strlen(path)));
	for (;;) {
		const struct rawtree_level *l = &c->levels[c->nr - 1];
		const char *sub = path + l->end, *rest;
		struct rawtree_level *next;
		size_t end;
		int stable;

		if ((error = find_entry(out, &rest, l->obj, sub,
					c->hashsz)) < 0)
			return error;
		if (!*rest) {
			out->name = NULL;	/* as rawtree_lookup() */
			return 0;
		}
		stable = entry_is_stable(l->obj, c->hashsz, sub, out);
		out->name = NULL;
		if ((error = rawtree_read(&obj, c->odb, &out->id)) < 0)
			return error;
		end = (size_t)(rest - path);
		GA_ALLOC_GROW(c->path, end, c->path_alloc);
		memcpy(c->path + l->end, sub, end - l->end);
		GA_ALLOC_GROW(c->levels, c->nr + 1, c->alloc);
		next = &c->levels[c->nr++];
		next->obj = obj;
		next->end = end;
		next->stable = stable;
	}
}

/* Depth limit of the count: the walk refuses deeper trees anyway. */
#define RAWTREE_COUNT_DEPTH 4096

static int count_tree(uint64_t *n, git_odb *odb, const struct ga_oid *id,
		      size_t hashsz, int depth)
{
	struct odb_object *obj = NULL;
	struct rawtree_iter it;
	struct rawtree_entry e;
	int error;

	if (depth > RAWTREE_COUNT_DEPTH || rawtree_read(&obj, odb, id) < 0)
		return GA_ENOTFOUND;
	rawtree_iter_init(&it, odb_object_data(obj),
			  odb_object_size(obj), hashsz);
	while ((error = rawtree_next(&e, &it)) == 0) {
		if (e.mode != 0040000)
			(*n)++;
		else if ((error = count_tree(n, odb, &e.id, hashsz,
					     depth + 1)) < 0)
			break;
	}
	odb_object_free(obj);
	return error == GA_ITEROVER ? 0 : error;
}

int rawtree_count(uint64_t *out, git_odb *odb, const struct ga_oid *root,
		  size_t hashsz)
{
	*out = 0;
	return count_tree(out, odb, root, hashsz, 0);
}

/*
 * refs-each.c: iterations over the ref store (see refs.h): loose refs
 * over packed ones (git's overlay iterator), a worktree's own reftable
 * stack over the common one (git's ref_iterator_select()), symbolic
 * refs resolved and broken refs flagged as git's iterators do.
 */
#include "refs/refs-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "garchive/common.h"
#include "refs/files.h"

/* Loose refs (and root refs) by name, each read when reached. */
struct loose_iter {
	struct refs_iter base;
	struct refs_store *refs;
	struct ga_strvec names;
	size_t i;
};

static int loose_iter_next(struct refs_iter *it)
{
	struct loose_iter *li = (struct loose_iter *)it;

	while (li->i < li->names.nr) {
		const char *name = li->names.v[li->i++];
		char *path = refs_store_path(li->refs, name, "");
		int err;

		ga_oid_clear(&it->cur.oid, li->refs->algo);
		err = files_read_ref(&it->cur, path, li->refs->algo);
		free(path);
		/* Gone since the walk, or a directory now: not loose. */
		if (err == ENOENT || err == EISDIR || err == ENOTDIR)
			continue;
		if (err) {
			ga_oid_clear(&it->cur.oid, li->refs->algo);
			it->cur.flags = REFS_ISBROKEN;
		}
		ga_buf_setlen(&it->cur.name, 0);
		ga_buf_puts(&it->cur.name, name);
		if (refs_check_name(name, REFS_NAME_ALLOW_ONELEVEL)) {
			if (!refname_is_safe(name))
				return ga_error_set("loose refname is "
						    "dangerous: %s", name);
			ga_oid_clear(&it->cur.oid, li->refs->algo);
			it->cur.flags |= REFS_BAD_NAME | REFS_ISBROKEN;
		}
		return 0;
	}
	return 1;
}

static void loose_iter_free(struct refs_iter *it)
{
	struct loose_iter *li = (struct loose_iter *)it;

	ga_strvec_clear(&li->names);
	refs_raw_release(&it->cur);
	free(li);
}

static char *loose_path_of(void *ctx, const char *refname)
{
	return refs_store_path(ctx, refname, "");
}

static struct refs_iter *loose_iter_new(struct refs_store *refs,
					const char *prefix, int root_refs)
{
	struct loose_iter *li = ga_xcalloc(1, sizeof(*li));
	struct ga_strvec loose = GA_STRVEC_INIT;
	size_t i;

	li->base.next = loose_iter_next;
	li->base.free = loose_iter_free;
	li->refs = refs;
	/* Root refs are upper case: they sort before "refs/". */
	if (root_refs) {
		struct ga_strvec roots = GA_STRVEC_INIT;

		files_root_names(&roots, refs->git_dir);
		for (i = 0; i < roots.nr; i++)
			if (ga_starts_with(roots.v[i], prefix))
				ga_strvec_push(&li->names,
					       ga_xstrdup(roots.v[i]));
		ga_strvec_clear(&roots);
	}
	files_loose_names(&loose, prefix, loose_path_of, refs);
	for (i = 0; i < loose.nr; i++)
		ga_strvec_push(&li->names, ga_xstrdup(loose.v[i]));
	ga_strvec_clear(&loose);
	return &li->base;
}

/*
 * Two sorted iterations as one.  OVERLAY (git's overlay iterator):
 * `a` hides `b` on equal names.  WORKTREE (git's ref_iterator_select()):
 * `a` is a worktree's own stack and hides `b` on equal names, and of
 * `b`, the common stack, only shared refs are taken.
 */
enum merge_mode { MERGE_OVERLAY, MERGE_WORKTREE };

struct merge_iter {
	struct refs_iter base;
	struct refs_iter *a, *b;
	int a_live, b_live, started;
	enum merge_mode mode;
};

static int advance(struct refs_iter *it, int *live)
{
	int ret = it->next(it);

	if (ret < 0)
		return ret;
	*live = !ret;
	return 0;
}

static void take(struct refs_iter *to, struct refs_iter *from)
{
	struct refs_raw tmp = to->cur;

	to->cur = from->cur;
	from->cur = tmp;
}

static int merge_iter_next(struct refs_iter *it)
{
	struct merge_iter *mi = (struct merge_iter *)it;
	int ret;

	if (!mi->started) {
		mi->started = 1;
		if ((ret = advance(mi->a, &mi->a_live)) < 0 ||
		    (ret = advance(mi->b, &mi->b_live)) < 0)
			return ret;
	}
	for (;;) {
		int cmp;

		if (!mi->a_live && !mi->b_live)
			return 1;
		cmp = !mi->b_live ? -1 : !mi->a_live ? 1 :
		      strcmp(mi->a->cur.name.ptr, mi->b->cur.name.ptr);
		if (cmp <= 0) {
			take(it, mi->a);
			if ((ret = advance(mi->a, &mi->a_live)) < 0 ||
			    (!cmp && (ret = advance(mi->b, &mi->b_live)) < 0))
				return ret;
			return 0;
		}
		if (mi->mode == MERGE_WORKTREE) {
			const char *wt, *bare;
			size_t wt_len;

			enum refname_worktree type;

			/* The main worktree's own refs are not ours. */
			type = refname_worktree(mi->b->cur.name.ptr, &wt,
						&wt_len, &bare);
			if (type != REFNAME_WORKTREE_SHARED) {
				if ((ret = advance(mi->b, &mi->b_live)) < 0)
					return ret;
				continue;
			}
		}
		take(it, mi->b);
		return advance(mi->b, &mi->b_live);
	}
}

static void merge_iter_free(struct refs_iter *it)
{
	struct merge_iter *mi = (struct merge_iter *)it;

	refs_iter_free(mi->a);
	refs_iter_free(mi->b);
	refs_raw_release(&it->cur);
	free(mi);
}

static struct refs_iter *merge_iter_new(struct refs_iter *a,
					struct refs_iter *b,
					enum merge_mode mode)
{
	struct merge_iter *mi = ga_xcalloc(1, sizeof(*mi));

	mi->base.next = merge_iter_next;
	mi->base.free = merge_iter_free;
	mi->a = a;
	mi->b = b;
	mi->mode = mode;
	return &mi->base;
}

static struct refs_iter *files_iter(struct refs_store *refs,
				    const char *prefix, int root_refs)
{
	if (refs_store_load_packed(refs) < 0)
		return NULL;
	return merge_iter_new(loose_iter_new(refs, prefix, root_refs),
			      packed_iter_new(&refs->packed, prefix),
			      MERGE_OVERLAY);
}

static struct refs_iter *reftable_iter(struct refs_store *refs,
				       const char *prefix)
{
	struct refs_iter *main_it, *wt_it;

	if (rtstack_load(&refs->main_stack) < 0 ||
	    !(main_it = rtstack_ref_iter_new(&refs->main_stack, prefix)))
		return NULL;
	if (!refs->is_worktree)
		return main_it;
	if (rtstack_load(&refs->wt_stack) < 0 ||
	    !(wt_it = rtstack_ref_iter_new(&refs->wt_stack, prefix))) {
		refs_iter_free(main_it);
		return NULL;
	}
	return merge_iter_new(wt_it, main_it, MERGE_WORKTREE);
}

/*
 * What git's iterators yield: refs under refs/ (root refs too when
 * asked), bad names flagged, symbolic refs resolved, a null id broken.
 * Returns 1 to show the entry, 0 to pass over it, or GA_ERROR.
 */
static int finish(struct refs_entry *e, struct refs_raw *raw,
		  struct refs_store *refs, unsigned each_flags)
{
	const char *name = raw->name.ptr;
	unsigned flags;
	int ret;

	if (!ga_starts_with(name, "refs/") &&
	    !((each_flags & REFS_EACH_ROOT_REFS) && refname_is_root(name)))
		return 0;
	if (refs->storage == REFS_STORAGE_REFTABLE &&
	    refs_check_name(name, REFS_NAME_ALLOW_ONELEVEL)) {
		if (!refname_is_safe(name))
			return ga_error_set("refname is dangerous: %s", name);
		ga_oid_clear(&raw->oid, refs->algo);
		raw->flags |= REFS_BAD_NAME | REFS_ISBROKEN;
	}
	e->name = name;
	e->oid = raw->oid;
	e->peeled = raw->peeled;
	e->target = NULL;
	e->flags = raw->flags;
	if (raw->flags & REFS_ISSYMREF) {
		e->target = raw->target.ptr;
		ret = refs_resolve(NULL, &e->oid, &flags, refs, name,
				   REFS_RESOLVE_READING);
		if (ret == GA_ERROR)
			return ret;
		e->flags |= flags & (REFS_ISSYMREF | REFS_ISBROKEN);
		if (ret)
			ga_oid_clear(&e->oid, refs->algo);
		e->flags &= ~(unsigned)REFS_PEELED;
	}
	if (ga_oid_is_null(&e->oid))
		e->flags |= REFS_ISBROKEN;
	return !(e->flags & REFS_ISBROKEN) ||
	       (each_flags & REFS_EACH_INCLUDE_BROKEN);
}

int refs_for_each(struct refs_store *refs, const char *prefix,
		  unsigned each_flags, refs_each_fn fn, void *payload)
{
	struct refs_iter *it;
	int ret;

	if (!prefix)
		prefix = "";
	if (refs->storage == REFS_STORAGE_FILES)
		it = files_iter(refs, prefix,
				!!(each_flags & REFS_EACH_ROOT_REFS));
	else
		it = reftable_iter(refs, prefix);
	if (!it)
		return GA_ERROR;
	while ((ret = it->next(it)) == 0) {
		struct refs_entry e;

		if ((ret = finish(&e, &it->cur, refs, each_flags)) < 0)
			break;
		if (ret && (ret = fn(&e, payload)) != 0)
			break;
	}
	refs_iter_free(it);
	return ret == 1 ? 0 : ret;
}

int refs_reflog_exists(struct refs_store *refs, const char *refname)
{
	struct rtstack *st;
	const char *bare;

	if (refs->storage == REFS_STORAGE_FILES) {
		char *path = refs_store_path(refs, refname, "logs/");
		struct stat s;
		int exists = !lstat(path, &s) && S_ISREG(s.st_mode);

		free(path);
		return exists;
	}
	if (!(st = refs_store_stack(refs, refname, &bare)))
		return GA_ERROR;
	return rtstack_reflog_exists(st, bare);
}

int refs_for_each_reflog(struct refs_store *refs, const char *refname,
			 int newest_first, refs_reflog_fn fn, void *payload)
{
	struct rtstack *st;
	const char *bare;

	if (refs->storage == REFS_STORAGE_FILES) {
		char *path = refs_store_path(refs, refname, "logs/");
		int ret = files_reflog_each(path, refname, refs->algo,
					    newest_first, fn, payload);

		free(path);
		return ret == GA_ENOTFOUND ? 0 : ret;
	}
	if (!(st = refs_store_stack(refs, refname, &bare)))
		return GA_ERROR;
	return rtstack_reflog_each(st, bare, newest_first, fn, payload);
}

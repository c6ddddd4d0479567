/*
 * refs.c: the ref store (see refs.h): worktree routing, the two
 * backends behind one read, symbolic refs followed as git's
 * refs_resolve_ref_unsafe() follows them, iterations merged as git's
 * overlay and worktree iterators merge them.
 */
#include "refs/refs-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "garchive/common.h"
#include "refs/files.h"

static int same_dir(const char *a, const char *b)
{
	char *ra, *rb;
	int same;

	if (!strcmp(a, b))
		return 1;
	ra = realpath(a, NULL);
	rb = realpath(b, NULL);
	same = ra && rb && !strcmp(ra, rb);
	free(ra);
	free(rb);
	return same;
}

int refs_open(struct refs_store **out, const char *git_dir,
	      const char *common_dir, enum ga_hash_algo algo,
	      enum refs_storage storage)
{
	struct refs_store *refs;
	char *dir;

	*out = NULL;
	if (!ga_hash_rawsz(algo))
		return ga_error_set("unknown hash algorithm");
	refs = ga_xcalloc(1, sizeof(*refs));
	refs->git_dir = ga_xstrdup(git_dir);
	refs->common_dir = ga_xstrdup(common_dir);
	refs->algo = algo;
	refs->storage = storage;
	refs->is_worktree = !same_dir(git_dir, common_dir);
	dir = ga_path_join(common_dir, "reftable");
	rtstack_init(&refs->main_stack, dir, algo);
	free(dir);
	dir = ga_path_join(git_dir, "reftable");
	rtstack_init(&refs->wt_stack, dir, algo);
	free(dir);
	*out = refs;
	return 0;
}

void refs_refresh(struct refs_store *refs)
{
	size_t i;

	if (refs->packed_loaded)
		packed_release(&refs->packed);
	refs->packed_loaded = 0;
	rtstack_unload(&refs->main_stack);
	rtstack_unload(&refs->wt_stack);
	for (i = 0; i < refs->others_nr; i++)
		rtstack_unload(&refs->others[i].st);
}

void refs_free(struct refs_store *refs)
{
	size_t i;

	if (!refs)
		return;
	refs_refresh(refs);
	rtstack_release(&refs->main_stack);
	rtstack_release(&refs->wt_stack);
	for (i = 0; i < refs->others_nr; i++) {
		rtstack_release(&refs->others[i].st);
		free(refs->others[i].id);
	}
	free(refs->others);
	free(refs->git_dir);
	free(refs->common_dir);
	free(refs);
}

/*
 * git's files_ref_path() (`logs` NULL) and files_reflog_path() (`logs`
 * "logs/"): where the files format keeps `refname`.  Malloc'd.
 */
char *refs_store_path(const struct refs_store *refs, const char *refname,
		      const char *logs)
{
	const char *wt, *bare;
	size_t wt_len;

	switch (refname_worktree(refname, &wt, &wt_len, &bare)) {
	case REFNAME_WORKTREE_CURRENT:
		return ga_xstrfmt("%s/%s%s", refs->git_dir, logs, refname);
	case REFNAME_WORKTREE_OTHER:
		return ga_xstrfmt("%s/worktrees/%.*s/%s%s", refs->common_dir,
				  (int)wt_len, wt, logs, bare);
	default:
		return ga_xstrfmt("%s/%s%s", refs->common_dir, logs, bare);
	}
}

int refs_store_load_packed(struct refs_store *refs)
{
	char *path;
	int error;

	if (refs->packed_loaded)
		return 0;
	path = ga_path_join(refs->common_dir, "packed-refs");
	error = packed_load(&refs->packed, path, refs->algo);
	free(path);
	if (error < 0) {
		packed_release(&refs->packed);
		return error;
	}
	refs->packed_loaded = 1;
	return 0;
}

/*
 * The stack that holds `refname` (git's stack_for()), loaded, with the
 * name it has there in *bare.  NULL with the error set on failure.
 */
struct rtstack *refs_store_stack(struct refs_store *refs,
				 const char *refname, const char **bare)
{
	struct rtstack *st = &refs->main_stack;
	const char *wt;
	size_t wt_len, i;

	switch (refname_worktree(refname, &wt, &wt_len, bare)) {
	case REFNAME_WORKTREE_CURRENT:
		if (refs->is_worktree)
			st = &refs->wt_stack;
		break;
	case REFNAME_WORKTREE_OTHER:
		for (i = 0; i < refs->others_nr; i++)
			if (strlen(refs->others[i].id) == wt_len &&
			    !memcmp(refs->others[i].id, wt, wt_len))
				break;
		if (i == refs->others_nr) {
			char *dir = ga_xstrfmt("%s/worktrees/%.*s/reftable",
					       refs->common_dir, (int)wt_len,
					       wt);

			GA_ALLOC_GROW(refs->others, i + 1, refs->others_alloc);
			refs->others[i].id = ga_xstrndup(wt, wt_len);
			rtstack_init(&refs->others[i].st, dir, refs->algo);
			refs->others_nr++;
			free(dir);
		}
		st = &refs->others[i].st;
		break;
	default:
		break;
	}
	return rtstack_load(st) < 0 ? NULL : st;
}

static void raw_from_record(struct refs_raw *raw,
			    const struct reftable_record *rec,
			    enum ga_hash_algo algo)
{
	raw->flags = 0;
	switch (rec->value_type) {
	case REFTABLE_REF_SYMREF:
		ga_buf_setlen(&raw->target, 0);
		ga_buf_put(&raw->target, rec->target.ptr, rec->target.len);
		raw->flags = REFS_ISSYMREF;
		break;
	case REFTABLE_REF_VAL2:
		ga_oid_from_raw(&raw->peeled, algo, rec->id2);
		raw->flags = REFS_PEELED;
		/* fall through */
	default:
		ga_oid_from_raw(&raw->oid, algo, rec->id1);
	}
}

static int reftable_read(struct refs_raw *raw, struct refs_store *refs,
			 const char *refname, int *failure_errno)
{
	struct reftable_record rec;
	struct rtstack *st;
	const char *bare;
	int ret;

	if (!(st = refs_store_stack(refs, refname, &bare)))
		return GA_ERROR;
	memset(&rec, 0, sizeof(rec));
	ret = rtstack_read_ref(&rec, st, bare);
	if (!ret)
		raw_from_record(raw, &rec, refs->algo);
	reftable_record_release(&rec);
	if (ret == GA_ENOTFOUND) {
		*failure_errno = ENOENT;
		return 1;
	}
	return ret;
}

/*
 * git's refs_read_raw_ref(): 0 with `raw` set, 1 with *failure_errno
 * (git's -1), or GA_ERROR for damage git dies of.
 */
static int read_raw(struct refs_raw *raw, struct refs_store *refs,
		    const char *refname, int *failure_errno)
{
	char *path;
	int err;

	*failure_errno = 0;
	raw->flags = 0;
	if (refname_is_pseudo(refname)) {
		path = ga_path_join(refs->git_dir, refname);
		err = files_read_special(raw, path, refs->algo);
	} else if (refs->storage == REFS_STORAGE_REFTABLE) {
		return reftable_read(raw, refs, refname, failure_errno);
	} else {
		path = refs_store_path(refs, refname, "");
		err = files_read_ref(raw, path, refs->algo);
		/* No loose file (or a directory there): the packed value. */
		if (err == ENOENT || err == EISDIR) {
			int ret = refs_store_load_packed(refs);

			if (!ret)
				ret = packed_read(raw, &refs->packed, refname);
			if (ret == GA_ERROR) {
				free(path);
				return ret;
			}
			if (!ret)
				err = 0;
		}
	}
	free(path);
	*failure_errno = err;
	return err ? 1 : 0;
}

/* Names a lookup may use as a path: valid ones, or git's safe ones. */
static int usable_name(const char *refname)
{
	return !refs_check_name(refname, REFS_NAME_ALLOW_ONELEVEL) ||
	       refname_is_safe(refname);
}

int refs_read_raw(struct ga_oid *oid, struct ga_buf *target, unsigned *flags,
		  struct refs_store *refs, const char *refname)
{
	struct refs_raw raw;
	int failure_errno, ret;

	*flags = 0;
	if (!usable_name(refname))
		return GA_ENOTFOUND;
	memset(&raw, 0, sizeof(raw));
	ga_oid_clear(&raw.oid, refs->algo);
	ret = read_raw(&raw, refs, refname, &failure_errno);
	if (ret != GA_ERROR) {
		*flags = raw.flags & (REFS_ISSYMREF | REFS_ISPACKED |
				      REFS_ISBROKEN);
		*oid = raw.oid;
		if (!ret && (raw.flags & REFS_ISSYMREF)) {
			ga_buf_setlen(target, 0);
			ga_buf_put(target, raw.target.ptr, raw.target.len);
		}
	}
	refs_raw_release(&raw);
	return ret == 1 ? GA_ENOTFOUND : ret;
}

/*
 * git's refs_resolve_ref_unsafe(), from `refname`.  Returns 0 with
 * *out_name (malloc'd) or GA_ENOTFOUND (git's NULL) or GA_ERROR.
 */
static int resolve(char **out_name, struct ga_oid *oid, unsigned *flags,
		   struct refs_store *refs, const char *refname,
		   unsigned resolve_flags)
{
	struct refs_raw raw;
	struct ga_buf name = GA_BUF_INIT;
	int depth, ret = GA_ENOTFOUND;

	memset(&raw, 0, sizeof(raw));
	*flags = 0;
	ga_oid_clear(oid, refs->algo);
	ga_buf_puts(&name, refname);
	if (refs_check_name(refname, REFS_NAME_ALLOW_ONELEVEL)) {
		if (!(resolve_flags & REFS_RESOLVE_ALLOW_BAD_NAME) ||
		    !refname_is_safe(refname))
			goto done;
		*flags |= REFS_BAD_NAME;
	}
	for (depth = 0; depth < REFS_SYMREF_MAXDEPTH; depth++) {
		int failure_errno, r;

		ga_oid_clear(&raw.oid, refs->algo);
		r = read_raw(&raw, refs, name.ptr, &failure_errno);
		if (r == GA_ERROR) {
			ret = r;
			goto done;
		}
		*flags |= raw.flags & (REFS_ISSYMREF | REFS_ISPACKED |
				       REFS_ISBROKEN);
		if (r) {
			/* Reading: a ref must resolve in the end. */
			if ((resolve_flags & REFS_RESOLVE_READING) ||
			    (failure_errno != ENOENT &&
			     failure_errno != EISDIR &&
			     failure_errno != ENOTDIR))
				goto done;
			ga_oid_clear(oid, refs->algo);
			if (*flags & REFS_BAD_NAME)
				*flags |= REFS_ISBROKEN;
			ret = 0;
			goto done;
		}
		if (!(raw.flags & REFS_ISSYMREF)) {
			*oid = raw.oid;
			if (*flags & REFS_BAD_NAME) {
				ga_oid_clear(oid, refs->algo);
				*flags |= REFS_ISBROKEN;
			}
			ret = 0;
			goto done;
		}
		ga_buf_swap(&name, &raw.target);
		if (resolve_flags & REFS_RESOLVE_NO_RECURSE) {
			ga_oid_clear(oid, refs->algo);
			ret = 0;
			goto done;
		}
		if (refs_check_name(name.ptr, REFS_NAME_ALLOW_ONELEVEL)) {
			if (!(resolve_flags & REFS_RESOLVE_ALLOW_BAD_NAME) ||
			    !refname_is_safe(name.ptr))
				goto done;
			*flags |= REFS_ISBROKEN | REFS_BAD_NAME;
		}
	}
done:
	if (!ret && out_name)
		*out_name = ga_buf_detach(&name, NULL);
	ga_buf_release(&name);
	refs_raw_release(&raw);
	return ret;
}

int refs_resolve(char **out_name, struct ga_oid *oid, unsigned *flags,
		 struct refs_store *refs, const char *refname,
		 unsigned resolve_flags)
{
	struct ga_oid unused_oid;
	unsigned unused_flags;

	if (out_name)
		*out_name = NULL;
	return resolve(out_name, oid ? oid : &unused_oid,
		       flags ? flags : &unused_flags, refs, refname,
		       resolve_flags);
}

int refs_read_symref(struct ga_buf *out, struct refs_store *refs,
		     const char *refname)
{
	struct refs_raw raw;
	int failure_errno, ret;

	if (!usable_name(refname))
		return GA_ENOTFOUND;
	memset(&raw, 0, sizeof(raw));
	ret = read_raw(&raw, refs, refname, &failure_errno);
	if (!ret && (raw.flags & REFS_ISSYMREF)) {
		ga_buf_setlen(out, 0);
		ga_buf_put(out, raw.target.ptr, raw.target.len);
	} else if (ret != GA_ERROR) {
		ret = GA_ENOTFOUND;
	}
	refs_raw_release(&raw);
	return ret;
}

static int files_read_peeled(struct ga_oid *out, struct refs_store *refs,
			     const char *refname)
{
	struct refs_raw raw;
	char *path = refs_store_path(refs, refname, "");
	int err, ret;

	memset(&raw, 0, sizeof(raw));
	err = files_read_ref(&raw, path, refs->algo);
	free(path);
	/* A loose ref: git peels the object. */
	ret = GA_ENOTFOUND;
	if ((err == ENOENT || err == EISDIR) &&
	    !(ret = refs_store_load_packed(refs))) {
		size_t i = packed_seek(&refs->packed, refname);

		ret = GA_ENOTFOUND;
		if (i < refs->packed.nr &&
		    !(ret = packed_record(&raw, &refs->packed, i)) &&
		    !strcmp(raw.name.ptr, refname) &&
		    (raw.flags & REFS_PEELED))
			*out = raw.peeled;
		else if (!ret)
			ret = GA_ENOTFOUND;
	}
	refs_raw_release(&raw);
	return ret;
}

int refs_read_peeled(struct ga_oid *out, struct refs_store *refs,
		     const char *refname)
{
	struct refs_raw raw;
	int failure_errno, ret;

	if (!usable_name(refname) || refname_is_pseudo(refname))
		return GA_ENOTFOUND;
	if (refs->storage == REFS_STORAGE_FILES)
		return files_read_peeled(out, refs, refname);
	memset(&raw, 0, sizeof(raw));
	ret = reftable_read(&raw, refs, refname, &failure_errno);
	if (!ret && (raw.flags & REFS_PEELED))
		*out = raw.peeled;
	else if (ret != GA_ERROR)
		ret = GA_ENOTFOUND;
	refs_raw_release(&raw);
	return ret;
}

/*
 * refdb.c: a read-only libgit2 ref database over garchive's ref store
 * (see refdb.h).
 */
#include "refdb.h"
#include "repo-open.h"

#include "garchive/common.h"
#include "refs/refs.h"
#include "wildmatch.h"

#include <stdlib.h>
#include <string.h>

#include "libgit2.h"
#include <git2/sys/refdb_backend.h>
#include <git2/sys/refs.h>
#include <git2/sys/repository.h>

struct store_backend {
	git_refdb_backend parent;
	struct refs_store *refs;
};

/* One ref of an iteration, as the store handed it out. */
struct iter_ref {
	char *name;
	git_oid oid, peeled;
	int has_peeled;
	char *target;
};

struct store_iter {
	git_reference_iterator parent;
	struct iter_ref *refs;
	size_t nr, alloc, pos;
	char *glob;
};

static struct refs_store *store_of(git_refdb_backend *backend)
{
	return ((struct store_backend *)backend)->refs;
}

/* The store's error, told to libgit2. */
static int store_failed(void)
{
	git_error_set_str(GIT_ERROR_REFERENCE, ga_error_message());
	ga_error_clear();
	return GIT_ERROR;
}

static void to_git_oid(git_oid *out, const struct ga_oid *oid)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->id, oid->id, GIT_OID_RAWSZ);
}

static int lookup_ref(git_reference **out, git_refdb_backend *backend,
		      const char *name)
{
	struct ga_buf target = GA_BUF_INIT;
	struct ga_oid oid, peeled;
	git_oid id, peel;
	unsigned flags = 0;
	int error;

	*out = NULL;
	error = refs_read_raw(&oid, &target, &flags, store_of(backend), name);
	if (error == GA_ENOTFOUND) {
		ga_error_clear();
		git_error_set_str(GIT_ERROR_REFERENCE, "reference not found");
		return GIT_ENOTFOUND;
	}
	if (error < 0)
		return store_failed();
	if (flags & REFS_ISSYMREF) {
		*out = git_reference__alloc_symbolic(name, target.ptr);
	} else {
		to_git_oid(&id, &oid);
		error = refs_read_peeled(&peeled, store_of(backend), name);
		if (error == 0 && !ga_oid_is_null(&peeled))
			to_git_oid(&peel, &peeled);
		ga_error_clear();
		*out = git_reference__alloc(name, &id, error == 0 &&
					    !ga_oid_is_null(&peeled) ?
					    &peel : NULL);
	}
	ga_buf_release(&target);
	return *out ? 0 : GIT_ERROR;
}

static int exists_ref(int *exists, git_refdb_backend *backend,
		      const char *name)
{
	git_reference *ref = NULL;
	int error = lookup_ref(&ref, backend, name);

	*exists = error == 0;
	git_reference_free(ref);
	if (error == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	return error;
}

static int collect_ref(const struct refs_entry *entry, void *payload)
{
	struct store_iter *it = payload;
	struct iter_ref *r;

	if (it->glob && wildmatch(it->glob, entry->name, 0) != WM_MATCH)
		return 0;
	GA_ALLOC_GROW(it->refs, it->nr + 1, it->alloc);
	r = &it->refs[it->nr++];
	memset(r, 0, sizeof(*r));
	r->name = ga_xstrdup(entry->name);
	if (entry->target) {
		r->target = ga_xstrdup(entry->target);
		return 0;
	}
	to_git_oid(&r->oid, &entry->oid);
	if ((entry->flags & REFS_PEELED) && !ga_oid_is_null(&entry->peeled)) {
		to_git_oid(&r->peeled, &entry->peeled);
		r->has_peeled = 1;
	}
	return 0;
}

static int iter_next_name(const char **name, git_reference_iterator *iter)
{
	struct store_iter *it = (struct store_iter *)iter;

	if (it->pos >= it->nr)
		return GIT_ITEROVER;
	*name = it->refs[it->pos++].name;
	return 0;
}

static int iter_next(git_reference **out, git_reference_iterator *iter)
{
	struct store_iter *it = (struct store_iter *)iter;
	struct iter_ref *r;

	if (it->pos >= it->nr)
		return GIT_ITEROVER;
	r = &it->refs[it->pos++];
	*out = r->target ? git_reference__alloc_symbolic(r->name, r->target)
			 : git_reference__alloc(r->name, &r->oid,
						r->has_peeled ? &r->peeled
							      : NULL);
	return *out ? 0 : GIT_ERROR;
}

static void iter_free(git_reference_iterator *iter)
{
	struct store_iter *it = (struct store_iter *)iter;
	size_t i;

	for (i = 0; i < it->nr; i++) {
		free(it->refs[i].name);
		free(it->refs[i].target);
	}
	free(it->refs);
	free(it->glob);
	free(it);
}

/*
 * The refs under refs/, as libgit2's files backend iterates them;
 * taken whole at the start, from the store's one snapshot.
 */
static int new_iter(git_reference_iterator **out, git_refdb_backend *backend,
		    const char *glob)
{
	struct store_iter *it = ga_xcalloc(1, sizeof(*it));
	int error;

	it->glob = glob ? ga_xstrdup(glob) : NULL;
	it->parent.next = iter_next;
	it->parent.next_name = iter_next_name;
	it->parent.free = iter_free;
	error = refs_for_each(store_of(backend), "", 0, collect_ref, it);
	if (error < 0) {
		iter_free(&it->parent);
		*out = NULL;
		return store_failed();
	}
	*out = &it->parent;
	return 0;
}

static int has_log(git_refdb_backend *backend, const char *name)
{
	int error = refs_reflog_exists(store_of(backend), name);

	return error < 0 ? store_failed() : error;
}

/* garchive never writes a ref: every write is refused. */
static int read_only(void)
{
	git_error_set_str(GIT_ERROR_REFERENCE,
			  "garchive reads this ref database only");
	return GIT_ERROR;
}

static int no_write(git_refdb_backend *backend, const git_reference *ref,
		    int force, const git_signature *who, const char *message,
		    const git_oid *old, const char *old_target)
{
	(void)backend, (void)ref, (void)force, (void)who, (void)message;
	(void)old, (void)old_target;
	return read_only();
}

static int no_rename(git_reference **out, git_refdb_backend *backend,
		     const char *old_name, const char *new_name, int force,
		     const git_signature *who, const char *message)
{
	(void)backend, (void)old_name, (void)new_name, (void)force;
	(void)who, (void)message;
	*out = NULL;
	return read_only();
}

static int no_del(git_refdb_backend *backend, const char *name,
		  const git_oid *old_id, const char *old_target)
{
	(void)backend, (void)name, (void)old_id, (void)old_target;
	return read_only();
}

static int no_ensure_log(git_refdb_backend *backend, const char *name)
{
	(void)backend, (void)name;
	return read_only();
}

static int no_reflog_read(git_reflog **out, git_refdb_backend *backend,
			  const char *name)
{
	(void)backend, (void)name;
	*out = NULL;
	git_error_set_str(GIT_ERROR_REFERENCE,
			  "reflogs are read through garchive's ref store");
	return GIT_ENOTFOUND;
}

static int no_reflog_write(git_refdb_backend *backend, git_reflog *reflog)
{
	(void)backend, (void)reflog;
	return read_only();
}

static int no_reflog_rename(git_refdb_backend *backend, const char *old_name,
			    const char *new_name)
{
	(void)backend, (void)old_name, (void)new_name;
	return read_only();
}

static int no_reflog_delete(git_refdb_backend *backend, const char *name)
{
	(void)backend, (void)name;
	return read_only();
}

static void free_backend(git_refdb_backend *backend)
{
	refs_free(store_of(backend));
	free(backend);
}

static int install_backend(git_repository *repo, struct refs_store *refs)
{
	struct store_backend *b = ga_xcalloc(1, sizeof(*b));
	git_refdb *db = NULL;

	if (git_refdb_init_backend(&b->parent, GIT_REFDB_BACKEND_VERSION) < 0 ||
	    git_refdb_new(&db, repo) < 0) {
		free(b);
		refs_free(refs);
		return ga_error_from_git("cannot read the refs");
	}
	b->refs = refs;
	b->parent.exists = exists_ref;
	b->parent.lookup = lookup_ref;
	b->parent.iterator = new_iter;
	b->parent.write = no_write;
	b->parent.rename = no_rename;
	b->parent.del = no_del;
	b->parent.has_log = has_log;
	b->parent.ensure_log = no_ensure_log;
	b->parent.free = free_backend;
	b->parent.reflog_read = no_reflog_read;
	b->parent.reflog_write = no_reflog_write;
	b->parent.reflog_rename = no_reflog_rename;
	b->parent.reflog_delete = no_reflog_delete;
	if (git_refdb_set_backend(db, &b->parent) < 0) {
		free_backend(&b->parent);
		git_refdb_free(db);
		return ga_error_from_git("cannot read the refs");
	}
	if (git_repository_set_refdb(repo, db) < 0) {
		git_refdb_free(db);
		return ga_error_from_git("cannot read the refs");
	}
	git_refdb_free(db);
	return 0;
}

static int open_store(struct refs_store **out, git_repository *repo,
		      const struct repofmt *fmt)
{
	char *common = repo_commondir(repo);
	int error = refs_open(out, git_repository_path(repo), common,
			      fmt->hash, fmt->refs);

	free(common);
	return error;
}

/* Whether garchive's backend serves a repository of format `fmt`. */
static int serves(const struct repofmt *fmt)
{
	return fmt->refs == REFS_STORAGE_REFTABLE ||
	       fmt->reader == REPOFMT_READER_GARCHIVE;
}

int refdb_setup(git_repository *repo, const char *shown, int discovered)
{
	struct refs_store *refs = NULL;
	struct repofmt fmt;
	int error;

	error = repofmt_check(&fmt, git_repository_path(repo), shown,
			      discovered);
	/*
	 * libgit2's own backend reads the files format, reflogs included
	 * (for "@{<date>}" and "@{-<n>}" through its revparse); garchive's
	 * serves the rest, and every repository whose reader is garchive's
	 * (repofmt.h).
	 */
	if (!error && serves(&fmt) &&
	    !(error = open_store(&refs, repo, &fmt)))
		error = install_backend(repo, refs);
	repofmt_release(&fmt);
	return error;
}

int refdb_open_store(struct refs_store **out, git_repository *repo)
{
	struct repofmt fmt;
	int error;

	*out = NULL;
	if (!(error = repofmt_read(&fmt, git_repository_path(repo), NULL)))
		error = open_store(out, repo, &fmt);
	repofmt_release(&fmt);
	return error;
}

static int is_reftable(const struct repofmt *fmt)
{
	return fmt->refs == REFS_STORAGE_REFTABLE;
}

/* What `test` says of `repo`'s format; 0 when it cannot be read. */
static int format_says(git_repository *repo,
		       int (*test)(const struct repofmt *))
{
	struct repofmt fmt;
	int yes;

	if (repofmt_read(&fmt, git_repository_path(repo), NULL) < 0) {
		ga_error_clear();
		return 0;
	}
	yes = test(&fmt);
	repofmt_release(&fmt);
	return yes;
}

int refdb_uses_reftable(git_repository *repo)
{
	return format_says(repo, is_reftable);
}

int refdb_served(git_repository *repo)
{
	return format_says(repo, serves);
}

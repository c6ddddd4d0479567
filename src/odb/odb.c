/*
 * odb.c: object databases assembled by garchive (see odb.h for why).
 */
#include "odb.h"
#include "repo-open.h"
#include "repofmt.h"
#include "garchive/common.h"
#include "loose.h"
#include "promisor.h"
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"
#include "quote.h"
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <zlib.h>

/* git follows alternates of alternates this deep. */
#define ODB_MAX_ALTERNATE_DEPTH	5

/*
 * The one backend of an object database garchive opens: its object
 * store (odb/store.h), which looks objects up in git's order and falls
 * back to the next copy of a damaged one, as git does.  libgit2's own
 * pack reader is never used: it would read packs garchive refused.
 */
struct store_backend {
	git_odb_backend parent;
	struct ga_store *store;
	enum repofmt_reader reader;
};

static struct ga_store *store_of(git_odb_backend *backend)
{
	return ((struct store_backend *)backend)->store;
}

static void from_git_oid(struct ga_oid *out, const git_oid *id)
{
	ga_oid_from_raw(out, GA_HASH_SHA1, id->id);
}

void odb_oid_from_git(struct ga_oid *out, const git_oid *id)
{
	from_git_oid(out, id);
}

void odb_oid_to_git(git_oid *out, const struct ga_oid *id)
{
	memcpy(out->id, id->id, GIT_OID_RAWSZ);
}

static void store_free(git_odb_backend *backend);

/* The backend of `odb` (opened by odb_open()), or NULL. */
static struct store_backend *backend_of_odb(git_odb *odb)
{
	size_t i, nr = git_odb_num_backends(odb);
	git_odb_backend *b;

	for (i = 0; i < nr; i++)
		if (git_odb_get_backend(&b, odb, i) == 0 &&
		    b->free == store_free)
			return (struct store_backend *)b;
	return NULL;
}

/* The object store of `odb` (opened by odb_open()), or NULL. */
static struct ga_store *store_of_odb(git_odb *odb)
{
	struct store_backend *b = backend_of_odb(odb);

	return b ? b->store : NULL;
}

enum repofmt_reader odb_reader(git_odb *odb)
{
	struct store_backend *b = backend_of_odb(odb);

	return b ? b->reader : REPOFMT_READER_LIBGIT2;
}

enum ga_hash_algo odb_hash_algo(git_odb *odb)
{
	struct ga_store *store = store_of_odb(odb);

	return store ? ga_store_algo(store) : GA_HASH_SHA1;
}

/*
 * libgit2 holds 20-byte ids only: the objects of a SHA-256 database
 * are read from its store directly, never through libgit2's reads, and
 * so are a SHA-1 one's when garchive's reader was chosen for it
 * (repofmt.h).  Returns that store, or NULL when libgit2 reads.
 */
static struct ga_store *own_store(git_odb *odb)
{
	struct store_backend *b = backend_of_odb(odb);

	return b && b->reader == REPOFMT_READER_GARCHIVE ? b->store : NULL;
}

/*
 * A store's answer as libgit2's reads give it: not found is
 * GIT_ENOTFOUND with libgit2's message ("object not found - <what>
 * (<hex>)"), an ambiguous prefix GIT_EAMBIGUOUS; damage (GA_ECORRUPT)
 * already has git's lines in libgit2's error.
 */
static int store_code(int error, const char *what, const struct ga_oid *id,
		      size_t len)
{
	char hex[GA_OID_MAX_HEXSZ + 1];

	if (error == GA_ENOTFOUND) {
		ga_oid_fmt(hex, id);
		git_error_set(GIT_ERROR_ODB, "object not found - %s (%.*s)",
			      what, (int)len, hex);
		return GIT_ENOTFOUND;
	}
	if (error == GA_EAMBIGUOUS_ID) {
		git_error_set_str(GIT_ERROR_ODB, "ambiguous OID prefix - "
				  "multiple matches for prefix");
		return GIT_EAMBIGUOUS;
	}
	return error;
}

void odb_hash_object(struct ga_oid *out, enum ga_hash_algo algo,
		     git_object_t type, const void *data, size_t len)
{
	git_oid id;

	if (algo == GA_HASH_SHA1 && git_odb_hash(&id, data, len, type) == 0) {
		from_git_oid(out, &id);
		return;
	}
	ga_hash_object(out, algo, git_object_type2string(type), data, len);
}

struct odb_object {
	git_odb_object *git;	/* SHA-1: libgit2's object, owning the data */
	void *data;		/* else the store's read, NUL-terminated */
	size_t size;
	git_object_t type;
};

const void *odb_object_data(const struct odb_object *obj)
{
	return obj->git ? git_odb_object_data(obj->git) : obj->data;
}

size_t odb_object_size(const struct odb_object *obj)
{
	return obj->git ? git_odb_object_size(obj->git) : obj->size;
}

git_object_t odb_object_type(const struct odb_object *obj)
{
	return obj->git ? git_odb_object_type(obj->git) : obj->type;
}

void odb_object_free(struct odb_object *obj)
{
	if (!obj)
		return;
	git_odb_object_free(obj->git);
	free(obj->data);
	free(obj);
}

static void *heap_alloc(void *ctx, size_t len)
{
	(void)ctx;
	return ga_xmalloc(len);
}

static void heap_release(void *ctx, void *data)
{
	(void)ctx;
	free(data);
}

/*
 * After a read of a SHA-256 database found nothing even in new packs:
 * git's lazy fetch from a partial clone's promisor remote, as libgit2
 * asks the promisor backend of a SHA-1 one (promisor.h).  Returns 1
 * when the store is to look again, 0 when it is not, or GA_ECORRUPT
 * when the fetch failed.
 */
static int fetch_missing(git_odb *odb, struct ga_store *store,
			 const struct ga_oid *id)
{
	int error = promisor_lazy_fetch(odb, id);

	if (error == GA_ENOTFOUND)
		return 0;
	if (error < 0)
		return error;
	ga_store_refresh(store);
	return 1;
}

static int store_read_object(struct odb_object **out, git_odb *odb,
			     struct ga_store *store, const struct ga_oid *id)
{
	struct ga_store_alloc a = { heap_alloc, heap_release, NULL };
	enum ga_obj_type t = GA_OBJ_NONE;
	struct odb_object *obj = ga_xcalloc(1, sizeof(*obj));
	int error = ga_store_read(store, id, &a, &obj->data, &obj->size, &t);

	/* As libgit2 after a miss (and git): look for new packs, once. */
	if (error == GA_ENOTFOUND) {
		ga_store_refresh(store);
		error = ga_store_read(store, id, &a, &obj->data, &obj->size,
				      &t);
	}
	if (error == GA_ENOTFOUND &&
	    (error = fetch_missing(odb, store, id)) >= 0)
		error = error ? ga_store_read(store, id, &a, &obj->data,
					      &obj->size, &t)
			      : GA_ENOTFOUND;
	if (error < 0) {
		free(obj);
		return store_code(error, "no match for id", id,
				  ga_oid_hexsz(id));
	}
	obj->type = (git_object_t)t;
	*out = obj;
	return 0;
}

int odb_read(struct odb_object **out, git_odb *odb, const struct ga_oid *id)
{
	struct ga_store *store = own_store(odb);
	git_odb_object *gobj;
	git_oid gid;
	int error;

	*out = NULL;
	if (store)
		return store_read_object(out, odb, store, id);
	odb_oid_to_git(&gid, id);
	if ((error = git_odb_read(&gobj, odb, &gid)) < 0)
		return error;
	*out = ga_xcalloc(1, sizeof(**out));
	(*out)->git = gobj;
	return 0;
}

int odb_read_header(size_t *len, git_object_t *type, git_odb *odb,
		    const struct ga_oid *id)
{
	struct ga_store *store = own_store(odb);
	enum ga_obj_type t = GA_OBJ_NONE;
	git_oid gid;
	int error;

	if (store) {
		error = ga_store_read_header(store, id, len, &t);
		if (error == GA_ENOTFOUND) {
			ga_store_refresh(store);
			error = ga_store_read_header(store, id, len, &t);
		}
		if (error == GA_ENOTFOUND &&
		    (error = fetch_missing(odb, store, id)) >= 0)
			error = error ? ga_store_read_header(store, id, len, &t)
				      : GA_ENOTFOUND;
		*type = (git_object_t)t;
		return store_code(error, "no match for id", id,
				  ga_oid_hexsz(id));
	}
	odb_oid_to_git(&gid, id);
	return git_odb_read_header(len, type, odb, &gid);
}

int odb_exists(git_odb *odb, const struct ga_oid *id)
{
	struct ga_store *store = own_store(odb);
	git_oid gid;

	if (store) {
		if (ga_store_exists(store, id))
			return 1;
		ga_store_refresh(store);
		return ga_store_exists(store, id);
	}
	odb_oid_to_git(&gid, id);
	return git_odb_exists(odb, &gid);
}

/*
 * git_odb_exists_prefix() on a SHA-256 store: fewer than 4 digits are
 * refused as libgit2 refuses them, a whole id is looked up as it is.
 */
static int store_exists_prefix_sha256(struct ga_oid *out,
				      struct ga_store *store,
				      const struct ga_oid *prefix, size_t len)
{
	size_t hexsz = ga_oid_hexsz(prefix);
	int error;

	if (len < GIT_OID_MINPREFIXLEN) {
		git_error_set_str(GIT_ERROR_ODB, "ambiguous OID prefix - "
				  "prefix length too short");
		return GIT_EAMBIGUOUS;
	}
	if (len >= hexsz) {
		if (!ga_store_exists(store, prefix)) {
			ga_store_refresh(store);
			if (!ga_store_exists(store, prefix))
				return store_code(GA_ENOTFOUND,
						  "no match for id prefix",
						  prefix, hexsz);
		}
		*out = *prefix;
		return 0;
	}
	error = ga_store_find_prefix(store, prefix, len, out);
	if (error == GA_ENOTFOUND) {
		ga_store_refresh(store);
		error = ga_store_find_prefix(store, prefix, len, out);
	}
	return store_code(error, "no match for id prefix", prefix, len);
}

int odb_exists_prefix(struct ga_oid *out, git_odb *odb,
		      const struct ga_oid *prefix, size_t len)
{
	struct ga_store *store = own_store(odb);
	git_oid gid, found;
	int error;

	if (store)
		return store_exists_prefix_sha256(out, store, prefix, len);
	odb_oid_to_git(&gid, prefix);
	if ((error = git_odb_exists_prefix(&found, odb, &gid, len)) < 0)
		return error;
	from_git_oid(out, &found);
	return 0;
}

/* A store's code as libgit2 wants it from a backend. */
static int backend_code(int error)
{
	if (error == GA_ENOTFOUND) {
		git_error_clear();
		return GIT_ENOTFOUND;
	}
	if (error == GA_EAMBIGUOUS_ID)
		return GIT_EAMBIGUOUS;
	return error;
}

static void *backend_alloc(void *ctx, size_t len)
{
	return git_odb_backend_data_alloc(ctx, len);
}

static void backend_release(void *ctx, void *data)
{
	git_odb_backend_data_free(ctx, data);
}

static int store_read(void **data, size_t *len, git_object_t *type,
		      git_odb_backend *backend, const git_oid *id)
{
	struct ga_oid oid;
	enum ga_obj_type t = GA_OBJ_NONE;
	int error;

	struct ga_store_alloc a = { backend_alloc, backend_release, backend };

	from_git_oid(&oid, id);
	error = ga_store_read(store_of(backend), &oid, &a, data, len, &t);
	*type = (git_object_t)t;
	return backend_code(error);
}

static int store_read_header(size_t *len, git_object_t *type,
			     git_odb_backend *backend, const git_oid *id)
{
	struct ga_oid oid;
	enum ga_obj_type t = GA_OBJ_NONE;
	int error;

	from_git_oid(&oid, id);
	error = ga_store_read_header(store_of(backend), &oid, len, &t);
	*type = (git_object_t)t;
	return backend_code(error);
}

static int store_exists(git_odb_backend *backend, const git_oid *id)
{
	struct ga_oid oid;

	from_git_oid(&oid, id);
	return ga_store_exists(store_of(backend), &oid);
}

static int store_exists_prefix(git_oid *out, git_odb_backend *backend,
			       const git_oid *prefix, size_t len)
{
	struct ga_oid pre, found;
	int error;

	from_git_oid(&pre, prefix);
	error = ga_store_find_prefix(store_of(backend), &pre, len, &found);
	if (error < 0)
		return backend_code(error);
	git_oid_fromraw(out, found.id);
	return 0;
}

static int store_read_prefix(git_oid *out, void **data, size_t *len,
			     git_object_t *type, git_odb_backend *backend,
			     const git_oid *prefix, size_t plen)
{
	int error = store_exists_prefix(out, backend, prefix, plen);

	return error < 0 ? error : store_read(data, len, type, backend, out);
}

/* libgit2 asks after a read found nothing, and after a fetch. */
static int store_refresh(git_odb_backend *backend)
{
	ga_store_refresh(store_of(backend));
	return 0;
}

static void store_free(git_odb_backend *backend)
{
	ga_store_free(store_of(backend));
	free(backend);
}

static int store_backend_new(git_odb_backend **out, struct ga_store *store,
			     enum repofmt_reader reader)
{
	struct store_backend *b = ga_xcalloc(1, sizeof(*b));

	if (git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION) < 0) {
		free(b);
		return ga_error_from_git(NULL);
	}
	b->store = store;
	b->reader = reader;
	b->parent.read = store_read;
	b->parent.read_header = store_read_header;
	b->parent.read_prefix = store_read_prefix;
	b->parent.exists = store_exists;
	b->parent.exists_prefix = store_exists_prefix;
	b->parent.refresh = store_refresh;
	b->parent.free = store_free;
	*out = &b->parent;
	return 0;
}

/* Alternates as git's link_alt_odb_entries() follows them. */
struct alternates {
	struct ga_store *store;
	char *main_dir;			/* the main objects directory, real */
	char **dirs;			/* directories added, normalized */
	size_t nr, alloc;
	int report;
};

static void alternates_release(struct alternates *alt)
{
	size_t i;

	for (i = 0; i < alt->nr; i++)
		free(alt->dirs[i]);
	free(alt->dirs);
	free(alt->main_dir);
}

static void complain(const struct alternates *alt, const char *fmt,
		     const char *arg)
{
	if (alt->report)
		ga_report(GA_REPORT_ERROR, fmt, arg);
}

static int read_alternates(struct alternates *alt, const char *base,
			   int depth);

/* Whether `dir` is new: neither the main directory nor one added. */
static int is_new_dir(const struct alternates *alt, const char *dir)
{
	size_t i;

	if (!strcmp(dir, alt->main_dir))
		return 0;
	for (i = 0; i < alt->nr; i++)
		if (!strcmp(dir, alt->dirs[i]))
			return 0;
	return 1;
}

/*
 * git's strbuf_realpath(): links resolved, where the last component
 * may be missing.  Returns 0 or -1.
 */
static int resolve_path(char out[PATH_MAX], const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ok;

	if (realpath(path, out))
		return 0;
	if (errno != ENOENT || !slash || !slash[1])
		return -1;
	dir = slash == path ? ga_xstrdup("/")
			    : ga_xstrndup(path, (size_t)(slash - path));
	ok = realpath(dir, out) != NULL &&
	     strlen(out) + strlen(slash) < PATH_MAX;
	free(dir);
	if (!ok)
		return -1;
	if (strcmp(out, "/"))
		strcat(out, slash);
	else
		strcpy(out, slash);
	return 0;
}

/*
 * One entry of `base`/info/alternates: a relative one is taken from
 * `base`, and links are resolved.
 */
static int link_alternate(struct alternates *alt, const char *entry,
			  const char *base, int depth)
{
	struct ga_buf joined = GA_BUF_INIT;
	char real[PATH_MAX], path[PATH_MAX];
	struct stat st;
	int error = 0;

	if (entry[0] != '/' && realpath(base, real)) {
		ga_buf_puts(&joined, real);
		ga_buf_putc(&joined, '/');
	}
	ga_buf_puts(&joined, entry);
	if (resolve_path(path, joined.ptr) < 0) {
		complain(alt, "unable to normalize alternate object path: %s",
			 joined.ptr);
		goto done;
	}
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		complain(alt, "object directory %s does not exist; check "
			 ".git/objects/info/alternates", path);
		goto done;
	}
	if (!is_new_dir(alt, path))
		goto done;
	if ((error = ga_store_add_dir(alt->store, path, NULL)) < 0)
		goto done;
	GA_ALLOC_GROW(alt->dirs, alt->nr + 1, alt->alloc);
	alt->dirs[alt->nr++] = ga_xstrdup(path);
	error = read_alternates(alt, path, depth + 1);
done:
	ga_buf_release(&joined);
	return error;
}

/*
 * The entries of `base`/info/alternates, one a line: "#" starts a
 * comment, a line starting with '"' is C-quoted (taken as it is when
 * the quoting is broken), and empty lines are skipped.
 */
static int read_alternates(struct alternates *alt, const char *base,
			   int depth)
{
	struct ga_buf file = GA_BUF_INIT, entry = GA_BUF_INIT;
	char *name = ga_xstrfmt("%s/info/alternates", base);
	const char *p;
	int error = 0;

	if (ga_buf_read_file(&file, name) < 0 || !file.len)
		goto done;
	if (depth > ODB_MAX_ALTERNATE_DEPTH) {
		complain(alt, "%s: ignoring alternate object stores, nesting "
			 "too deep", base);
		goto done;
	}
	for (p = file.ptr; *p && !error; ) {
		const char *end = strchrnul(p, '\n');

		ga_buf_setlen(&entry, 0);
		if (*p == '#' ||
		    !(*p == '"' && ga_unquote_c(&entry, p, &end) == 0))
			ga_buf_put(&entry, p, (size_t)(end - p));
		if (*p != '#' && entry.len)
			error = link_alternate(alt, entry.ptr, base, depth);
		p = *end ? end + 1 : end;
	}
done:
	free(name);
	ga_buf_release(&file);
	ga_buf_release(&entry);
	return error;
}

int odb_open(git_odb **out, const char *objects_dir, const char *shown,
	     int report, enum ga_hash_algo algo, enum repofmt_reader reader)
{
	struct ga_store *store = ga_store_new(algo, report);
	struct alternates alt = { 0 };
	git_odb_backend *backend = NULL;
	git_odb *odb = NULL;
	char real[PATH_MAX];
	size_t len;
	int error;

	*out = NULL;
	if ((error = ga_store_add_dir(store, objects_dir, shown)) < 0)
		goto done;
	alt.store = store;
	alt.report = report;
	alt.main_dir = ga_xstrdup(realpath(objects_dir, real) ? real
							      : objects_dir);
	len = strlen(alt.main_dir);
	while (len > 1 && alt.main_dir[len - 1] == '/')
		alt.main_dir[--len] = '\0';
	if ((error = read_alternates(&alt, objects_dir, 0)) < 0)
		goto done;
	if ((error = store_backend_new(&backend, store, reader)) < 0)
		goto done;
	store = NULL;
	if (git_odb_new(&odb) < 0 || git_odb_add_backend(odb, backend, 1) < 0) {
		error = ga_error_from_git("cannot open the object database");
		if (odb)
			backend->free(backend);
		goto done;
	}
	*out = odb;
	odb = NULL;
done:
	ga_store_free(store);
	alternates_release(&alt);
	git_odb_free(odb);
	return error;
}

/* git's name for `repo`'s directory when it found the repository itself. */
static char *git_dir_name(git_repository *repo)
{
	char *common = repo_commondir(repo);
	const char *workdir = git_repository_workdir(repo);
	char cwd[PATH_MAX], real[PATH_MAX];
	size_t len;

	if (workdir && !strncmp(common, workdir, strlen(workdir)) &&
	    !strcmp(common + strlen(workdir), ".git/")) {
		free(common);
		return ga_xstrdup(".git");
	}
	if (getcwd(cwd, sizeof(cwd)) && realpath(common, real) &&
	    !strcmp(cwd, real)) {
		free(common);
		return ga_xstrdup(".");
	}
	len = strlen(common);
	while (len > 1 && common[len - 1] == '/')
		common[--len] = '\0';
	return common;
}

int odb_install(git_repository *repo, const char *git_dir_shown, int report)
{
	const char *git_dir = git_repository_path(repo);
	char *common = repo_commondir(repo);
	char *objects = ga_xstrfmt("%sobjects", common);
	char *name = git_dir_shown ? ga_xstrdup(git_dir_shown)
				   : git_dir_name(repo);
	char *shown;
	size_t len = strlen(name);
	git_odb *odb = NULL;
	int error;

	while (len > 1 && name[len - 1] == '/')
		name[--len] = '\0';
	shown = ga_xstrfmt("%s/objects", name);
	if ((error = odb_open(&odb, objects, shown, report,
			       repofmt_hash(git_dir),
			       repofmt_reader(git_dir))) == 0 &&
	    (error = promisor_backend_add(odb, repo, 0)) == 0 &&
	    git_repository_set_odb(repo, odb) < 0)
		error = ga_error_from_git("cannot open the object database");
	git_odb_free(odb);
	free(shown);
	free(name);
	free(objects);
	free(common);
	return error;
}

const char *odb_shown(git_odb *odb)
{
	size_t i, nr = git_odb_num_backends(odb);

	for (i = 0; i < nr; i++) {
		git_odb_backend *b;
		const char *shown;

		if (git_odb_get_backend(&b, odb, i) == 0 &&
		    b->free == store_free && (shown = ga_store_shown(store_of(b))))
			return shown;
	}
	return NULL;
}

int odb_corrupt_error(int code)
{
	const git_error *e;

	if (code != GA_ECORRUPT)
		return 0;
	e = git_error_last();
	return ga_error_code(GA_ECORRUPT, "%s",
			     e && e->message ? e->message : "corrupt object");
}

int odb_blob_corrupt_error(int code)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "";
	const char *fatal = strstr(msg, "\nfatal: ");

	if (code != GA_ECORRUPT || !fatal || !loose_damage_in_header(msg))
		return odb_corrupt_error(code);
	return ga_error_code(GA_ECORRUPT, "%.*s\nerror: %s",
			     (int)(fatal - msg), msg, msg);
}

struct odb_stream {
	struct ga_store_stream *st;
};

int odb_stream_open(struct odb_stream **out, size_t *size, git_object_t *type,
		    git_odb *odb, const struct ga_oid *id)
{
	size_t i, nr = git_odb_num_backends(odb);
	struct ga_store_stream *st = NULL;
	enum ga_obj_type t = GA_OBJ_NONE;
	git_odb_backend *b;
	uint64_t len = 0;
	int error = GIT_ENOTFOUND;

	*out = NULL;
	for (i = 0; i < nr; i++)
		if (git_odb_get_backend(&b, odb, i) == 0 &&
		    b->free == store_free) {
			error = ga_store_stream_open(&st, store_of(b), id,
						     &len, &t);
			break;
		}
	if (error == GA_ECORRUPT)
		error = odb_blob_corrupt_error(error);
	if (error == GA_ENOTFOUND)
		error = GIT_ENOTFOUND;
	if (error < 0)
		return error;
	*out = ga_xcalloc(1, sizeof(**out));
	(*out)->st = st;
	*size = (size_t)len;
	*type = (git_object_t)t;
	return 0;
}

int odb_stream_read(struct odb_stream *s, unsigned char *buf, size_t cap,
		    size_t *nread)
{
	int error = ga_store_stream_read(s->st, buf, cap, nread);

	if (ga_store_stream_packed(s->st))
		return error;
	if (error == GA_ECORRUPT)
		return odb_corrupt_error(error);
	return error < 0 ? ga_error_from_git(NULL) : 0;
}

void odb_stream_free(struct odb_stream *s)
{
	if (!s)
		return;
	ga_store_stream_free(s->st);
	free(s);
}

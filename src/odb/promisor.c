/*
 * promisor.c: fetching what a partial clone lacks, as git 2.39.5's
 * promisor-remote.c does (see promisor.h).
 */
#include "promisor.h"
#include "repo-open.h"

#include "garchive/common.h"
#include "garchive/config.h"
#include "odb.h"
#include "rawtree.h"
#include "run-command.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "libgit2.h"
#include <git2/sys/odb_backend.h>

struct promisors {
	char **names;
	size_t nr, alloc;
};

static void promisors_release(struct promisors *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		free(p->names[i]);
	free(p->names);
}

static size_t promisor_index(const struct promisors *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		if (!strcmp(p->names[i], name))
			return i;
	return p->nr;
}

static void promisor_add(struct promisors *p, const char *name)
{
	if (*name == '/') {
		ga_warning("promisor remote name cannot begin with '/': %s",
			   name);
		return;
	}
	GA_ALLOC_GROW(p->names, p->nr + 1, p->alloc);
	p->names[p->nr++] = ga_xstrdup(name);
}

/* remote.<name>.promisor (true) and remote.<name>.partialclonefilter. */
static int collect_remote(const struct config_entry *e, void *payload)
{
	struct promisors *p = payload;
	const char *sub, *key;
	char *name;
	int on;

	if (strncmp(e->name, "remote.", 7) || !(key = strrchr(e->name, '.')) ||
	    key == e->name + 6)
		return 0;
	sub = e->name + 7;
	key++;
	if (strcmp(key, "promisor") && strcmp(key, "partialclonefilter"))
		return 0;
	if (!strcmp(key, "promisor")) {
		if (config_parse_bool(&on, e->name, e->value) < 0)
			return GA_ERROR;
		if (!on)
			return 0;
	}
	name = ga_xstrndup(sub, (size_t)(key - 1 - sub));
	if (promisor_index(p, name) == p->nr)
		promisor_add(p, name);
	free(name);
	return 0;
}

/* git's promisor_remote_init(). */
static int load_promisors(struct promisors *p, const struct ga_config *cfg)
{
	const char *partial = NULL;
	size_t i;
	int error;

	if ((error = config_foreach_entry(cfg, collect_remote, p)) < 0)
		return error;
	if (config_get_string(&partial, cfg, "extensions.partialclone") < 0 ||
	    !partial)
		return 0;
	i = promisor_index(p, partial);
	if (i == p->nr) {
		promisor_add(p, partial);
	} else {
		char *moved = p->names[i];

		memmove(p->names + i, p->names + i + 1,
			(p->nr - i - 1) * sizeof(*p->names));
		p->names[p->nr - 1] = moved;
	}
	return 0;
}

/* Where git would run: the work tree, or the git directory. */
static const char *run_dir(git_repository *repo)
{
	const char *wd = git_repository_workdir(repo);

	return wd ? wd : git_repository_path(repo);
}

/*
 * The ids, one hex line each, into the fetch's stdin: as long as the
 * repository's hash makes them (40 or 64 digits).
 */
static int write_ids(int fd, const struct ga_oid *ids, size_t nr)
{
	char hex[GA_OID_MAX_HEXSZ + 2];
	size_t i, len;

	for (i = 0; i < nr; i++) {
		ga_oid_fmt(hex, &ids[i]);
		len = ga_oid_hexsz(&ids[i]);
		hex[len] = '\n';
		if (ga_write_all(fd, hex, len + 1) < 0)
			return ga_error_errno(errno, "promisor-remote: could "
					      "not write to fetch subprocess");
	}
	return 0;
}

/*
 * git's fetch_objects(): `git fetch` of `ids` from `remote`, its exact
 * command line, the ids on its stdin.  *failed when it did not succeed
 * (or fetching is off); the return value is for what git dies of.
 */
static int fetch_objects(int *failed, git_repository *repo,
			 const char *remote, const struct ga_oid *ids, size_t nr,
			 int *warned)
{
	const char *argv[] = {
		"git", "-c", "fetch.negotiationAlgorithm=noop", "fetch",
		remote, "--no-tags", "--no-write-fetch-head",
		"--recurse-submodules=no", "--filter=blob:none", "--stdin",
		NULL
	};
	const char *env[3] = { NULL, "GIT_WORK_TREE", NULL };
	struct child c = CHILD_INIT;
	int off, code, error;

	*failed = 1;
	if ((error = config_env_bool(&off, "GIT_NO_LAZY_FETCH", 0)) < 0)
		return error;
	if (off) {
		if (!*warned)
			ga_warning("lazy fetching disabled; some objects may "
				   "not be available");
		*warned = 1;
		return 0;
	}
	env[0] = ga_xstrfmt("GIT_DIR=%s", git_repository_path(repo));
	c.argv = argv;
	c.env = env;
	c.dir = run_dir(repo);
	c.pipe_in = 1;
	/* git fetch says nothing on stdout; keep the archive safe anyway. */
	c.out_fd = 2;
	error = child_start(&c);
	free((char *)env[0]);
	if (error < 0) {
		ga_error_clear();
		return ga_error_set("promisor-remote: unable to fork off "
				    "fetch subprocess");
	}
	error = write_ids(c.in, ids, nr);
	child_close(&c.in);
	if (child_finish(&c, &code, NULL) < 0 && !error)
		error = GA_ERROR;
	if (!error && !code)
		*failed = 0;
	return error;
}

/* Keep in `ids` those still missing; returns how many. */
static size_t still_missing(git_repository *repo, struct ga_oid *ids,
			    size_t nr)
{
	git_odb *odb = NULL;
	size_t i, kept = 0;

	if (git_repository_odb(&odb, repo) < 0) {
		git_error_clear();
		return nr;
	}
	git_odb_refresh(odb);
	for (i = 0; i < nr; i++)
		if (odb_exists(odb, &ids[i]) != 1)
			ids[kept++] = ids[i];
	git_odb_free(odb);
	git_error_clear();
	return kept;
}

/*
 * git's is_promisor_object(), as far as a partial clone goes: an object
 * a promisor pack (one with a ".promisor" file) may refer to.
 */
static int has_promisor_pack(git_repository *repo)
{
	char *common = repo_commondir(repo);
	char *dir = ga_xstrfmt("%sobjects/pack", common);
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t len;
	int found = 0;

	free(dir);
	free(common);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		len = strlen(de->d_name);
		found = len > 9 && !strcmp(de->d_name + len - 9, ".promisor");
	}
	closedir(d);
	return found;
}

int promisor_fetch(git_repository *repo, const struct ga_config *cfg,
		   const struct ga_oid *ids, size_t nr)
{
	struct promisors p = { 0 };
	struct ga_oid *remaining = NULL;
	char hex[GA_OID_MAX_HEXSZ + 1];
	size_t i, left = nr;
	int error, failed, warned = 0;

	if (!nr)
		return 0;
	if ((error = load_promisors(&p, cfg)) < 0)
		goto done;
	remaining = ga_xcalloc(nr, sizeof(*remaining));
	memcpy(remaining, ids, nr * sizeof(*ids));
	for (i = 0; i < p.nr; i++) {
		if ((error = fetch_objects(&failed, repo, p.names[i],
					   remaining, left, &warned)) < 0)
			goto done;
		if (!failed)
			goto done;
		/* git tries one object again elsewhere without looking. */
		if (left > 1 && !(left = still_missing(repo, remaining, left)))
			goto done;
	}
	if (left && p.nr && has_promisor_pack(repo)) {
		ga_oid_fmt(hex, &remaining[0]);
		error = ga_error_set("could not fetch %s from promisor remote",
				     hex);
	}
done:
	free(remaining);
	promisors_release(&p);
	return error;
}

struct missing {
	git_odb *odb;
	struct ga_oid *ids;
	size_t nr, alloc;
};

/*
 * Note the blobs below tree `id` that the store lacks, in the walk's
 * order (a subtree where its entry is).  A tree that cannot be read or
 * parsed ends the walk: the archive walk meets it and says it as git
 * does.  Returns 0 or -1 (the walk ended early).
 */
static int note_missing(struct missing *m, const struct ga_oid *id)
{
	struct odb_object *obj = NULL;
	struct rawtree_iter it;
	struct rawtree_entry e;
	int error = 0;

	if (rawtree_read(&obj, m->odb, id) < 0)
		return -1;
	rawtree_iter_init(&it, odb_object_data(obj),
			  odb_object_size(obj), ga_oid_rawsz(id));
	while (!error && !(error = rawtree_next(&e, &it))) {
		if (e.mode == 0040000) {
			error = note_missing(m, &e.id);
			continue;
		}
		/* Files and symbolic links; gitlinks are no blobs. */
		if (e.mode == 0160000 || odb_exists(m->odb, &e.id))
			continue;
		GA_ALLOC_GROW(m->ids, m->nr + 1, m->alloc);
		m->ids[m->nr++] = e.id;
	}
	odb_object_free(obj);
	return error == GA_ITEROVER ? 0 : -1;
}

int promisor_prefetch_tree(git_repository *repo, const struct ga_config *cfg,
			   const struct ga_oid *tree_oid)
{
	struct promisors p = { 0 };
	struct missing m = { 0 };
	size_t nr;
	int error;

	/* Most repositories have no promisor: look at nothing then. */
	error = load_promisors(&p, cfg);
	nr = p.nr;
	promisors_release(&p);
	if (error < 0 || !nr)
		return error;
	if (git_repository_odb(&m.odb, repo) < 0) {
		git_error_clear();
		return 0;
	}
	/* What a damaged tree says is the archive walk's to say. */
	if (note_missing(&m, tree_oid) < 0)
		ga_error_clear();
	git_error_clear();
	error = promisor_fetch(repo, cfg, m.ids, m.nr);
	git_odb_free(m.odb);
	free(m.ids);
	return error;
}

/* ---- the lazy fetch of one object a read did not find ---- */

struct promisor_backend {
	git_odb_backend parent;
	git_repository *repo;
	pthread_mutex_t lock;
	struct ga_oid *tried;	/* fetched once each: never twice */
	size_t nr_tried, alloc_tried;
};

/* Whether `id` was fetched before; notes it if not.  Under the lock. */
static int tried_before(struct promisor_backend *b, const struct ga_oid *id)
{
	size_t i;

	for (i = 0; i < b->nr_tried; i++)
		if (ga_oid_equal(&b->tried[i], id))
			return 1;
	GA_ALLOC_GROW(b->tried, b->nr_tried + 1, b->alloc_tried);
	b->tried[b->nr_tried++] = *id;
	return 0;
}

/*
 * Fetch `id`, once: 0, or GA_ECORRUPT with git's fatal line in
 * libgit2's error (how garchive's backends report what ends the run,
 * see errors.h).
 */
static int lazy_fetch(struct promisor_backend *b, const struct ga_oid *id)
{
	struct ga_config *cfg = NULL;
	int error, tried;

	pthread_mutex_lock(&b->lock);
	tried = tried_before(b, id);
	error = tried ? 0 : config_load(&cfg, b->repo, NULL, 0);
	if (!tried && !error)
		error = promisor_fetch(b->repo, cfg, id, 1);
	config_free(cfg);
	pthread_mutex_unlock(&b->lock);
	if (error < 0) {
		char *msg = ga_xstrfmt("fatal: %s", ga_error_message());

		git_error_set_str(GIT_ERROR_ODB, msg);
		free(msg);
		return GA_ECORRUPT;
	}
	return 0;
}

/*
 * After a fetch libgit2 refreshes the other backends and asks them
 * again (the fetched pack is new to them): this one says "not found"
 * either way, or ends the run when the fetch failed.  (It may not ask
 * them itself: libgit2 holds the database's lock during a read.)
 */
static int backend_read(void **data, size_t *len, git_object_t *type,
			git_odb_backend *backend, const git_oid *id)
{
	struct ga_oid oid;
	int error;

	/* libgit2 reads only SHA-1 databases (odb.h). */
	odb_oid_from_git(&oid, id);
	error = lazy_fetch((struct promisor_backend *)backend, &oid);
	(void)data;
	(void)len;
	(void)type;
	return error < 0 ? error : GIT_ENOTFOUND;
}

static int backend_read_header(size_t *len, git_object_t *type,
			       git_odb_backend *backend, const git_oid *id)
{
	return backend_read(NULL, len, type, backend, id);
}

/* Asking whether an object is there fetches nothing, as in git. */
static int backend_exists(git_odb_backend *backend, const git_oid *id)
{
	(void)backend;
	(void)id;
	return 0;
}

static void backend_free(git_odb_backend *backend)
{
	struct promisor_backend *b = (struct promisor_backend *)backend;

	pthread_mutex_destroy(&b->lock);
	free(b->tried);
	free(b);
}

int promisor_lazy_fetch(git_odb *odb, const struct ga_oid *id)
{
	size_t i, nr = git_odb_num_backends(odb);
	git_odb_backend *b;

	for (i = 0; i < nr; i++)
		if (git_odb_get_backend(&b, odb, i) == 0 &&
		    b->free == backend_free)
			return lazy_fetch((struct promisor_backend *)b, id);
	return GA_ENOTFOUND;
}

int promisor_backend_add(git_odb *odb, git_repository *repo, int priority)
{
	struct promisor_backend *b;

	/*
	 * Whether the repository has promisor remotes is asked on the
	 * first missing object (lazy_fetch()), not here: the repository
	 * is opened before its configuration is read, and reading it here
	 * too would print its errors twice.  Without promisors, a missing
	 * object stays missing.
	 */
	b = ga_xcalloc(1, sizeof(*b));
	git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION);
	b->parent.read = backend_read;
	b->parent.read_header = backend_read_header;
	b->parent.exists = backend_exists;
	b->parent.free = backend_free;
	b->repo = repo;
	pthread_mutex_init(&b->lock, NULL);
	/*
	 * libgit2 asks every main backend before any alternate: as the
	 * last alternate it comes after them all.
	 */
	if (git_odb_add_alternate(odb, &b->parent, priority) < 0) {
		backend_free(&b->parent);
		return ga_error_from_git("cannot open the object database");
	}
	return 0;
}

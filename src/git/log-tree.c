/*
 * log-tree.c: git's ref decorations as %d and %D show them: the loading
 * half of git's log-tree.c and refs (load_ref_decorations,
 * add_ref_decoration) for one commit, and format_decorations().
 */
#include "log-tree.h"

#include "garchive/common.h"
#include "garchive/config.h"
#include "commit.h"
#include "object-name.h"
#include "refdb.h"
#include "refs/refs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libgit2.h"
#include "odb/odb.h"

enum deco_type {
	DECO_NONE,
	DECO_LOCAL,
	DECO_REMOTE,
	DECO_TAG,
	DECO_STASH,
	DECO_HEAD,
	DECO_GRAFTED
};

struct deco {
	enum deco_type type;
	char *name;
};

/* What decorating one ref needs to know. */
struct loader {
	struct decorations *d;
	git_repository *repo;
	git_odb *odb;
	const struct ga_oid *oid;		/* the commit */
	const char *replace_base;	/* GIT_REPLACE_REF_BASE */
	int use_replace;
};

static void add_deco(struct decorations *d, enum deco_type type,
		     const char *name)
{
	GA_ALLOC_GROW(d->list, d->nr + 1, d->alloc);
	d->list[d->nr].type = type;
	d->list[d->nr].name = ga_xstrdup(name);
	d->nr++;
}

static enum deco_type deco_type_of(const char *refname)
{
	if (!strcmp(refname, "HEAD"))
		return DECO_HEAD;
	if (ga_starts_with(refname, "refs/heads/"))
		return DECO_LOCAL;
	if (ga_starts_with(refname, "refs/tags/"))
		return DECO_TAG;
	if (ga_starts_with(refname, "refs/remotes/"))
		return DECO_REMOTE;
	if (!strcmp(refname, "refs/stash"))
		return DECO_STASH;
	return DECO_NONE;
}

/* git's add_ref_decoration() restricted to our commit. */
static void decorate_ref(const struct loader *ld, const char *refname,
			 const struct ga_oid *target)
{
	git_object_t type;
	size_t size;
	struct ga_oid cur = *target;
	const char *rest;

	if (ga_skip_prefix(refname, ld->replace_base, &rest)) {
		struct ga_oid orig;

		if (!ld->use_replace)
			return;
		if (oid_parse_hex(&orig, ld->oid->algo, rest, NULL)) {
			ga_warning("invalid replace ref %s", refname);
			return;
		}
		if (ga_oid_equal(&orig, ld->oid))
			add_deco(ld->d, DECO_GRAFTED, "replaced");
		return;
	}
	if (odb_read_header(&size, &type, ld->odb, target) < 0)
		return;
	if (ga_oid_equal(target, ld->oid))
		add_deco(ld->d, deco_type_of(refname), refname);
	while (type == GIT_OBJECT_TAG) {
		struct odb_object *obj = NULL;
		int bad;

		if (odb_read(&obj, ld->odb, &cur) < 0) {
			git_error_clear();
			break;
		}
		/* The type the tag declares; its target is not read. */
		bad = odb_object_type(obj) != GIT_OBJECT_TAG ||
		      ga_tag_target(&cur, &type, ld->oid->algo,
				    odb_object_data(obj),
				    odb_object_size(obj)) < 0;
		odb_object_free(obj);
		if (bad)
			break;
		if (ga_oid_equal(&cur, ld->oid))
			add_deco(ld->d, DECO_TAG, refname);
	}
}

/* One ref of the iteration; broken refs were left out by the store. */
static int decorate_each(const struct refs_entry *e, void *payload)
{
	const struct loader *ld = payload;

	/* git also skips a ref whose object is missing. */
	if (odb_exists(ld->odb, &e->oid))
		decorate_ref(ld, e->name, &e->oid);
	return 0;
}

/* The branch a symbolic HEAD leads to, for "HEAD -> branch", or NULL. */
static char *head_branch(struct refs_store *refs)
{
	struct ga_buf target = GA_BUF_INIT, next = GA_BUF_INIT;
	char *name;
	int depth;

	if (refs_read_symref(&target, refs, "HEAD") < 0) {
		ga_error_clear();
		ga_buf_release(&target);
		return NULL;
	}
	for (depth = 0; depth < 5; depth++) {
		ga_buf_setlen(&next, 0);
		if (refs_read_symref(&next, refs, target.ptr) < 0) {
			ga_error_clear();
			break;
		}
		ga_buf_setlen(&target, 0);
		ga_buf_put(&target, next.ptr, next.len);
	}
	name = ga_xstrndup(target.ptr, target.len);
	ga_buf_release(&target);
	ga_buf_release(&next);
	return name;
}

void decorations_load(struct decorations *d, git_repository *repo,
		      git_odb *odb, const struct ga_config *cfg,
		      const struct ga_oid *oid, int grafted)
{
	struct loader ld = { d, repo, odb, oid, NULL, 1 };
	struct refs_store *refs = NULL;
	struct ga_oid id;
	int flag;

	if (d->loaded)
		return;
	d->loaded = 1;
	ld.replace_base = getenv("GIT_REPLACE_REF_BASE");
	if (!ld.replace_base)
		ld.replace_base = "refs/replace/";
	if (config_get_bool(&flag, cfg, "core.usereplacerefs") == 0)
		ld.use_replace = flag;
	if (getenv("GIT_NO_REPLACE_OBJECTS"))
		ld.use_replace = 0;

	if (refdb_open_store(&refs, repo) < 0) {
		/* As before: refs that cannot be read decorate nothing. */
		ga_error_clear();
		goto done;
	}
	/* Refs in byte order, as git's for_each_ref() yields them. */
	if (refs_for_each(refs, "", 0, decorate_each, &ld) < 0)
		ga_error_clear();

	if (refs_resolve(NULL, &id, NULL, refs, "HEAD",
			 REFS_RESOLVE_READING) == 0 &&
	    odb_exists(odb, &id))
		decorate_ref(&ld, "HEAD", &id);
	else
		ga_error_clear();

	d->head_branch = head_branch(refs);
	refs_free(refs);
done:
	if (grafted)
		add_deco(d, DECO_GRAFTED, "grafted");
}

static const char *prettify_ref(const char *name)
{
	const char *rest;

	if (ga_skip_prefix(name, "refs/heads/", &rest) ||
	    ga_skip_prefix(name, "refs/tags/", &rest) ||
	    ga_skip_prefix(name, "refs/remotes/", &rest))
		return rest;
	return name;
}

void decorations_format(struct ga_buf *sb, const struct decorations *d,
			const char *prefix, const char *sep,
			const char *suffix)
{
	size_t i, current = SIZE_MAX, head = SIZE_MAX;

	if (!d->nr)
		return;
	/* git's list is newest first: walk ours backwards. */
	for (i = d->nr; i-- > 0;) {
		if (d->list[i].type == DECO_HEAD) {
			head = i;
			break;
		}
	}
	if (head != SIZE_MAX && d->head_branch &&
	    ga_starts_with(d->head_branch, "refs/")) {
		for (i = d->nr; i-- > 0;) {
			if (d->list[i].type == DECO_LOCAL &&
			    !strcmp(d->list[i].name, d->head_branch)) {
				current = i;
				break;
			}
		}
	}
	for (i = d->nr; i-- > 0;) {
		const struct deco *one = &d->list[i];

		if (i == current)
			continue;
		ga_buf_puts(sb, prefix);
		if (one->type == DECO_TAG)
			ga_buf_puts(sb, "tag: ");
		ga_buf_puts(sb, prettify_ref(one->name));
		if (current != SIZE_MAX && one->type == DECO_HEAD) {
			ga_buf_puts(sb, " -> ");
			ga_buf_puts(sb, prettify_ref(d->list[current].name));
		}
		prefix = sep;
	}
	ga_buf_puts(sb, suffix);
}

void decorations_release(struct decorations *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		free(d->list[i].name);
	free(d->list);
	free(d->head_branch);
	memset(d, 0, sizeof(*d));
}

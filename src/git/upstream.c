/*
 * upstream.c: git's branch_get_upstream() and branch_get_push()
 * (remote.c, git 2.39 and 2.55 alike) for "@{upstream}" and "@{push}".
 */
#include "upstream.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "refs/refs.h"

#include <stdlib.h>
#include <string.h>

enum push_default {
	PUSH_UNSPECIFIED,	/* acts as simple */
	PUSH_NOTHING,
	PUSH_MATCHING,
	PUSH_SIMPLE,
	PUSH_UPSTREAM,
	PUSH_CURRENT
};

/* What the configuration says of one branch, and of remotes at large. */
struct branch_config {
	const char *name;	/* the branch */
	size_t name_len;
	const char *remote;	/* branch.<name>.remote */
	const char *pushremote;	/* branch.<name>.pushRemote */
	const char *merge;	/* the first branch.<name>.merge */
	const char *pushdefault;	/* remote.pushDefault */
	enum push_default push_default;
	size_t nr_remotes;
	char **remotes;		/* names seen, for counting them */
	size_t alloc_remotes;
};

/* One refspec, as git's parse_refspec() splits it. */
struct refspec {
	char *src, *dst;	/* dst NULL: none */
	int negative;
};

/* A remote's remote.<name>.fetch or .push values, in config order. */
struct refspecs {
	struct refspec *items;
	size_t nr, alloc;
};

struct remote {
	const char *name;
	struct refspecs fetch, push;
	int mirror;
};

/*
 * Split "<section>.<sub>.<key>" (section and key already lower case):
 * returns 1 with the subsection in *sub and *sub_len (NULL when there is
 * none) and the key in *key when the section is `section`.
 */
static int config_key(const char *name, const char *section,
		      const char **sub, size_t *sub_len, const char **key)
{
	const char *rest, *dot;

	if (!ga_skip_prefix(name, section, &rest) || *rest != '.')
		return 0;
	rest++;
	dot = strrchr(rest, '.');
	if (!dot) {
		*sub = NULL;
		*sub_len = 0;
		*key = rest;
	} else {
		*sub = rest;
		*sub_len = (size_t)(dot - rest);
		*key = dot + 1;
	}
	return 1;
}

static void count_remote(struct branch_config *bc, const char *name,
			 size_t len)
{
	size_t i;

	for (i = 0; i < bc->nr_remotes; i++)
		if (strlen(bc->remotes[i]) == len &&
		    !memcmp(bc->remotes[i], name, len))
			return;
	GA_ALLOC_GROW(bc->remotes, bc->nr_remotes + 1, bc->alloc_remotes);
	bc->remotes[bc->nr_remotes++] = ga_xstrndup(name, len);
}

static int read_branch_config(const struct config_entry *e, void *payload)
{
	struct branch_config *bc = payload;
	const char *sub, *key, *v = e->value;
	size_t len;

	if (config_key(e->name, "branch", &sub, &len, &key)) {
		if (!sub || !v || len != bc->name_len ||
		    memcmp(sub, bc->name, len))
			return 0;
		if (!strcmp(key, "remote"))
			bc->remote = v;
		else if (!strcmp(key, "pushremote"))
			bc->pushremote = v;
		else if (!strcmp(key, "merge") && !bc->merge)
			bc->merge = v;
		return 0;
	}
	if (!strcmp(e->name, "push.default") && v) {
		static const struct {
			const char *word;
			enum push_default value;
		} words[] = {
			{ "nothing", PUSH_NOTHING }, { "matching", PUSH_MATCHING },
			{ "simple", PUSH_SIMPLE }, { "upstream", PUSH_UPSTREAM },
			{ "tracking", PUSH_UPSTREAM }, { "current", PUSH_CURRENT },
		};
		size_t i;

		for (i = 0; i < GA_ARRAY_SIZE(words); i++)
			if (!strcmp(v, words[i].word))
				bc->push_default = words[i].value;
		return 0;
	}
	if (config_key(e->name, "remote", &sub, &len, &key)) {
		if (!sub) {
			if (!strcmp(key, "pushdefault") && v)
				bc->pushdefault = v;
		} else if (*sub != '/') {
			/* git warns of a name starting with '/' and skips it */
			count_remote(bc, sub, len);
		}
	}
	return 0;
}

static void refspec_add(struct refspecs *rs, const char *text)
{
	struct refspec *r;
	const char *colon;

	GA_ALLOC_GROW(rs->items, rs->nr + 1, rs->alloc);
	r = &rs->items[rs->nr++];
	memset(r, 0, sizeof(*r));
	if (*text == '+') {
		text++;
	} else if (*text == '^') {
		r->negative = 1;
		text++;
	}
	colon = strrchr(text, ':');
	if (colon && !r->negative) {
		r->src = ga_xstrndup(text, (size_t)(colon - text));
		r->dst = ga_xstrdup(colon + 1);
	} else {
		r->src = ga_xstrdup(text);
	}
}

static int read_remote_config(const struct config_entry *e, void *payload)
{
	struct remote *r = payload;
	const char *sub, *key;
	size_t len;

	if (!config_key(e->name, "remote", &sub, &len, &key) || !sub ||
	    strlen(r->name) != len || memcmp(sub, r->name, len) || !e->value)
		return 0;
	if (!strcmp(key, "fetch"))
		refspec_add(&r->fetch, e->value);
	else if (!strcmp(key, "push"))
		refspec_add(&r->push, e->value);
	else if (!strcmp(key, "mirror") && config_maybe_bool(e->value) >= 0)
		r->mirror = config_maybe_bool(e->value);
	return 0;
}

static void refspecs_release(struct refspecs *rs)
{
	size_t i;

	for (i = 0; i < rs->nr; i++) {
		free(rs->items[i].src);
		free(rs->items[i].dst);
	}
	free(rs->items);
}

static void remote_release(struct remote *r)
{
	refspecs_release(&r->fetch);
	refspecs_release(&r->push);
}

/*
 * git's match_name_with_pattern(): `name` against `key`, which has one
 * '*'; the match put in place of the '*' of `value`.
 */
static char *match_pattern(const char *key, const char *name,
			   const char *value)
{
	const char *star = strchr(key, '*'), *vstar;
	size_t pre, suf, len = strlen(name);

	if (!star)
		return strcmp(key, name) ? NULL : ga_xstrdup(value ? value : "");
	pre = (size_t)(star - key);
	suf = strlen(star + 1);
	if (len < pre + suf || strncmp(name, key, pre) ||
	    strcmp(name + len - suf, star + 1))
		return NULL;
	if (!value)
		return ga_xstrdup("");
	if (!(vstar = strchr(value, '*')))
		return ga_xstrdup(value);
	return ga_xstrfmt("%.*s%.*s%s", (int)(vstar - value), value,
			  (int)(len - pre - suf), name + pre, vstar + 1);
}

/*
 * git's apply_refspecs()/remote_find_tracking(): the destination the
 * first refspec with one maps `src` to, none when a negative refspec
 * matches it.  NULL when none does.
 */
static char *apply_refspecs(const struct refspecs *rs, const char *src)
{
	const struct refspec *r = rs->items;
	char *dst;
	size_t i;

	for (i = 0; i < rs->nr; i++)
		if (r[i].negative &&
		    (dst = match_pattern(r[i].src, src, NULL))) {
			free(dst);
			return NULL;
		}
	for (i = 0; i < rs->nr; i++)
		if (!r[i].negative && r[i].dst &&
		    (dst = match_pattern(r[i].src, src, r[i].dst)))
			return dst;
	return NULL;
}

static int ref_exists(struct refs_store *refs, const char *refname)
{
	struct ga_oid oid;
	int error = refs_resolve(NULL, &oid, NULL, refs, refname,
				 REFS_RESOLVE_READING);

	ga_error_clear();
	return !error;
}

/* git's set_merge() and branch_get_upstream(). */
static int get_upstream(char **out, const struct branch_config *bc,
			const char *refname, const struct ga_config *cfg,
			struct refs_store *refs)
{
	struct remote r = { 0 };
	struct ga_oid oid;
	char *dst;
	int error;

	if (!bc->remote || !bc->merge) {
		if (!ref_exists(refs, refname))
			return ga_error_set("no such branch: '%.*s'",
					    (int)bc->name_len, bc->name);
		return ga_error_set("no upstream configured for branch '%.*s'",
				    (int)bc->name_len, bc->name);
	}
	r.name = bc->remote;
	if ((error = config_foreach_entry(cfg, read_remote_config, &r)) < 0)
		goto done;
	dst = apply_refspecs(&r.fetch, bc->merge);
	if (!dst && !strcmp(bc->remote, ".")) {
		/* A branch of this repository tracks itself. */
		if (refs_dwim_ref(&dst, &oid, refs, bc->merge,
				  strlen(bc->merge), 0) != 1) {
			free(dst);
			dst = ga_xstrdup(bc->merge);
		}
		ga_error_clear();
	}
	if (!dst)
		error = ga_error_set("upstream branch '%s' not stored as a "
				     "remote-tracking branch", bc->merge);
	*out = dst;
done:
	remote_release(&r);
	return error;
}

/* git's tracking_for_push_dest(). */
static int tracking_for_push(char **out, const struct remote *r,
			     const char *refname)
{
	if (!(*out = apply_refspecs(&r->fetch, refname)))
		return ga_error_set("push destination '%s' on remote '%s' "
				    "has no local tracking branch", refname,
				    r->name);
	return 0;
}

/* git's branch_get_push_1(). */
static int get_push(char **out, const struct branch_config *bc,
		    const char *refname, const struct ga_config *cfg,
		    struct refs_store *refs)
{
	struct remote r = { 0 };
	char *up = NULL, *dst = NULL;
	int error;

	r.name = bc->pushremote ? bc->pushremote :
		 bc->pushdefault ? bc->pushdefault :
		 bc->remote ? bc->remote :
		 bc->nr_remotes == 1 ? bc->remotes[0] : "origin";
	if ((error = config_foreach_entry(cfg, read_remote_config, &r)) < 0)
		goto done;
	if (r.push.nr) {
		if (!(dst = apply_refspecs(&r.push, refname))) {
			error = ga_error_set("push refspecs for '%s' do not "
					     "include '%.*s'", r.name,
					     (int)bc->name_len, bc->name);
			goto done;
		}
		error = tracking_for_push(out, &r, dst);
		goto done;
	}
	if (r.mirror) {
		error = tracking_for_push(out, &r, refname);
		goto done;
	}
	switch (bc->push_default) {
	case PUSH_NOTHING:
		error = ga_error_set("push has no destination (push.default "
				     "is 'nothing')");
		break;
	case PUSH_MATCHING:
	case PUSH_CURRENT:
		error = tracking_for_push(out, &r, refname);
		break;
	case PUSH_UPSTREAM:
		error = get_upstream(out, bc, refname, cfg, refs);
		break;
	case PUSH_UNSPECIFIED:
	case PUSH_SIMPLE:
		if ((error = get_upstream(&up, bc, refname, cfg, refs)) < 0 ||
		    (error = tracking_for_push(out, &r, refname)) < 0)
			break;
		if (strcmp(*out, up)) {
			free(*out);
			*out = NULL;
			error = ga_error_set("cannot resolve 'simple' push to "
					     "a single destination");
		}
		break;
	}
done:
	free(up);
	free(dst);
	remote_release(&r);
	return error;
}

int upstream_tracking_ref(char **out, const struct ga_config *cfg,
			  struct refs_store *refs, const char *branch,
			  size_t len, enum upstream_kind kind)
{
	struct branch_config bc = { 0 };
	struct ga_oid oid;
	unsigned flags = 0;
	char *refname = NULL, *target = NULL;
	const char *name;
	size_t i;
	int error;

	*out = NULL;
	if (!len || (len == 4 && !memcmp(branch, "HEAD", 4))) {
		/* git's read_config(): HEAD's branch, born or not. */
		error = refs_resolve(&target, &oid, &flags, refs, "HEAD", 0);
		ga_error_clear();
		if (error < 0 || !(flags & REFS_ISSYMREF) ||
		    !ga_skip_prefix(target, "refs/heads/", &name)) {
			error = ga_error_set("HEAD does not point to a branch");
			goto done;
		}
		branch = name;
		len = strlen(name);
	}
	bc.name = branch;
	bc.name_len = len;
	if ((error = config_foreach_entry(cfg, read_branch_config, &bc)) < 0)
		goto done;
	refname = ga_xstrfmt("refs/heads/%.*s", (int)len, branch);
	if (kind == UPSTREAM_MERGE)
		error = get_upstream(out, &bc, refname, cfg, refs);
	else
		error = get_push(out, &bc, refname, cfg, refs);
done:
	for (i = 0; i < bc.nr_remotes; i++)
		free(bc.remotes[i]);
	free(bc.remotes);
	free(refname);
	free(target);
	return error;
}

/*
 * upstream.c: "<branch>@{upstream}" and "<branch>@{push}" (see
 * upstream.h), as git 2.39's remote.c and refspec.c find them.
 */
#include "upstream.h"

#include "garchive/common.h"
#include "garchive/config.h"
#include "refs/refs.h"
#include "sane-ctype.h"

#include <stdlib.h>
#include <string.h>

/* git's struct refspec_item, as refspec.c parses it. */
struct refspec_item {
	int pattern;
	int matching;		/* ":" in a push refspec */
	int negative;		/* "^<ref>" */
	char *src, *dst;	/* dst NULL: none given */
};

struct refspec {
	struct refspec_item *items;
	size_t nr, alloc;
};

struct remote {
	char *name;
	struct refspec fetch, push;
	int mirror;
};

enum push_default {
	PUSH_SIMPLE,		/* also unset */
	PUSH_NOTHING,
	PUSH_MATCHING,
	PUSH_UPSTREAM,
	PUSH_CURRENT
};

/* What the configuration says of one branch and of the remotes. */
struct remotes {
	const char *branch;	/* the branch asked about */
	char *branch_remote;	/* branch.<b>.remote */
	char *branch_pushremote;	/* branch.<b>.pushRemote */
	char **merge;		/* branch.<b>.merge, every value */
	size_t nr_merge, alloc_merge;
	char *pushdefault;	/* remote.pushDefault */
	enum push_default push_default;
	struct remote *remotes;	/* in the order first configured */
	size_t nr, alloc;
	struct remote none;	/* a remote nothing configures */
};

static void refspec_release(struct refspec *rs)
{
	size_t i;

	for (i = 0; i < rs->nr; i++) {
		free(rs->items[i].src);
		free(rs->items[i].dst);
	}
	free(rs->items);
}

static void remotes_release(struct remotes *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++) {
		free(r->remotes[i].name);
		refspec_release(&r->remotes[i].fetch);
		refspec_release(&r->remotes[i].push);
	}
	free(r->remotes);
	for (i = 0; i < r->nr_merge; i++)
		free(r->merge[i]);
	free(r->merge);
	free(r->branch_remote);
	free(r->branch_pushremote);
	free(r->pushdefault);
	free(r->none.name);
}

/* A full object id in hex, of either hash. */
static int is_hex_id(const char *s, size_t len)
{
	size_t i;

	if (len != 40 && len != 64)
		return 0;
	for (i = 0; i < len; i++)
		if (ga_hexval(s[i]) < 0)
			return 0;
	return 1;
}

/*
 * git's parse_refspec(): `spec` as a fetch or push refspec.  Returns 1,
 * or 0 when git refuses it.
 */
static int parse_refspec(struct refspec_item *item, const char *spec,
			 int fetch)
{
	const char *lhs = spec, *rhs;
	size_t llen;
	int glob = 0;
	unsigned flags;

	memset(item, 0, sizeof(*item));
	if (*lhs == '+')
		lhs++;
	else if (*lhs == '^')
		item->negative = 1, lhs++;
	rhs = strrchr(lhs, ':');
	if (item->negative && rhs)
		return 0;
	if (!fetch && rhs == lhs && !rhs[1]) {
		item->matching = 1;
		return 1;
	}
	if (rhs) {
		rhs++;
		glob = *rhs && strchr(rhs, '*');
		item->dst = ga_xstrdup(rhs);
	}
	llen = rhs ? (size_t)(rhs - lhs - 1) : strlen(lhs);
	if (llen && memchr(lhs, '*', llen)) {
		if ((rhs && !glob) || (!rhs && !item->negative && fetch))
			return 0;
		glob = 1;
	} else if (rhs && glob) {
		return 0;
	}
	item->pattern = glob;
	item->src = llen == 1 && *lhs == '@' ? ga_xstrdup("HEAD")
					     : ga_xstrndup(lhs, llen);
	flags = REFS_NAME_ALLOW_ONELEVEL |
		(glob ? REFS_NAME_REFSPEC_PATTERN : 0);
	if (item->negative)
		return *item->src && !is_hex_id(item->src, llen) &&
		       !refs_check_name(item->src, flags);
	if (fetch) {
		if (*item->src && !is_hex_id(item->src, llen) &&
		    refs_check_name(item->src, flags))
			return 0;
		return !item->dst || !*item->dst ||
		       !refs_check_name(item->dst, flags);
	}
	if (*item->src && glob && refs_check_name(item->src, flags))
		return 0;
	if (!item->dst)
		return !refs_check_name(item->src, flags);
	return *item->dst && !refs_check_name(item->dst, flags);
}

static int refspec_append(struct refspec *rs, const char *spec, int fetch)
{
	struct refspec_item item;

	if (!parse_refspec(&item, spec, fetch)) {
		free(item.src);
		free(item.dst);
		return ga_error_set("invalid refspec '%s'", spec);
	}
	GA_ALLOC_GROW(rs->items, rs->nr + 1, rs->alloc);
	rs->items[rs->nr++] = item;
	return 0;
}

/*
 * git's match_name_with_pattern(): whether `name` matches the pattern
 * `key` (one '*'), and with `value`, *result: `value` with its '*'
 * replaced by what the '*' of `key` matched.
 */
static int match_pattern(const char *key, const char *name,
			 const char *value, char **result)
{
	const char *kstar = strchr(key, '*'), *vstar;
	size_t klen, ksuffix, nlen = strlen(name);

	if (!kstar)
		return 0;
	klen = (size_t)(kstar - key);
	ksuffix = strlen(kstar + 1);
	if (strncmp(name, key, klen) || nlen < klen + ksuffix ||
	    memcmp(name + nlen - ksuffix, kstar + 1, ksuffix))
		return 0;
	if (value) {
		if (!(vstar = strchr(value, '*')))
			return 0;
		*result = ga_xstrfmt("%.*s%.*s%s", (int)(vstar - value), value,
				     (int)(nlen - klen - ksuffix), name + klen,
				     vstar + 1);
	}
	return 1;
}

/* git's omit_name_by_refspec(): a negative refspec takes `name` out. */
static int omitted(const struct refspec *rs, const char *name)
{
	size_t i;

	for (i = 0; i < rs->nr; i++) {
		const struct refspec_item *it = &rs->items[i];

		if (it->negative &&
		    (it->pattern ? match_pattern(it->src, name, NULL, NULL)
				 : !strcmp(it->src, name)))
			return 1;
	}
	return 0;
}

/*
 * git's query_matches_negative_refspec() for a query by source: the
 * names the positive refspecs give `src`, mapped back as git maps them
 * (through the destination side of a pattern), checked against the
 * negative ones.
 */
static int negated(const struct refspec *rs, const char *src)
{
	size_t i;
	char *name;
	int hit = 0;

	for (i = 0; i < rs->nr && !hit; i++) {
		const struct refspec_item *it = &rs->items[i];

		if (it->negative)
			continue;
		if (it->pattern) {
			name = NULL;
			if (match_pattern(it->dst ? it->dst : it->src, src,
					  it->src, &name))
				hit = omitted(rs, name);
			free(name);
		} else if (it->matching || !strcmp(src, it->src)) {
			hit = omitted(rs, src);
		}
	}
	return hit;
}

/* git's apply_refspecs(): where `rs` maps `src`, or NULL (malloc'd). */
static char *apply_refspecs(const struct refspec *rs, const char *src)
{
	char *result = NULL;
	size_t i;

	if (negated(rs, src))
		return NULL;
	for (i = 0; i < rs->nr; i++) {
		const struct refspec_item *it = &rs->items[i];

		if (!it->dst || it->negative)
			continue;
		if (it->pattern) {
			if (match_pattern(it->src, src, it->dst, &result))
				return result;
		} else if (!strcmp(src, it->src)) {
			return ga_xstrdup(it->dst);
		}
	}
	return NULL;
}

static struct remote *find_remote(struct remotes *r, const char *name,
				  size_t len)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (strlen(r->remotes[i].name) == len &&
		    !memcmp(r->remotes[i].name, name, len))
			return &r->remotes[i];
	return NULL;
}

/* A string value git reads with git_config_string(). */
static int set_string(char **out, const struct config_entry *e)
{
	if (!e->value)
		return config_error_nonbool(e);
	free(*out);
	*out = ga_xstrdup(e->value);
	return 0;
}

static int read_push_default(struct remotes *r, const struct config_entry *e)
{
	static const struct {
		const char *name;
		enum push_default mode;
	} modes[] = {
		{ "nothing", PUSH_NOTHING }, { "matching", PUSH_MATCHING },
		{ "simple", PUSH_SIMPLE }, { "upstream", PUSH_UPSTREAM },
		{ "tracking", PUSH_UPSTREAM }, { "current", PUSH_CURRENT },
	};
	size_t i;

	if (!e->value)
		return config_error_nonbool(e);
	for (i = 0; i < GA_ARRAY_SIZE(modes); i++)
		if (!strcmp(e->value, modes[i].name)) {
			r->push_default = modes[i].mode;
			return 0;
		}
	ga_report(GA_REPORT_ERROR, "malformed value for %s: %s", e->name,
		  e->value);
	ga_report(GA_REPORT_ERROR, "must be one of nothing, matching, simple, "
		  "upstream or current");
	return config_error_entry(e);
}

/* A "branch.<name>.<key>" entry; only the branch asked about is kept. */
static int read_branch(struct remotes *r, const struct config_entry *e,
		       const char *sub, size_t len, const char *key)
{
	if (!len)
		return config_error_entry(e);
	if (strlen(r->branch) != len || memcmp(sub, r->branch, len))
		return 0;
	if (!strcmp(key, "remote"))
		return set_string(&r->branch_remote, e);
	if (!strcmp(key, "pushremote"))
		return set_string(&r->branch_pushremote, e);
	if (!strcmp(key, "merge")) {
		if (!e->value)
			return config_error_nonbool(e);
		GA_ALLOC_GROW(r->merge, r->nr_merge + 1, r->alloc_merge);
		r->merge[r->nr_merge++] = ga_xstrdup(e->value);
	}
	return 0;
}

/* A "remote.<name>.<key>" entry. */
static int read_remote(struct remotes *r, const struct config_entry *e,
		       const char *sub, size_t len, const char *key)
{
	struct remote *rm;

	if (*sub == '/') {
		/* git prints the rest of the key from the name on. */
		ga_warning("config remote shorthand cannot begin with '/': %s",
			   sub);
		return 0;
	}
	if (!(rm = find_remote(r, sub, len))) {
		GA_ALLOC_GROW(r->remotes, r->nr + 1, r->alloc);
		rm = &r->remotes[r->nr++];
		memset(rm, 0, sizeof(*rm));
		rm->name = ga_xstrndup(sub, len);
	}
	if (!strcmp(key, "mirror"))
		return config_parse_bool(&rm->mirror, e->name, e->value);
	if (!strcmp(key, "fetch") || !strcmp(key, "push")) {
		int fetch = key[0] == 'f';

		if (!e->value)
			return config_error_nonbool(e);
		return refspec_append(fetch ? &rm->fetch : &rm->push,
				      e->value, fetch);
	}
	return 0;
}

/* git's handle_config() (remote.c) and push.default, for one entry. */
static int read_entry(const struct config_entry *e, void *payload)
{
	struct remotes *r = payload;
	const char *rest, *key;
	int is_branch;

	if (!strcmp(e->name, "push.default"))
		return read_push_default(r, e);
	is_branch = ga_skip_prefix(e->name, "branch.", &rest);
	if (!is_branch && !ga_skip_prefix(e->name, "remote.", &rest))
		return 0;
	key = strrchr(rest, '.');
	if (!key) {
		if (!is_branch && !strcmp(rest, "pushdefault"))
			return set_string(&r->pushdefault, e);
		return 0;
	}
	if (is_branch)
		return read_branch(r, e, rest, (size_t)(key - rest), key + 1);
	return read_remote(r, e, rest, (size_t)(key - rest), key + 1);
}

/*
 * git's remote_get() for a name given: a remote the configuration does
 * not define still exists, its URL its name, with no refspecs.
 */
static const struct remote *get_remote(struct remotes *r, const char *name)
{
	const struct remote *rm = find_remote(r, name, strlen(name));

	return rm ? rm : &r->none;
}

static int ref_exists(struct refs_store *refs, const char *refname)
{
	struct ga_oid oid;
	int ret = refs_resolve(NULL, &oid, NULL, refs, refname,
			       REFS_RESOLVE_READING);

	if (ret == GA_ERROR)
		return ret;
	ga_error_clear();
	return !ret;
}

/* git's branch_get_upstream(), with set_merge() for the first merge. */
static int get_upstream(char **out, struct remotes *r,
			struct refs_store *refs, const char *refname)
{
	struct ga_oid oid;
	char *full = NULL;
	int found;

	if (!r->branch_remote || !r->nr_merge) {
		if ((found = ref_exists(refs, refname)) < 0)
			return found;
		if (!found)
			return ga_error_set("no such branch: '%s'", r->branch);
		return ga_error_set("no upstream configured for branch '%s'",
				    r->branch);
	}
	*out = apply_refspecs(&get_remote(r, r->branch_remote)->fetch,
			      r->merge[0]);
	if (*out)
		return 0;
	if (strcmp(r->branch_remote, "."))
		return ga_error_set("upstream branch '%s' not stored as a "
				    "remote-tracking branch", r->merge[0]);
	/* The local repository: the ref the merge value names, if one. */
	found = refs_dwim_ref(&full, &oid, refs, r->merge[0],
			      strlen(r->merge[0]), 1);
	if (found < 0)
		return found;
	if (found == 1) {
		*out = full;
		return 0;
	}
	free(full);
	*out = ga_xstrdup(r->merge[0]);
	return 0;
}

/* git's tracking_for_push_dest(). */
static int tracking_for_push(char **out, const struct remote *rm,
			     const char *refname)
{
	if ((*out = apply_refspecs(&rm->fetch, refname)))
		return 0;
	return ga_error_set("push destination '%s' on remote '%s' has no "
			    "local tracking branch", refname, rm->name);
}

/* git's branch_get_push_1(). */
static int get_push(char **out, struct remotes *r, struct refs_store *refs,
		    const char *refname)
{
	const struct remote *rm;
	const char *name;
	char *dst, *up = NULL, *cur = NULL;
	int error;

	name = r->branch_pushremote ? r->branch_pushremote :
	       r->pushdefault ? r->pushdefault :
	       r->branch_remote ? r->branch_remote :
	       r->nr == 1 ? r->remotes[0].name : "origin";
	rm = get_remote(r, name);
	if (!rm->name) {
		r->none.name = ga_xstrdup(name);
		rm = &r->none;
	}
	if (rm->push.nr) {
		if (!(dst = apply_refspecs(&rm->push, refname)))
			return ga_error_set("push refspecs for '%s' do not "
					    "include '%s'", rm->name,
					    r->branch);
		error = tracking_for_push(out, rm, dst);
		free(dst);
		return error;
	}
	if (rm->mirror)
		return tracking_for_push(out, rm, refname);
	switch (r->push_default) {
	case PUSH_NOTHING:
		return ga_error_set("push has no destination (push.default "
				    "is 'nothing')");
	case PUSH_MATCHING:
	case PUSH_CURRENT:
		return tracking_for_push(out, rm, refname);
	case PUSH_UPSTREAM:
		return get_upstream(out, r, refs, refname);
	case PUSH_SIMPLE:
		break;
	}
	if ((error = get_upstream(&up, r, refs, refname)) < 0 ||
	    (error = tracking_for_push(&cur, rm, refname)) < 0)
		goto done;
	if (strcmp(cur, up)) {
		error = ga_error_set("cannot resolve 'simple' push to a "
				     "single destination");
		goto done;
	}
	*out = cur;
	cur = NULL;
done:
	free(up);
	free(cur);
	return error;
}

/*
 * git's current branch (read_config()): what HEAD points to under
 * refs/heads/, born or not.  Returns 1 with *out, 0 when detached.
 */
static int current_branch(char **out, struct refs_store *refs)
{
	struct ga_oid oid;
	unsigned flags = 0;
	char *head = NULL;
	const char *name;
	int ret;

	*out = NULL;
	ret = refs_resolve(&head, &oid, &flags, refs, "HEAD", 0);
	if (ret == GA_ERROR)
		return ret;
	ga_error_clear();
	if (!ret && (flags & REFS_ISSYMREF) &&
	    ga_skip_prefix(head, "refs/heads/", &name))
		*out = ga_xstrdup(name);
	free(head);
	return *out != NULL;
}

int upstream_ref(char **out, const struct ga_config *cfg,
		 struct refs_store *refs, const char *branch, size_t len,
		 enum upstream_kind kind)
{
	struct remotes r = { 0 };
	char *name = NULL, *refname = NULL;
	int error;

	*out = NULL;
	if (!len || (len == 4 && !memcmp(branch, "HEAD", 4))) {
		if ((error = current_branch(&name, refs)) < 0)
			return error;
		if (!error)
			return ga_error_set("HEAD does not point to a branch");
	} else {
		name = ga_xstrndup(branch, len);
	}
	r.branch = name;
	if (cfg && (error = config_foreach_entry(cfg, read_entry, &r)) < 0)
		goto done;
	refname = ga_xstrfmt("refs/heads/%s", name);
	if (kind == UPSTREAM_PUSH)
		error = get_push(out, &r, refs, refname);
	else
		error = get_upstream(out, &r, refs, refname);
done:
	remotes_release(&r);
	free(refname);
	free(name);
	return error;
}

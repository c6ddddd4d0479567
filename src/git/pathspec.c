/*
 * pathspec.c: git archive's <path> arguments, as git 2.39 parses and
 * matches them.
 *
 * Parsing follows pathspec.c: magic (long ":(a,b)" and short ":/!^"),
 * the GIT_*_PATHSPECS switches, path normalisation relative to the top
 * of the work tree (git archive 2.39 parses as if run from there), and
 * git's messages for every error, checked in git's order.
 *
 * Matching reproduces what git's tree walk selects, entry by entry:
 * tree-walk.c's tree_entry_interesting() (an include pass, then an
 * exclude pass, combined by its table), which decides both which files
 * are archived and which trees are entered.  Its shortcuts that skip
 * the rest of a tree ("all entries (not) interesting") only save work on
 * sorted trees, so deciding each entry on its own gives the same result.
 * The per-item validation follows archive.c's path_exists(): the item
 * alone, plus an implicit "match everything" item when it is an exclude
 * item, walked with tree_entry_interesting(), where a directory counts
 * when dir.c's match_pathspec() with is_dir accepts it.
 */
#include "pathspec.h"

#include "attr.h"
#include "garchive/common.h"
#include "sane-ctype.h"
#include "wildmatch.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC_TOP	(1u << 0)
#define MAGIC_LITERAL	(1u << 1)
#define MAGIC_GLOB	(1u << 2)
#define MAGIC_ICASE	(1u << 3)
#define MAGIC_EXCLUDE	(1u << 4)
#define MAGIC_ATTR	(1u << 5)

static const struct {
	unsigned int bit;
	char mnemonic;		/* short form, or 0 */
	const char *name;
} magic_names[] = {
	{ MAGIC_TOP, '/', "top" },
	{ MAGIC_LITERAL, 0, "literal" },
	{ MAGIC_GLOB, 0, "glob" },
	{ MAGIC_ICASE, 0, "icase" },
	{ MAGIC_EXCLUDE, '!', "exclude" },
	{ MAGIC_ATTR, 0, "attr" },
};

/* How an :(attr:...) requirement matches. */
struct attr_req {
	enum attr_state want;	/* SET, UNSET, UNSPECIFIED or VALUE */
	char *value;		/* ATTR_VALUE */
};

struct item {
	char *original;		/* the argument as typed */
	char *match;		/* the path part, normalised */
	size_t len;
	size_t prefix;		/* :(prefix:N), else 0 */
	size_t nowildcard_len;	/* leading part without glob characters */
	unsigned int magic;
	int onestar;		/* "<literal>*<literal>": suffix compare */
	size_t attr_nr;
	char **attr_names;
	struct attr_req *attrs;
};

struct pathspec {
	struct item *items;
	size_t nr;		/* the user's items */
	size_t total;		/* with the implicit "" if all exclude */
	unsigned int magic;	/* all items' magic OR'ed */
	struct item everything;	/* "", for validating an exclude item */
};

/* Entry kinds, as the is_dir argument. */
#define KIND_FILE	0
#define KIND_DIR	1
#define KIND_GITLINK	PATHSPEC_GITLINK

/*
 * tree_entry_interesting()'s answers.  git's "all entries not
 * interesting" is a shortcut for "not interesting, nor anything after
 * in this tree", so it folds into NOT here.
 */
#define NOT	0
#define YES	1
#define ALL	2

/* git's GIT_PATHSPEC_MAGIC characters: these cannot start a path. */
static int is_magic_char(int c)
{
	return c && strchr("!\"#%&',-/:;<=>@_`~", c) != NULL;
}

static size_t simple_length(const char *s)
{
	size_t n = 0;

	while (s[n] && !ga_is_glob_special((unsigned char)s[n]))
		n++;
	return n;
}

static int ascii_ncasecmp(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int x = ga_tolower((unsigned char)a[i]);
		int y = ga_tolower((unsigned char)b[i]);

		if (x != y)
			return x - y;
		if (!x)
			break;
	}
	return 0;
}

static int ps_ncmp(const struct item *it, const char *a, const char *b,
		   size_t n)
{
	return it->magic & MAGIC_ICASE ? ascii_ncasecmp(a, b, n)
				       : strncmp(a, b, n);
}

static void item_release(struct item *it)
{
	size_t i;

	free(it->original);
	free(it->match);
	for (i = 0; i < it->attr_nr; i++) {
		free(it->attr_names[i]);
		free(it->attrs[i].value);
	}
	free(it->attr_names);
	free(it->attrs);
	memset(it, 0, sizeof(*it));
}

/* git's attr_value_unescape(): drop backslashes, allow [A-Za-z0-9,-_]. */
static int unescape_value(char **out, const char *v)
{
	char *ret = ga_xmalloc(strlen(v) + 1), *dst = ret;

	for (; *v; v++) {
		char c;

		if (*v == '\\') {
			if (!v[1]) {
				free(ret);
				return ga_error_set("Escape character '\\' not "
					"allowed as last character in attr "
					"value");
			}
			v++;
		}
		c = *v;
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z') || strchr(",-_", c))) {
			free(ret);
			return ga_error_set("cannot use '%c' for value "
					    "matching", c);
		}
		*dst++ = c;
	}
	*dst = '\0';
	*out = ret;
	return 0;
}

/* git's parse_pathspec_attr_match(): "a -b !c d=v" separated by spaces. */
static int parse_attr_spec(struct item *it, const char *spec)
{
	const char *p = spec;

	if (it->attrs)
		return ga_error_set("Only one 'attr:' specification is "
				    "allowed.");
	if (!*spec)
		return ga_error_set("attr spec must not be empty");
	/* Registered even when every word is empty, as git does. */
	it->attrs = ga_xcalloc(1, sizeof(*it->attrs));
	while (*p) {
		size_t wlen = strcspn(p, " "), nlen;
		char *word, *name;
		struct attr_req req = { ATTR_SET, NULL };
		const char *a;
		int ret;

		if (!wlen) {
			p++;
			continue;
		}
		word = ga_xstrndup(p, wlen);
		p += wlen;
		a = word;
		if (*a == '!' || *a == '-') {
			req.want = *a == '!' ? ATTR_UNSPECIFIED : ATTR_UNSET;
			a++;
			nlen = strlen(a);
		} else {
			nlen = strcspn(a, "=");
			if (a[nlen] == '=') {
				req.want = ATTR_VALUE;
				if ((ret = unescape_value(&req.value,
							  a + nlen + 1)) < 0) {
					free(word);
					return ret;
				}
			}
		}
		name = ga_xstrndup(a, nlen);
		free(word);
		if (!attr_name_valid(name, nlen)) {
			free(req.value);
			ret = ga_error_set("invalid attribute name %s", name);
			free(name);
			return ret;
		}
		it->attrs = ga_xrealloc(it->attrs, (it->attr_nr + 1) *
					sizeof(*it->attrs));
		it->attr_names = ga_xrealloc(it->attr_names,
					     (it->attr_nr + 1) *
					     sizeof(*it->attr_names));
		it->attrs[it->attr_nr] = req;
		it->attr_names[it->attr_nr] = name;
		it->attr_nr++;
	}
	return 0;
}

/* Length up to the first unescaped character of `stop`. */
static size_t strcspn_escaped(const char *s, const char *stop)
{
	const char *p;

	for (p = s; *p; p++) {
		if (p[0] == '\\' && p[1]) {
			p++;
			continue;
		}
		if (strchr(stop, *p))
			break;
	}
	return (size_t)(p - s);
}

/* ":(magic,...)rest"; returns where the path starts in *rest. */
static int parse_long_magic(struct item *it, unsigned int *magic,
			    long *prefix, const char *elem, const char **rest)
{
	const char *pos, *next;
	int ret;

	for (pos = elem + 2; *pos && *pos != ')'; pos = next) {
		size_t len = strcspn_escaped(pos, ",)"), i;

		next = pos[len] == ',' ? pos + len + 1 : pos + len;
		if (!len)
			continue;
		if (!strncmp(pos, "prefix:", 7)) {
			char *end;

			*prefix = strtol(pos + 7, &end, 10);
			if ((size_t)(end - pos) != len)
				return ga_error_set("invalid parameter for "
						    "pathspec magic 'prefix'");
			continue;
		}
		if (!strncmp(pos, "attr:", 5)) {
			char *body = ga_xstrndup(pos + 5, len - 5);

			ret = parse_attr_spec(it, body);
			free(body);
			if (ret < 0)
				return ret;
			*magic |= MAGIC_ATTR;
			continue;
		}
		for (i = 0; i < GA_ARRAY_SIZE(magic_names); i++) {
			if (strlen(magic_names[i].name) == len &&
			    !strncmp(magic_names[i].name, pos, len)) {
				*magic |= magic_names[i].bit;
				break;
			}
		}
		if (i == GA_ARRAY_SIZE(magic_names))
			return ga_error_set("Invalid pathspec magic '%.*s' in "
					    "'%s'", (int)len, pos, elem);
	}
	if (*pos != ')')
		return ga_error_set("Missing ')' at the end of pathspec magic "
				    "in '%s'", elem);
	*rest = pos + 1;
	return 0;
}

/* ":/!^rest": mnemonics up to the first non-magic character or ':'. */
static int parse_short_magic(unsigned int *magic, const char *elem,
			     const char **rest)
{
	const char *pos;

	for (pos = elem + 1; *pos && *pos != ':'; pos++) {
		char c = *pos;
		size_t i;

		if (c == '^') {
			*magic |= MAGIC_EXCLUDE;
			continue;
		}
		if (!is_magic_char((unsigned char)c))
			break;
		for (i = 0; i < GA_ARRAY_SIZE(magic_names); i++) {
			if (magic_names[i].mnemonic == c) {
				*magic |= magic_names[i].bit;
				break;
			}
		}
		if (i == GA_ARRAY_SIZE(magic_names))
			return ga_error_set("Unimplemented pathspec magic "
					    "'%c' in '%s'", c, elem);
	}
	if (*pos == ':')
		pos++;
	*rest = pos;
	return 0;
}

/*
 * git's strbuf_realpath() for one path: symlinks resolved, only the last
 * component may be missing.  Returns 0 (result in *out), or GA_ERROR
 * with "Invalid path '<p>': <strerror>".
 */
static int real_path(char **out, const char *path)
{
	char *copy, *parent, *msg, *slash;
	size_t at = 0;
	int err;

	if ((*out = realpath(path, NULL)))
		return 0;
	err = errno;
	copy = ga_xstrdup(path);
	/* Find the first leading part that does not resolve. */
	for (;;) {
		char saved, *r;

		at++;
		while (copy[at] && copy[at] != '/')
			at++;
		saved = copy[at];
		copy[at] = '\0';
		r = realpath(copy, NULL);
		if (!r) {
			err = errno;
			break;
		}
		copy[at] = saved;
		free(r);
		if (!saved) {
			/* It resolves now: report the first failure. */
			msg = ga_xstrdup(path);
			goto fail;
		}
	}
	/* The part that failed, after its resolved parent, as git says. */
	slash = memrchr(copy, '/', at);
	*slash = '\0';
	parent = slash == copy ? NULL : realpath(copy, NULL);
	if (!parent)
		parent = ga_xstrndup(copy, (size_t)(slash - copy));
	msg = ga_xstrfmt("%s/%s", strcmp(parent, "/") ? parent : "",
			 slash + 1);
	free(parent);
	if (err == ENOENT && !path[at]) {
		/* Only the last component may be missing. */
		free(copy);
		*out = msg;
		return 0;
	}
fail:
	free(copy);
	err = ga_error_errno(err, "Invalid path '%s'", msg);
	free(msg);
	return err;
}

/*
 * git's abspath_part_inside_repo(): strip the work tree from an
 * absolute, normalised path, trying each leading part through symlinks.
 * Returns 0, 1 when outside, or an error.
 */
static int strip_worktree(char *path, const char *top)
{
	size_t tlen = strlen(top), len = strlen(path), off = 1, i;
	char *real;
	int ret;

	if (tlen <= len && !strncmp(path, top, tlen)) {
		if (path[tlen] == '/') {
			memmove(path, path + tlen + 1, len - tlen);
			return 0;
		}
		if ((tlen && path[tlen - 1] == '/') || !path[tlen]) {
			memmove(path, path + tlen, len - tlen + 1);
			return 0;
		}
		off = tlen;
	}
	for (i = off + 1; i <= len; i++) {
		if (path[i] != '/')
			continue;
		path[i] = '\0';
		ret = real_path(&real, path);
		path[i] = '/';
		if (ret < 0)
			return ret;
		ret = strcmp(real, top);
		free(real);
		if (!ret) {
			memmove(path, path + i + 1, len - i);
			return 0;
		}
	}
	if ((ret = real_path(&real, path)) < 0)
		return ret;
	ret = strcmp(real, top);
	free(real);
	if (!ret) {
		path[0] = '\0';
		return 0;
	}
	return 1;
}

/*
 * How much of the cwd prefix `cwd` (of length `len`, ending in '/') is
 * still a prefix of `cwd` + `path` once normalised: git's
 * normalize_path_copy_len() cuts it where ".." climbs into it.  That
 * part is matched literally, as :(prefix:N) is.
 */
static size_t remaining_prefix(const char *cwd, size_t len, const char *path)
{
	size_t keep = len, at = len;
	const char *p = path;

	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t n = (size_t)(end - p);

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			/* Back to the '/' before the last component. */
			while (at > 0 && cwd[at - 1] == '/')
				at--;
			while (at > 0 && cwd[at - 1] != '/')
				at--;
			if (at < keep)
				keep = at;
		} else if (n && !(n == 1 && p[0] == '.')) {
			/* Below the prefix: nothing more can cut it. */
			break;
		}
		p = *end ? end + 1 : end;
	}
	return keep;
}

/*
 * The path part of an item, relative to the top: `cwd` ("" or "sub/",
 * git 2.41's prefix) comes before a relative path.  1 when outside.
 */
static int prefix_path(char **out, size_t *kept, const char *path,
		       const char *top, int bare, const char *cwd)
{
	size_t cwd_len = *path == '/' ? 0 : strlen(cwd);
	char *joined = ga_xstrfmt("%.*s%s", (int)cwd_len, cwd, path);
	char *norm = ga_xmalloc(strlen(joined) + 1);
	int ret;

	*kept = cwd_len ? remaining_prefix(cwd, cwd_len, path) : 0;
	ret = ga_normalize_path(norm, joined);
	free(joined);
	if (ret < 0) {
		free(norm);
		return 1;
	}
	if (*path == '/') {
		ret = bare || !top ? 1 : strip_worktree(norm, top);
		if (ret) {
			free(norm);
			return ret;
		}
	}
	*out = norm;
	return 0;
}

static int global_magic(unsigned int *out, unsigned int element,
			const struct pathspec_env *env)
{
	unsigned int m = 0;

	if (env->literal)
		m |= MAGIC_LITERAL;
	/* GIT_GLOB_PATHSPECS gives way to :(literal). */
	if (env->glob && !(element & MAGIC_LITERAL))
		m |= MAGIC_GLOB;
	if (env->glob && env->noglob)
		return ga_error_set("global 'glob' and 'noglob' pathspec "
				    "settings are incompatible");
	if (env->icase)
		m |= MAGIC_ICASE;
	if ((m & MAGIC_LITERAL) && (m & ~MAGIC_LITERAL))
		return ga_error_set("global 'literal' pathspec setting is "
				    "incompatible with all other global "
				    "pathspec settings");
	/* GIT_NOGLOB_PATHSPECS means :(literal) unless :(glob) is given. */
	if (env->noglob && !(element & MAGIC_GLOB))
		m |= MAGIC_LITERAL;
	*out = m;
	return 0;
}

/* git's init_pathspec_item(). */
static int init_item(struct item *it, const char *elt, const char *top,
		     const char *cwd, const struct pathspec_env *env)
{
	size_t kept = 0;
	unsigned int element = 0, global = 0;
	const char *rest = elt;
	long prefix = -1;
	int ret;

	memset(it, 0, sizeof(*it));
	it->original = ga_xstrdup(elt);
	if (elt[0] == ':' && !env->literal) {
		if (elt[1] == '(')
			ret = parse_long_magic(it, &element, &prefix, elt,
					       &rest);
		else
			ret = parse_short_magic(&element, elt, &rest);
		if (ret < 0)
			return ret;
	}
	if ((ret = global_magic(&global, element, env)) < 0)
		return ret;
	it->magic = element | global;
	if ((it->magic & MAGIC_LITERAL) && (it->magic & MAGIC_GLOB))
		return ga_error_set("%s: 'literal' and 'glob' are "
				    "incompatible", elt);

	if (prefix >= 0) {
		/* :(prefix:N) is taken as given, like :(top). */
		it->match = ga_xstrdup(rest);
		it->prefix = prefix > INT_MAX ? (size_t)INT_MAX
					      : (size_t)prefix;
	} else if (it->magic & MAGIC_TOP) {
		it->match = ga_xstrdup(rest);
	} else {
		ret = prefix_path(&it->match, &kept, rest, top, env->bare,
				  cwd);
		if (ret < 0)
			return ret;
		if (ret)
			return ga_error_set("%s: '%s' is outside repository "
					    "at '%s'", elt, rest,
					    top ? top : "");
		it->prefix = kept;
	}
	it->len = strlen(it->match);
	if (it->magic & MAGIC_LITERAL) {
		it->nowildcard_len = it->len;
	} else {
		it->nowildcard_len = simple_length(it->match);
		if (it->nowildcard_len < it->prefix)
			it->nowildcard_len = it->prefix;
	}
	if (it->nowildcard_len > it->len || it->prefix > it->len)
		/* git hits a BUG() here: :(prefix:N) longer than the path. */
		return ga_error_set("error initializing pathspec_item");
	if (!(it->magic & MAGIC_GLOB) && it->nowildcard_len < it->len &&
	    it->match[it->nowildcard_len] == '*' &&
	    !it->match[it->nowildcard_len + 1 +
		       simple_length(it->match + it->nowildcard_len + 1)])
		it->onestar = 1;
	return 0;
}

int pathspec_parse(struct pathspec **out, char *const *args, size_t nr,
		   const char *toplevel, const struct pathspec_env *env)
{
	return pathspec_parse_in(out, args, nr, toplevel, "", env);
}

int pathspec_parse_in(struct pathspec **out, char *const *args, size_t nr,
		      const char *toplevel, const char *cwd_prefix,
		      const struct pathspec_env *env)
{
	static const struct pathspec_env no_env;
	struct pathspec *ps = ga_xcalloc(1, sizeof(*ps));
	size_t i, excludes = 0;
	int ret = 0;

	if (!env)
		env = &no_env;
	*out = NULL;
	for (i = 0; i < nr; i++) {
		if (!*args[i]) {
			ret = ga_error_set("empty string is not a valid "
					   "pathspec. please use . instead if "
					   "you meant to match all paths");
			goto done;
		}
	}
	ps->items = ga_xcalloc(nr + 1, sizeof(*ps->items));
	for (i = 0; i < nr; i++) {
		ps->nr++;
		if ((ret = init_item(&ps->items[i], args[i], toplevel,
				     cwd_prefix, env)) < 0)
			goto done;
		if (ps->items[i].magic & MAGIC_EXCLUDE)
			excludes++;
		ps->magic |= ps->items[i].magic;
	}
	ps->total = ps->nr;
	/*
	 * git adds an item matching everything when all are excludes, the
	 * same (with the global magic) as the one path_exists() adds to an
	 * exclude item checked alone.
	 */
	if (nr && (ret = init_item(&ps->everything, "", toplevel,
				cwd_prefix, env)) < 0)
		goto done;
	if (nr && excludes == nr) {
		ret = init_item(&ps->items[nr], "", toplevel, cwd_prefix,
			       env);
		if (ret < 0)
			goto done;
		ps->total++;
	}
done:
	if (ret < 0) {
		pathspec_free(ps);
		return ret;
	}
	*out = ps;
	return 0;
}

size_t pathspec_nr(const struct pathspec *ps)
{
	return ps ? ps->nr : 0;
}

const char *pathspec_original(const struct pathspec *ps, size_t i)
{
	return ps->items[i].original;
}

int pathspec_is_exclude(const struct pathspec *ps, size_t i)
{
	return !!(ps->items[i].magic & MAGIC_EXCLUDE);
}

void pathspec_free(struct pathspec *ps)
{
	size_t i;

	if (!ps)
		return;
	for (i = 0; i < ps->nr + 1 && ps->items; i++)
		item_release(&ps->items[i]);
	item_release(&ps->everything);
	free(ps->items);
	free(ps);
}

/*
 * git's git_fnmatch(): compare `prefix` bytes literally, then match the
 * rest; returns 1 on a match.  A negative prefix compares nothing.
 */
static int item_fnmatch(const struct item *it, const char *pattern,
			const char *string, long prefix)
{
	unsigned int flags = it->magic & MAGIC_ICASE ? WM_CASEFOLD : 0;

	if (prefix > 0) {
		if (ps_ncmp(it, pattern, string, (size_t)prefix))
			return 0;
		pattern += prefix;
		string += prefix;
	}
	if (it->onestar) {
		size_t plen = strlen(++pattern), slen = strlen(string);

		return slen >= plen &&
		       !ps_ncmp(it, pattern, string + slen - plen, plen + 1);
	}
	if (it->magic & MAGIC_GLOB)
		flags |= WM_PATHNAME;
	return wildmatch(pattern, string, flags) == WM_MATCH;
}

/* git's match_pathspec_attrs(): 1, 0 or an error. */
static int attrs_match(const struct item *it, const char *path,
		       pathspec_attr_fn attr, void *payload)
{
	struct attr_value *v;
	size_t i;
	int ret;

	if (!it->attr_nr)
		return 1;
	if (!attr)
		return 0;	/* no attributes: every one unspecified */
	v = ga_xcalloc(it->attr_nr, sizeof(*v));
	ret = attr(v, path, 0, (const char *const *)it->attr_names,
		   it->attr_nr, payload);
	if (ret >= 0)
		ret = 1;
	for (i = 0; ret > 0 && i < it->attr_nr; i++) {
		const struct attr_req *r = &it->attrs[i];

		if (v[i].state != r->want ||
		    (r->want == ATTR_VALUE &&
		     strcmp(r->value, v[i].value ? v[i].value : "")))
			ret = 0;
	}
	free(v);
	return ret;
}

/* tree-walk.c's basecmp(): the :(prefix:N) part is case sensitive. */
static int basecmp(const struct item *it, const char *base,
		   const char *match, size_t len)
{
	if (it->magic & MAGIC_ICASE) {
		size_t n = len > it->prefix ? it->prefix : len;
		int r = strncmp(base, match, n);

		if (r)
			return r;
		base += n;
		match += n;
		len -= n;
	}
	return ps_ncmp(it, base, match, len);
}

/* tree-walk.c's match_dir_prefix(). */
static int match_dir_prefix(const struct item *it, const char *base,
			    const char *match, size_t matchlen)
{
	if (basecmp(it, base, match, matchlen))
		return 0;
	return !matchlen || base[matchlen] == '/' ||
	       match[matchlen - 1] == '/';
}

/*
 * tree-walk.c's match_entry() without its sort shortcut: does the
 * entry `name` equal the rest of the pathspec, or lead to it?
 */
static int match_entry(const struct item *it, int kind, const char *name,
		       size_t namelen, const char *match, size_t matchlen)
{
	if (namelen > matchlen)
		return 0;
	if (matchlen > namelen) {
		if (match[namelen] != '/')
			return 0;
		/* Only a submodule may be named "sub/" and nothing more. */
		if (kind != KIND_DIR &&
		    (kind != KIND_GITLINK || matchlen > namelen + 1))
			return 0;
	}
	return !ps_ncmp(it, match, name, namelen);
}

/*
 * One pass of tree_entry_interesting() (its do_match()) over `items`,
 * include or exclude ones.  `path` is the entry's full path, `baselen`
 * the length of its directory part including the slash.  Returns NOT,
 * YES, ALL or an error from the attribute callback.
 */
static int do_match(const struct item *items, size_t nr, int exclude,
		    const char *path, size_t baselen, int kind,
		    pathspec_attr_fn attr, void *payload)
{
	const char *name = path + baselen;
	size_t namelen = strlen(name), i;

	for (i = nr; i > 0; i--) {
		const struct item *it = &items[i - 1];
		const char *match = it->match;
		size_t matchlen = it->len;
		int ret;

		if (!(it->magic & MAGIC_EXCLUDE) != !exclude)
			continue;

		if (baselen >= matchlen) {
			if (!match_dir_prefix(it, path, match, matchlen))
				goto wildcards;
			if (!it->attr_nr)
				return ALL;
			goto interesting;
		}

		/* The base must be a leading part of the pathspec. */
		if (!baselen || !basecmp(it, path, match, baselen)) {
			if (match_entry(it, kind, name, namelen,
					match + baselen, matchlen - baselen))
				goto interesting;
			if (it->nowildcard_len < it->len) {
				if (item_fnmatch(it, match + baselen, name,
						 (long)it->nowildcard_len -
						 (long)baselen))
					goto interesting;
				/* Trees may hold matches: enter them. */
				if (kind == KIND_DIR)
					return YES;
			}
			continue;
		}

wildcards:
		if (it->nowildcard_len >= it->len)
			continue;
		if (item_fnmatch(it, match, path, (long)it->nowildcard_len))
			goto interesting;
		if (kind == KIND_DIR)
			return YES;
		continue;

interesting:
		if (it->attr_nr) {
			/* A tree may hold matching files whatever its own. */
			if (kind == KIND_DIR)
				return YES;
			ret = attrs_match(it, path, attr, payload);
			if (ret < 0)
				return ret;
			if (!ret)
				continue;
		}
		return YES;
	}
	return NOT;
}

/* tree_entry_interesting(): NOT, YES, ALL or an error. */
static int entry_interesting(const struct item *items, size_t nr,
			     int has_exclude, const char *path, int kind,
			     pathspec_attr_fn attr, void *payload)
{
	const char *slash = strrchr(path, '/');
	size_t baselen = slash ? (size_t)(slash - path) + 1 : 0;
	int pos, neg;

	if (!nr)
		return ALL;
	pos = do_match(items, nr, 0, path, baselen, kind, attr, payload);
	if (pos < 0 || !has_exclude || pos == NOT)
		return pos;
	neg = do_match(items, nr, 1, path, baselen, kind, attr, payload);
	if (neg < 0)
		return neg;
	if (pos == ALL && neg == NOT)
		return YES;
	if (neg == NOT)
		return pos;
	/* An exclude matching a tree may still spare some of its files. */
	if (kind == KIND_DIR && neg == YES)
		return YES;
	return NOT;
}

static int has_exclude(const struct item *items, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (items[i].magic & MAGIC_EXCLUDE)
			return 1;
	}
	return 0;
}

int pathspec_match(const struct pathspec *ps, const char *path, int is_dir,
		   pathspec_attr_fn attr, void *payload)
{
	int ret;

	if (!ps || !ps->total)
		return 1;
	ret = entry_interesting(ps->items, ps->total,
				!!(ps->magic & MAGIC_EXCLUDE), path, is_dir,
				attr, payload);
	return ret < 0 ? ret : ret != NOT;
}

int pathspec_may_match_inside(const struct pathspec *ps, const char *dir)
{
	/* Trees never consult attributes. */
	return pathspec_match(ps, dir, KIND_DIR, NULL, NULL);
}

/* The pathspec path_exists() builds for item i: it, plus "" if exclude. */
static size_t single(const struct pathspec *ps, size_t i, struct item *two)
{
	two[0] = ps->items[i];
	if (!(two[0].magic & MAGIC_EXCLUDE))
		return 1;
	two[1] = ps->everything;
	return 2;
}

/*
 * dir.c's match_pathspec_item() with DO_MATCH_DIRECTORY, for a tree
 * `name` (no trailing slash): 1, 0 or an error.
 */
static int dir_match_item(const struct item *it, const char *name,
			  pathspec_attr_fn attr, void *payload)
{
	const char *match = it->match;
	size_t matchlen = it->len, namelen = strlen(name);
	int ret;

	if (it->prefix && (it->magic & MAGIC_ICASE) &&
	    strncmp(match, name, it->prefix))
		return 0;
	if (it->attr_nr && (ret = attrs_match(it, name, attr, payload)) <= 0)
		return ret;
	if (!*match)
		return 1;
	if (matchlen <= namelen && !ps_ncmp(it, match, name, matchlen)) {
		if (matchlen == namelen || match[matchlen - 1] == '/' ||
		    name[matchlen] == '/')
			return 1;
	} else if (match[matchlen - 1] == '/' && namelen == matchlen - 1 &&
		   !ps_ncmp(it, match, name, namelen)) {
		return 1;
	}
	if (it->nowildcard_len < it->len &&
	    item_fnmatch(it, match, name, (long)it->nowildcard_len))
		return 1;
	return 0;
}

/* dir.c's match_pathspec() for a tree: includes, then excludes. */
static int dir_matches(const struct item *items, size_t nr,
		       const char *name, pathspec_attr_fn attr,
		       void *payload)
{
	int pass, found[2] = { 0, 0 };
	size_t i;

	for (pass = 0; pass < 2; pass++) {
		for (i = nr; i > 0; i--) {
			const struct item *it = &items[i - 1];
			int ret;

			if (!(it->magic & MAGIC_EXCLUDE) != !pass)
				continue;
			ret = dir_match_item(it, name, attr, payload);
			if (ret < 0)
				return ret;
			found[pass] |= ret;
		}
		if (!found[0] || !has_exclude(items, nr))
			return found[0];
	}
	return !found[1];
}

int pathspec_item_match(const struct pathspec *ps, size_t i,
			const char *path, int is_dir,
			pathspec_attr_fn attr, void *payload)
{
	struct item two[2];
	size_t n = single(ps, i, two);
	int ret;

	ret = entry_interesting(two, n, n == 2, path, is_dir, attr, payload);
	if (ret < 0 || ret == NOT)
		return ret < 0 ? ret : 0;
	if (is_dir != KIND_DIR)
		return 1;
	return dir_matches(two, n, path, attr, payload);
}

int pathspec_item_may_match_inside(const struct pathspec *ps, size_t i,
				   const char *dir)
{
	struct item two[2];
	size_t n = single(ps, i, two);

	return entry_interesting(two, n, n == 2, dir, KIND_DIR, NULL,
				 NULL) != NOT;
}

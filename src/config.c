/*
 * config.c: git's configuration stack, read the way git 2.39 reads it.
 *
 * garchive parses the files itself rather than through libgit2's file
 * backend: git's messages name the file and line of a bad entry, report
 * the origin of included entries, and follow git's parser quirks, and
 * libgit2 1.5 knows neither the GIT_CONFIG_* variables nor
 * includeIf.hasconfig.  The result is one flat list of entries in git's
 * order, immutable after config_load().  libgit2 gets the same list
 * through a read-only in-memory backend (config_libgit2()).
 */
#include "garchive/config.h"
#include "garchive/common.h"
#include "sane-ctype.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libgit2.h"
#include <git2/sys/config.h>

#define CONFIG_MAX_INCLUDE_DEPTH 10
#define CONFIG_SYSTEM_FILE "/etc/gitconfig"

/* What a backend hands libgit2 (see libgit2.h), and the entry in it. */
#ifdef GA_LIBGIT2_BACKEND_ENTRY
typedef git_config_backend_entry lg_entry;
#define LG_BASE(e) (&(e)->entry)
#else
typedef git_config_entry lg_entry;
#define LG_BASE(e) (e)
#endif

struct entry {
	char *name;		/* canonical: section and key lower case */
	char *value;		/* NULL for an implicit true */
	const char *file;	/* display path, NULL for the command line */
	const char *origin;	/* " in file <file>" or "" */
	int line;
	enum config_scope scope;
	lg_entry lg;		/* the same entry for libgit2 */
};

/*
 * The entries, shared with the libgit2 backend (and its snapshots),
 * which may outlive the struct ga_config: hence the reference count.
 */
struct table {
	int refs;
	struct entry *items;
	size_t nr, alloc;
	char **strings;		/* interned file names and origins */
	size_t strings_nr, strings_alloc;
};

struct ga_config {
	struct table *tab;
	git_config *lg;
};

/* ------------------------------------------------------------------ */
/* Characters */

static int iskeychar(int c)
{
	return ga_isalnum(c) || c == '-';
}

/* ------------------------------------------------------------------ */
/* The table */

static struct table *table_new(void)
{
	struct table *t = ga_xcalloc(1, sizeof(*t));

	t->refs = 1;
	return t;
}

static void table_ref(struct table *t)
{
	__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
}

static void table_unref(struct table *t)
{
	size_t i;

	if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL))
		return;
	for (i = 0; i < t->nr; i++) {
		free(t->items[i].name);
		free(t->items[i].value);
	}
	for (i = 0; i < t->strings_nr; i++)
		free(t->strings[i]);
	free(t->items);
	free(t->strings);
	free(t);
}

static const char *table_intern(struct table *t, char *s)
{
	GA_ALLOC_GROW(t->strings, t->strings_nr + 1, t->strings_alloc);
	t->strings[t->strings_nr++] = s;
	return s;
}

static void noop_entry_free(lg_entry *e)
{
	(void)e;
}

static git_config_level_t scope_level(enum config_scope scope)
{
	switch (scope) {
	case CONFIG_SCOPE_SYSTEM:
		return GIT_CONFIG_LEVEL_SYSTEM;
	case CONFIG_SCOPE_XDG:
		return GIT_CONFIG_LEVEL_XDG;
	case CONFIG_SCOPE_GLOBAL:
		return GIT_CONFIG_LEVEL_GLOBAL;
	case CONFIG_SCOPE_LOCAL:
	case CONFIG_SCOPE_WORKTREE:
		return GIT_CONFIG_LEVEL_LOCAL;
	case CONFIG_SCOPE_COMMAND:
		break;
	}
	return GIT_CONFIG_LEVEL_APP;
}

/* ------------------------------------------------------------------ */
/* Loading */

/* One file (or the command line) being read. */
struct source {
	const char *display;	/* git's name for it; NULL: command line */
	const char *fspath;	/* what to open and resolve against */
	const char *file;	/* interned display path */
	const char *origin;	/* interned " in file ..." */
};

struct loader {
	struct table *tab;
	git_repository *repo;
	char *git_dir;		/* for includeIf gitdir: absolute, no '/' */
	char *branch;		/* HEAD's branch for onbranch, or NULL */
	int branch_known;
	enum config_scope scope;
	int depth;
	int read_failed;	/* a top-level file could not be read */

	/*
	 * includeIf.hasconfig:remote.*.url: the URLs are gathered by a
	 * second loader over the whole stack, which takes every hasconfig
	 * include as true and forbids remote URLs inside them.
	 */
	int collect;		/* this loader only gathers URLs */
	int forbid_urls;	/* inside a hasconfig include */
	char **urls;
	size_t urls_nr, urls_alloc;
	int urls_known;
};

/*
 * What an entry callback returns: 0; CB_FAILED when it reported an
 * error that makes git call the line bad; or a negative error code
 * with the message already set (git's die()).
 */
#define CB_FAILED 1

static int on_entry(struct loader *ld, const struct source *src,
		    const char *name, const char *value, int line);

static void add_entry(struct loader *ld, const struct source *src,
		      const char *name, const char *value, int line)
{
	struct table *t = ld->tab;
	struct entry *e;

	GA_ALLOC_GROW(t->items, t->nr + 1, t->alloc);
	e = &t->items[t->nr++];
	memset(e, 0, sizeof(*e));
	e->name = ga_xstrdup(name);
	e->value = value ? ga_xstrdup(value) : NULL;
	e->file = src->file;
	e->origin = src->origin ? src->origin : "";
	e->line = src->display ? line : -1;
	e->scope = ld->scope;
	/* Pointers are fixed up once the table stops growing. */
	LG_BASE(&e->lg)->include_depth = (unsigned int)ld->depth;
	LG_BASE(&e->lg)->level = scope_level(ld->scope);
	e->lg.free = noop_entry_free;
}

/* The directory part of `path` with its slash ("" if none). */
static char *dir_with_slash(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? ga_xstrndup(path, (size_t)(slash - path + 1))
		     : ga_xstrdup("");
}

/*
 * git's access_or_die(): 0 when readable, 1 when absent (or unreadable
 * and `eacces_ok`), else a fatal error.
 */
static int check_access(const char *fspath, const char *display,
			int eacces_ok)
{
	if (!access(fspath, R_OK))
		return 0;
	if (errno == ENOENT || errno == ENOTDIR ||
	    (eacces_ok && errno == EACCES))
		return 1;
	return ga_error_errno(errno, "unable to access '%s'", display);
}

static int read_whole(struct ga_buf *out, const char *path)
{
	FILE *f = fopen(path, "r");
	char chunk[8192];
	size_t n;
	int err = 0;

	if (!f)
		return errno;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ga_buf_put(out, chunk, n);
	if (ferror(f))
		err = errno ? errno : EIO;
	fclose(f);
	return err;
}

/* --- the file parser: git_parse_source()'s grammar and line counts --- */

struct parser {
	const unsigned char *buf;
	size_t len, pos;
	int linenr;
	int eof;
	struct ga_buf var;
	struct ga_buf value;
};

static int next_char(struct parser *p)
{
	int c;

	if (p->pos < p->len)
		c = p->buf[p->pos++];
	else
		c = EOF;
	if (c == '\r') {
		/* CRLF reads as LF; a lone CR stays a character. */
		if (p->pos < p->len && p->buf[p->pos] == '\n') {
			p->pos++;
			c = '\n';
		}
	}
	if (c == '\n')
		p->linenr++;
	if (c == EOF) {
		p->eof = 1;
		p->linenr++;
		c = '\n';
	}
	return c;
}

/* NULL on a syntax error. */
static const char *parse_value(struct parser *p)
{
	int quote = 0, comment = 0, space = 0;

	ga_buf_setlen(&p->value, 0);
	ga_buf_puts(&p->value, "");
	for (;;) {
		int c = next_char(p);

		if (c == '\n') {
			if (quote) {
				p->linenr--;
				return NULL;
			}
			return p->value.ptr;
		}
		if (comment)
			continue;
		if (ga_isspace(c) && !quote) {
			if (p->value.len)
				space++;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = 1;
			continue;
		}
		for (; space; space--)
			ga_buf_putc(&p->value, ' ');
		if (c == '\\') {
			c = next_char(p);
			switch (c) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				return NULL;
			}
			ga_buf_putc(&p->value, c);
			continue;
		}
		if (c == '"') {
			quote = 1 - quote;
			continue;
		}
		ga_buf_putc(&p->value, c);
	}
}

/* The rest of an entry whose first letter is in p->var. */
static int parse_entry(struct loader *ld, const struct source *src,
		       struct parser *p)
{
	const char *value = NULL;
	int c, ret;

	for (;;) {
		c = next_char(p);
		if (p->eof || !iskeychar(c))
			break;
		ga_buf_putc(&p->var, ga_tolower(c));
	}
	while (c == ' ' || c == '\t')
		c = next_char(p);
	if (c != '\n') {
		if (c != '=')
			return CB_FAILED;
		if (!(value = parse_value(p)))
			return CB_FAILED;
	}
	/* The line of the entry, not the one after it, as git reports. */
	p->linenr--;
	ret = on_entry(ld, src, p->var.ptr, value, p->linenr);
	if (ret == 0)
		p->linenr++;
	return ret;
}

/* [section "subsection"]: called after the space that ends the name. */
static int parse_extended_section(struct parser *p, int c)
{
	do {
		if (c == '\n')
			goto incomplete;
		c = next_char(p);
	} while (ga_isspace(c));
	if (c != '"')
		return -1;
	ga_buf_putc(&p->var, '.');
	for (;;) {
		c = next_char(p);
		if (c == '\n')
			goto incomplete;
		if (c == '"')
			break;
		if (c == '\\') {
			c = next_char(p);
			if (c == '\n')
				goto incomplete;
		}
		ga_buf_putc(&p->var, c);
	}
	if (next_char(p) != ']')
		return -1;
	return 0;
incomplete:
	p->linenr--;
	return -1;
}

static int parse_section(struct parser *p)
{
	for (;;) {
		int c = next_char(p);

		if (p->eof)
			return -1;
		if (c == ']')
			return 0;
		if (ga_isspace(c))
			return parse_extended_section(p, c);
		if (!iskeychar(c) && c != '.')
			return -1;
		ga_buf_putc(&p->var, ga_tolower(c));
	}
}

static int parse_source(struct loader *ld, const struct source *src,
			const struct ga_buf *data)
{
	static const unsigned char bom[] = { 0xef, 0xbb, 0xbf };
	struct parser p = { 0 };
	size_t bom_seen = 0, baselen = 0;
	int comment = 0, error = 0, ret;

	p.buf = (const unsigned char *)(data->ptr ? data->ptr : "");
	p.len = data->len;
	p.linenr = 1;
	ga_buf_puts(&p.var, "");
	for (;;) {
		int c = next_char(&p);

		/* A UTF-8 byte order mark is skipped, a partial one is bad. */
		if (bom_seen < sizeof(bom)) {
			if (c == bom[bom_seen] && !p.eof) {
				bom_seen++;
				continue;
			}
			if (bom_seen)
				break;
			bom_seen = sizeof(bom);
		}
		if (c == '\n') {
			if (p.eof)
				goto done;
			comment = 0;
			continue;
		}
		if (comment || ga_isspace(c))
			continue;
		if (c == '#' || c == ';') {
			comment = 1;
			continue;
		}
		if (c == '[') {
			ga_buf_setlen(&p.var, 0);
			if (parse_section(&p) < 0 || p.var.len < 1)
				break;
			ga_buf_putc(&p.var, '.');
			baselen = p.var.len;
			continue;
		}
		if (!ga_isalpha(c))
			break;
		ga_buf_setlen(&p.var, baselen);
		ga_buf_putc(&p.var, ga_tolower(c));
		ret = parse_entry(ld, src, &p);
		if (ret < 0) {
			error = ret;
			goto done;
		}
		if (ret)
			break;
	}
	error = ga_error_set("bad config line %d in file %s", p.linenr,
			     src->display);
done:
	ga_buf_release(&p.var);
	ga_buf_release(&p.value);
	return error;
}

static void source_init(struct loader *ld, struct source *src,
			const char *display, const char *fspath)
{
	memset(src, 0, sizeof(*src));
	src->display = display;
	src->fspath = fspath;
	if (display) {
		src->file = table_intern(ld->tab, ga_xstrdup(display));
		src->origin = table_intern(ld->tab,
					   ga_xstrfmt(" in file %s", display));
	}
}

/*
 * git_config_from_file(): returns 0, 1 when the file could not be read
 * (after git's warning), or an error code.
 */
static int read_file(struct loader *ld, const char *display,
		     const char *fspath)
{
	struct ga_buf data = GA_BUF_INIT;
	struct source src;
	int err, error;

	if ((err = read_whole(&data, fspath))) {
		ga_buf_release(&data);
		if (err != ENOENT && err != ENOTDIR)
			ga_warning("unable to access '%s': %s", display,
				   strerror(err));
		return 1;
	}
	source_init(ld, &src, display, fspath);
	error = parse_source(ld, &src, &data);
	ga_buf_release(&data);
	return error;
}

/* A top-level file of the stack, as do_git_config_sequence() reads it. */
static int read_level(struct loader *ld, enum config_scope scope,
		      const char *display, const char *fspath, int eacces_ok)
{
	int ret;

	ld->scope = scope;
	if ((ret = check_access(fspath, display, eacces_ok)))
		return ret < 0 ? ret : 0;
	ret = read_file(ld, display, fspath);
	if (ret == 1)
		ld->read_failed = 1;
	return ret < 0 ? ret : 0;
}

/* --- includes --- */

/* include.path and includeIf.<cond>.path */
static int include_file(struct loader *ld, const struct source *src,
			const char *value)
{
	char *expanded, *display = NULL, *fspath = NULL, *dir;
	int ret = 0;

	if (!value) {
		ga_report(GA_REPORT_ERROR, "missing value for '%s'",
			  "include.path");
		return CB_FAILED;
	}
	if (!(expanded = ga_interpolate_path(value, 0))) {
		ga_report(GA_REPORT_ERROR,
			  "could not expand include path '%s'", value);
		return CB_FAILED;
	}
	if (expanded[0] == '/') {
		display = ga_xstrdup(expanded);
		fspath = ga_xstrdup(expanded);
	} else if (!src->display) {
		ga_report(GA_REPORT_ERROR,
			  "relative config includes must come from files");
		ret = CB_FAILED;
		goto done;
	} else {
		/*
		 * Relative to the including file: by name for messages
		 * (git's own cwd makes that name valid), by the path we
		 * opened for reading.
		 */
		dir = dir_with_slash(src->display);
		display = ga_xstrfmt("%s%s", dir, expanded);
		free(dir);
		dir = dir_with_slash(src->fspath);
		fspath = ga_xstrfmt("%s%s", dir, expanded);
		free(dir);
	}

	if ((ret = check_access(fspath, display, 0))) {
		if (ret > 0)
			ret = 0;
		goto done;
	}
	if (++ld->depth > CONFIG_MAX_INCLUDE_DEPTH) {
		ret = ga_error_set("exceeded maximum include depth (%d) "
				   "while including\n\t%s\nfrom\n\t%s\n"
				   "This might be due to circular includes.",
				   CONFIG_MAX_INCLUDE_DEPTH, display,
				   src->display ? src->display :
				   "the command line");
		goto done;
	}
	ret = read_file(ld, display, fspath);
	ld->depth--;

done:
	free(expanded);
	free(display);
	free(fspath);
	return ret;
}

/*
 * A glob matcher with git's wildmatch() semantics under WM_PATHNAME:
 * '*', '?' and classes stop at '/', a "**" component crosses
 * directories.  Used only for includeIf patterns.
 * TODO: use src/wildmatch.h once it is on this branch; this private
 * copy exists because the branches are built separately.
 */
static int char_eq(int a, int b, int icase)
{
	return icase ? ga_tolower(a) == ga_tolower(b) : a == b;
}

static int class_has(const char *name, size_t len, int c)
{
	static const struct {
		const char *name;
		int (*fn)(int);
	} classes[] = {
		{ "alnum", ga_isalnum }, { "alpha", ga_isalpha },
	};
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(classes); i++)
		if (strlen(classes[i].name) == len &&
		    !strncmp(classes[i].name, name, len))
			return classes[i].fn(c);
	if (len == 5 && !strncmp(name, "digit", 5))
		return c >= '0' && c <= '9';
	if (len == 5 && !strncmp(name, "lower", 5))
		return c >= 'a' && c <= 'z';
	if (len == 5 && !strncmp(name, "upper", 5))
		return c >= 'A' && c <= 'Z';
	if (len == 5 && !strncmp(name, "space", 5))
		return ga_isspace(c);
	if (len == 5 && !strncmp(name, "blank", 5))
		return c == ' ' || c == '\t';
	if (len == 6 && !strncmp(name, "xdigit", 6))
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
		       (c >= 'A' && c <= 'F');
	if (len == 5 && !strncmp(name, "punct", 5))
		return c > ' ' && c < 127 && !ga_isalnum(c);
	if (len == 5 && !strncmp(name, "graph", 5))
		return c > ' ' && c < 127;
	if (len == 5 && !strncmp(name, "print", 5))
		return c >= ' ' && c < 127;
	if (len == 5 && !strncmp(name, "cntrl", 5))
		return c < ' ' || c == 127;
	return -1;
}

/* A bracket expression at *pp (after '['); -1 for a malformed one. */
static int match_class(const char **pp, int t, int icase)
{
	const char *p = *pp;
	int negate = 0, matched = 0, prev = -1;

	if (*p == '!' || *p == '^') {
		negate = 1;
		p++;
	}
	do {
		int c = (unsigned char)*p;

		if (!c)
			return -1;
		if (c == '\\') {
			if (!(c = (unsigned char)*++p))
				return -1;
			if (char_eq(c, t, icase))
				matched = 1;
		} else if (c == '-' && prev >= 0 && p[1] && p[1] != ']') {
			int hi = (unsigned char)*++p;

			if (hi == '\\' && !(hi = (unsigned char)*++p))
				return -1;
			if ((t >= prev && t <= hi) ||
			    (icase && ga_tolower(t) >= ga_tolower(prev) &&
			     ga_tolower(t) <= ga_tolower(hi)))
				matched = 1;
			c = -1;
		} else if (c == '[' && p[1] == ':') {
			const char *name = p + 2, *end = strstr(name, ":]");
			int r;

			if (!end)
				return -1;
			r = class_has(name, (size_t)(end - name), t);
			if (r < 0)
				return -1;
			if (r || (icase && (class_has(name,
				(size_t)(end - name), ga_tolower(t)) > 0)))
				matched = 1;
			p = end + 1;
			c = -1;
		} else if (char_eq(c, t, icase)) {
			matched = 1;
		}
		prev = c;
		p++;
	} while (*p != ']');
	*pp = p;
	return matched != negate;
}

static int glob_at(const char *pat, const char *p, const char *t, int icase)
{
	for (; *p; p++, t++) {
		int c = (unsigned char)*p, r;

		switch (c) {
		case '\\':
			if (!p[1])
				return 0;
			p++;
			if (!char_eq((unsigned char)*p, (unsigned char)*t,
				     icase))
				return 0;
			break;
		case '?':
			if (!*t || *t == '/')
				return 0;
			break;
		case '[':
			if (!*t || *t == '/')
				return 0;
			p++;
			r = match_class(&p, (unsigned char)*t, icase);
			if (r <= 0)
				return 0;
			break;
		case '*': {
			const char *first = p;

			while (p[1] == '*')
				p++;
			if (p > first && (first == pat || first[-1] == '/') &&
			    (!p[1] || p[1] == '/')) {
				const char *s = t;

				if (!p[1])
					return 1;
				/* "**" followed by '/': zero or more dirs */
				for (;;) {
					if (glob_at(pat, p + 2, s, icase))
						return 1;
					if (!(s = strchr(s, '/')))
						return 0;
					s++;
				}
			}
			for (;; t++) {
				if (glob_at(pat, p + 1, t, icase))
					return 1;
				if (!*t || *t == '/')
					return 0;
			}
		}
		default:
			if (!*t || !char_eq(c, (unsigned char)*t, icase))
				return 0;
		}
	}
	return !*t;
}

static int glob_match(const char *pattern, const char *text, int icase)
{
	return glob_at(pattern, pattern, text, icase);
}

static void add_trailing_starstar(struct ga_buf *pat)
{
	if (pat->len && pat->ptr[pat->len - 1] == '/')
		ga_buf_puts(pat, "**");
}

static int include_by_gitdir(struct loader *ld, const struct source *src,
			     const char *cond, size_t len, int icase)
{
	struct ga_buf pat = GA_BUF_INIT;
	char *expanded, *real = NULL;
	const char *texts[2];
	size_t prefix = 0, i;
	int ret = 0;

	if (!ld->git_dir)
		return 0;
	ga_buf_put(&pat, cond, len);
	if ((expanded = ga_interpolate_path(pat.ptr, 1))) {
		ga_buf_setlen(&pat, 0);
		ga_buf_puts(&pat, expanded);
		free(expanded);
	}
	if (pat.ptr[0] == '.' && pat.ptr[1] == '/') {
		char *file, *slash;
		struct ga_buf tmp = GA_BUF_INIT;

		if (!src->fspath) {
			ga_report(GA_REPORT_ERROR, "relative config include "
				  "conditionals must come from files");
			goto done;
		}
		if (!(file = realpath(src->fspath, NULL))) {
			ret = ga_error_errno(errno, "Invalid path '%s'",
					     src->fspath);
			goto done;
		}
		slash = strrchr(file, '/');
		ga_buf_put(&tmp, file, (size_t)(slash - file));
		ga_buf_puts(&tmp, pat.ptr + 1);
		prefix = (size_t)(slash - file) + 1;
		free(file);
		ga_buf_release(&pat);
		pat = tmp;
	} else if (pat.ptr[0] != '/') {
		struct ga_buf tmp = GA_BUF_INIT;

		ga_buf_puts(&tmp, "**/");
		ga_buf_puts(&tmp, pat.ptr);
		ga_buf_release(&pat);
		pat = tmp;
	}
	add_trailing_starstar(&pat);

	/* The real path first, then the path as given (symlinked homes). */
	real = realpath(ld->git_dir, NULL);
	texts[0] = real ? real : ld->git_dir;
	texts[1] = ld->git_dir;
	for (i = 0; i < 2 && !ret; i++) {
		const char *t = texts[i];

		if (prefix) {
			if (strlen(t) < prefix)
				continue;
			if (icase ? strncasecmp(pat.ptr, t, prefix)
				  : strncmp(pat.ptr, t, prefix))
				continue;
		}
		ret = glob_match(pat.ptr + prefix, t + prefix, icase);
	}
done:
	free(real);
	ga_buf_release(&pat);
	return ret;
}

static int include_by_branch(struct loader *ld, const char *cond,
			     size_t len)
{
	struct ga_buf pat = GA_BUF_INIT;
	int ret;

	if (!ld->branch_known) {
		git_reference *head = NULL;

		ld->branch_known = 1;
		if (ld->repo &&
		    !git_reference_lookup(&head, ld->repo, "HEAD") &&
		    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
			const char *t = git_reference_symbolic_target(head);

			if (!strncmp(t, "refs/heads/", 11))
				ld->branch = ga_xstrdup(t + 11);
		}
		git_reference_free(head);
	}
	if (!ld->branch)
		return 0;
	ga_buf_put(&pat, cond, len);
	add_trailing_starstar(&pat);
	ret = glob_match(pat.ptr, ld->branch, 0);
	ga_buf_release(&pat);
	return ret;
}

static int load_stack(struct loader *ld);

static int include_by_remote_url(struct loader *ld, const char *cond,
				 size_t len)
{
	struct ga_buf pat = GA_BUF_INIT;
	size_t i;
	int ret = 0;

	if (ld->collect)
		return 1;
	if (!ld->urls_known) {
		struct loader sub = { 0 };

		sub.tab = table_new();
		sub.repo = ld->repo;
		sub.git_dir = ld->git_dir;
		sub.collect = 1;
		ret = load_stack(&sub);
		table_unref(sub.tab);
		free(sub.branch);
		ld->urls = sub.urls;
		ld->urls_nr = sub.urls_nr;
		ld->urls_alloc = sub.urls_alloc;
		ld->urls_known = 1;
		if (ret < 0)
			return ret;
	}
	ga_buf_put(&pat, cond, len);
	for (i = 0; i < ld->urls_nr && !ret; i++)
		ret = glob_match(pat.ptr, ld->urls[i], 0);
	ga_buf_release(&pat);
	return ret;
}

/* git's parse_config_key(): "<section>.<subsection>.<key>". */
static int split_key(const char *name, const char *section,
		     const char **sub, size_t *sub_len, const char **key)
{
	size_t n = strlen(section);
	const char *dot;

	if (strncmp(name, section, n) || name[n] != '.')
		return -1;
	name += n + 1;
	dot = strrchr(name, '.');
	*key = dot ? dot + 1 : name;
	*sub = dot ? name : NULL;
	*sub_len = dot ? (size_t)(dot - name) : 0;
	return 0;
}

static int condition_is_true(struct loader *ld, const struct source *src,
			     const char *cond, size_t len)
{
	static const struct {
		const char *prefix;
		int kind;
	} kinds[] = {
		{ "gitdir:", 0 }, { "gitdir/i:", 1 }, { "onbranch:", 2 },
		{ "hasconfig:remote.*.url:", 3 },
	};
	size_t i, n;

	for (i = 0; i < GA_ARRAY_SIZE(kinds); i++) {
		n = strlen(kinds[i].prefix);
		if (len < n || strncmp(cond, kinds[i].prefix, n))
			continue;
		switch (kinds[i].kind) {
		case 0:
		case 1:
			return include_by_gitdir(ld, src, cond + n, len - n,
						 kinds[i].kind);
		case 2:
			return include_by_branch(ld, cond + n, len - n);
		default:
			return include_by_remote_url(ld, cond + n, len - n);
		}
	}
	/* Unknown conditions are false. */
	return 0;
}

/* git_config_include(): store the entry, then follow it if it includes. */
static int on_entry(struct loader *ld, const struct source *src,
		    const char *name, const char *value, int line)
{
	const char *sub, *key;
	size_t sub_len;
	int ret;

	if (ld->collect) {
		if (!split_key(name, "remote", &sub, &sub_len, &key) && sub &&
		    !strcmp(key, "url")) {
			if (ld->forbid_urls)
				return ga_error_set("remote URLs cannot be "
					"configured in file directly or "
					"indirectly included by "
					"includeIf.hasconfig:remote.*.url");
			GA_ALLOC_GROW(ld->urls, ld->urls_nr + 1,
				      ld->urls_alloc);
			ld->urls[ld->urls_nr++] =
				ga_xstrdup(value ? value : "");
		}
	} else {
		add_entry(ld, src, name, value, line);
	}

	if (!strcmp(name, "include.path"))
		return include_file(ld, src, value);

	if (!split_key(name, "includeif", &sub, &sub_len, &key) && sub) {
		int forbid = ld->forbid_urls;

		if ((ret = condition_is_true(ld, src, sub, sub_len)) <= 0)
			return ret;
		if (strcmp(key, "path"))
			return 0;
		if (ld->collect && sub_len >= 23 &&
		    !strncmp(sub, "hasconfig:remote.*.url:", 23))
			ld->forbid_urls = 1;
		ret = include_file(ld, src, value);
		ld->forbid_urls = forbid;
		return ret;
	}
	return 0;
}

/* --- the command line --- */

/*
 * git_config_parse_key(): validate `key` and lower-case its section and
 * variable name.  NULL (after git's error line) when invalid.
 */
static char *parse_key(const char *key)
{
	const char *last_dot = strrchr(key, '.');
	size_t baselen, i;
	char *out;
	int dot = 0;

	if (!last_dot || last_dot == key) {
		ga_report(GA_REPORT_ERROR,
			  "key does not contain a section: %s", key);
		return NULL;
	}
	if (!last_dot[1]) {
		ga_report(GA_REPORT_ERROR,
			  "key does not contain variable name: %s", key);
		return NULL;
	}
	baselen = (size_t)(last_dot - key);
	out = ga_xstrdup(key);
	for (i = 0; key[i]; i++) {
		int c = (unsigned char)key[i];

		if (c == '.')
			dot = 1;
		if (!dot || i > baselen) {
			if (!iskeychar(c) ||
			    (i == baselen + 1 && !ga_isalpha(c))) {
				ga_report(GA_REPORT_ERROR, "invalid key: %s",
					  key);
				free(out);
				return NULL;
			}
			c = ga_tolower(c);
		} else if (c == '\n') {
			ga_report(GA_REPORT_ERROR, "invalid key (newline): %s",
				  key);
			free(out);
			return NULL;
		}
		out[i] = (char)c;
	}
	return out;
}

/* config_parse_pair(): 0, CB_FAILED, or a fatal code. */
static int cmdline_pair(struct loader *ld, const char *key, const char *value)
{
	struct source src = { 0 };
	char *name;
	int ret;

	if (!*key) {
		ga_report(GA_REPORT_ERROR, "empty config key");
		return CB_FAILED;
	}
	if (!(name = parse_key(key)))
		return CB_FAILED;
	ret = on_entry(ld, &src, name, value, -1);
	free(name);
	return ret;
}

/* git_config_parse_parameter(): the old "key=value" form, key trimmed. */
static int cmdline_parameter(struct loader *ld, const char *text)
{
	const char *eq = strchr(text, '=');
	const char *value = eq ? eq + 1 : NULL;
	const char *start = text;
	size_t len = eq ? (size_t)(eq - text) : strlen(text);
	char *key;
	int ret;

	while (len && ga_isspace((unsigned char)start[len - 1]))
		len--;
	while (len && ga_isspace((unsigned char)*start)) {
		start++;
		len--;
	}
	if (!len) {
		ga_report(GA_REPORT_ERROR, "bogus config parameter: %s", text);
		return CB_FAILED;
	}
	key = ga_xstrndup(start, len);
	ret = cmdline_pair(ld, key, value);
	free(key);
	return ret;
}

static int need_bs_quote(int c)
{
	return c == '\'' || c == '!';
}

/*
 * git's sq_dequote_step(): dequote one shell-single-quoted word in
 * place.  Returns it, or NULL when malformed; *next is the rest (NULL at
 * the end of the string).
 */
static char *sq_dequote_step(char *arg, char **next)
{
	char *dst = arg, *src = arg;

	if (*src != '\'')
		return NULL;
	for (;;) {
		char c = *++src;

		if (!c)
			return NULL;
		if (c != '\'') {
			*dst++ = c;
			continue;
		}
		/* out of the quotes */
		switch (*++src) {
		case '\0':
			*dst = '\0';
			*next = NULL;
			return arg;
		case '\\':
			if (need_bs_quote(src[1]) && src[2] == '\'') {
				*dst++ = src[1];
				src += 2;
				continue;
			}
			/* fall through */
		default:
			*dst = '\0';
			*next = src;
			return arg;
		}
	}
}

#define BOGUS_PARAMETERS "bogus format in GIT_CONFIG_PARAMETERS"

static int cmdline_env_list(struct loader *ld, char *env)
{
	char *cur = env;
	int ret;

	while (cur && *cur) {
		char *key = sq_dequote_step(cur, &cur);

		if (!key) {
			ga_report(GA_REPORT_ERROR, BOGUS_PARAMETERS);
			return CB_FAILED;
		}
		if (!cur || ga_isspace((unsigned char)*cur)) {
			/* the old 'key=value' form */
			if ((ret = cmdline_parameter(ld, key)))
				return ret;
		} else if (*cur == '=') {
			/* the 'key'='value' form of git 2.31 and later */
			const char *value;

			cur++;
			if (*cur == '\'') {
				value = sq_dequote_step(cur, &cur);
				if (!value ||
				    (cur && !ga_isspace((unsigned char)*cur))) {
					ga_report(GA_REPORT_ERROR,
						  BOGUS_PARAMETERS);
					return CB_FAILED;
				}
			} else if (!*cur || ga_isspace((unsigned char)*cur)) {
				/* 'key'= is an implicit true */
				value = NULL;
			} else {
				ga_report(GA_REPORT_ERROR, BOGUS_PARAMETERS);
				return CB_FAILED;
			}
			if ((ret = cmdline_pair(ld, key, value)))
				return ret;
		} else {
			ga_report(GA_REPORT_ERROR, BOGUS_PARAMETERS);
			return CB_FAILED;
		}
		if (cur)
			while (ga_isspace((unsigned char)*cur))
				cur++;
	}
	return 0;
}

/* git_config_from_parameters(): GIT_CONFIG_COUNT first, then PARAMETERS. */
static int read_env_parameters(struct loader *ld)
{
	const char *env = getenv("GIT_CONFIG_COUNT");
	char *envw;
	int ret;

	if (env) {
		unsigned long count, i;
		char *end;

		errno = 0;
		count = strtoul(env, &end, 10);
		if (*end) {
			ga_report(GA_REPORT_ERROR,
				  "bogus count in GIT_CONFIG_COUNT");
			return CB_FAILED;
		}
		if (count > INT_MAX) {
			ga_report(GA_REPORT_ERROR,
				  "too many entries in GIT_CONFIG_COUNT");
			return CB_FAILED;
		}
		for (i = 0; i < count; i++) {
			char var[64];
			const char *key, *value;
			char *k, *v;

			snprintf(var, sizeof(var), "GIT_CONFIG_KEY_%lu", i);
			if (!(key = getenv(var))) {
				ga_report(GA_REPORT_ERROR,
					  "missing config key %s", var);
				return CB_FAILED;
			}
			k = ga_xstrdup(key);
			snprintf(var, sizeof(var), "GIT_CONFIG_VALUE_%lu", i);
			if (!(value = getenv(var))) {
				ga_report(GA_REPORT_ERROR,
					  "missing config value %s", var);
				free(k);
				return CB_FAILED;
			}
			v = ga_xstrdup(value);
			ret = cmdline_pair(ld, k, v);
			free(k);
			free(v);
			if (ret)
				return ret;
		}
	}

	if ((env = getenv("GIT_CONFIG_PARAMETERS"))) {
		envw = ga_xstrdup(env);
		ret = cmdline_env_list(ld, envw);
		free(envw);
		if (ret)
			return ret;
	}
	return 0;
}

/* --- the stack --- */

int config_env_bool(int *out, const char *name, int def)
{
	const char *v = getenv(name);

	if (!v) {
		*out = def;
		return 0;
	}
	return config_parse_bool(out, name, v);
}

static char *strip_slash(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return ga_xstrndup(path, n);
}

static int same_file(const char *a, const char *b)
{
	char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
	int same = ra && rb && !strcmp(ra, rb);

	free(ra);
	free(rb);
	return same;
}

/* Whether the current directory is `dir` or below it. */
static int cwd_within(const char *dir)
{
	char *cwd = getcwd(NULL, 0), *rcwd, *rdir;
	int within = 0;

	if (!cwd)
		return 0;
	rcwd = realpath(cwd, NULL);
	rdir = realpath(dir, NULL);
	if (rcwd && rdir) {
		size_t n = strlen(rdir);

		within = !strncmp(rcwd, rdir, n) &&
			 (rcwd[n] == '/' || !rcwd[n] || !strcmp(rdir, "/"));
	}
	free(cwd);
	free(rcwd);
	free(rdir);
	return within;
}

/*
 * The repository's config files, named as git names them: git runs from
 * the top of the work tree with GIT_DIR ".git", or from the git
 * directory itself as ".", and otherwise uses absolute paths.
 */
static int read_repo_levels(struct loader *ld)
{
	git_repository *repo = ld->repo;
	char *gitdir = strip_slash(git_repository_path(repo));
	char *common = strip_slash(git_repository_commondir(repo));
	const char *workdir = git_repository_workdir(repo);
	const char *env_dir = getenv("GIT_DIR");
	char *shown_common = NULL, *shown_gitdir = NULL;
	char *display = NULL, *fspath = NULL;
	int linked = git_repository_is_worktree(repo);
	int wtconfig = 0, error = 0;
	size_t first, i;

	if (env_dir && *env_dir && !linked) {
		shown_common = strip_slash(env_dir);
		shown_gitdir = ga_xstrdup(shown_common);
	} else if (!linked && same_file(gitdir, ".")) {
		shown_common = ga_xstrdup("");
		shown_gitdir = ga_xstrdup("");
	} else if (!linked && workdir && cwd_within(workdir) &&
		   !cwd_within(gitdir)) {
		char *dotgit = ga_xstrfmt("%s.git", workdir);

		if (!strcmp(dotgit, gitdir)) {
			shown_common = ga_xstrdup(".git");
			shown_gitdir = ga_xstrdup(".git");
		}
		free(dotgit);
	}
	if (!shown_common) {
		shown_common = ga_xstrdup(common);
		shown_gitdir = ga_xstrdup(gitdir);
	}

#define JOIN(dir, file) (*(dir) ? ga_xstrfmt("%s/%s", dir, file) \
				: ga_xstrdup(file))
	display = JOIN(shown_common, "config");
	fspath = ga_xstrfmt("%s/config", common);
	first = ld->tab->nr;
	if ((error = read_level(ld, CONFIG_SCOPE_LOCAL, display, fspath, 0)))
		goto done;

	/*
	 * extensions.worktreeConfig counts only when set in the file
	 * itself, as git reads it for the repository format.
	 */
	for (i = first; i < ld->tab->nr; i++) {
		struct entry *e = &ld->tab->items[i];

		if (!LG_BASE(&e->lg)->include_depth &&
		    !strcmp(e->name, "extensions.worktreeconfig") &&
		    (error = config_parse_bool(&wtconfig, e->name,
					       e->value)) < 0)
			goto done;
	}
	if (wtconfig) {
		free(display);
		free(fspath);
		display = JOIN(shown_gitdir, "config.worktree");
		fspath = ga_xstrfmt("%s/config.worktree", gitdir);
		error = read_level(ld, CONFIG_SCOPE_WORKTREE, display, fspath,
				   0);
	}
#undef JOIN

done:
	free(display);
	free(fspath);
	free(shown_common);
	free(shown_gitdir);
	free(gitdir);
	free(common);
	return error;
}

/* do_git_config_sequence() without the overrides of config_load(). */
static int load_stack(struct loader *ld)
{
	const char *home = getenv("HOME");
	const char *env;
	char *path = NULL, *user = NULL, *xdg = NULL;
	int nosystem = 0, error, ret;

	if ((error = config_env_bool(&nosystem, "GIT_CONFIG_NOSYSTEM", 0)) < 0)
		return error;
	if (!nosystem) {
		env = getenv("GIT_CONFIG_SYSTEM");
		path = ga_xstrdup(env ? env : CONFIG_SYSTEM_FILE);
		/* git ignores a ".." above the start, keeping what it has. */
		(void)ga_normalize_path(path, path);
		error = read_level(ld, CONFIG_SCOPE_SYSTEM, path, path, 0);
		free(path);
		if (error)
			return error;
	}

	if ((env = getenv("GIT_CONFIG_GLOBAL"))) {
		user = ga_xstrdup(env);
	} else {
		if (home)
			user = ga_xstrfmt("%s/.gitconfig", home);
		if ((env = getenv("XDG_CONFIG_HOME")) && *env)
			xdg = ga_xstrfmt("%s/git/config", env);
		else if (home)
			xdg = ga_xstrfmt("%s/.config/git/config", home);
	}
	if (xdg)
		error = read_level(ld, CONFIG_SCOPE_XDG, xdg, xdg, 1);
	if (!error && user)
		error = read_level(ld, CONFIG_SCOPE_GLOBAL, user, user, 1);
	free(xdg);
	free(user);
	if (error)
		return error;

	if (ld->repo && (error = read_repo_levels(ld)))
		return error;

	ld->scope = CONFIG_SCOPE_COMMAND;
	if ((ret = read_env_parameters(ld)))
		return ret < 0 ? ret : ga_error_set("unable to parse "
						    "command-line config");
	return 0;
}

/* ------------------------------------------------------------------ */
/* The libgit2 view */

struct lg_backend {
	git_config_backend parent;
	struct table *tab;
};

struct lg_iter {
	git_config_iterator parent;
	struct table *tab;
	size_t next;
};

/* The canonical form of a lookup name; NULL when it has no dot. */
static char *canonical_name(const char *name)
{
	const char *first = strchr(name, '.'), *last = strrchr(name, '.');
	size_t i, lo, hi;
	char *out;

	if (!first)
		return NULL;
	out = ga_xstrdup(name);
	lo = (size_t)(first - name);
	hi = (size_t)(last - name);
	/* Section and key fold case; a subsection does not. */
	for (i = 0; out[i]; i++)
		if (i < lo || i > hi)
			out[i] = (char)ga_tolower((unsigned char)out[i]);
	return out;
}

static const struct entry *table_find(const struct table *t,
				      const char *name)
{
	char *key = canonical_name(name);
	const struct entry *found = NULL;
	size_t i;

	if (!key)
		return NULL;
	for (i = t->nr; i > 0; i--) {
		if (!strcmp(t->items[i - 1].name, key)) {
			found = &t->items[i - 1];
			break;
		}
	}
	free(key);
	return found;
}

static int lg_open(git_config_backend *b, git_config_level_t level,
		   const git_repository *repo)
{
	(void)b;
	(void)level;
	(void)repo;
	return 0;
}

static int lg_get(git_config_backend *b, const char *key,
		  lg_entry **out)
{
	const struct entry *e = table_find(((struct lg_backend *)b)->tab, key);

	if (!e)
		return GIT_ENOTFOUND;
	*out = (lg_entry *)&e->lg;
	return 0;
}

static int lg_readonly(void)
{
	git_error_set_str(GIT_ERROR_CONFIG,
			  "garchive's configuration is read-only");
	return -1;
}

static int lg_set(git_config_backend *b, const char *key, const char *value)
{
	(void)b;
	(void)key;
	(void)value;
	return lg_readonly();
}

static int lg_set_multivar(git_config_backend *b, const char *name,
			   const char *regexp, const char *value)
{
	(void)b;
	(void)name;
	(void)regexp;
	(void)value;
	return lg_readonly();
}

static int lg_del(git_config_backend *b, const char *key)
{
	(void)b;
	(void)key;
	return lg_readonly();
}

static int lg_del_multivar(git_config_backend *b, const char *key,
			   const char *regexp)
{
	(void)b;
	(void)key;
	(void)regexp;
	return lg_readonly();
}

static int lg_iter_next(lg_entry **out, git_config_iterator *it)
{
	struct lg_iter *i = (struct lg_iter *)it;

	if (i->next >= i->tab->nr)
		return GIT_ITEROVER;
	*out = &i->tab->items[i->next++].lg;
	return 0;
}

static void lg_iter_free(git_config_iterator *it)
{
	free(it);
}

static int lg_iterator(git_config_iterator **out, git_config_backend *b)
{
	struct lg_iter *i = ga_xcalloc(1, sizeof(*i));

	i->parent.backend = b;
	i->parent.next = lg_iter_next;
	i->parent.free = lg_iter_free;
	i->tab = ((struct lg_backend *)b)->tab;
	*out = &i->parent;
	return 0;
}

static int lg_lock(git_config_backend *b)
{
	(void)b;
	return lg_readonly();
}

static int lg_unlock(git_config_backend *b, int success)
{
	(void)b;
	(void)success;
	return lg_readonly();
}

static void lg_free(git_config_backend *b)
{
	struct lg_backend *lb = (struct lg_backend *)b;

	table_unref(lb->tab);
	free(lb);
}

static struct lg_backend *lg_backend_new(struct table *tab);

static int lg_snapshot(git_config_backend **out, git_config_backend *b)
{
	*out = &lg_backend_new(((struct lg_backend *)b)->tab)->parent;
	return 0;
}

static struct lg_backend *lg_backend_new(struct table *tab)
{
	struct lg_backend *b = ga_xcalloc(1, sizeof(*b));

	git_config_init_backend(&b->parent, GIT_CONFIG_BACKEND_VERSION);
	/* Read-only is what lets git_config_get_string() use it. */
	b->parent.readonly = 1;
	b->parent.open = lg_open;
	b->parent.get = lg_get;
	b->parent.set = lg_set;
	b->parent.set_multivar = lg_set_multivar;
	b->parent.del = lg_del;
	b->parent.del_multivar = lg_del_multivar;
	b->parent.iterator = lg_iterator;
	b->parent.snapshot = lg_snapshot;
	b->parent.lock = lg_lock;
	b->parent.unlock = lg_unlock;
	b->parent.free = lg_free;
	table_ref(tab);
	b->tab = tab;
	return b;
}

/* ------------------------------------------------------------------ */
/* Public functions */

int config_load(struct ga_config **out, git_repository *repo,
		const char *const *overrides, size_t nr_overrides)
{
	struct ga_config *cfg = ga_xcalloc(1, sizeof(*cfg));
	struct loader ld = { 0 };
	struct lg_backend *b;
	size_t i;
	int error = 0, ret;

	*out = NULL;
	cfg->tab = table_new();
	ld.tab = cfg->tab;
	ld.repo = repo;
	if (repo)
		ld.git_dir = strip_slash(git_repository_path(repo));

	if ((error = load_stack(&ld)) < 0)
		goto done;

	/* -c name=value, split at the first '=' as git's -c does. */
	ld.scope = CONFIG_SCOPE_COMMAND;
	for (i = 0; i < nr_overrides; i++) {
		const char *eq = strchr(overrides[i], '=');
		char *key = eq ? ga_xstrndup(overrides[i],
					     (size_t)(eq - overrides[i]))
			       : ga_xstrdup(overrides[i]);

		ret = cmdline_pair(&ld, key, eq ? eq + 1 : NULL);
		free(key);
		if (ret) {
			error = ret < 0 ? ret : ga_error_set("unable to parse "
						"command-line config");
			goto done;
		}
	}

	if (ld.read_failed) {
		error = ga_error_set("unknown error occurred while reading "
				     "the configuration files");
		goto done;
	}

	/* The table no longer moves: point the libgit2 entries at it. */
	for (i = 0; i < cfg->tab->nr; i++) {
		struct entry *e = &cfg->tab->items[i];

		LG_BASE(&e->lg)->name = e->name;
		LG_BASE(&e->lg)->value = e->value;
	}

	/* On failure libgit2 does not own the backend yet. */
	b = lg_backend_new(cfg->tab);
	if (git_config_new(&cfg->lg) < 0 ||
	    git_config_add_backend(cfg->lg, &b->parent, GIT_CONFIG_LEVEL_APP,
				   repo, 0) < 0) {
		lg_free(&b->parent);
		error = ga_error_from_git("unable to set up the "
					  "configuration");
		goto done;
	}

done:
	for (i = 0; i < ld.urls_nr; i++)
		free(ld.urls[i]);
	free(ld.urls);
	free(ld.branch);
	free(ld.git_dir);
	if (error < 0)
		config_free(cfg);
	else
		*out = cfg;
	return error;
}

void config_free(struct ga_config *cfg)
{
	if (!cfg)
		return;
	git_config_free(cfg->lg);
	table_unref(cfg->tab);
	free(cfg);
}

int config_get_string(const char **out, const struct ga_config *cfg,
		      const char *name)
{
	const struct entry *e = table_find(cfg->tab, name);

	if (!e)
		return GA_ENOTFOUND;
	*out = e->value;
	return 0;
}

/* git's get_unit_factor() */
static uintmax_t unit_factor(const char *end)
{
	if (!*end)
		return 1;
	if (!strcasecmp(end, "k"))
		return 1024;
	if (!strcasecmp(end, "m"))
		return 1024 * 1024;
	if (!strcasecmp(end, "g"))
		return 1024 * 1024 * 1024;
	return 0;
}

/* Why a number was refused: git's EINVAL ("invalid unit") or ERANGE. */
enum { NUM_INVALID = -1, NUM_RANGE = -2 };

static int bad_number(const char *name, const char *value, int why)
{
	return ga_error_set("bad numeric config value '%s' for '%s': %s",
			    value ? value : "", name,
			    why == NUM_RANGE ? "out of range" : "invalid unit");
}

/*
 * git_parse_signed(): base auto-detected, k/m/g, |value| <= max.  A
 * value without digits ("k") is invalid, as in git.  Returns 0,
 * NUM_INVALID or NUM_RANGE, and sets no message.
 */
static int parse_signed(intmax_t *out, const char *value, intmax_t max)
{
	uintmax_t factor, uval;
	intmax_t val;
	char *end;

	if (!value || !*value)
		return NUM_INVALID;
	errno = 0;
	val = strtoimax(value, &end, 0);
	if (errno == ERANGE)
		return NUM_RANGE;
	if (end == value || !(factor = unit_factor(end)))
		return NUM_INVALID;
	uval = val < 0 ? -(uintmax_t)val : (uintmax_t)val;
	if ((uval && factor > UINTMAX_MAX / uval) ||
	    factor * uval > (uintmax_t)max)
		return NUM_RANGE;
	*out = val * (intmax_t)factor;
	return 0;
}

int config_maybe_bool(const char *value)
{
	intmax_t v;

	if (!value)
		return 1;
	if (!*value || !strcasecmp(value, "false") ||
	    !strcasecmp(value, "no") || !strcasecmp(value, "off"))
		return 0;
	if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") ||
	    !strcasecmp(value, "on"))
		return 1;
	/* Then any integer, as git_parse_int() reads it. */
	if (!parse_signed(&v, value, INT_MAX))
		return v != 0;
	return -1;
}

int config_parse_bool(int *out, const char *name, const char *value)
{
	int v = config_maybe_bool(value);

	if (v < 0)
		return ga_error_set("bad boolean config value '%s' for '%s'",
				    value, name);
	*out = v;
	return 0;
}

int config_parse_int(int *out, const char *name, const char *value)
{
	intmax_t v;
	int why = parse_signed(&v, value, INT_MAX);

	if (why)
		return bad_number(name, value, why);
	*out = (int)v;
	return 0;
}

int config_parse_int64(int64_t *out, const char *name, const char *value)
{
	intmax_t v;
	int why = parse_signed(&v, value, INT64_MAX);

	if (why)
		return bad_number(name, value, why);
	*out = (int64_t)v;
	return 0;
}

int config_parse_ulong(unsigned long *out, const char *name,
		       const char *value)
{
	uintmax_t val, factor;
	char *end;

	/* strtoumax() would accept a minus sign: git refuses it. */
	if (!value || !*value || strchr(value, '-'))
		return bad_number(name, value, NUM_INVALID);
	errno = 0;
	val = strtoumax(value, &end, 0);
	if (errno == ERANGE)
		return bad_number(name, value, NUM_RANGE);
	if (end == value || !(factor = unit_factor(end)))
		return bad_number(name, value, NUM_INVALID);
	if ((val && factor > UINTMAX_MAX / val) || factor * val > ULONG_MAX)
		return bad_number(name, value, NUM_RANGE);
	*out = (unsigned long)(val * factor);
	return 0;
}

int config_get_bool(int *out, const struct ga_config *cfg, const char *name)
{
	const struct entry *e = table_find(cfg->tab, name);

	return e ? config_parse_bool(out, e->name, e->value) : GA_ENOTFOUND;
}

int config_get_int64(int64_t *out, const struct ga_config *cfg,
		     const char *name)
{
	const struct entry *e = table_find(cfg->tab, name);

	return e ? config_parse_int64(out, e->name, e->value) : GA_ENOTFOUND;
}

const char *config_origin(const struct ga_config *cfg, const char *name)
{
	const struct entry *e = table_find(cfg->tab, name);

	return e ? e->origin : "";
}

int config_foreach(const struct ga_config *cfg, config_foreach_fn fn,
		   void *payload)
{
	size_t i;
	int ret;

	for (i = 0; i < cfg->tab->nr; i++) {
		const struct entry *e = &cfg->tab->items[i];

		if ((ret = fn(e->name, e->value, e->origin, payload)))
			return ret;
	}
	return 0;
}

int config_foreach_entry(const struct ga_config *cfg, config_entry_fn fn,
			 void *payload)
{
	struct config_entry ce;
	size_t i;
	int ret;

	for (i = 0; i < cfg->tab->nr; i++) {
		const struct entry *e = &cfg->tab->items[i];

		ce.name = e->name;
		ce.value = e->value;
		ce.file = e->file;
		ce.line = e->line;
		ce.scope = e->scope;
		if ((ret = fn(&ce, payload)))
			return ret;
	}
	return 0;
}

int config_error_entry(const struct config_entry *e)
{
	if (!e->file)
		return ga_error_set("unable to parse '%s' from command-line "
				    "config", e->name);
	return ga_error_set("bad config variable '%s' in file '%s' at line %d",
			    e->name, e->file, e->line);
}

int config_error_nonbool(const struct config_entry *e)
{
	ga_report(GA_REPORT_ERROR, "missing value for '%s'", e->name);
	return config_error_entry(e);
}

git_config *config_libgit2(const struct ga_config *cfg)
{
	return cfg->lg;
}

int config_safe_directory(int *out, const struct ga_config *cfg,
			  const char *path)
{
	size_t i;

	*out = 0;
	for (i = 0; i < cfg->tab->nr; i++) {
		const struct entry *e = &cfg->tab->items[i];
		char *expanded;

		/* A repository cannot vouch for itself. */
		if (e->scope == CONFIG_SCOPE_LOCAL ||
		    e->scope == CONFIG_SCOPE_WORKTREE ||
		    strcmp(e->name, "safe.directory"))
			continue;
		/* An empty value forgets the entries before it. */
		if (!e->value || !*e->value) {
			*out = 0;
			continue;
		}
		if (!strcmp(e->value, "*")) {
			*out = 1;
			continue;
		}
		/* Compared as written, after "~" (no realpath, no "/"). */
		if (!(expanded = ga_interpolate_path(e->value, 0)))
			return ga_error_set("failed to expand user dir in: "
					    "'%s'", e->value);
		if (!strcmp(expanded, path))
			*out = 1;
		free(expanded);
	}
	return 0;
}

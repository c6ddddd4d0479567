/*
 * attr.c: gitattributes, parsed and looked up as git 2.39 does.
 *
 * A stack owns everything it parsed: the rules of each attributes file
 * (per-directory files are parsed once and cached by directory), the
 * table of attribute names and the macro definitions.  A lookup walks
 * the sources from the highest precedence down ($GIT_DIR/info/attributes,
 * the deepest .gitattributes up to the root one, the global file, the
 * system file, the built-in macro) and, inside each source, from the last
 * line up, assigning each attribute the first state it meets.  That is
 * git's fill(): "later lines win, deeper files win" falls out of the
 * order.
 *
 * Macros.  A line whose attribute is a macro name set to true also
 * assigns the macro's attributes, right then, to those attributes that
 * are still undecided; so a macro never overrides what a higher
 * precedence line decided, and "-a m" (read right to left) lets the
 * macro's "a" win over "-a".  Macros may only be defined in top-level
 * sources, which are part of every lookup, so the definition in force
 * (the one of highest precedence) is fixed once the stack is set up.
 *
 * Speed.  Only the attributes asked for are computed, plus the macros
 * that can expand into them; a rule that mentions none of them is
 * skipped without matching its pattern, and the walk stops once every
 * wanted attribute is decided.  The directory chain of the previous
 * lookup is kept, so a depth-first walk only pushes and pops frames.
 */
#include "attr.h"

#include "garchive/common.h"
#include "wildmatch.h"
#include "quote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* git's limits (attr.c, since 2.39.1). */
#define ATTR_MAX_LINE_LENGTH	2048
#define ATTR_MAX_FILE_SIZE	(100 * 1024 * 1024)

#define ATTR_MACRO_PREFIX	"[attr]"
#define ATTR_MACRO_PREFIX_LEN	6

static const char blank[] = " \t\r\n";

/* Pattern flags, as git's dir.c PATTERN_FLAG_*. */
#define PAT_NODIR	1	/* no '/': match the basename */
#define PAT_ENDSWITH	2	/* "*literal" */
#define PAT_MUSTBEDIR	4	/* trailing '/': directories only */

struct state_item {
	size_t attr;			/* index in the name table */
	enum attr_state state;
	char *value;			/* ATTR_VALUE only */
};

struct rule {
	char *pattern;			/* NUL-terminated at patternlen */
	size_t patternlen;
	size_t nowildcardlen;
	unsigned int flags;
	int is_macro;
	size_t macro;			/* the macro's name, if is_macro */
	/* Whether a state is wanted by the current query, per generation. */
	unsigned int relgen;
	int relevant;
	size_t nr;
	struct state_item *states;
};

struct frame {
	char *origin;			/* directory, "" for the root */
	size_t originlen;
	struct rule **rules;
	size_t nr, alloc;
};

/* A string-keyed hash table with separate chaining. */
struct hentry {
	struct hentry *next;
	uint32_t hash;
	char *key;
	void *value;
};

struct hmap {
	struct hentry **buckets;
	size_t size;			/* a power of two, or 0 */
	size_t count;
};

struct attr_name {
	char *name;
	const struct rule *macro;	/* definition in force, or NULL */
};

struct attr_stack {
	struct attr_stack_options opts;
	char *system_file, *global_file, *info_file, *info_file_shown;
	int booted;

	/* Sources besides the per-directory ones; NULL when absent. */
	struct frame *builtin, *system, *global, *info;

	struct hmap dirs;		/* directory -> struct frame */
	struct frame **chain;		/* the root's, then deeper ones */
	size_t chain_nr, chain_alloc;

	struct hmap name_index;		/* name -> index + 1 */
	struct attr_name *names;
	size_t names_nr, names_alloc;

	/* Per-lookup scratch, indexed like names. */
	unsigned int gen;
	unsigned int *decided;		/* == gen: value[] is set */
	const struct state_item **value;
	unsigned int relgen;
	unsigned int *wanted;		/* == relgen: wanted now */
	size_t scratch_alloc;
	size_t wanted_nr;

	/* The previous query's names, to reuse their resolution. */
	char **query;
	long *query_ids;		/* index, or -1 for an invalid name */
	size_t query_nr, query_alloc;
	int query_valid;

	struct ga_buf path;
	struct ga_buf dirbuf;
	struct ga_buf read;
};

static uint32_t hash_mem(const char *s, size_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static struct hentry *hmap_find(const struct hmap *m, const char *key,
				size_t len, uint32_t h)
{
	struct hentry *e;

	if (!m->size)
		return NULL;
	for (e = m->buckets[h & (m->size - 1)]; e; e = e->next) {
		if (e->hash == h && !strncmp(e->key, key, len) && !e->key[len])
			return e;
	}
	return NULL;
}

static void hmap_grow(struct hmap *m)
{
	size_t nsize = m->size ? m->size * 2 : 64, i;
	struct hentry **nb = ga_xcalloc(nsize, sizeof(*nb));

	for (i = 0; i < m->size; i++) {
		struct hentry *e = m->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = nb[e->hash & (nsize - 1)];
			nb[e->hash & (nsize - 1)] = e;
		}
	}
	free(m->buckets);
	m->buckets = nb;
	m->size = nsize;
}

static void hmap_put(struct hmap *m, const char *key, size_t len,
		     uint32_t h, void *value)
{
	struct hentry *e = ga_xmalloc(sizeof(*e));

	if (m->count + 1 > m->size * 3 / 4)
		hmap_grow(m);
	e->hash = h;
	e->key = ga_xstrndup(key, len);
	e->value = value;
	e->next = m->buckets[h & (m->size - 1)];
	m->buckets[h & (m->size - 1)] = e;
	m->count++;
}

static void hmap_release(struct hmap *m, void (*free_value)(void *))
{
	size_t i;

	for (i = 0; i < m->size; i++) {
		struct hentry *e = m->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			if (free_value)
				free_value(e->value);
			free(e->key);
			free(e);
		}
	}
	free(m->buckets);
	memset(m, 0, sizeof(*m));
}

static void rule_free(struct rule *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr; i++)
		free(r->states[i].value);
	free(r->states);
	free(r->pattern);
	free(r);
}

static void frame_free(void *p)
{
	struct frame *f = p;
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr; i++)
		rule_free(f->rules[i]);
	free(f->rules);
	free(f->origin);
	free(f);
}

static struct frame *frame_new(const char *origin, size_t len)
{
	struct frame *f = ga_xcalloc(1, sizeof(*f));

	if (origin) {
		f->origin = ga_xstrndup(origin, len);
		f->originlen = len;
	}
	return f;
}

int attr_name_valid(const char *name, size_t len)
{
	size_t i;

	if (!len || *name == '-')
		return 0;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!(c == '-' || c == '.' || c == '_' ||
		      (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z')))
			return 0;
	}
	return 1;
}

/* The index of a (valid) attribute name, registering it if new. */
static size_t attr_index(struct attr_stack *st, const char *name, size_t len)
{
	uint32_t h = hash_mem(name, len);
	struct hentry *e = hmap_find(&st->name_index, name, len, h);
	size_t i;

	if (e)
		return (size_t)((uintptr_t)e->value - 1);
	i = st->names_nr++;
	GA_ALLOC_GROW(st->names, st->names_nr, st->names_alloc);
	st->names[i].name = ga_xstrndup(name, len);
	st->names[i].macro = NULL;
	hmap_put(&st->name_index, name, len, h, (void *)(uintptr_t)(i + 1));
	return i;
}

/*
 * git 2.44 keeps names starting with "builtin_" for values it computes
 * (builtin_objectmode): a line that sets one, or a macro named so, is
 * refused as if the name were invalid.
 */
static int attr_name_reserved(const char *name, size_t len)
{
	return len >= 8 && !memcmp(name, "builtin_", 8);
}

/* git prints this one with a bare fprintf(stderr), without "warning: ". */
static void report_invalid_attr(const char *name, size_t len,
				const char *src, int lineno)
{
	ga_report(GA_REPORT_PLAIN, "%.*s is not a valid attribute name: %s:%d",
		  (int)len, name, src, lineno);
}

/*
 * Parse one "name", "-name", "!name" or "name=value" at `cp`.  With `e`
 * NULL only validate it (reporting an invalid name and returning NULL).
 * Returns where the next one starts.
 */
static const char *parse_state(struct attr_stack *st, const char *cp,
			       struct state_item *e, const char *src,
			       int lineno)
{
	const char *ep = cp + strcspn(cp, blank);
	const char *equals = strchr(cp, '=');
	size_t len;

	if (equals && equals > ep)
		equals = NULL;
	len = (size_t)((equals ? equals : ep) - cp);
	if (!e) {
		if (*cp == '-' || *cp == '!') {
			cp++;
			len--;
		}
		if (!attr_name_valid(cp, len) ||
		    attr_name_reserved(cp, len)) {
			report_invalid_attr(cp, len, src, lineno);
			return NULL;
		}
	} else {
		e->value = NULL;
		if (*cp == '-' || *cp == '!') {
			/* "-a=b" unsets a: the value is dropped. */
			e->state = *cp == '-' ? ATTR_UNSET : ATTR_UNSPECIFIED;
			cp++;
			len--;
		} else if (!equals) {
			e->state = ATTR_SET;
		} else {
			e->state = ATTR_VALUE;
			e->value = ga_xstrndup(equals + 1,
					       (size_t)(ep - equals - 1));
		}
		e->attr = attr_index(st, cp, len);
	}
	return ep + strspn(ep, blank);
}

static size_t simple_length(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != '*' && s[n] != '?' && s[n] != '[' &&
	       s[n] != '\\')
		n++;
	return n;
}

/*
 * Turn the pattern text into a rule's pattern fields, as git's
 * parse_path_pattern().  Returns -1 for a negative ("!...") pattern.
 */
static int parse_pattern(struct rule *r, const char *text, size_t len)
{
	char *p = ga_xstrndup(text, len);	/* stops at an embedded NUL */
	size_t n;

	if (*p == '!') {
		free(p);
		return -1;
	}
	n = strlen(p);
	r->flags = 0;
	if (n && p[n - 1] == '/') {
		p[--n] = '\0';
		r->flags |= PAT_MUSTBEDIR;
	}
	if (!memchr(p, '/', n))
		r->flags |= PAT_NODIR;
	r->nowildcardlen = simple_length(p);
	if (r->nowildcardlen > n)
		r->nowildcardlen = n;
	/*
	 * git tests the text after '*' before dropping the trailing slash;
	 * the slash is no wildcard, so testing without it is the same.
	 */
	if (*p == '*' && !p[1 + simple_length(p + 1)])
		r->flags |= PAT_ENDSWITH;
	r->pattern = p;
	r->patternlen = n;
	return 0;
}

/* git's parse_attr_line() + handle_attr_line(). */
static void parse_line(struct attr_stack *st, struct frame *f,
		       const char *line, const char *src, int lineno,
		       int macro_ok)
{
	struct ga_buf quoted = GA_BUF_INIT;
	const char *cp, *name, *states;
	size_t namelen, nr = 0, i;
	int is_macro = 0;
	struct rule *r = NULL;

	cp = line + strspn(line, blank);
	if (!*cp || *cp == '#')
		return;
	if (strlen(line) >= ATTR_MAX_LINE_LENGTH) {
		ga_warning("ignoring overly long attributes line %d", lineno);
		return;
	}
	name = cp;
	if (*cp == '"' && !ga_unquote_c(&quoted, cp, &states)) {
		name = quoted.ptr ? quoted.ptr : "";
		namelen = quoted.len;
	} else {
		namelen = strcspn(name, blank);
		states = name + namelen;
	}

	if (namelen > ATTR_MACRO_PREFIX_LEN &&
	    !strncmp(name, ATTR_MACRO_PREFIX, ATTR_MACRO_PREFIX_LEN)) {
		if (!macro_ok) {
			/* git prints the rest of the line, unquoted name. */
			ga_report(GA_REPORT_PLAIN, "%s not allowed: %s:%d",
				  name, src, lineno);
			goto done;
		}
		is_macro = 1;
		name += ATTR_MACRO_PREFIX_LEN;
		name += strspn(name, blank);
		namelen = strcspn(name, blank);
		if (!attr_name_valid(name, namelen) ||
		    attr_name_reserved(name, namelen)) {
			report_invalid_attr(name, namelen, src, lineno);
			goto done;
		}
	}

	states += strspn(states, blank);
	for (cp = states; *cp; nr++) {
		cp = parse_state(st, cp, NULL, src, lineno);
		if (!cp)
			goto done;
	}

	r = ga_xcalloc(1, sizeof(*r));
	if (is_macro) {
		r->is_macro = 1;
		r->macro = attr_index(st, name, namelen);
	} else if (parse_pattern(r, name, namelen) < 0) {
		ga_warning("Negative patterns are ignored in git attributes\n"
			   "Use '\\!' for literal leading exclamation.");
		goto done;
	}
	r->nr = nr;
	r->states = ga_xcalloc(nr, sizeof(*r->states));
	for (cp = states, i = 0; *cp; i++)
		cp = parse_state(st, cp, &r->states[i], src, lineno);

	GA_ALLOC_GROW(f->rules, f->nr + 1, f->alloc);
	f->rules[f->nr++] = r;
	r = NULL;
done:
	rule_free(r);
	ga_buf_release(&quoted);
}

/*
 * Parse a whole attributes file held in `buf` (which is modified).  As a
 * file (`as_file`), git reads it line by line: a UTF-8 BOM is skipped, a
 * CR before LF is dropped and a NUL only cuts its own line.  As a blob,
 * the text ends at the first NUL and CRs stay.
 */
static void parse_buffer(struct attr_stack *st, struct frame *f, char *buf,
			 size_t len, int as_file, const char *src,
			 int macro_ok)
{
	static const char bom[] = "\xef\xbb\xbf";
	size_t pos = 0;
	int lineno = 0;

	if (!as_file)
		len = strnlen(buf, len);
	while (pos < len) {
		char *line = buf + pos;
		char *nl = memchr(line, '\n', len - pos);
		size_t linelen = nl ? (size_t)(nl - line) : len - pos;

		pos += linelen + (nl ? 1 : 0);
		line[linelen] = '\0';	/* buf has a NUL at len */
		if (as_file) {
			if (nl && linelen && line[linelen - 1] == '\r')
				line[--linelen] = '\0';
			if (!lineno && !strncmp(line, bom, 3))
				line += 3;
		}
		parse_line(st, f, line, src, ++lineno, macro_ok);
	}
}

int attr_read_file(struct ga_buf *out, const char *path, int nofollow)
{
	return attr_read_file_as(out, path, path, nofollow);
}

int attr_read_file_as(struct ga_buf *out, const char *path,
		      const char *shown, int nofollow)
{
	struct stat sb;
	int fd, flags = O_RDONLY | O_CLOEXEC;

	if (nofollow)
		flags |= O_NOFOLLOW;
	fd = open(path, flags);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			ga_warning("unable to access '%s': %s", shown,
				   strerror(errno));
		return GA_ENOTFOUND;
	}
	if (fstat(fd, &sb)) {
		ga_warning("cannot fstat gitattributes file '%s': %s", shown,
			   strerror(errno));
		close(fd);
		return GA_ENOTFOUND;
	}
	if (sb.st_size >= ATTR_MAX_FILE_SIZE) {
		ga_warning("ignoring overly large gitattributes file '%s'",
			   shown);
		close(fd);
		return GA_ENOTFOUND;
	}
	ga_buf_setlen(out, 0);
	/* A read error (a directory, say) reads as end of file. */
	(void)ga_buf_read_fd(out, fd);
	close(fd);
	return 0;
}

/* A top-level source file; a missing one gives no frame. */
static struct frame *read_source_file(struct attr_stack *st,
				      const char *path, const char *shown)
{
	struct frame *f;

	if (!shown)
		shown = path;
	if (!path || attr_read_file_as(&st->read, path, shown, 0) < 0)
		return NULL;
	f = frame_new(NULL, 0);
	parse_buffer(st, f, st->read.ptr ? st->read.ptr : (char *)"",
		     st->read.len, 1, shown, 1);
	return f;
}

/*
 * The frame of directory `dir` (`len` bytes), parsed on first use.
 * Returns 0 or the reader's error code.
 */
static int dir_frame(struct frame **out, struct attr_stack *st,
		     const char *dir, size_t len)
{
	uint32_t h = hash_mem(dir, len);
	struct hentry *e = hmap_find(&st->dirs, dir, len, h);
	struct frame *f;
	char *src;
	int ret = GA_ENOTFOUND;

	if (e) {
		*out = e->value;
		return 0;
	}
	f = frame_new(dir, len);
	ga_buf_setlen(&st->read, 0);
	if (st->opts.read_dir) {
		ga_buf_setlen(&st->dirbuf, 0);
		ga_buf_put(&st->dirbuf, dir, len);
		ret = st->opts.read_dir(&st->read, st->dirbuf.ptr,
					st->opts.payload);
	}
	if (ret < 0 && ret != GA_ENOTFOUND) {
		frame_free(f);
		return ret;
	}
	if (!ret) {
		src = len ? ga_xstrfmt("%.*s/.gitattributes", (int)len, dir)
			  : ga_xstrdup(".gitattributes");
		if (st->read.len >= ATTR_MAX_FILE_SIZE) {
			ga_warning("ignoring overly large gitattributes "
				   "%s '%s'",
				   st->opts.worktree ? "file" : "blob", src);
		} else {
			/* Macros are allowed in the root file only. */
			parse_buffer(st, f, st->read.ptr ? st->read.ptr
							 : (char *)"",
				     st->read.len, st->opts.worktree, src,
				     len == 0);
		}
		free(src);
	}
	hmap_put(&st->dirs, dir, len, h, f);
	*out = f;
	return 0;
}

/*
 * Record the macro definitions in force: for each name, the definition
 * of highest precedence (git's determine_macros()).
 */
static void find_macro(struct attr_stack *st, const struct frame *f)
{
	size_t i;

	if (!f)
		return;
	for (i = f->nr; i > 0; i--) {
		const struct rule *r = f->rules[i - 1];

		if (r->is_macro && !st->names[r->macro].macro)
			st->names[r->macro].macro = r;
	}
}

static int bootstrap(struct attr_stack *st)
{
	static const char builtin[] = "[attr]binary -diff -merge -text";
	struct frame *root;
	int ret;

	/* Read in git's order, so warnings come out in git's order. */
	st->builtin = frame_new(NULL, 0);
	parse_line(st, st->builtin, builtin, "[builtin]", 1, 1);
	st->system = read_source_file(st, st->system_file, NULL);
	st->global = read_source_file(st, st->global_file, NULL);
	if ((ret = dir_frame(&root, st, "", 0)) < 0)
		return ret;
	st->info = read_source_file(st, st->info_file, st->info_file_shown);

	GA_ALLOC_GROW(st->chain, 1, st->chain_alloc);
	st->chain[0] = root;
	st->chain_nr = 1;

	find_macro(st, st->info);
	find_macro(st, root);
	find_macro(st, st->global);
	find_macro(st, st->system);
	find_macro(st, st->builtin);
	st->booted = 1;
	return 0;
}

int attr_stack_new(struct attr_stack **out,
		   const struct attr_stack_options *opts)
{
	struct attr_stack *st = ga_xcalloc(1, sizeof(*st));

	st->opts = *opts;
	st->system_file = opts->system_file ? ga_xstrdup(opts->system_file)
					    : NULL;
	st->global_file = opts->global_file ? ga_xstrdup(opts->global_file)
					    : NULL;
	st->info_file = opts->info_file ? ga_xstrdup(opts->info_file) : NULL;
	st->opts.system_file = st->system_file;
	st->opts.global_file = st->global_file;
	st->opts.info_file = st->info_file;
	st->info_file_shown = opts->info_file_shown ?
		ga_xstrdup(opts->info_file_shown) : NULL;
	st->opts.info_file_shown = st->info_file_shown;
	*out = st;
	return 0;
}

void attr_stack_free(struct attr_stack *st)
{
	size_t i;

	if (!st)
		return;
	frame_free(st->builtin);
	frame_free(st->system);
	frame_free(st->global);
	frame_free(st->info);
	hmap_release(&st->dirs, frame_free);
	free(st->chain);
	hmap_release(&st->name_index, NULL);
	for (i = 0; i < st->names_nr; i++)
		free(st->names[i].name);
	free(st->names);
	free(st->decided);
	free(st->value);
	free(st->wanted);
	for (i = 0; i < st->query_nr; i++)
		free(st->query[i]);
	free(st->query);
	free(st->query_ids);
	ga_buf_release(&st->path);
	ga_buf_release(&st->dirbuf);
	ga_buf_release(&st->read);
	free(st->system_file);
	free(st->global_file);
	free(st->info_file);
	free(st->info_file_shown);
	free(st);
}

/* Size the per-name scratch arrays for every name registered so far. */
static void grow_scratch(struct attr_stack *st)
{
	size_t old = st->scratch_alloc, n = st->names_nr;

	if (n <= old)
		return;
	n = n < 2 * old ? 2 * old : n;
	st->decided = ga_xrealloc(st->decided, n * sizeof(*st->decided));
	st->value = ga_xrealloc(st->value, n * sizeof(*st->value));
	st->wanted = ga_xrealloc(st->wanted, n * sizeof(*st->wanted));
	memset(st->decided + old, 0, (n - old) * sizeof(*st->decided));
	memset(st->value + old, 0, (n - old) * sizeof(*st->value));
	memset(st->wanted + old, 0, (n - old) * sizeof(*st->wanted));
	st->scratch_alloc = n;
}

static int macro_wants(const struct attr_stack *st, const struct rule *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		if (st->wanted[m->states[i].attr] == st->relgen)
			return 1;
	}
	return 0;
}

/*
 * Resolve the query's names and mark what must be computed: the names
 * and every macro that can expand into one of them.  Reuses the previous
 * resolution when the names did not change.
 */
static void prepare_query(struct attr_stack *st, const char *const *names,
			  size_t nr)
{
	size_t i;
	int changed;

	if (st->query_valid && st->query_nr == nr) {
		for (i = 0; i < nr; i++) {
			if (strcmp(st->query[i], names[i]))
				break;
		}
		if (i == nr)
			return;
	}

	for (i = 0; i < st->query_nr; i++)
		free(st->query[i]);
	st->query_nr = 0;
	GA_ALLOC_GROW(st->query, nr, st->query_alloc);
	st->query_ids = ga_xrealloc(st->query_ids,
				    (nr ? nr : 1) * sizeof(*st->query_ids));
	for (i = 0; i < nr; i++) {
		size_t len = strlen(names[i]);

		st->query[i] = ga_xstrdup(names[i]);
		/* An invalid name can never be set: always unspecified. */
		st->query_ids[i] = attr_name_valid(names[i], len)
				   ? (long)attr_index(st, names[i], len) : -1;
	}
	st->query_nr = nr;
	grow_scratch(st);

	if (!++st->relgen) {
		memset(st->wanted, 0, st->scratch_alloc * sizeof(*st->wanted));
		st->relgen = 1;
	}
	st->wanted_nr = 0;
	for (i = 0; i < nr; i++) {
		long id = st->query_ids[i];

		if (id >= 0 && st->wanted[id] != st->relgen) {
			st->wanted[id] = st->relgen;
			st->wanted_nr++;
		}
	}
	do {
		changed = 0;
		for (i = 0; i < st->names_nr; i++) {
			const struct rule *m = st->names[i].macro;

			if (m && st->wanted[i] != st->relgen &&
			    macro_wants(st, m)) {
				st->wanted[i] = st->relgen;
				st->wanted_nr++;
				changed = 1;
			}
		}
	} while (changed);
	st->query_valid = 1;
}

static int rule_wanted(const struct attr_stack *st, struct rule *r)
{
	if (r->relgen != st->relgen) {
		r->relgen = st->relgen;
		r->relevant = macro_wants(st, r);
	}
	return r->relevant;
}

static int path_ncmp(const struct attr_stack *st, const char *a,
		     const char *b, size_t n)
{
	return st->opts.ignore_case ? strncasecmp(a, b, n) : strncmp(a, b, n);
}

static int fnmatch_flags(const struct attr_stack *st, unsigned int flags)
{
	return (int)(flags | (st->opts.ignore_case ? WM_CASEFOLD : 0));
}

/* git's match_basename(); `base` is NUL-terminated at `len`. */
static int match_basename(const struct attr_stack *st, const char *base,
			  size_t len, const struct rule *r)
{
	if (r->nowildcardlen == r->patternlen)
		return r->patternlen == len &&
		       !path_ncmp(st, r->pattern, base, len);
	if (r->flags & PAT_ENDSWITH)
		return r->patternlen - 1 <= len &&
		       !path_ncmp(st, r->pattern + 1,
				  base + len - (r->patternlen - 1),
				  r->patternlen - 1);
	return wildmatch(r->pattern, base,
			 (unsigned int)fnmatch_flags(st, 0)) == WM_MATCH;
}

/*
 * git's match_pathname(): the pattern is anchored at the directory of
 * its file (`origin`).  `path` is NUL-terminated at `len`.
 */
static int match_pathname(const struct attr_stack *st, const char *path,
			  size_t len, const char *origin, size_t originlen,
			  const struct rule *r)
{
	const char *pat = r->pattern, *name;
	size_t patlen = r->patternlen, prefix = r->nowildcardlen, namelen;

	if (*pat == '/') {
		pat++;
		patlen--;
		prefix--;
	}
	if (len < originlen + 1 || (originlen && path[originlen] != '/') ||
	    path_ncmp(st, path, origin, originlen))
		return 0;
	namelen = originlen ? len - originlen - 1 : len;
	name = path + len - namelen;
	if (prefix) {
		if (prefix > namelen || path_ncmp(st, pat, name, prefix))
			return 0;
		pat += prefix;
		patlen -= prefix;
		name += prefix;
		namelen -= prefix;
		if (!patlen && !namelen)
			return 1;
	}
	return wildmatch(pat, name,
			 (unsigned int)fnmatch_flags(st, WM_PATHNAME)) ==
	       WM_MATCH;
}

struct lookup {
	const char *path;	/* without a trailing slash */
	size_t len;
	size_t base_off;	/* start of the basename */
	int is_dir;
	size_t rem;		/* wanted attributes still undecided */
};

static int rule_matches(const struct attr_stack *st, const struct lookup *l,
			const struct frame *f, const struct rule *r)
{
	if ((r->flags & PAT_MUSTBEDIR) && !l->is_dir)
		return 0;
	if (r->flags & PAT_NODIR)
		return match_basename(st, l->path + l->base_off,
				      l->len - l->base_off, r);
	return match_pathname(st, l->path, l->len,
			      f && f->origin ? f->origin : "",
			      f && f->origin ? f->originlen : 0, r);
}

/*
 * Assign the rule's states, last first, to the wanted attributes that
 * are undecided, expanding macros set to true on the way (git's
 * fill_one() and macroexpand_one()).
 */
static void fill_rule(struct attr_stack *st, struct lookup *l,
		      const struct rule *r)
{
	size_t i;

	for (i = r->nr; l->rem && i > 0; i--) {
		const struct state_item *s = &r->states[i - 1];
		const struct rule *m;

		if (st->wanted[s->attr] != st->relgen ||
		    st->decided[s->attr] == st->gen)
			continue;
		st->decided[s->attr] = st->gen;
		st->value[s->attr] = s;
		l->rem--;
		m = st->names[s->attr].macro;
		if (m && s->state == ATTR_SET)
			fill_rule(st, l, m);
	}
}

static void fill_frame(struct attr_stack *st, struct lookup *l,
		       const struct frame *f)
{
	size_t i;

	if (!f)
		return;
	for (i = f->nr; l->rem && i > 0; i--) {
		struct rule *r = f->rules[i - 1];

		if (r->is_macro || !rule_wanted(st, r))
			continue;
		if (rule_matches(st, l, f, r))
			fill_rule(st, l, r);
	}
}

/*
 * Make the chain hold the frames of the root and of every directory
 * down to path[0..dirlen) (git's prepare_attr_stack()).
 */
static int update_chain(struct attr_stack *st, const char *path,
			size_t dirlen)
{
	size_t keep = 1, cur;
	int ret;

	/*
	 * Each frame's directory lies inside the one before it, which
	 * matched already: compare the bytes that frame adds, or a deep
	 * path costs the square of its length at every lookup.
	 */
	while (keep < st->chain_nr) {
		const struct frame *f = st->chain[keep];
		size_t from = st->chain[keep - 1]->originlen;

		if (f->originlen > dirlen || path[f->originlen] != '/' ||
		    memcmp(f->origin + from, path + from, f->originlen - from))
			break;
		keep++;
	}
	st->chain_nr = keep;
	cur = st->chain[keep - 1]->originlen;
	while (cur < dirlen) {
		const char *slash;
		size_t end;
		struct frame *f;

		/*
		 * Skip the '/' that ends the previous directory, or one
		 * that starts the path: stopping on it would look up the
		 * same empty directory again and never move on.
		 */
		if (cur || path[0] == '/')
			cur++;
		slash = memchr(path + cur, '/', dirlen - cur);
		end = slash ? (size_t)(slash - path) : dirlen;
		if ((ret = dir_frame(&f, st, path, end)) < 0)
			return ret;
		GA_ALLOC_GROW(st->chain, st->chain_nr + 1, st->chain_alloc);
		st->chain[st->chain_nr++] = f;
		cur = end;
	}
	return 0;
}

int attr_check(struct attr_value *out, struct attr_stack *st,
	       const char *path, int is_dir, const char *const *names,
	       size_t nr)
{
	struct lookup l;
	const char *slash;
	size_t i;
	int ret;

	if (!st->booted && (ret = bootstrap(st)) < 0)
		return ret;
	prepare_query(st, names, nr);

	l.path = path;
	l.len = strlen(path);
	l.is_dir = is_dir;
	if (l.len && path[l.len - 1] == '/') {
		/* "dir/" is the directory dir, as git looks it up. */
		ga_buf_setlen(&st->path, 0);
		ga_buf_put(&st->path, path, l.len - 1);
		l.path = st->path.ptr;
		l.len--;
		l.is_dir = 1;
	}
	slash = memrchr(l.path, '/', l.len);
	l.base_off = slash ? (size_t)(slash - l.path) + 1 : 0;
	if ((ret = update_chain(st, l.path, slash ? l.base_off - 1 : 0)) < 0)
		return ret;
	/* Files parsed just now may have brought new names. */
	grow_scratch(st);

	if (!++st->gen) {
		memset(st->decided, 0,
		       st->scratch_alloc * sizeof(*st->decided));
		st->gen = 1;
	}
	l.rem = st->wanted_nr;
	fill_frame(st, &l, st->info);
	for (i = st->chain_nr; l.rem && i > 0; i--)
		fill_frame(st, &l, st->chain[i - 1]);
	fill_frame(st, &l, st->global);
	fill_frame(st, &l, st->system);
	fill_frame(st, &l, st->builtin);

	for (i = 0; i < nr; i++) {
		long id = st->query_ids[i];
		const struct state_item *s;

		out[i].state = ATTR_UNSPECIFIED;
		out[i].value = NULL;
		if (id < 0 || st->decided[id] != st->gen)
			continue;
		s = st->value[id];
		out[i].state = s->state;
		out[i].value = s->value;
	}
	return 0;
}

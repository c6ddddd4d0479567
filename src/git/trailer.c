/*
 * trailer.c: git's trailer.c, the reading half that %(trailers) uses
 * (format_trailers_from_commit): where the trailer block of a message
 * starts and ends (find_trailer_start, ignore_non_trailer), how a line
 * splits into token and value with trailer.separators and
 * trailer.<token>.key, and the output forms of the options.
 */
#include "trailer.h"

#include "garchive/config.h"
#include "sane-ctype.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int cfg_var_is(const char *name, const char *want)
{
	return !strcasecmp(name, want);
}

static struct trailer_conf *tconf_get(struct trailer_config *tc,
				      const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < tc->nr; i++)
		if (strlen(tc->items[i].name) == len &&
		    !strncasecmp(tc->items[i].name, name, len))
			return &tc->items[i];
	GA_ALLOC_GROW(tc->items, tc->nr + 1, tc->alloc);
	memset(&tc->items[tc->nr], 0, sizeof(*tc->items));
	tc->items[tc->nr].name = ga_xstrndup(name, len);
	return &tc->items[tc->nr++];
}

static int valid_where(const char *v)
{
	return !strcasecmp(v, "after") || !strcasecmp(v, "before") ||
	       !strcasecmp(v, "end") || !strcasecmp(v, "start");
}

static int valid_if_exists(const char *v)
{
	return !strcasecmp(v, "addIfDifferent") ||
	       !strcasecmp(v, "addIfDifferentNeighbor") ||
	       !strcasecmp(v, "add") || !strcasecmp(v, "replace") ||
	       !strcasecmp(v, "doNothing");
}

static int valid_if_missing(const char *v)
{
	return !strcasecmp(v, "doNothing") || !strcasecmp(v, "add");
}

/* git's config key for messages: section and variable in lower case. */
static char *canonical_key(const char *name)
{
	char *k = ga_xstrdup(name), *first = strchr(k, '.');
	char *last = strrchr(k, '.'), *p;

	for (p = k; first && p < first; p++)
		*p = (char)ga_tolower(*p);
	for (p = last ? last : k; *p; p++)
		*p = (char)ga_tolower(*p);
	return k;
}

static void warn_unknown(const char *value, const char *name)
{
	char *key = canonical_key(name);

	ga_warning("unknown value '%s' for key '%s'", value, key);
	free(key);
}

/* First pass: trailer.separators and the defaults, core.commentChar. */
static int trailer_cfg_defaults(const char *name, const char *value,
				const char *origin, void *payload)
{
	struct trailer_config *tc = payload;
	const char *item;

	(void)origin;
	if (cfg_var_is(name, "core.commentchar")) {
		if (value && strcasecmp(value, "auto") && value[0] && !value[1])
			tc->comment_char = value[0];
		return 0;
	}
	if (strncasecmp(name, "trailer.", 8) || !value)
		return 0;
	item = name + 8;
	if (strchr(item, '.'))
		return 0;
	if (!strcasecmp(item, "separators")) {
		free(tc->separators);
		tc->separators = ga_xstrdup(value);
	} else if ((!strcasecmp(item, "where") && !valid_where(value)) ||
		   (!strcasecmp(item, "ifexists") &&
		    !valid_if_exists(value)) ||
		   (!strcasecmp(item, "ifmissing") &&
		    !valid_if_missing(value))) {
		warn_unknown(value, name);
	}
	return 0;
}

/* Second pass: trailer.<token>.<variable>. */
static int trailer_cfg_items(const char *name, const char *value,
			     const char *origin, void *payload)
{
	static const char *const vars[] = {
		"key", "command", "cmd", "where", "ifexists", "ifmissing"
	};
	struct trailer_config *tc = payload;
	struct trailer_conf *c;
	const char *item, *var;
	char **slot = NULL;
	size_t i;

	(void)origin;
	if (strncasecmp(name, "trailer.", 8))
		return 0;
	item = name + 8;
	var = strrchr(item, '.');
	if (!var)
		return 0;
	var++;
	for (i = 0; i < GA_ARRAY_SIZE(vars); i++)
		if (!strcasecmp(var, vars[i]))
			break;
	if (i == GA_ARRAY_SIZE(vars) || !value)
		return 0;
	c = tconf_get(tc, item, (size_t)(var - 1 - item));
	switch (i) {
	case 0:
		slot = &c->key;
		break;
	case 1:
		slot = &c->command;
		break;
	case 2:
		slot = &c->cmd;
		break;
	case 3:
		if (!valid_where(value))
			warn_unknown(value, name);
		return 0;
	case 4:
		if (!valid_if_exists(value))
			warn_unknown(value, name);
		return 0;
	default:
		if (!valid_if_missing(value))
			warn_unknown(value, name);
		return 0;
	}
	if (*slot) {
		char *key = canonical_key(name);

		ga_warning("more than one %s", key);
		free(key);
	}
	free(*slot);
	*slot = ga_xstrdup(value);
	return 0;
}

void trailer_config_load(struct trailer_config *tc,
			 const struct ga_config *cfg)
{
	if (tc->loaded)
		return;
	tc->loaded = 1;
	tc->comment_char = '#';
	tc->separators = ga_xstrdup(":");
	config_foreach(cfg, trailer_cfg_defaults, tc);
	config_foreach(cfg, trailer_cfg_items, tc);
}

void trailer_config_release(struct trailer_config *tc)
{
	size_t i;

	for (i = 0; i < tc->nr; i++) {
		free(tc->items[i].name);
		free(tc->items[i].key);
		free(tc->items[i].command);
		free(tc->items[i].cmd);
	}
	free(tc->items);
	free(tc->separators);
	memset(tc, 0, sizeof(*tc));
}

static int tconf_matches(const struct trailer_conf *c, const char *tok,
			 size_t len)
{
	if (!strncasecmp(tok, c->name, len))
		return 1;
	return c->key ? !strncasecmp(tok, c->key, len) : 0;
}

static const char *next_line(const char *str)
{
	const char *nl = strchrnul(str, '\n');

	return nl + !!*nl;
}

/* Start of the last line of buf[0..len), or -1 when len is 0. */
static ptrdiff_t last_line(const char *buf, size_t len)
{
	ptrdiff_t i;

	if (len == 0)
		return -1;
	if (len == 1)
		return 0;
	for (i = (ptrdiff_t)len - 2; i >= 0; i--)
		if (buf[i] == '\n')
			return i + 1;
	return 0;
}

static int trailer_blank(const char *str)
{
	const char *p = str;

	while (*p && *p != '\n' && ga_isspace((unsigned char)*p))
		p++;
	return !*p || *p == '\n';
}

/*
 * "<token><optional whitespace><separator>": the offset of the
 * separator, or -1.
 */
static ptrdiff_t find_separator(const char *line, const char *seps)
{
	int whitespace_found = 0;
	const char *c;

	for (c = line; *c; c++) {
		if (strchr(seps, *c))
			return c - line;
		if (!whitespace_found &&
		    (ga_isalnum((unsigned char)*c) || *c == '-'))
			continue;
		if (c != line && (*c == ' ' || *c == '\t')) {
			whitespace_found = 1;
			continue;
		}
		break;
	}
	return -1;
}

/* The end of the message proper (git's ignore_non_trailer()). */
static size_t trailer_end(const struct trailer_config *tc, const char *buf,
			  size_t len)
{
	static const char cut_line[] =
		"------------------------ >8 ------------------------";
	size_t boc = 0, bol = 0, cutoff = len;
	int in_conflicts = 0;
	char *pattern;
	const char *p;

	pattern = ga_xstrfmt("\n%c %s", tc->comment_char, cut_line);
	if (ga_starts_with(buf, pattern + 1))
		cutoff = 0;
	else if ((p = strstr(buf, pattern)))
		cutoff = (size_t)(p - buf) + 1;
	free(pattern);

	while (bol < cutoff) {
		const char *nl = memchr(buf + bol, '\n', len - bol);
		const char *next = nl ? nl + 1 : buf + len;

		if (buf[bol] == tc->comment_char || buf[bol] == '\n') {
			if (!boc)
				boc = bol;
		} else if (ga_starts_with(buf + bol, "Conflicts:\n")) {
			in_conflicts = 1;
			if (!boc)
				boc = bol;
		} else if (in_conflicts && buf[bol] == '\t') {
			/* a path of the old conflicts block */
		} else if (boc) {
			boc = 0;
			in_conflicts = 0;
		}
		bol = (size_t)(next - buf);
	}
	return len - (boc ? len - boc : len - cutoff);
}

/*
 * Where the trailer block starts: after a blank line, the last
 * paragraph made only of trailers, or holding a git-generated one and
 * at least 25% trailers (git's find_trailer_start()).
 */
static size_t trailer_start(const struct trailer_config *tc, const char *buf,
			    size_t len)
{
	static const char *const generated[] = {
		"Signed-off-by: ", "(cherry picked from commit "
	};
	const char *p;
	ptrdiff_t end_of_title, l;
	int only_spaces = 1, recognized = 0, trailers = 0, others = 0;
	int maybe_continued = 0;
	size_t i;

	for (p = buf; p < buf + len; p = next_line(p)) {
		if (p[0] == tc->comment_char)
			continue;
		if (trailer_blank(p))
			break;
	}
	end_of_title = p - buf;

	for (l = last_line(buf, len); l >= end_of_title;
	     l = last_line(buf, (size_t)l)) {
		const char *bol = buf + l;
		ptrdiff_t sep;
		int generated_line = 0;

		if (bol[0] == tc->comment_char) {
			others += maybe_continued;
			maybe_continued = 0;
			continue;
		}
		if (trailer_blank(bol)) {
			if (only_spaces)
				continue;
			others += maybe_continued;
			if (recognized && trailers * 3 >= others)
				return (size_t)(next_line(bol) - buf);
			else if (trailers && !others)
				return (size_t)(next_line(bol) - buf);
			return len;
		}
		only_spaces = 0;
		for (i = 0; i < GA_ARRAY_SIZE(generated); i++) {
			if (ga_starts_with(bol, generated[i])) {
				trailers++;
				maybe_continued = 0;
				recognized = 1;
				generated_line = 1;
				break;
			}
		}
		if (generated_line)
			continue;
		sep = find_separator(bol, tc->separators);
		if (sep >= 1 && !ga_isspace((unsigned char)bol[0])) {
			trailers++;
			maybe_continued = 0;
			if (recognized)
				continue;
			for (i = 0; i < tc->nr; i++) {
				if (tconf_matches(&tc->items[i], bol,
						  (size_t)sep)) {
					recognized = 1;
					break;
				}
			}
		} else if (ga_isspace((unsigned char)bol[0])) {
			maybe_continued++;
		} else {
			others++;
			others += maybe_continued;
			maybe_continued = 0;
		}
	}
	return len;
}

static void trim_buf(struct ga_buf *b)
{
	size_t start = 0;

	ga_buf_rtrim(b, 0);
	while (start < b->len && ga_isspace((unsigned char)b->ptr[start]))
		start++;
	if (start) {
		memmove(b->ptr, b->ptr + start, b->len - start);
		ga_buf_setlen(b, b->len - start);
	}
}

/* Split a trailer line into token and value, applying trailer.*.key. */
static void parse_trailer(const struct trailer_config *tc, struct ga_buf *tok,
			  struct ga_buf *val, const char *trailer,
			  ptrdiff_t sep)
{
	size_t tok_len, i;

	ga_buf_put(tok, trailer, (size_t)sep);
	trim_buf(tok);
	ga_buf_puts(val, trailer + sep + 1);
	trim_buf(val);
	tok_len = tok->len;
	while (tok_len > 0 && !ga_isalnum((unsigned char)tok->ptr[tok_len - 1]))
		tok_len--;
	for (i = 0; i < tc->nr; i++) {
		if (tconf_matches(&tc->items[i], ga_buf_str(tok, 0), tok_len)) {
			if (tc->items[i].key) {
				ga_buf_setlen(tok, 0);
				ga_buf_puts(tok, tc->items[i].key);
			}
			break;
		}
	}
}

static void unfold_value(struct ga_buf *val)
{
	struct ga_buf out = GA_BUF_INIT;
	size_t i = 0;

	ga_buf_grow(&out, val->len);
	while (i < val->len) {
		char c = val->ptr[i++];

		if (c == '\n') {
			while (i < val->len &&
			       ga_isspace((unsigned char)val->ptr[i]))
				i++;
			ga_buf_putc(&out, ' ');
		} else {
			ga_buf_putc(&out, c);
		}
	}
	trim_buf(&out);
	ga_buf_swap(&out, val);
	ga_buf_release(&out);
}

static int trailer_wanted(const struct trailer_opts *o,
			  const struct ga_buf *tok)
{
	size_t i;

	for (i = 0; i < o->nr_keys; i++)
		if (tok->len == o->keys[i].len &&
		    !strncasecmp(o->keys[i].key, ga_buf_str(tok, 0), tok->len))
			return 1;
	return 0;
}

void trailer_format(struct ga_buf *sb, size_t base, const char *msg,
		    const struct trailer_opts *o,
		    const struct trailer_config *tc)
{
	size_t len = strlen(msg), end, start, i, nr = 0, alloc = 0;
	size_t origlen = sb->len;
	char **lines = NULL;
	ptrdiff_t last = -1;
	const char *p;

	end = trailer_end(tc, msg, len);
	start = trailer_start(tc, msg, end);

	for (p = msg + start; p < msg + end;) {
		const char *nl = memchr(p, '\n', (size_t)(msg + end - p));
		const char *stop = nl ? nl + 1 : msg + end;

		if (last >= 0 && ga_isspace((unsigned char)p[0])) {
			char *joined = ga_xstrfmt("%s%.*s", lines[last],
						  (int)(stop - p), p);

			free(lines[last]);
			lines[last] = joined;
		} else {
			GA_ALLOC_GROW(lines, nr + 1, alloc);
			lines[nr] = ga_xstrndup(p, (size_t)(stop - p));
			last = find_separator(lines[nr], tc->separators) >= 1
				       ? (ptrdiff_t)nr
				       : -1;
			nr++;
		}
		p = stop;
	}

	if (!o->only && !o->unfold && !o->filter && !o->have_sep &&
	    !o->key_only && !o->value_only && !o->have_kvsep) {
		ga_buf_put(sb, msg + start, end - start);
		goto done;
	}
	for (i = 0; i < nr; i++) {
		const char *t = lines[i];
		ptrdiff_t sep = find_separator(t, tc->separators);

		if (sep >= 1) {
			struct ga_buf tok = GA_BUF_INIT, val = GA_BUF_INIT;

			parse_trailer(tc, &tok, &val, t, sep);
			if (!o->filter || trailer_wanted(o, &tok)) {
				if (o->unfold)
					unfold_value(&val);
				if (o->have_sep && sb->len != origlen)
					ga_buf_put(sb, ga_buf_str(&o->sep, 0),
						   o->sep.len);
				if (!o->value_only)
					ga_buf_put(sb, ga_buf_str(&tok, 0),
						   tok.len);
				if (!o->key_only && !o->value_only) {
					if (o->have_kvsep)
						ga_buf_put(sb,
							   ga_buf_str(&o->kvsep,
								    0),
							   o->kvsep.len);
					else
						ga_buf_puts(sb, ": ");
				}
				if (!o->key_only)
					ga_buf_put(sb, ga_buf_str(&val, 0),
						   val.len);
				if (!o->have_sep)
					ga_buf_putc(sb, '\n');
			}
			ga_buf_release(&tok);
			ga_buf_release(&val);
		} else if (!o->only) {
			if (o->have_sep && sb->len != origlen)
				ga_buf_put(sb, ga_buf_str(&o->sep, 0),
					   o->sep.len);
			ga_buf_puts(sb, t);
			if (o->have_sep)
				ga_buf_rtrim(sb, base);
		}
	}
done:
	for (i = 0; i < nr; i++)
		free(lines[i]);
	free(lines);
}

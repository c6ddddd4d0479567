/*
 * pretty.c: git's pretty.c format_commit_message(), as export-subst
 * uses it for "$Format:<fmt>$" (archive.c format_subst()).
 *
 * It reproduces git 2.39.5 down to its quirks: the expansion works on
 * the whole file buffer built so far (padding to a column counts from
 * the last newline of the file, "%-x" eats newlines of the file,
 * "%>>(n)" steals its spaces), and a commit with a non-UTF-8 "encoding"
 * header makes git convert the whole buffer to that encoding after
 * every expansion that read the header.
 *
 * Besides the commit it reads refs (decorations), the object database
 * (abbreviations), mailmap sources, the trailer configuration, the
 * clock (%ar, %ah; GIT_TEST_DATE_NOW is honoured as git does), and runs
 * `git describe` / `git show` children.
 */
#include "pretty.h"

#include "color.h"
#include "date.h"
#include "describe.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "ident.h"
#include "refdb.h"
#include "refs/refs.h"
#include "sane-ctype.h"
#include "utf8.h"

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>

#include "libgit2.h"
#include "odb/odb.h"

/* git refuses widths and indents above this (pretty.c). */
#define FORMATTING_LIMIT 16384

/* ------------------------------------------------------------------ */
/* What the placeholders read, loaded on first use.                   */

/* Drop the "encoding" header line (the buffer is now UTF-8). */
static void drop_encoding_header(char *buf)
{
	char *cp = buf, *end;

	while (!ga_starts_with(cp, "encoding ")) {
		cp = strchr(cp, '\n');
		if (!cp || *++cp == '\n')
			return;
	}
	end = strchr(cp, '\n');
	if (!end)
		return;
	memmove(cp, end + 1, strlen(end + 1) + 1);
}

static void load_message(struct pretty_commit *pc)
{
	const char *use;

	if (pc->msg_loaded)
		return;
	pc->msg_loaded = 1;
	pc->encoding = commit_header(pc->raw, "encoding");
	use = pc->encoding ? pc->encoding : "UTF-8";
	if (utf8_same_encoding(use, "UTF-8")) {
		if (!pc->encoding) {
			pc->msg = pc->raw;
			return;
		}
		pc->msg = ga_xstrdup(pc->raw);
	} else {
		struct ga_buf conv = GA_BUF_INIT;

		if (utf8_reencode(&conv, pc->raw, strlen(pc->raw), "UTF-8",
				  use) < 0) {
			ga_buf_release(&conv);
			pc->msg = pc->raw;
			return;
		}
		pc->msg = ga_buf_detach(&conv, NULL);
	}
	drop_encoding_header(pc->msg);
}

static size_t parent_count(struct pretty_commit *pc)
{
	commit_grafts_load(&pc->grafts, pc->repo, &pc->oid);
	if (pc->grafts.state != GRAFT_NONE)
		return pc->grafts.nr;
	return pc->commit->nr_parents;
}

static void parent_id(struct ga_oid *out, struct pretty_commit *pc,
		      size_t i)
{
	if (pc->grafts.state != GRAFT_NONE)
		ga_oid_cpy(out, &pc->grafts.parents[i]);
	else
		ga_oid_cpy(out, &pc->commit->parents[i]);
}

static void format_decorations(struct pretty_commit *pc, struct ga_buf *sb,
			       const char *prefix, const char *sep,
			       const char *suffix)
{
	commit_grafts_load(&pc->grafts, pc->repo, &pc->oid);
	decorations_load(&pc->decos, pc->repo, pc->odb, pc->cfg, &pc->oid,
			 pc->grafts.state != GRAFT_NONE);
	decorations_format(sb, &pc->decos, prefix, sep, suffix);
}

static int show_ident_date(struct ga_buf *out, const struct ident *id,
			   enum date_mode mode)
{
	uintmax_t date = 0;
	long tz = 0;

	if (id->date_begin && id->date_end)
		date = strtoumax(id->date_begin, NULL, 10);
	if (date_overflows(date)) {
		date = 0;
	} else {
		if (id->tz_begin && id->tz_end)
			tz = strtol(id->tz_begin, NULL, 10);
		if (tz >= INT_MAX || tz <= INT_MIN)
			tz = 0;
	}
	return date_show(out, date, (int)tz, mode);
}

/* ------------------------------------------------------------------ */
/* The format engine (pretty.c format_commit_message()).              */

enum flush_type {
	NO_FLUSH,
	FLUSH_RIGHT,
	FLUSH_LEFT,
	FLUSH_LEFT_AND_STEAL,
	FLUSH_BOTH
};

enum trunc_type { TRUNC_NONE, TRUNC_LEFT, TRUNC_MIDDLE, TRUNC_RIGHT };

struct fmt {
	struct pretty_commit *pc;
	struct ga_buf *out;	/* the file's buffer ... */
	size_t base;		/* ... whose text starts here */
	int header_parsed, message_parsed;
	const char *msg;
	size_t author_off, author_len, committer_off, committer_len;
	size_t message_off, subject_off, body_off;
	enum flush_type flush_type;
	enum trunc_type truncate;
	int padding;
	size_t width, indent1, indent2;
	size_t wrap_start;	/* relative to the start of the text */
	int error;
};

static int term_columns(struct pretty_commit *pc)
{
	const char *col = getenv("COLUMNS");
	struct winsize ws;
	int n;

	if (pc->columns)
		return pc->columns;
	pc->columns = 80;
	if (col && (n = atoi(col)) > 0)
		pc->columns = n;
	else if (!ioctl(1, TIOCGWINSZ, &ws) && ws.ws_col)
		pc->columns = ws.ws_col;
	return pc->columns;
}

/* %n and %xNN, also used for the trailer separators. */
static size_t expand_literal(struct ga_buf *sb, const char *ph)
{
	int hi, lo;

	switch (ph[0]) {
	case 'n':
		ga_buf_putc(sb, '\n');
		return 1;
	case 'x':
		hi = ga_hexval((unsigned char)ph[1]);
		if (hi < 0)
			return 0;
		lo = ga_hexval((unsigned char)ph[2]);
		if (lo < 0)
			return 0;
		ga_buf_putc(sb, (hi << 4) | lo);
		return 3;
	}
	return 0;
}

/*
 * git's strbuf_expand(): copy `fmt` to `sb`, "%%" as '%', and hand each
 * other placeholder (after its '%') to `fn`, which appends its expansion
 * and returns the bytes it took, 0 for one it does not know (the '%'
 * then stays), or -1 to stop.  Returns 0, or -1 when `fn` stopped.
 */
static int expand(struct ga_buf *sb, const char *fmt,
		  ptrdiff_t (*fn)(struct ga_buf *sb, const char *ph, void *ctx),
		  void *ctx)
{
	for (;;) {
		const char *pct = strchrnul(fmt, '%');
		ptrdiff_t consumed;

		ga_buf_put(sb, fmt, (size_t)(pct - fmt));
		if (!*pct)
			return 0;
		fmt = pct + 1;
		if (*fmt == '%') {
			ga_buf_putc(sb, '%');
			fmt++;
			continue;
		}
		consumed = fn(sb, fmt, ctx);
		if (consumed < 0)
			return -1;
		if (consumed)
			fmt += consumed;
		else
			ga_buf_putc(sb, '%');
	}
}

static ptrdiff_t literal_item(struct ga_buf *sb, const char *ph, void *ctx)
{
	(void)ctx;
	return (ptrdiff_t)expand_literal(sb, ph);
}

/* The trailer separators: only %n and %xNN are expanded. */
static void expand_literals_only(struct ga_buf *sb, const char *fmt)
{
	(void)expand(sb, fmt, literal_item, NULL);
}

static void wrap_tail(struct ga_buf *sb, size_t pos, size_t width,
		      size_t indent1, size_t indent2)
{
	struct ga_buf tmp = GA_BUF_INIT;

	utf8_add_wrapped(&tmp, ga_buf_str(sb, pos), (int)indent1, (int)indent2,
		    (int)width);
	ga_buf_setlen(sb, pos);
	ga_buf_put(sb, ga_buf_str(&tmp, 0), tmp.len);
	ga_buf_release(&tmp);
}

static void rewrap(struct fmt *f, struct ga_buf *sb, size_t base,
		   size_t width, size_t indent1, size_t indent2)
{
	if (f->width == width && f->indent1 == indent1 &&
	    f->indent2 == indent2)
		return;
	if (f->wrap_start < sb->len - base)
		wrap_tail(sb, base + f->wrap_start, f->width, f->indent1,
			  f->indent2);
	f->wrap_start = sb->len - base;
	f->width = width;
	f->indent1 = indent1;
	f->indent2 = indent2;
}

static size_t format_color(struct fmt *f, struct ga_buf *sb, const char *ph)
{
	static const char *const basic[] = { "red", "green", "blue", "reset" };
	size_t i;

	if (ph[1] == '(') {
		const char *begin = ph + 2, *end = strchr(begin, ')');

		if (!end)
			return 0;
		/* Colour is off in git archive: only "always," shows. */
		if (ga_skip_prefix(begin, "always,", &begin) &&
		    color_parse_mem(sb, begin, (size_t)(end - begin)) < 0)
			f->error = ga_error_set(
				"unable to parse --pretty format");
		return (size_t)(end - ph) + 1;
	}
	for (i = 0; i < GA_ARRAY_SIZE(basic); i++)
		if (ga_starts_with(ph + 1, basic[i]))
			return 1 + strlen(basic[i]);
	return 0;
}

static size_t format_wrap(struct fmt *f, struct ga_buf *sb, size_t base,
			  const char *ph)
{
	unsigned long width = 0, indent1 = 0, indent2 = 0;
	const char *start = ph + 2, *end;
	char *next;

	if (ph[1] != '(')
		return 0;
	end = strchr(start, ')');
	if (!end)
		return 0;
	if (end > start) {
		width = strtoul(start, &next, 10);
		if (*next == ',') {
			indent1 = strtoul(next + 1, &next, 10);
			if (*next == ',')
				indent2 = strtoul(next + 1, &next, 10);
		}
		if (*next != ')')
			return 0;
	}
	if (width > FORMATTING_LIMIT ||
	    indent1 > FORMATTING_LIMIT ||
	    indent2 > FORMATTING_LIMIT)
		return 0;
	rewrap(f, sb, base, width, indent1, indent2);
	return (size_t)(end - ph) + 1;
}

static size_t format_padding_spec(struct fmt *f, const char *ph)
{
	const char *ch = ph, *start, *end;
	enum flush_type type;
	int to_column = 0, width;
	char *next;

	switch (*ch++) {
	case '<':
		type = FLUSH_RIGHT;
		break;
	case '>':
		if (*ch == '<') {
			type = FLUSH_BOTH;
			ch++;
		} else if (*ch == '>') {
			type = FLUSH_LEFT_AND_STEAL;
			ch++;
		} else {
			type = FLUSH_LEFT;
		}
		break;
	default:
		return 0;
	}
	if (*ch == '|') {
		to_column = 1;
		ch++;
	}
	if (*ch != '(')
		return 0;
	start = ch + 1;
	end = start + strcspn(start, ",)");
	if (!*end || end == start)
		return 0;
	/* git keeps strtol's result in an int. */
	width = (int)strtol(start, &next, 10);
	if (width < -FORMATTING_LIMIT || width > FORMATTING_LIMIT)
		return 0;
	if (next == start || width == 0)
		return 0;
	if (width < 0) {
		if (to_column)
			width += term_columns(f->pc);
		if (width < 0)
			return 0;
	}
	/* Set before the truncation mode is checked, as git does. */
	f->padding = to_column ? -width : width;
	f->flush_type = type;
	if (*end == ',') {
		start = end + 1;
		end = strchr(start, ')');
		if (!end || end == start)
			return 0;
		if (ga_starts_with(start, "trunc)"))
			f->truncate = TRUNC_RIGHT;
		else if (ga_starts_with(start, "ltrunc)"))
			f->truncate = TRUNC_LEFT;
		else if (ga_starts_with(start, "mtrunc)"))
			f->truncate = TRUNC_MIDDLE;
		else
			return 0;
	} else {
		f->truncate = TRUNC_NONE;
	}
	return (size_t)(end - ph) + 1;
}

/*
 * "<candidate>[=<value>]" followed by ',' or ')': sets *end past a ','
 * (or at the ')'), and the value (NULL when absent).
 */
static int match_arg_value(const char *to_parse, const char *candidate,
			   const char **end, const char **value,
			   size_t *value_len)
{
	const char *p;

	if (!ga_skip_prefix(to_parse, candidate, &p))
		return 0;
	if (value) {
		if (*p == '=') {
			*value = p + 1;
			*value_len = strcspn(*value, ",)");
			p = *value + *value_len;
		} else {
			if (*p != ',' && *p != ')')
				return 0;
			*value = NULL;
			*value_len = 0;
		}
	}
	if (*p == ',') {
		*end = p + 1;
		return 1;
	}
	if (*p == ')') {
		*end = p;
		return 1;
	}
	return 0;
}

/* Note that *end moves even when the value is not a boolean (git's). */
static int match_bool_arg(const char *to_parse, const char *candidate,
			  const char **end, int *val)
{
	const char *value;
	size_t len;
	char *copy;
	int v;

	if (!match_arg_value(to_parse, candidate, end, &value, &len))
		return 0;
	if (!value) {
		*val = 1;
		return 1;
	}
	copy = ga_xstrndup(value, len);
	v = config_maybe_bool(copy);
	free(copy);
	if (v < 0)
		return 0;
	*val = v;
	return 1;
}

/* Options of %(describe:...): how many bytes they take, 0 if bad. */
static size_t parse_describe_args(const char *start, struct ga_strvec *args)
{
	static const struct {
		const char *name;
		enum { ARG_BOOL, ARG_INT, ARG_STRING } type;
	} option[] = {
		{ "tags", ARG_BOOL },
		{ "abbrev", ARG_INT },
		{ "exclude", ARG_STRING },
		{ "match", ARG_STRING },
	};
	const char *arg = start;

	for (;;) {
		int found = 0;
		size_t i;

		for (i = 0; !found && i < GA_ARRAY_SIZE(option); i++) {
			const char *value;
			size_t len = 0;
			int b = 0;
			char *endp;

			switch (option[i].type) {
			case ARG_BOOL:
				if (match_bool_arg(arg, option[i].name, &arg,
						   &b)) {
					ga_strvec_push(args, ga_xstrfmt("--%s%s",
						b ? "" : "no-", option[i].name));
					found = 1;
				}
				break;
			case ARG_INT:
			case ARG_STRING:
				if (!match_arg_value(arg, option[i].name, &arg,
						     &value, &len))
					break;
				if (!len)
					return 0;
				if (option[i].type == ARG_INT) {
					strtol(value, &endp, 10);
					if ((size_t)(endp - value) != len)
						return 0;
				}
				ga_strvec_push(args, ga_xstrfmt("--%s=%.*s",
					option[i].name, (int)len, value));
				found = 1;
				break;
			}
		}
		if (!found)
			break;
	}
	return (size_t)(arg - start);
}

/*
 * git describe's answer.  The installed git is asked; in a reftable
 * repository a git older than 2.45 cannot read the refs and fails, and
 * the answer is then computed here (describe.c) from garchive's ref
 * store.  Where git describe fails for any reason, nothing.
 */
static void run_describe(struct ga_buf *out, struct pretty_commit *pc,
			 const char *const *args, size_t nr)
{
	struct refs_store *refs = NULL;

	if (!refdb_uses_reftable(pc->repo)) {
		ask_git(out, pc->repo, args, nr);
		return;
	}
	if (!ask_git_status(out, pc->repo, args, nr))
		return;
	ga_buf_setlen(out, 0);
	if (refdb_open_store(&refs, pc->repo) < 0 ||
	    describe_commit(out, pc->repo, refs, &pc->abbrev, &pc->oid,
			    args, nr) < 0) {
		ga_error_clear();
		ga_buf_setlen(out, 0);
	}
	refs_free(refs);
}

static size_t format_describe(struct fmt *f, struct ga_buf *sb,
			      const char *ph, const char *arg)
{
	struct pretty_commit *pc = f->pc;
	struct ga_strvec args = GA_STRVEC_INIT;
	struct ga_buf out = GA_BUF_INIT;
	size_t consumed = 0;

	/* git archive allows one; a refused one still counts, as in git. */
	if (!pc->describes_left)
		return 0;
	if (pc->describes_left > 0)
		pc->describes_left--;
	ga_strvec_push(&args, ga_xstrdup("describe"));
	if (*arg == ':') {
		arg++;
		arg += parse_describe_args(arg, &args);
	}
	if (*arg != ')')
		goto done;
	ga_strvec_push(&args, ga_xstrdup(pc->hex));
	run_describe(&out, pc, (const char *const *)args.v, args.nr);
	ga_buf_rtrim(&out, 0);
	ga_buf_put(sb, ga_buf_str(&out, 0), out.len);
	consumed = (size_t)(arg - ph) + 1;
done:
	ga_strvec_clear(&args);
	ga_buf_release(&out);
	return consumed;
}

static size_t format_person(struct fmt *f, struct ga_buf *sb, char part,
			    const char *line, size_t len)
{
	struct ident id;
	const char *name, *mail;
	size_t name_len, mail_len;
	enum date_mode mode;
	int error;

	if (ident_split(&id, line, len) < 0)
		goto skip;
	name = id.name_begin;
	name_len = (size_t)(id.name_end - id.name_begin);
	mail = id.mail_begin;
	mail_len = (size_t)(id.mail_end - id.mail_begin);
	if (part == 'N' || part == 'E' || part == 'L') {
		struct pretty_commit *pc = f->pc;

		if (!pc->mailmap_loaded) {
			pc->mailmap_loaded = 1;
			mailmap_load(&pc->mailmap, pc->repo, pc->cfg);
		}
		if (pc->mailmap.nr)
			mailmap_map(&pc->mailmap, &mail, &mail_len, &name,
				    &name_len);
	}
	if (part == 'n' || part == 'N') {
		ga_buf_put(sb, name, name_len);
		return 2;
	}
	if (part == 'e' || part == 'E') {
		ga_buf_put(sb, mail, mail_len);
		return 2;
	}
	if (part == 'l' || part == 'L') {
		const char *at = memchr(mail, '@', mail_len);

		if (at)
			mail_len = (size_t)(at - mail);
		ga_buf_put(sb, mail, mail_len);
		return 2;
	}
	if (!id.date_begin)
		goto skip;
	switch (part) {
	case 't':
		ga_buf_put(sb, id.date_begin,
			   (size_t)(id.date_end - id.date_begin));
		return 2;
	case 'd':
		mode = DATE_NORMAL;
		break;
	case 'D':
		mode = DATE_RFC2822;
		break;
	case 'r':
		mode = DATE_RELATIVE;
		break;
	case 'i':
		mode = DATE_ISO8601;
		break;
	case 'I':
		mode = DATE_ISO8601_STRICT;
		break;
	case 'h':
		mode = DATE_HUMAN;
		break;
	case 's':
		mode = DATE_SHORT;
		break;
	default:
		goto skip;
	}
	if ((error = show_ident_date(sb, &id, mode)) < 0)
		f->error = error;
	return 2;
skip:
	/* A bogus ident still consumes the historical placeholders. */
	if (part && strchr("netdDri", part))
		return 2;
	return 0;
}

static void parse_header(struct fmt *f)
{
	const char *msg;
	size_t i;

	load_message(f->pc);
	msg = f->msg = f->pc->msg;
	for (i = 0; msg[i]; i++) {
		const char *name;
		size_t eol;

		for (eol = i; msg[eol] && msg[eol] != '\n'; eol++)
			;
		if (i == eol)
			break;
		if (ga_skip_prefix(msg + i, "author ", &name)) {
			f->author_off = (size_t)(name - msg);
			f->author_len = eol - f->author_off;
		} else if (ga_skip_prefix(msg + i, "committer ", &name)) {
			f->committer_off = (size_t)(name - msg);
			f->committer_len = eol - f->committer_off;
		}
		i = eol;
		if (!msg[i])
			break;
	}
	f->message_off = i;
	f->header_parsed = 1;
}

static size_t one_line_len(const char *msg)
{
	size_t n = 0;

	while (msg[n]) {
		if (msg[n++] == '\n')
			break;
	}
	return n;
}

/* Trims the trailing whitespace off *len; true when nothing is left. */
static int blank_line(const char *line, size_t *len)
{
	while (*len && ga_isspace((unsigned char)line[*len - 1]))
		(*len)--;
	return !*len;
}

static const char *skip_blank_lines(const char *msg)
{
	for (;;) {
		size_t n = one_line_len(msg), trimmed = n;

		if (!n || !blank_line(msg, &trimmed))
			return msg;
		msg += n;
	}
}

/* The subject: the first paragraph, lines joined by `sep`. */
static const char *format_subject(struct ga_buf *sb, const char *msg,
				  const char *sep)
{
	int first = 1;

	for (;;) {
		const char *line = msg;
		size_t n = one_line_len(line);

		msg += n;
		if (!n || blank_line(line, &n))
			break;
		if (!sb)
			continue;
		if (!first)
			ga_buf_puts(sb, sep);
		ga_buf_put(sb, line, n);
		first = 0;
	}
	return msg;
}

static void parse_message(struct fmt *f)
{
	const char *msg = f->msg + f->message_off;

	msg = skip_blank_lines(msg);
	f->subject_off = (size_t)(msg - f->msg);
	msg = format_subject(NULL, msg, NULL);
	msg = skip_blank_lines(msg);
	f->body_off = (size_t)(msg - f->msg);
	f->message_parsed = 1;
}

static int title_char(char c)
{
	return ga_isalnum((unsigned char)c) || c == '.' || c == '_';
}

/* %f: the subject as a file name. */
static void format_sanitized(struct ga_buf *sb, const char *msg, size_t len)
{
	size_t start_len = sb->len, i;
	int space = 2;

	for (i = 0; i < len; i++) {
		if (title_char(msg[i])) {
			if (space == 1)
				ga_buf_putc(sb, '-');
			space = 0;
			ga_buf_putc(sb, msg[i]);
			if (msg[i] == '.')
				while (msg[i + 1] == '.')
					i++;
		} else {
			space |= 1;
		}
	}
	while (sb->len > start_len &&
	       (sb->ptr[sb->len - 1] == '.' || sb->ptr[sb->len - 1] == '-'))
		ga_buf_setlen(sb, sb->len - 1);
}

static size_t format_trailers_spec(struct fmt *f, struct ga_buf *sb,
				   size_t base, const char *ph,
				   const char *arg)
{
	struct trailer_opts o;
	size_t ret = 0;

	memset(&o, 0, sizeof(o));
	if (*arg == ':') {
		arg++;
		for (;;) {
			const char *value;
			size_t len;

			if (*arg == ')')
				break;
			if (match_arg_value(arg, "key", &arg, &value, &len)) {
				if (!value)
					goto out;
				if (len && value[len - 1] == ':')
					len--;
				GA_ALLOC_GROW(o.keys, o.nr_keys + 1,
					      o.alloc_keys);
				o.keys[o.nr_keys].key = value;
				o.keys[o.nr_keys++].len = len;
				o.filter = 1;
				o.only = 1;
			} else if (match_arg_value(arg, "separator", &arg,
						   &value, &len)) {
				char *tmp = ga_xstrndup(value ? value : "", len);

				ga_buf_setlen(&o.sep, 0);
				expand_literals_only(&o.sep, tmp);
				free(tmp);
				o.have_sep = 1;
			} else if (match_arg_value(arg, "key_value_separator",
						   &arg, &value, &len)) {
				char *tmp = ga_xstrndup(value ? value : "", len);

				ga_buf_setlen(&o.kvsep, 0);
				expand_literals_only(&o.kvsep, tmp);
				free(tmp);
				o.have_kvsep = 1;
			} else if (!match_bool_arg(arg, "only", &arg, &o.only) &&
				   !match_bool_arg(arg, "unfold", &arg,
						   &o.unfold) &&
				   !match_bool_arg(arg, "keyonly", &arg,
						   &o.key_only) &&
				   !match_bool_arg(arg, "valueonly", &arg,
						   &o.value_only)) {
				goto out;
			}
		}
	}
	if (*arg == ')') {
		trailer_config_load(&f->pc->trailers, f->pc->cfg);
		trailer_format(sb, base, f->msg + f->subject_off, &o,
			       &f->pc->trailers);
		ret = (size_t)(arg - ph) + 1;
	}
out:
	free(o.keys);
	ga_buf_release(&o.sep);
	ga_buf_release(&o.kvsep);
	return ret;
}

/* One placeholder (after the '%'): bytes consumed, 0 if unknown. */
static size_t format_one(struct fmt *f, struct ga_buf *sb, size_t base,
			 const char *ph)
{
	struct pretty_commit *pc = f->pc;
	const char *arg;
	size_t res, i, n;
	struct ga_oid id;

	if ((res = expand_literal(sb, ph)))
		return res;
	switch (ph[0]) {
	case 'C':
		/* %C(auto) only turns colour on for terminals. */
		if (ga_starts_with(ph + 1, "(auto)"))
			return 7;
		return format_color(f, sb, ph);
	case 'w':
		return format_wrap(f, sb, base, ph);
	case '<':
	case '>':
		return format_padding_spec(f, ph);
	}
	if (ga_skip_prefix(ph, "(describe", &arg))
		return format_describe(f, sb, ph, arg);

	switch (ph[0]) {
	case 'H':
		ga_buf_puts(sb, pc->hex);
		return 1;
	case 'h':
		abbrev_add(sb, &pc->abbrev, &pc->oid);
		return 1;
	case 'T': {
		char hex[GA_OID_MAX_HEXSZ + 1];

		ga_buf_puts(sb, ga_oid_fmt(hex, &pc->commit->tree_id));
		return 1;
	}
	case 't':
		abbrev_add(sb, &pc->abbrev, &pc->commit->tree_id);
		return 1;
	case 'P':
	case 'p':
		n = parent_count(pc);
		for (i = 0; i < n; i++) {
			if (i)
				ga_buf_putc(sb, ' ');
			parent_id(&id, pc, i);
			if (ph[0] == 'p') {
				abbrev_add(sb, &pc->abbrev, &id);
			} else {
				char hex[GA_OID_MAX_HEXSZ + 1];

				ga_buf_puts(sb, ga_oid_fmt(hex, &id));
			}
		}
		return 1;
	case 'm':
		/* No revision walk: every commit is "on the right". */
		ga_buf_putc(sb, '>');
		return 1;
	case 'd':
		format_decorations(pc, sb, " (", ", ", ")");
		return 1;
	case 'D':
		format_decorations(pc, sb, "", ", ", "");
		return 1;
	case 'S':
		/* No --source, no notes, no reflog walk in an archive. */
		return 0;
	case 'g':
		switch (ph[1]) {
		case 'd':
		case 'D':
		case 's':
		case 'n':
		case 'N':
		case 'e':
		case 'E':
			return 2;
		}
		return 0;
	case 'N':
		return 0;
	}
	if (ph[0] == 'G') {
		static const char fields[] = "?GSKFPT";
		const char *field = ph[1] ? strchr(fields, ph[1]) : NULL;
		const char *v;

		signature_load(&pc->sig, pc->repo, pc->raw, pc->hex,
			       ph[1] == 'T');
		if (!field)
			return 0;
		v = pc->sig.field[field - fields];
		ga_buf_puts(sb, v ? v : "");
		return 2;
	}

	if (!f->header_parsed)
		parse_header(f);
	switch (ph[0]) {
	case 'a':
		return format_person(f, sb, ph[1], f->msg + f->author_off,
				     f->author_len);
	case 'c':
		return format_person(f, sb, ph[1], f->msg + f->committer_off,
				     f->committer_len);
	case 'e':
		if (pc->encoding)
			ga_buf_puts(sb, pc->encoding);
		return 1;
	case 'B':
		if (f->msg[f->message_off])
			ga_buf_puts(sb, f->msg + f->message_off + 1);
		return 1;
	}

	if (!f->message_parsed)
		parse_message(f);
	switch (ph[0]) {
	case 's':
		format_subject(sb, f->msg + f->subject_off, " ");
		return 1;
	case 'f': {
		const char *subj = f->msg + f->subject_off;

		format_sanitized(sb, subj,
				 (size_t)(strchrnul(subj, '\n') - subj));
		return 1;
	}
	case 'b':
		ga_buf_puts(sb, f->msg + f->body_off);
		return 1;
	}
	if (ga_skip_prefix(ph, "(trailers", &arg))
		return format_trailers_spec(f, sb, base, ph, arg);
	return 0;
}

/* A placeholder under a pending %<(...) and friends. */
static size_t format_padded(struct fmt *f, const char *ph)
{
	struct ga_buf *sb = f->out;
	struct ga_buf local = GA_BUF_INIT;
	size_t total = 0;
	int len, padding = f->padding;

	if (padding < 0) {
		/* To a column: of the file's last line, as git sees it. */
		const char *text = ga_buf_str(sb, f->base);
		const char *start = strrchr(text, '\n');

		if (!start)
			start = text;
		padding = -padding - utf8_strnwidth(start, strlen(start), 1);
	}
	for (;;) {
		int modifier = *ph == 'C';
		size_t consumed = format_one(f, &local, 0, ph);

		total += consumed;
		if (f->error || !modifier)
			break;
		ph += consumed;
		if (*ph != '%')
			break;
		ph++;
		total++;
	}
	len = utf8_strnwidth(ga_buf_str(&local, 0), local.len, 1);

	if (f->flush_type == FLUSH_LEFT_AND_STEAL) {
		/* Take back the spaces (and colours) before us. */
		const char *b = ga_buf_str(sb, f->base);
		ptrdiff_t ch = (ptrdiff_t)(sb->len - f->base) - 1;

		while (len > padding && ch > 0) {
			ptrdiff_t p;

			if (b[ch] == ' ') {
				ch--;
				padding++;
				continue;
			}
			if (b[ch] != 'm')
				break;
			p = ch - 1;
			while (p > 0 && ch - p < 10 && b[p] != '\033')
				p--;
			if (b[p] != '\033' ||
			    (size_t)(ch + 1 - p) != utf8_sgr_len(b + p))
				break;
			if (!local.ptr)
				ga_buf_grow(&local, 0);
			ga_buf_insert(&local, 0, b + p, (size_t)(ch + 1 - p));
			ch = p - 1;
		}
		ga_buf_setlen(sb, f->base + (size_t)(ch + 1));
		f->flush_type = FLUSH_LEFT;
	}

	if (len > padding) {
		switch (f->truncate) {
		case TRUNC_LEFT:
			utf8_replace(&local, 0, len - (padding - 2), "..");
			break;
		case TRUNC_MIDDLE:
			utf8_replace(&local, padding / 2 - 1,
				     len - (padding - 2), "..");
			break;
		case TRUNC_RIGHT:
			utf8_replace(&local, padding - 2, len - (padding - 2),
				     "..");
			break;
		case TRUNC_NONE:
			break;
		}
		ga_buf_put(sb, ga_buf_str(&local, 0), local.len);
	} else {
		size_t sb_len = sb->len, offset = 0;

		if (f->flush_type == FLUSH_LEFT)
			offset = (size_t)(padding - len);
		else if (f->flush_type == FLUSH_BOTH)
			offset = (size_t)(padding - len) / 2;
		/* Columns back to bytes. */
		padding = padding - len + (int)local.len;
		ga_buf_addchars(sb, ' ', (size_t)padding);
		if (local.len)
			memcpy(sb->ptr + sb_len + offset, local.ptr, local.len);
	}
	ga_buf_release(&local);
	f->flush_type = NO_FLUSH;
	return total;
}

/* One placeholder with its optional '+', '-' or ' ' magic. */
static size_t format_item(struct fmt *f, const char *ph)
{
	struct ga_buf *sb = f->out;
	size_t consumed, orig_len;
	char magic = 0;

	if (ph[0] == '-' || ph[0] == '+' || ph[0] == ' ') {
		magic = ph[0];
		ph++;
		/* %+w() could only ever produce nothing: refused. */
		if (ph[0] == 'w')
			return 0;
	}
	orig_len = sb->len;
	if (f->flush_type != NO_FLUSH)
		consumed = format_padded(f, ph);
	else
		consumed = format_one(f, sb, f->base, ph);
	if (!magic)
		return consumed;
	if (orig_len == sb->len && magic == '-') {
		while (sb->len > f->base && sb->ptr[sb->len - 1] == '\n')
			ga_buf_setlen(sb, sb->len - 1);
	} else if (orig_len > sb->len) {
		/* Stealing shrank the text: git's strbuf_insert() dies. */
		f->error = ga_error_set("`pos' is too far after the end of "
					"the buffer");
	} else if (orig_len != sb->len) {
		if (magic == '+')
			ga_buf_insert(sb, orig_len, "\n", 1);
		else if (magic == ' ')
			ga_buf_insert(sb, orig_len, " ", 1);
	}
	return consumed + 1;
}

static ptrdiff_t commit_item(struct ga_buf *sb, const char *ph, void *ctx)
{
	struct fmt *f = ctx;
	size_t consumed;

	(void)sb;	/* f->out, which padding needs whole */
	consumed = format_item(f, ph);
	return f->error ? -1 : (ptrdiff_t)consumed;
}

int pretty_format_commit(struct ga_buf *out, size_t base,
			 struct pretty_commit *pc, const char *fmt)
{
	struct fmt f;

	memset(&f, 0, sizeof(f));
	f.pc = pc;
	f.out = out;
	f.base = base;
	f.wrap_start = out->len - base;
	if (expand(out, fmt, commit_item, &f) < 0)
		return f.error;
	rewrap(&f, out, base, 0, 0, 0);

	/*
	 * Placeholders produce UTF-8; when the header was read and the
	 * commit declares another encoding, git converts the whole
	 * buffer -- the file so far included -- back to it, and keeps
	 * it unchanged when that fails.
	 */
	if (f.header_parsed && pc->encoding &&
	    !utf8_same_encoding(pc->encoding, "UTF-8")) {
		struct ga_buf conv = GA_BUF_INIT;

		if (!utf8_reencode(&conv, ga_buf_str(out, base),
				   out->len - base, pc->encoding, "UTF-8")) {
			ga_buf_setlen(out, base);
			ga_buf_put(out, conv.ptr, conv.len);
		}
		ga_buf_release(&conv);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The commit.                                                         */

int pretty_commit_init(struct pretty_commit *pc, git_repository *repo,
		       const struct ga_commit *commit,
		       const struct ga_config *cfg)
{
	int error;

	memset(pc, 0, sizeof(*pc));
	pc->repo = repo;
	pc->commit = commit;
	pc->cfg = cfg;
	ga_oid_cpy(&pc->oid, &commit->id);
	ga_oid_fmt(pc->hex, &pc->oid);
	pc->describes_left = -1;
	if (git_repository_odb(&pc->odb, repo) < 0)
		return ga_error_from_git(NULL);
	if ((error = abbrev_init(&pc->abbrev, repo, pc->odb, cfg)) < 0)
		return error;
	/* git handles the commit as a C string. */
	pc->raw = ga_xstrndup(commit->raw, commit->raw_len);
	return 0;
}

void pretty_commit_release(struct pretty_commit *pc)
{
	if (pc->msg != pc->raw)
		free(pc->msg);
	free(pc->raw);
	free(pc->encoding);
	commit_grafts_release(&pc->grafts);
	mailmap_clear(&pc->mailmap);
	decorations_release(&pc->decos);
	trailer_config_release(&pc->trailers);
	signature_release(&pc->sig);
	git_odb_free(pc->odb);
	memset(pc, 0, sizeof(*pc));
}

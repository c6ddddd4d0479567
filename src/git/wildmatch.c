/*
 * wildmatch.c: git's glob matcher, reimplemented.
 *
 * The semantics follow git's wildmatch() exactly, including its quirks,
 * because gitattributes patterns and :(glob) pathspecs must select the
 * same paths as git does:
 *
 * - Character classes and case folding are ASCII only (git uses its own
 *   locale-independent ctype).
 * - With WM_CASEFOLD the text and the pattern characters outside
 *   brackets are folded to lower case, but a character after a backslash
 *   and single characters inside a bracket expression are not: "\A" and
 *   "[A]" match neither "A" nor "a", while "[A-Z]" matches both.
 * - A malformed bracket expression (unterminated, or an unknown
 *   "[:class:]") makes the whole match fail.
 * - With WM_PATHNAME, a double star matches across '/' only when it is
 *   a whole path component (alone, followed by a slash at the start of
 *   the pattern, between two slashes, or after a slash at the end);
 *   elsewhere it acts like a single '*'.
 */
#include "wildmatch.h"

#include "sane-ctype.h"

#include <stddef.h>
#include <string.h>

/*
 * Internal results besides WM_MATCH and WM_NOMATCH.  They let a failed
 * attempt stop the backtracking of enclosing stars early: ABORT_ALL when
 * no later starting point can match either (the text ran out), and
 * ABORT_TO_STARSTAR when a single '*' would have to cross a '/', which
 * only an enclosing "**" may try to fix.
 */
#define ABORT_ALL		(-1)
#define ABORT_TO_STARSTAR	(-2)

typedef unsigned char uchar;

static uchar fold(uchar c, unsigned int flags)
{
	if ((flags & WM_CASEFOLD) && ga_isupper(c))
		return (uchar)(c + ('a' - 'A'));
	return c;
}

/*
 * Does the class named by `name` (`len` bytes, from "[:name:]") contain
 * `t`?  Returns 1 or 0, or -1 for an unknown class name.
 */
static int class_has(const uchar *name, size_t len, uchar t,
		     unsigned int flags)
{
	static const struct {
		const char *name;
		int id;
	} classes[] = {
		{ "alnum", 0 }, { "alpha", 1 }, { "blank", 2 },
		{ "cntrl", 3 }, { "digit", 4 }, { "graph", 5 },
		{ "lower", 6 }, { "print", 7 }, { "punct", 8 },
		{ "space", 9 }, { "upper", 10 }, { "xdigit", 11 },
	};
	size_t i;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		if (strlen(classes[i].name) == len &&
		    !memcmp(classes[i].name, name, len))
			break;
	}
	if (i == sizeof(classes) / sizeof(classes[0]))
		return -1;

	switch (classes[i].id) {
	case 0:
		return ga_isalpha(t) || ga_isdigit(t);
	case 1:
		return ga_isalpha(t);
	case 2:
		return t == ' ' || t == '\t';
	case 3:
		return t < 0x20 || t == 0x7f;
	case 4:
		return ga_isdigit(t);
	case 5:
		return t > 0x20 && t < 0x7f;
	case 6:
		return ga_islower(t);
	case 7:
		return ga_isprint(t);
	case 8:
		return ga_ispunct(t);
	case 9:
		return ga_isspace(t);
	case 10:
		/* Under case folding the text is lower case already. */
		return ga_isupper(t) || ((flags & WM_CASEFOLD) && ga_islower(t));
	default:
		return ga_isxdigit(t);
	}
}

/*
 * Match the text character `t` (already folded) against the bracket
 * expression whose body starts at *pp (just after the '[').  On return
 * *pp points at the closing ']'.  Returns WM_MATCH, WM_NOMATCH or
 * ABORT_ALL for a malformed expression.
 */
static int match_bracket(const uchar **pp, uchar t, unsigned int flags)
{
	const uchar *p = *pp;
	int negated = 0, hit = 0, first = 1;
	uchar prev = 0;

	if (*p == '!' || *p == '^') {
		negated = 1;
		p++;
	}
	for (;; p++, first = 0) {
		uchar c = *p;

		/* A ']' right after "[" or "[!" is a member, not the end. */
		if (c == ']' && !first)
			break;
		if (!c)
			return ABORT_ALL;
		if (c == '\\') {
			c = *++p;
			if (!c)
				return ABORT_ALL;
			if (t == c)
				hit = 1;
			prev = c;
		} else if (c == '-' && prev && p[1] && p[1] != ']') {
			uchar hi = *++p;

			if (hi == '\\') {
				hi = *++p;
				if (!hi)
					return ABORT_ALL;
			}
			if (prev <= t && t <= hi)
				hit = 1;
			else if ((flags & WM_CASEFOLD) && ga_islower(t)) {
				uchar up = (uchar)(t - ('a' - 'A'));

				if (prev <= up && up <= hi)
					hit = 1;
			}
			/* A range never starts another range. */
			prev = 0;
		} else if (c == '[' && p[1] == ':') {
			const uchar *name = p + 2, *end = name;
			int r;

			while (*end && *end != ']')
				end++;
			if (!*end)
				return ABORT_ALL;
			if (end == name || end[-1] != ':') {
				/* Not "[:name:]": '[' is an ordinary member. */
				if (t == '[')
					hit = 1;
				prev = '[';
				continue;
			}
			r = class_has(name, (size_t)(end - name - 1), t, flags);
			if (r < 0)
				return ABORT_ALL;
			if (r)
				hit = 1;
			p = end;
			prev = 0;
		} else {
			if (t == c)
				hit = 1;
			prev = c;
		}
	}
	*pp = p;
	if (hit == negated || ((flags & WM_PATHNAME) && t == '/'))
		return WM_NOMATCH;
	return WM_MATCH;
}

static int match_here(const uchar *p, const uchar *text, unsigned int flags);

/*
 * The star case.  `p` points just past the first '*', `start` is the
 * beginning of the (sub)pattern being matched, `text` the remaining text.
 * Returns a final result; *done is 0 instead when a single '*' followed by
 * '/' consumed the text up to the next '/' and matching goes on at
 * (*pp, *tp), both pointing at that '/'.
 */
static int match_star(const uchar **pp, const uchar **tp, const uchar *start,
		      unsigned int flags, int *done)
{
	const uchar *p = *pp, *text = *tp;
	int cross;	/* may this star match '/'? */
	uchar tc;

	*done = 1;
	if (*p == '*') {
		const uchar *before = p - 2;

		while (*++p == '*')
			;
		if (!(flags & WM_PATHNAME)) {
			cross = 1;
		} else if ((before < start || *before == '/') &&
			   (!*p || *p == '/' ||
			    (p[0] == '\\' && p[1] == '/'))) {
			/* Followed by '/', it may also match no directory. */
			if (*p == '/' &&
			    match_here(p + 1, text, flags) == WM_MATCH)
				return WM_MATCH;
			cross = 1;
		} else {
			cross = 0;
		}
	} else {
		cross = !(flags & WM_PATHNAME);
	}

	if (!*p) {
		/* A trailing star takes the rest, up to a '/' if it must. */
		if (!cross && strchr((const char *)text, '/'))
			return WM_NOMATCH;
		return WM_MATCH;
	}
	if (!cross && *p == '/') {
		const char *slash = strchr((const char *)text, '/');

		if (!slash)
			return WM_NOMATCH;
		*pp = p;
		*tp = (const uchar *)slash;
		*done = 0;
		return WM_NOMATCH;
	}

	tc = fold(*text, flags);
	while (tc) {
		int r;

		/*
		 * When a literal follows the star, skip straight to its next
		 * occurrence: what comes before it belongs to the star.
		 */
		if (!ga_is_glob_special(*p)) {
			uchar want = fold(*p, flags);

			while ((tc = *text) && (cross || tc != '/')) {
				tc = fold(tc, flags);
				if (tc == want)
					break;
				text++;
			}
			if (tc != want)
				return WM_NOMATCH;
		}
		r = match_here(p, text, flags);
		if (r != WM_NOMATCH) {
			if (!cross || r != ABORT_TO_STARSTAR)
				return r;
		} else if (!cross && tc == '/') {
			return ABORT_TO_STARSTAR;
		}
		tc = *++text;
	}
	return ABORT_ALL;
}

static int match_here(const uchar *p, const uchar *text, unsigned int flags)
{
	const uchar *start = p;

	for (; *p; text++, p++) {
		uchar pc = *p, tc = *text;
		int r, done;

		if (!tc && pc != '*')
			return ABORT_ALL;
		tc = fold(tc, flags);
		pc = fold(pc, flags);
		switch (pc) {
		case '\\':
			/* The escaped character is compared unfolded. */
			pc = *++p;
			if (tc != pc)
				return WM_NOMATCH;
			break;
		case '?':
			if ((flags & WM_PATHNAME) && tc == '/')
				return WM_NOMATCH;
			break;
		case '*':
			p++;
			r = match_star(&p, &text, start, flags, &done);
			if (done)
				return r;
			break;
		case '[':
			p++;
			r = match_bracket(&p, tc, flags);
			if (r != WM_MATCH)
				return r;
			break;
		default:
			if (tc != pc)
				return WM_NOMATCH;
			break;
		}
	}
	return *text ? WM_NOMATCH : WM_MATCH;
}

int wildmatch(const char *pattern, const char *text, unsigned int flags)
{
	int r = match_here((const uchar *)pattern, (const uchar *)text, flags);

	return r == WM_MATCH ? WM_MATCH : WM_NOMATCH;
}

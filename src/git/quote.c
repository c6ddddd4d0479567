/*
 * quote.c: quoting and unquoting, after git's quote.c (contract in
 * quote.h).
 */
#include "quote.h"

#include <string.h>

void ga_sq_quote(struct ga_buf *dst, const char *src)
{
	ga_buf_putc(dst, '\'');
	while (*src) {
		size_t len = strcspn(src, "'!");

		ga_buf_put(dst, src, len);
		src += len;
		while (*src == '\'' || *src == '!') {
			ga_buf_puts(dst, "'\\");
			ga_buf_putc(dst, *src++);
			ga_buf_putc(dst, '\'');
		}
	}
	ga_buf_putc(dst, '\'');
}

/* The letter escape of control byte `c`, as git's cq_lookup has it. */
static char quote_letter(unsigned char c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\t': return 't';
	case '\n': return 'n';
	case '\v': return 'v';
	case '\f': return 'f';
	case '\r': return 'r';
	case '"': return '"';
	case '\\': return '\\';
	default: return 0;
	}
}

static int needs_quote(unsigned char c, int quote_high)
{
	return c < 0x20 || c == '"' || c == '\\' || c == 0x7f ||
		(quote_high && c >= 0x80);
}

void ga_quote_c(struct ga_buf *dst, const char *s, size_t len,
		int quote_high)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	for (i = 0; i < len; i++)
		if (needs_quote(p[i], quote_high))
			break;
	if (i == len) {
		ga_buf_put(dst, s, len);
		return;
	}
	ga_buf_putc(dst, '"');
	for (i = 0; i < len; i++) {
		char letter = quote_letter(p[i]);

		if (letter) {
			ga_buf_putc(dst, '\\');
			ga_buf_putc(dst, letter);
		} else if (needs_quote(p[i], quote_high)) {
			ga_buf_printf(dst, "\\%03o", p[i]);
		} else {
			ga_buf_putc(dst, p[i]);
		}
	}
	ga_buf_putc(dst, '"');
}

/*
 * git's unquote_c_style(): decode a "..." string with C escapes (\a \b
 * \f \n \r \t \v \\ \" and three octal digits) into `out`.  Returns 0
 * and the position after the closing quote in *end, or -1 (and `out`
 * unchanged) when the string is malformed.
 */
int ga_unquote_c(struct ga_buf *out, const char *q, const char **end)
{
	size_t oldlen = out->len;

	if (*q++ != '"')
		return -1;
	for (;;) {
		size_t len = strcspn(q, "\"\\");
		int c;

		ga_buf_put(out, q, len);
		q += len;
		if (*q == '"') {
			*end = q + 1;
			return 0;
		}
		if (*q != '\\')
			goto fail;
		q++;
		switch ((c = (unsigned char)*q++)) {
		case 'a': c = '\a'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'v': c = '\v'; break;
		case '\\': case '"': break;
		case '0': case '1': case '2': case '3': {
			int i, v = c - '0';

			for (i = 0; i < 2; i++) {
				c = (unsigned char)*q++;
				if (c < '0' || c > '7')
					goto fail;
				v = (v << 3) | (c - '0');
			}
			c = v;
			break;
		}
		default:
			goto fail;
		}
		ga_buf_putc(out, c);
	}
fail:
	ga_buf_setlen(out, oldlen);
	return -1;
}

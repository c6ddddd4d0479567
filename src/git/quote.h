/*
 * quote.h: quoting as git's quote.c does it, for shells and for paths
 * in messages and protocol lines.
 */
#ifndef GARCHIVE_QUOTE_H
#define GARCHIVE_QUOTE_H

#include "garchive/common.h"

#include <stddef.h>

/*
 * Append `src` quoted for a POSIX shell as git's sq_quote_buf() does:
 * inside single quotes, with ' and ! each written as '\'' and '\!'.
 */
void ga_sq_quote(struct ga_buf *dst, const char *src);

/*
 * git's quote_c_style_counted(): append the `len` bytes at `s` to `dst`,
 * as they are when no byte needs quoting, else in double quotes with C
 * escapes (\a \b \t \n \v \f \r \" \\, three octal digits for other
 * control bytes and DEL).  With `quote_high` (git's core.quotePath, on
 * by default) bytes from 0x80 up are quoted in octal too; without it
 * they stay as they are.
 */
void ga_quote_c(struct ga_buf *dst, const char *s, size_t len,
		int quote_high);

/*
 * git's unquote_c_style(): decode the "..." string at `q` with C escapes
 * (\a \b \f \n \r \t \v \\ \" and three octal digits), appending to
 * `out`.  Returns 0 and the position after the closing quote in *end, or
 * -1 (and `out` unchanged) when the string is malformed.
 */
int ga_unquote_c(struct ga_buf *out, const char *q, const char **end);

#endif

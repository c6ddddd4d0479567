/*
 * utf8.h: git's utf8.c, the parts export-subst and working-tree-encoding
 * need: display width of UTF-8 text (with git's own Unicode tables, not
 * the C library's), wrapping and truncating it the way git's pretty
 * formats do, and converting between encodings with iconv as git's
 * reencode_string_len() does.
 */
#ifndef GARCHIVE_UTF8_H
#define GARCHIVE_UTF8_H

#include <stddef.h>

struct ga_buf;

/*
 * Columns `s[0..len)` takes on a terminal, as git's utf8_strnwidth():
 * control characters count 0, East Asian wide ones 2.  Text that is not
 * valid UTF-8 counts one column a byte.  With `skip_sgr`, colour escape
 * sequences ("ESC [ ... m") count nothing.
 */
int utf8_strnwidth(const char *s, size_t len, int skip_sgr);

/* Bytes of the colour escape sequence "ESC [ digits/; m" at `s`, or 0. */
size_t utf8_sgr_len(const char *s);

/*
 * git's strbuf_utf8_replace(): replace the columns [pos, pos + width) of
 * `sb` by `repl` (NULL: by nothing), keeping colour sequences.  Text that
 * is not valid UTF-8 is left alone.
 */
void utf8_replace(struct ga_buf *sb, int pos, int width, const char *repl);

/*
 * git's strbuf_add_wrapped_text(): append `text` wrapped at `width`
 * columns, the first line indented by `indent1`, the others by
 * `indent2`.  A width of 0 or less only indents.
 */
void utf8_add_wrapped(struct ga_buf *buf, const char *text, int indent1,
		      int indent2, int width);

/*
 * git's same_encoding(): whether two encoding names are the same
 * ("UTF-8", "utf8" and NULL are; otherwise case-insensitive equality).
 */
int utf8_same_encoding(const char *a, const char *b);

/*
 * git's reencode_string_len(): set `out` to `in[0..len)` converted from
 * `in_enc` to `out_enc` with iconv, trying the official spellings
 * ("UTF-8", "ISO-8859-1") when iconv does not know a name.  git's own
 * "UTF-16LE-BOM"/"UTF-16BE-BOM" write their byte order mark.  Returns 0,
 * or -1 when iconv cannot convert (unknown pair, invalid input); `out`
 * is then undefined.  Like git, the conversion state is never flushed.
 */
int utf8_reencode(struct ga_buf *out, const char *in, size_t len,
		  const char *out_enc, const char *in_enc);

#endif

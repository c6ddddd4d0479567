/*
 * color.h: git's color.c color_parse_mem(), for %C(...) in pretty
 * formats.
 */
#ifndef GARCHIVE_COLOR_H
#define GARCHIVE_COLOR_H

#include <stddef.h>

struct ga_buf;

/*
 * Append the escape sequence for the colour spec `value[0..len)` ("bold
 * red", "#ff0000 ul", "reset"...) as git writes it.  Returns 0, or -1
 * after git's "error: invalid color value: <spec>" line.
 */
int color_parse_mem(struct ga_buf *out, const char *value, size_t len);

#endif

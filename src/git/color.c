/*
 * color.c: git's color.c, parsing colour specs (color_parse_mem) into
 * the SGR escape sequences git writes: up to two colours (names, bright
 * names, 0-255, #rrggbb), attributes and their "no" forms, "reset".
 */
#include "color.h"

#include "garchive/common.h"
#include "sane-ctype.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int match_word(const char *word, size_t len, const char *match)
{
	return !strncasecmp(word, match, len) && !match[len];
}

struct color {
	enum { COLOR_UNSPECIFIED, COLOR_NORMAL, COLOR_ANSI, COLOR_256,
	       COLOR_RGB } type;
	int value;
	int red, green, blue;
};

static int hex_byte(const char *in, int *out)
{
	int hi = ga_hexval((unsigned char)in[0]);
	int lo = ga_hexval((unsigned char)in[1]);

	if (hi < 0 || lo < 0)
		return -1;
	*out = (hi << 4) | lo;
	return 0;
}

static int parse_one_color(struct color *out, const char *name, size_t len)
{
	static const char *const names[] = {
		"black", "red", "green", "yellow", "blue", "magenta", "cyan",
		"white"
	};
	int offset = 30;
	char *end;
	long val;
	size_t i;

	if (match_word(name, len, "normal")) {
		out->type = COLOR_NORMAL;
		return 0;
	}
	if (len == 7 && name[0] == '#' && !hex_byte(name + 1, &out->red) &&
	    !hex_byte(name + 3, &out->green) &&
	    !hex_byte(name + 5, &out->blue)) {
		out->type = COLOR_RGB;
		return 0;
	}
	if (match_word(name, len, "default")) {
		out->type = COLOR_ANSI;
		out->value = 9 + offset;
		return 0;
	}
	if (!strncasecmp(name, "bright", 6)) {
		offset = 90;
		name += 6;
		len -= 6;
	}
	for (i = 0; i < GA_ARRAY_SIZE(names); i++) {
		if (match_word(name, len, names[i])) {
			out->type = COLOR_ANSI;
			out->value = (int)i + offset;
			return 0;
		}
	}
	val = strtol(name, &end, 10);
	if ((size_t)(end - name) == len) {
		if (val < -1) {
			/* bogus */
		} else if (val < 0) {
			out->type = COLOR_NORMAL;
			return 0;
		} else if (val < 8) {
			out->type = COLOR_ANSI;
			out->value = (int)val + 30;
			return 0;
		} else if (val < 16) {
			out->type = COLOR_ANSI;
			out->value = (int)val - 8 + 90;
			return 0;
		} else if (val < 256) {
			out->type = COLOR_256;
			out->value = (int)val;
			return 0;
		}
	}
	return -1;
}

static int parse_attr(const char *name, size_t len)
{
	static const struct {
		const char *name;
		int val, neg;
	} attrs[] = {
		{ "bold", 1, 22 }, { "dim", 2, 22 }, { "italic", 3, 23 },
		{ "ul", 4, 24 }, { "blink", 5, 25 }, { "reverse", 7, 27 },
		{ "strike", 9, 29 }
	};
	int negate = 0;
	size_t i;

	if (len >= 2 && !strncmp(name, "no", 2)) {
		name += 2;
		len -= 2;
		if (len && *name == '-') {
			name++;
			len--;
		}
		negate = 1;
	}
	for (i = 0; i < GA_ARRAY_SIZE(attrs); i++)
		if (strlen(attrs[i].name) == len &&
		    !memcmp(attrs[i].name, name, len))
			return negate ? attrs[i].neg : attrs[i].val;
	return -1;
}

static void color_output(struct ga_buf *out, const struct color *c, int bg)
{
	int offset = bg ? 10 : 0;

	switch (c->type) {
	case COLOR_ANSI:
		ga_buf_printf(out, "%d", c->value + offset);
		break;
	case COLOR_256:
		ga_buf_printf(out, "%d;5;%d", 38 + offset, c->value);
		break;
	case COLOR_RGB:
		ga_buf_printf(out, "%d;2;%d;%d;%d", 38 + offset, c->red,
			      c->green, c->blue);
		break;
	default:
		break;
	}
}

int color_parse_mem(struct ga_buf *out, const char *value, size_t value_len)
{
	const char *ptr = value;
	size_t len = value_len;
	struct color fg = { COLOR_UNSPECIFIED, 0, 0, 0, 0 };
	struct color bg = fg;
	unsigned attr = 0;
	int has_reset = 0;

	while (len > 0 && ga_isspace((unsigned char)*ptr)) {
		ptr++;
		len--;
	}
	while (len > 0) {
		const char *word = ptr;
		struct color c = { COLOR_UNSPECIFIED, 0, 0, 0, 0 };
		size_t wordlen = 0;
		int val;

		while (len > 0 && !ga_isspace((unsigned char)word[wordlen])) {
			wordlen++;
			len--;
		}
		ptr = word + wordlen;
		while (len > 0 && ga_isspace((unsigned char)*ptr)) {
			ptr++;
			len--;
		}
		if (match_word(word, wordlen, "reset")) {
			has_reset = 1;
			continue;
		}
		if (!parse_one_color(&c, word, wordlen)) {
			if (fg.type == COLOR_UNSPECIFIED) {
				fg = c;
				continue;
			}
			if (bg.type == COLOR_UNSPECIFIED) {
				bg = c;
				continue;
			}
			goto bad;
		}
		val = parse_attr(word, wordlen);
		if (val < 0)
			goto bad;
		attr |= 1u << val;
	}
	if (has_reset || attr || fg.type > COLOR_NORMAL ||
	    bg.type > COLOR_NORMAL) {
		int sep = has_reset;
		int i;

		ga_buf_puts(out, "\033[");
		for (i = 0; attr; i++) {
			unsigned bit = 1u << i;

			if (!(attr & bit))
				continue;
			attr &= ~bit;
			if (sep++)
				ga_buf_putc(out, ';');
			ga_buf_printf(out, "%d", i);
		}
		if (fg.type > COLOR_NORMAL) {
			if (sep++)
				ga_buf_putc(out, ';');
			color_output(out, &fg, 0);
		}
		if (bg.type > COLOR_NORMAL) {
			if (sep++)
				ga_buf_putc(out, ';');
			color_output(out, &bg, 1);
		}
		ga_buf_putc(out, 'm');
	}
	return 0;
bad:
	ga_report(GA_REPORT_ERROR, "invalid color value: %.*s",
		  (int)value_len, value);
	return -1;
}

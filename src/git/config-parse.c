/*
 * config-parse.c: the grammar of git's configuration files and keys
 * (see config-parse.h).
 */
#include "config-parse.h"
#include "garchive/common.h"
#include "sane-ctype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int iskeychar(int c)
{
	return ga_isalnum(c) || c == '-';
}

/* --- git_parse_source(): the file grammar and its line counts --- */

struct parser {
	const unsigned char *buf;
	size_t len, pos;
	int linenr;
	int eof;
	struct ga_buf var;
	struct ga_buf value;
	config_parse_fn fn;
	void *payload;
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
static int parse_entry(struct parser *p)
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
			return CONFIG_ENTRY_BAD;
		if (!(value = parse_value(p)))
			return CONFIG_ENTRY_BAD;
	}
	/* The line of the entry, not the one after it, as git reports. */
	p->linenr--;
	ret = p->fn(p->var.ptr, value, p->linenr, p->payload);
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

int config_parse_source(const char *data, size_t len, const char *display,
			config_parse_fn fn, void *payload)
{
	static const unsigned char bom[] = { 0xef, 0xbb, 0xbf };
	struct parser p = { 0 };
	size_t bom_seen = 0, baselen = 0;
	int comment = 0, error = 0, ret;

	p.buf = (const unsigned char *)(data ? data : "");
	p.len = len;
	p.fn = fn;
	p.payload = payload;
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
		ret = parse_entry(&p);
		if (ret < 0) {
			error = ret;
			goto done;
		}
		if (ret)
			break;
	}
	error = ga_error_set("bad config line %d in file %s", p.linenr,
			     display);
done:
	ga_buf_release(&p.var);
	ga_buf_release(&p.value);
	return error;
}

/* git_config_parse_key() */
char *config_parse_key(const char *key)
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

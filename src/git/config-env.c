/*
 * config-env.c: the configuration the environment carries for the
 * command line (see config-env.h).
 */
#include "config-env.h"
#include "config-parse.h"
#include "garchive/common.h"
#include "sane-ctype.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* git_config_parse_parameter(): the old "key=value" form, key trimmed. */
static int cmdline_parameter(const char *text, config_pair_fn fn,
			     void *payload)
{
	const char *eq = strchr(text, '=');
	const char *value = eq ? eq + 1 : NULL;
	const char *start = text;
	size_t len = eq ? (size_t)(eq - text) : strlen(text);
	char *key;
	int ret;

	while (len && ga_isspace((unsigned char)start[len - 1]))
		len--;
	while (len && ga_isspace((unsigned char)*start)) {
		start++;
		len--;
	}
	if (!len) {
		ga_report(GA_REPORT_ERROR, "bogus config parameter: %s", text);
		return CONFIG_ENTRY_BAD;
	}
	key = ga_xstrndup(start, len);
	ret = fn(key, value, payload);
	free(key);
	return ret;
}

static int need_bs_quote(int c)
{
	return c == '\'' || c == '!';
}

/*
 * git's sq_dequote_step(): dequote one shell-single-quoted word in
 * place.  Returns it, or NULL when malformed; *next is the rest (NULL at
 * the end of the string).
 */
static char *sq_dequote_step(char *arg, char **next)
{
	char *dst = arg, *src = arg;

	if (*src != '\'')
		return NULL;
	for (;;) {
		char c = *++src;

		if (!c)
			return NULL;
		if (c != '\'') {
			*dst++ = c;
			continue;
		}
		/* out of the quotes */
		switch (*++src) {
		case '\0':
			*dst = '\0';
			*next = NULL;
			return arg;
		case '\\':
			if (need_bs_quote(src[1]) && src[2] == '\'') {
				*dst++ = src[1];
				src += 2;
				continue;
			}
			/* fall through */
		default:
			*dst = '\0';
			*next = src;
			return arg;
		}
	}
}

#define BOGUS_PARAMETERS "bogus format in GIT_CONFIG_PARAMETERS"

static int cmdline_env_list(char *env, config_pair_fn fn, void *payload)
{
	char *cur = env;
	int ret;

	while (cur && *cur) {
		char *key = sq_dequote_step(cur, &cur);

		if (!key) {
			ga_report(GA_REPORT_ERROR, BOGUS_PARAMETERS);
			return CONFIG_ENTRY_BAD;
		}
		if (!cur || ga_isspace((unsigned char)*cur)) {
			/* the old 'key=value' form */
			if ((ret = cmdline_parameter(key, fn, payload)))
				return ret;
		} else if (*cur == '=') {
			/* the 'key'='value' form of git 2.31 and later */
			const char *value;

			cur++;
			if (*cur == '\'') {
				value = sq_dequote_step(cur, &cur);
				if (!value ||
				    (cur && !ga_isspace((unsigned char)*cur))) {
					ga_report(GA_REPORT_ERROR,
						  BOGUS_PARAMETERS);
					return CONFIG_ENTRY_BAD;
				}
			} else if (!*cur || ga_isspace((unsigned char)*cur)) {
				/* 'key'= is an implicit true */
				value = NULL;
			} else {
				ga_report(GA_REPORT_ERROR, BOGUS_PARAMETERS);
				return CONFIG_ENTRY_BAD;
			}
			if ((ret = fn(key, value, payload)))
				return ret;
		} else {
			ga_report(GA_REPORT_ERROR, BOGUS_PARAMETERS);
			return CONFIG_ENTRY_BAD;
		}
		if (cur)
			while (ga_isspace((unsigned char)*cur))
				cur++;
	}
	return 0;
}

/* git_config_from_parameters(): GIT_CONFIG_COUNT first, then PARAMETERS. */
int config_from_parameters(config_pair_fn fn, void *payload)
{
	const char *env = getenv("GIT_CONFIG_COUNT");
	char *envw;
	int ret;

	if (env) {
		unsigned long count, i;
		char *end;

		errno = 0;
		count = strtoul(env, &end, 10);
		if (*end) {
			ga_report(GA_REPORT_ERROR,
				  "bogus count in GIT_CONFIG_COUNT");
			return CONFIG_ENTRY_BAD;
		}
		if (count > INT_MAX) {
			ga_report(GA_REPORT_ERROR,
				  "too many entries in GIT_CONFIG_COUNT");
			return CONFIG_ENTRY_BAD;
		}
		for (i = 0; i < count; i++) {
			char var[64];
			const char *key, *value;
			char *k, *v;

			snprintf(var, sizeof(var), "GIT_CONFIG_KEY_%lu", i);
			if (!(key = getenv(var))) {
				ga_report(GA_REPORT_ERROR,
					  "missing config key %s", var);
				return CONFIG_ENTRY_BAD;
			}
			k = ga_xstrdup(key);
			snprintf(var, sizeof(var), "GIT_CONFIG_VALUE_%lu", i);
			if (!(value = getenv(var))) {
				ga_report(GA_REPORT_ERROR,
					  "missing config value %s", var);
				free(k);
				return CONFIG_ENTRY_BAD;
			}
			v = ga_xstrdup(value);
			ret = fn(k, v, payload);
			free(k);
			free(v);
			if (ret)
				return ret;
		}
	}

	if ((env = getenv("GIT_CONFIG_PARAMETERS"))) {
		envw = ga_xstrdup(env);
		ret = cmdline_env_list(envw, fn, payload);
		free(envw);
		if (ret)
			return ret;
	}
	return 0;
}

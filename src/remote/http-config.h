/*
 * http-config.h: the http.* settings of git that the http(s) transport
 * of --remote uses, read for one URL as git's http_init() reads them.
 *
 * A key is "http.<key>" or "http.<url>.<key>".  For each key the values
 * of the best-matching <url> win, as in git's urlmatch.c: the <url> must
 * have the scheme, host ("*" matches one host label), port and user (if
 * it names one) of the remote URL and a path that is a prefix of its path
 * at a "/" boundary; a longer host, then a longer path, then a matching
 * user is better.  An entry no worse than the best so far is applied in
 * turn, so a later, equally good one overrides a value or, for
 * extraHeader, adds to the list.
 *
 * Then the environment, as git: GIT_SSL_NO_VERIFY, GIT_SSL_CAINFO,
 * GIT_SSL_CAPATH, GIT_SSL_CERT, GIT_SSL_KEY, GIT_HTTP_USER_AGENT; the
 * proxy from http.proxy, else remote.<name>.proxy, else https_proxy /
 * HTTPS_PROXY (https URLs) or http_proxy, else all_proxy / ALL_PROXY,
 * with no_proxy / NO_PROXY.
 */
#ifndef GARCHIVE_REMOTE_HTTP_CONFIG_H
#define GARCHIVE_REMOTE_HTTP_CONFIG_H

#include <stddef.h>

struct ga_config;

enum http_follow {
	HTTP_FOLLOW_NONE,
	HTTP_FOLLOW_INITIAL,	/* git's default: the discovery request */
	HTTP_FOLLOW_ALWAYS
};

struct http_settings {
	int ssl_verify;		/* 1 unless http.sslVerify=false */
	char *ssl_cainfo;	/* http.sslCAInfo, GIT_SSL_CAINFO */
	char *ssl_capath;	/* http.sslCAPath, GIT_SSL_CAPATH */
	char *ssl_cert;		/* http.sslCert, GIT_SSL_CERT */
	char *ssl_key;		/* http.sslKey, GIT_SSL_KEY */
	char *proxy;		/* NULL: none set; "": no proxy at all */
	char *no_proxy;		/* no_proxy / NO_PROXY, with a proxy */
	char *user_agent;	/* http.userAgent, GIT_HTTP_USER_AGENT */
	char **extra_headers;	/* http.extraHeader, in order */
	size_t nr_extra_headers, alloc_extra_headers;
	enum http_follow follow;	/* http.followRedirects */
	long post_buffer;	/* http.postBuffer */
	long low_speed_limit, low_speed_time;
};

/*
 * Fill `out` for `url` (the remote's URL as the transport got it) from
 * `cfg` (may be NULL) and the environment; `remote_name` is the --remote
 * value, for remote.<name>.proxy.  Returns 0, or GA_ERROR with git's
 * message for a bad value ("bad boolean config value '<v>' for '<k>'",
 * "missing value for '<k>'").  Release with http_settings_release()
 * either way.
 */
int http_settings_load(struct http_settings *out, const struct ga_config *cfg,
		       const char *url, const char *remote_name);
void http_settings_release(struct http_settings *s);

/*
 * git's URL matching for "http.<url>.<key>": 1 and the strength of the
 * match in *host_len, *path_len and *user when `pattern` matches `url`,
 * else 0.  Exposed for the unit tests.
 */
int http_url_matches(const char *pattern, const char *url, size_t *host_len,
		     size_t *path_len, int *user);

#endif

/*
 * http-config.c: git's http.* settings for one URL (see http-config.h),
 * with the URL matching rules of git's urlmatch.c.
 */
#include "remote/http-config.h"
#include "garchive/common.h"
#include "garchive/config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The parts of a URL that matching compares, normalized. */
struct url_parts {
	char *scheme;		/* lower case */
	char *user;		/* NULL: none */
	char *host;		/* lower case */
	char *port;		/* "": the scheme's default */
	char *path;		/* at least "/" */
};

static void url_parts_release(struct url_parts *u)
{
	free(u->scheme);
	free(u->user);
	free(u->host);
	free(u->port);
	free(u->path);
	memset(u, 0, sizeof(*u));
}

static char *lower_dup(const char *s, size_t len)
{
	char *out = ga_xstrndup(s, len);
	char *p;

	for (p = out; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return out;
}

static const char *default_port(const char *scheme)
{
	if (!strcmp(scheme, "http"))
		return "80";
	if (!strcmp(scheme, "https"))
		return "443";
	if (!strcmp(scheme, "ftp"))
		return "21";
	if (!strcmp(scheme, "ftps"))
		return "990";
	return NULL;
}

/*
 * Split "scheme://[user[:password]@]host[:port][/path][?query]".
 * Returns 0, or -1 for something that is not such a URL (git then
 * ignores the config entry).
 */
static int url_split(struct url_parts *out, const char *url)
{
	const char *p = strstr(url, "://");
	const char *auth, *at, *end, *colon, *dflt;

	memset(out, 0, sizeof(*out));
	if (!p || p == url)
		return -1;
	out->scheme = lower_dup(url, (size_t)(p - url));
	auth = p + 3;
	end = auth + strcspn(auth, "/?#");
	at = memchr(auth, '@', (size_t)(end - auth));
	if (at) {
		const char *pw = memchr(auth, ':', (size_t)(at - auth));

		out->user = ga_xstrndup(auth, (size_t)((pw ? pw : at) - auth));
		auth = at + 1;
	}
	/* The port's colon comes after an IPv6 address's brackets. */
	colon = auth[0] == '[' ? memchr(auth, ']', (size_t)(end - auth))
			       : auth;
	colon = colon ? memchr(colon, ':', (size_t)(end - colon)) : NULL;
	out->host = lower_dup(auth, (size_t)((colon ? colon : end) - auth));
	out->port = colon ? ga_xstrndup(colon + 1, (size_t)(end - colon - 1))
			  : ga_xstrdup("");
	dflt = default_port(out->scheme);
	if (dflt && !strcmp(out->port, dflt)) {
		free(out->port);
		out->port = ga_xstrdup("");
	}
	if (*end == '/')
		out->path = ga_xstrndup(end, strcspn(end, "?#"));
	else
		out->path = ga_xstrdup("/");
	if (!*out->host && strcmp(out->scheme, "file")) {
		url_parts_release(out);
		return -1;
	}
	return 0;
}

/* git's match_host(): label by label, "*" matching any one label. */
static int host_matches(const char *host, const char *pat)
{
	while (*host && *pat) {
		size_t hl = strcspn(host, "."), pl = strcspn(pat, ".");

		if (!(pl == 1 && pat[0] == '*') &&
		    (hl != pl || strncmp(host, pat, hl)))
			return 0;
		host += hl + (host[hl] == '.');
		pat += pl + (pat[pl] == '.');
	}
	return !*host && !*pat;
}

/*
 * git's url_match_prefix(): the length of the match of `prefix` against
 * `path` at a "/" boundary, the implicit final "/" included; 0 for none.
 */
static size_t path_match(const char *path, const char *prefix)
{
	size_t len = strlen(prefix);

	if (!len || (len == 1 && *prefix == '/'))
		return (!*path || *path == '/') ? 1 : 0;
	if (prefix[len - 1] == '/')
		len--;
	if (strncmp(path, prefix, len))
		return 0;
	if (strlen(path) == len || path[len] == '/')
		return len + 1;
	return 0;
}

int http_url_matches(const char *pattern, const char *url, size_t *host_len,
		     size_t *path_len, int *user)
{
	struct url_parts u, p;
	int ok = 0;

	if (url_split(&u, url) < 0)
		return 0;
	if (url_split(&p, pattern) < 0) {
		url_parts_release(&u);
		return 0;
	}
	if (strcmp(u.scheme, p.scheme) ||
	    (p.user && (!u.user || strcmp(u.user, p.user))) ||
	    !host_matches(u.host, p.host) || strcmp(u.port, p.port))
		goto done;
	*path_len = path_match(u.path, p.path);
	if (!*path_len)
		goto done;
	*host_len = strlen(p.host);
	*user = p.user != NULL;
	ok = 1;
done:
	url_parts_release(&u);
	url_parts_release(&p);
	return ok;
}

/* ---- collecting the values ---- */

/* The best match seen so far for one key. */
struct best {
	char *key;
	size_t host_len, path_len;
	int user;
};

struct collect {
	struct http_settings *s;
	const char *url;
	struct best *best;
	size_t nr_best, alloc_best;
	const char *remote_name;
	char *remote_proxy;
	int error;
};

/* git's cmp_matches(): negative when a is a worse match than b. */
static int cmp_match(size_t host_a, size_t path_a, int user_a,
		     const struct best *b)
{
	if (host_a != b->host_len)
		return host_a < b->host_len ? -1 : 1;
	if (path_a != b->path_len)
		return path_a < b->path_len ? -1 : 1;
	if (user_a != b->user)
		return b->user ? -1 : 1;
	return 0;
}

static void set_string(char **slot, const char *value)
{
	free(*slot);
	*slot = ga_xstrdup(value);
}

static void set_path(char **slot, const char *value)
{
	char *expanded = ga_interpolate_path(value, 0);

	free(*slot);
	*slot = expanded ? expanded : ga_xstrdup(value);
}

static void clear_headers(struct http_settings *s)
{
	size_t i;

	for (i = 0; i < s->nr_extra_headers; i++)
		free(s->extra_headers[i]);
	s->nr_extra_headers = 0;
}

static int apply(struct http_settings *s, const struct config_entry *e,
		 const char *key)
{
	const char *v = e->value;
	int64_t n;
	int b, error;

	if (!strcmp(key, "sslverify")) {
		if ((error = config_parse_bool(&b, e->name, v)) < 0)
			return error;
		s->ssl_verify = b;
		return 0;
	}
	if (!strcmp(key, "followredirects")) {
		if (v && !strcmp(v, "initial")) {
			s->follow = HTTP_FOLLOW_INITIAL;
			return 0;
		}
		if ((error = config_parse_bool(&b, e->name, v)) < 0)
			return error;
		s->follow = b ? HTTP_FOLLOW_ALWAYS : HTTP_FOLLOW_NONE;
		return 0;
	}
	if (!strcmp(key, "postbuffer") || !strcmp(key, "lowspeedlimit") ||
	    !strcmp(key, "lowspeedtime")) {
		if ((error = config_parse_int64(&n, e->name, v)) < 0)
			return error;
		if (key[0] == 'p')
			s->post_buffer = n < 65520 ? 65520 : (long)n;
		else if (!strcmp(key, "lowspeedlimit"))
			s->low_speed_limit = (long)n;
		else
			s->low_speed_time = (long)n;
		return 0;
	}
	if (!strcmp(key, "extraheader")) {
		if (!v)
			return config_error_nonbool(e);
		if (!*v) {
			clear_headers(s);
			return 0;
		}
		GA_ALLOC_GROW(s->extra_headers, s->nr_extra_headers + 1,
			      s->alloc_extra_headers);
		s->extra_headers[s->nr_extra_headers++] = ga_xstrdup(v);
		return 0;
	}
	if (!strcmp(key, "sslcainfo") || !strcmp(key, "sslcapath") ||
	    !strcmp(key, "sslcert") || !strcmp(key, "sslkey")) {
		if (!v)
			return config_error_nonbool(e);
		set_path(!strcmp(key, "sslcainfo") ? &s->ssl_cainfo :
			 !strcmp(key, "sslcapath") ? &s->ssl_capath :
			 !strcmp(key, "sslcert") ? &s->ssl_cert : &s->ssl_key,
			 v);
		return 0;
	}
	if (!strcmp(key, "proxy") || !strcmp(key, "useragent")) {
		if (!v)
			return config_error_nonbool(e);
		set_string(key[0] == 'p' ? &s->proxy : &s->user_agent, v);
	}
	return 0;
}

static struct best *best_for(struct collect *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->nr_best; i++)
		if (!strcmp(c->best[i].key, key))
			return &c->best[i];
	return NULL;
}

static int collect_entry(const struct config_entry *e, void *payload)
{
	struct collect *c = payload;
	const char *rest, *dot;
	size_t host_len = 0, path_len = 0;
	int user = 0, error;
	struct best *b;

	if (!strncmp(e->name, "remote.", 7) && c->remote_name) {
		size_t n = strlen(c->remote_name);

		if (!strncmp(e->name + 7, c->remote_name, n) &&
		    !strcmp(e->name + 7 + n, ".proxy") && e->value)
			set_string(&c->remote_proxy, e->value);
		return 0;
	}
	if (!ga_skip_prefix(e->name, "http.", &rest))
		return 0;
	dot = strrchr(rest, '.');
	if (dot) {
		char *pattern = ga_xstrndup(rest, (size_t)(dot - rest));
		int m = http_url_matches(pattern, c->url, &host_len,
					 &path_len, &user);

		free(pattern);
		if (!m)
			return 0;
		rest = dot + 1;
	}
	b = best_for(c, rest);
	if (!b) {
		GA_ALLOC_GROW(c->best, c->nr_best + 1, c->alloc_best);
		b = &c->best[c->nr_best++];
		b->key = ga_xstrdup(rest);
	} else if (cmp_match(host_len, path_len, user, b) < 0) {
		return 0;
	}
	b->host_len = host_len;
	b->path_len = path_len;
	b->user = user;
	if ((error = apply(c->s, e, rest)) < 0) {
		c->error = error;
		return 1;
	}
	return 0;
}

static void env_string(char **slot, const char *name)
{
	const char *v = getenv(name);

	if (v)
		set_string(slot, v);
}

/* The first of the variables that is set, or NULL. */
static const char *first_env(const char *a, const char *b)
{
	const char *v = getenv(a);

	return v ? v : (b ? getenv(b) : NULL);
}

static void choose_proxy(struct http_settings *s, const char *url,
			 const char *remote_proxy)
{
	const char *v;

	/* remote.<name>.proxy wins over http.proxy, as in git. */
	if (remote_proxy)
		set_string(&s->proxy, remote_proxy);
	if (!s->proxy) {
		/* Lower case first, as git and curl. */
		if (!strncasecmp(url, "https:", 6))
			v = first_env("https_proxy", "HTTPS_PROXY");
		else
			v = first_env("http_proxy", NULL);
		if (!v)
			v = first_env("all_proxy", "ALL_PROXY");
		if (v)
			set_string(&s->proxy, v);
	}
	if (s->proxy && *s->proxy) {
		v = first_env("no_proxy", "NO_PROXY");
		if (v)
			set_string(&s->no_proxy, v);
	}
}

int http_settings_load(struct http_settings *out, const struct ga_config *cfg,
		       const char *url, const char *remote_name)
{
	struct collect c;
	size_t i;
	int error = 0;

	memset(out, 0, sizeof(*out));
	out->ssl_verify = 1;
	out->follow = HTTP_FOLLOW_INITIAL;
	out->post_buffer = 1024 * 1024;
	memset(&c, 0, sizeof(c));
	c.s = out;
	c.url = url;
	c.remote_name = remote_name;
	if (cfg && config_foreach_entry(cfg, collect_entry, &c) && c.error)
		error = c.error;
	for (i = 0; i < c.nr_best; i++)
		free(c.best[i].key);
	free(c.best);
	if (error) {
		free(c.remote_proxy);
		return error;
	}
	if (getenv("GIT_SSL_NO_VERIFY"))
		out->ssl_verify = 0;
	env_string(&out->ssl_cert, "GIT_SSL_CERT");
	env_string(&out->ssl_key, "GIT_SSL_KEY");
	env_string(&out->ssl_capath, "GIT_SSL_CAPATH");
	env_string(&out->ssl_cainfo, "GIT_SSL_CAINFO");
	env_string(&out->user_agent, "GIT_HTTP_USER_AGENT");
	choose_proxy(out, url, c.remote_proxy);
	free(c.remote_proxy);
	return 0;
}

void http_settings_release(struct http_settings *s)
{
	clear_headers(s);
	free(s->extra_headers);
	free(s->ssl_cainfo);
	free(s->ssl_capath);
	free(s->ssl_cert);
	free(s->ssl_key);
	free(s->proxy);
	free(s->no_proxy);
	free(s->user_agent);
	memset(s, 0, sizeof(*s));
}

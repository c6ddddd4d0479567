/*
 * curl.c: smart HTTP requests on libcurl, as git's http.c and
 * remote-curl.c make them for `git archive --remote` (git 2.44 and
 * later): see curl.h.
 */
#include "remote/curl.h"
#include "remote/http-config.h"
#include "garchive/common.h"
#include "pktline.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

/* git's HTTP_* results of one request. */
enum http_result {
	HTTP_OK,
	HTTP_MISSING_TARGET,
	HTTP_ERROR,
	HTTP_REAUTH,
	HTTP_NOAUTH
};

/* What one request ended with. */
struct slot_result {
	CURLcode curl;
	long code;
	long auth_avail;
};

/* Requests are retried this many times in all after a 401, as git. */
#define HTTP_AUTH_TRIES 3

/* Ask for gzip above this many bytes of request, as git. */
#define HTTP_GZIP_MIN 1024

char *http_anonymize_url(const char *url)
{
	return credential_split_url(url, NULL, NULL);
}

/* The proxy types git's set_curl_proxy_type() knows. */
static int proxy_type(long *out, const char *scheme, size_t len)
{
	static const struct {
		const char *name;
		long type;
	} types[] = {
		{ "http", CURLPROXY_HTTP },
		{ "socks4", CURLPROXY_SOCKS4 },
		{ "socks4a", CURLPROXY_SOCKS4A },
		{ "socks5", CURLPROXY_SOCKS5 },
		{ "socks5h", CURLPROXY_SOCKS5_HOSTNAME },
		{ "https", CURLPROXY_HTTPS },
	};
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(types); i++)
		if (strlen(types[i].name) == len &&
		    !strncmp(types[i].name, scheme, len)) {
			*out = types[i].type;
			return 0;
		}
	return -1;
}

static int set_proxy(CURL *curl, const struct http_settings *s)
{
	const char *p = s->proxy, *sep;
	long type = CURLPROXY_HTTP;

	if (!p)
		return 0;
	/* An empty value turns proxying off, the environment's too. */
	if (!*p) {
		curl_easy_setopt(curl, CURLOPT_PROXY, "");
		return 0;
	}
	sep = strstr(p, "://");
	if (sep && proxy_type(&type, p, (size_t)(sep - p)) < 0)
		return ga_error_set("Invalid proxy URL '%s': unsupported "
				    "proxy scheme '%.*s'", p, (int)(sep - p),
				    p);
	if (!*(sep ? sep + 3 : p))
		return ga_error_set("Invalid proxy URL '%s'", p);
	curl_easy_setopt(curl, CURLOPT_PROXY, p);
	curl_easy_setopt(curl, CURLOPT_PROXYTYPE, type);
	/* curl asks the proxy for the method it wants, as git lets it. */
	curl_easy_setopt(curl, CURLOPT_PROXYAUTH, (long)CURLAUTH_ANY);
	if (s->no_proxy)
		curl_easy_setopt(curl, CURLOPT_NOPROXY, s->no_proxy);
	return 0;
}

/* What git's get_curl_handle() sets once for every request. */
static int setup_handle(struct http_conn *c)
{
	const struct http_settings *s = c->settings;
	CURL *curl = c->curl;

	curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, s->ssl_verify ? 1L : 0L);
	curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, s->ssl_verify ? 2L : 0L);
	if (s->ssl_cainfo)
		curl_easy_setopt(curl, CURLOPT_CAINFO, s->ssl_cainfo);
	if (s->ssl_capath)
		curl_easy_setopt(curl, CURLOPT_CAPATH, s->ssl_capath);
	if (s->ssl_cert)
		curl_easy_setopt(curl, CURLOPT_SSLCERT, s->ssl_cert);
	if (s->ssl_key)
		curl_easy_setopt(curl, CURLOPT_SSLKEY, s->ssl_key);
	curl_easy_setopt(curl, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	curl_easy_setopt(curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_ANY);
	if (s->low_speed_limit > 0 && s->low_speed_time > 0) {
		curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT,
				 s->low_speed_limit);
		curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME,
				 s->low_speed_time);
	}
	curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 20L);
	curl_easy_setopt(curl, CURLOPT_POSTREDIR, (long)CURL_REDIR_POST_ALL);
	/*
	 * git's default protocol policy: a redirect may lead only to
	 * http or https, what the user typed may also be ftp(s).
	 */
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https,ftp,ftps");
#else
	curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS,
			 (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS,
			 (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS |
				CURLPROTO_FTP | CURLPROTO_FTPS));
#endif
	curl_easy_setopt(curl, CURLOPT_USERAGENT, c->user_agent);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
	/* We run no signal handler curl could disturb. */
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	return set_proxy(curl, s);
}

int http_conn_init(struct http_conn *c, const struct http_settings *s,
		   const char *url, const char *default_agent)
{
	size_t len = strlen(url);

	memset(c, 0, sizeof(*c));
	c->settings = s;
	ga_buf_puts(&c->base, url);
	if (!len || url[len - 1] != '/')
		ga_buf_putc(&c->base, '/');
	credential_from_url(&c->cred, c->base.ptr);
	c->user_agent = ga_xstrdup(s->user_agent ? s->user_agent
				   : default_agent);
	if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK)
		return ga_error_set("curl_global_init failed");
	c->curl = curl_easy_init();
	if (!c->curl)
		return ga_error_set("curl_easy_init failed");
	return setup_handle(c);
}

void http_conn_release(struct http_conn *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	c->curl = NULL;
	credential_release(&c->cred);
	ga_buf_release(&c->base);
	free(c->user_agent);
	c->user_agent = NULL;
}

/* http.extraHeader values, then `more` (NULL-terminated). */
static struct curl_slist *headers_with(const struct http_conn *c,
				       const char *const *more)
{
	struct curl_slist *h = NULL;
	size_t i;

	for (i = 0; i < c->settings->nr_extra_headers; i++)
		h = curl_slist_append(h, c->settings->extra_headers[i]);
	for (i = 0; more[i]; i++)
		h = curl_slist_append(h, more[i]);
	return h;
}

static void use_credential(struct http_conn *c)
{
	if (!c->cred.username)
		return;
	curl_easy_setopt(c->curl, CURLOPT_USERNAME, c->cred.username);
	curl_easy_setopt(c->curl, CURLOPT_PASSWORD,
			 c->cred.password ? c->cred.password : "");
}

/* curl_easy_perform() and git's handle_curl_result(). */
static enum http_result run_request(struct http_conn *c,
				    struct slot_result *r)
{
	c->errbuf[0] = '\0';
	use_credential(c);
	r->curl = curl_easy_perform(c->curl);
	r->code = 0;
	r->auth_avail = 0;
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &r->code);
	curl_easy_getinfo(c->curl, CURLINFO_HTTPAUTH_AVAIL, &r->auth_avail);
	/*
	 * Without CURLOPT_FAILONERROR (so that an error page can be
	 * shown) curl reports success for any status: git words it so.
	 */
	if (r->curl == CURLE_OK && r->code >= 300) {
		r->curl = CURLE_HTTP_RETURNED_ERROR;
		snprintf(c->errbuf, sizeof(c->errbuf),
			 "The requested URL returned error: %ld", r->code);
	}
	if (r->curl == CURLE_OK) {
		credential_approve(&c->cred);
		return HTTP_OK;
	}
	if (r->code == 404 || r->curl == CURLE_FILE_COULDNT_READ_FILE)
		return HTTP_MISSING_TARGET;
	if (r->code == 401) {
		if (c->cred.username && c->cred.password) {
			credential_reject(&c->cred);
			return HTTP_NOAUTH;
		}
		/* Ask only for what the server offers from now on. */
		if (r->auth_avail)
			curl_easy_setopt(c->curl, CURLOPT_HTTPAUTH,
					 r->auth_avail);
		return HTTP_REAUTH;
	}
	if (!c->errbuf[0])
		snprintf(c->errbuf, sizeof(c->errbuf), "%s",
			 curl_easy_strerror(r->curl));
	return HTTP_ERROR;
}

/* ---- the discovery ---- */

static size_t collect_body(char *ptr, size_t size, size_t nmemb, void *p)
{
	ga_buf_put(p, ptr, size * nmemb);
	return size * nmemb;
}

/* git's extract_content_type(): the type in lower case, the charset. */
static void content_type(struct http_discovery *d, const char *raw)
{
	const char *p = raw, *cs;
	struct ga_buf type = GA_BUF_INIT;

	if (!raw)
		raw = p = "";
	while (*p && *p != ';') {
		if (*p != ' ' && *p != '\t')
			ga_buf_putc(&type, (*p >= 'A' && *p <= 'Z') ?
				    *p - 'A' + 'a' : *p);
		p++;
	}
	d->content_type = type.ptr ? ga_buf_detach(&type, NULL)
				   : ga_xstrdup("");
	cs = strcasestr(p, "charset=");
	if (cs) {
		cs += 8;
		if (*cs == '"')
			cs++;
		d->charset = ga_xstrndup(cs, strcspn(cs, "\"; \t"));
	}
}

/* git's show_http_message(): a text/plain answer, line by line. */
static void show_http_message(const struct http_discovery *d)
{
	const char *p, *end;

	if (strcmp(d->content_type, "text/plain") || !d->body.len)
		return;
	p = d->body.ptr;
	end = p + d->body.len;
	while (p < end && strchr(" \t\r\n", *p))
		p++;
	while (end > p && strchr(" \t\r\n", end[-1]))
		end--;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		ga_report(GA_REPORT_PLAIN, "remote: %.*s", (int)(eol - p), p);
		p = nl ? nl + 1 : end;
	}
}

/*
 * git's update_url_from_redirect(): where a redirected discovery ended,
 * less what was asked beyond the base, is the new base.
 */
static int follow_base(struct http_conn *c, const char *asked)
{
	const char *got = NULL;
	const char *tail = asked + c->base.len;
	size_t glen, tlen = strlen(tail);
	char *anon;

	curl_easy_getinfo(c->curl, CURLINFO_EFFECTIVE_URL, &got);
	if (!got || !strcmp(got, asked))
		return 0;
	glen = strlen(got);
	if (glen < tlen || strcmp(got + glen - tlen, tail))
		return ga_error_set("unable to update url base from "
				    "redirection:\n  asked for: %s\n"
				    "   redirect: %s", asked, got);
	ga_buf_setlen(&c->base, 0);
	ga_buf_put(&c->base, got, glen - tlen);
	/* The credential is for where we ended up now. */
	credential_from_url(&c->cred, c->base.ptr);
	anon = http_anonymize_url(c->base.ptr);
	ga_warning("redirecting to %s", anon);
	free(anon);
	return 1;
}

static int discovery_failure(enum http_result res, struct http_conn *c,
			     const struct http_discovery *d)
{
	char *anon = http_anonymize_url(c->base.ptr);
	int error;

	show_http_message(d);
	switch (res) {
	case HTTP_MISSING_TARGET:
		error = ga_error_set("repository '%s' not found", anon);
		break;
	case HTTP_NOAUTH:
		error = ga_error_set("Authentication failed for '%s'", anon);
		break;
	default:
		error = ga_error_set("unable to access '%s': %s", anon,
				     c->errbuf);
		break;
	}
	free(anon);
	return error;
}

int http_discover(struct http_discovery *out, struct http_conn *c,
		  const char *service)
{
	const char *more[] = { "Pragma: no-cache", "Git-Protocol: version=2",
			       NULL };
	struct curl_slist *headers = headers_with(c, more);
	struct slot_result r;
	enum http_result res;
	char *url, *raw_type = NULL;
	int tries = HTTP_AUTH_TRIES, error = 0, first = 1;

	memset(out, 0, sizeof(*out));
	url = ga_xstrfmt("%sinfo/refs%cservice=%s", c->base.ptr,
			 strchr(c->base.ptr, '?') ? '&' : '?', service);
	for (;;) {
		ga_buf_setlen(&out->body, 0);
		curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
		curl_easy_setopt(c->curl, CURLOPT_URL, url);
		curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, headers);
		curl_easy_setopt(c->curl, CURLOPT_ACCEPT_ENCODING, "");
		curl_easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION,
				 c->settings->follow != HTTP_FOLLOW_NONE ?
				 1L : 0L);
		curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, collect_body);
		curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &out->body);
		res = run_request(c, &r);
		if (first && (res == HTTP_OK || res == HTTP_REAUTH)) {
			char *asked = url;

			first = 0;
			if ((error = follow_base(c, asked)) < 0)
				goto done;
			if (error) {
				const char *got = NULL;

				curl_easy_getinfo(c->curl,
						  CURLINFO_EFFECTIVE_URL, &got);
				url = ga_xstrdup(got);
				free(asked);
			}
			error = 0;
		}
		if (res != HTTP_REAUTH || !--tries)
			break;
		if ((error = credential_fill(&c->cred)) < 0)
			goto done;
	}
	curl_easy_getinfo(c->curl, CURLINFO_CONTENT_TYPE, &raw_type);
	content_type(out, raw_type);
	if (res != HTTP_OK)
		error = discovery_failure(res, c, out);
done:
	curl_slist_free_all(headers);
	free(url);
	return error;
}

void http_discovery_release(struct http_discovery *d)
{
	ga_buf_release(&d->body);
	free(d->content_type);
	free(d->charset);
	memset(d, 0, sizeof(*d));
}

/* ---- the request ---- */

/* git's check_pktline(): the answer must be whole pkt-lines. */
struct pkt_check {
	char len_buf[4];
	int len_filled;
	long remaining;
};

struct rpc_in {
	struct http_conn *c;
	int out_fd;
	int any_written;
	int error;		/* set by the callback, which stops curl */
	struct pkt_check check;
};

static int check_pktline(struct pkt_check *st, const char *p, size_t size)
{
	while (size) {
		if (!st->remaining) {
			size_t want = 4 - (size_t)st->len_filled;
			int i;
			long n = 0;

			if (want > size)
				want = size;
			memcpy(st->len_buf + st->len_filled, p, want);
			st->len_filled += (int)want;
			p += want;
			size -= want;
			if (st->len_filled < 4)
				break;
			for (i = 0; i < 4; i++) {
				int v = ga_hexval((unsigned char)st->len_buf[i]);

				if (v < 0)
					return ga_error_set("remote-curl: bad "
						"line length character: %.4s",
						st->len_buf);
				n = (n << 4) | v;
			}
			if (n == 2)
				return ga_error_set("remote-curl: unexpected "
						    "response end packet");
			st->remaining = n < 4 ? 0 : n - 4;
			st->len_filled = 0;
		}
		if (st->remaining) {
			size_t take = (size_t)st->remaining < size ?
				      (size_t)st->remaining : size;

			p += take;
			size -= take;
			st->remaining -= (long)take;
		}
	}
	return 0;
}

/* Pass the answer on to the client; git dies of a broken pipe. */
static int pass_on(int fd, const char *p, size_t n)
{
	int error = pkt_write_all(fd, p, n);

	if (error == -1)
		return ga_error_errno(errno, "write error");
	return error;
}

static size_t rpc_in(char *ptr, size_t size, size_t nmemb, void *p)
{
	struct rpc_in *in = p;
	size_t n = size * nmemb;
	long code = 0;
	int error;

	curl_easy_getinfo(in->c->curl, CURLINFO_RESPONSE_CODE, &code);
	/* An error page is not for the client. */
	if (code >= 300)
		return n;
	if (n)
		in->any_written = 1;
	if ((error = check_pktline(&in->check, ptr, n)) < 0 ||
	    (error = pass_on(in->out_fd, ptr, n)) < 0) {
		in->error = error;
		return 0;
	}
	return n;
}

/* git deflates requests above 1 KiB into gzip at the best compression. */
static int gzip_body(struct ga_buf *out, const char *body, size_t len)
{
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return ga_error_set("cannot deflate request; zlib init error");
	ga_buf_grow(out, deflateBound(&z, (uLong)len));
	z.next_in = (unsigned char *)body;
	z.avail_in = (uInt)len;
	z.next_out = (unsigned char *)out->ptr;
	z.avail_out = (uInt)(out->alloc - 1);
	ret = deflate(&z, Z_FINISH);
	out->len = z.total_out;
	deflateEnd(&z);
	if (ret != Z_STREAM_END)
		return ga_error_set("cannot deflate request; zlib deflate "
				    "error %d", ret);
	return 0;
}

/* git's run_slot() message for a failed request. */
static void rpc_failed(const struct http_conn *c, const struct slot_result *r)
{
	struct ga_buf msg = GA_BUF_INIT;

	if (r->code && r->code != 200)
		ga_buf_printf(&msg, "HTTP %ld", r->code);
	if (r->curl != CURLE_OK) {
		if (msg.len)
			ga_buf_putc(&msg, ' ');
		ga_buf_printf(&msg, "curl %d", (int)r->curl);
		if (c->errbuf[0])
			ga_buf_printf(&msg, " %s", c->errbuf);
	}
	ga_report(GA_REPORT_ERROR, "RPC failed; %s", msg.ptr ? msg.ptr : "");
	ga_buf_release(&msg);
}

int http_post_rpc(struct http_conn *c, const char *service,
		  const char *body, size_t len, int out_fd)
{
	char *type = ga_xstrfmt("Content-Type: application/x-%s-request",
				service);
	char *accept = ga_xstrfmt("Accept: application/x-%s-result", service);
	const char *more[] = { type, accept, "Expect:",
			       "Git-Protocol: version=2", NULL, NULL };
	struct curl_slist *headers = NULL;
	struct ga_buf gz = GA_BUF_INIT;
	struct slot_result r;
	struct rpc_in in;
	enum http_result res;
	char *url = ga_xstrfmt("%s%s", c->base.ptr, service);
	int tries = HTTP_AUTH_TRIES, error = 0;

	if (len > HTTP_GZIP_MIN) {
		if ((error = gzip_body(&gz, body, len)) < 0)
			goto done;
		more[4] = "Content-Encoding: gzip";
		body = gz.ptr;
		len = gz.len;
	}
	headers = headers_with(c, more);
	for (;;) {
		memset(&in, 0, sizeof(in));
		in.c = c;
		in.out_fd = out_fd;
		curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
		curl_easy_setopt(c->curl, CURLOPT_URL, url);
		curl_easy_setopt(c->curl, CURLOPT_ACCEPT_ENCODING, "");
		curl_easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION,
				 c->settings->follow == HTTP_FOLLOW_ALWAYS ?
				 1L : 0L);
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)len);
		curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, headers);
		curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, rpc_in);
		curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &in);
		res = run_request(c, &r);
		if (in.error) {
			error = in.error;
			goto done;
		}
		if (res != HTTP_REAUTH || !--tries)
			break;
		if ((error = credential_fill(&c->cred)) < 0)
			goto done;
	}
	if (res != HTTP_OK)
		rpc_failed(c, &r);
	if (res != HTTP_OK || !in.any_written)
		error = -1;
	if (in.check.len_filled) {
		ga_report(GA_REPORT_ERROR, "%d bytes of length header were "
			  "received", in.check.len_filled);
		error = -1;
	}
	if (in.check.remaining) {
		ga_report(GA_REPORT_ERROR, "%ld bytes of body are still "
			  "expected", in.check.remaining);
		error = -1;
	}
	/* The end of this answer, for a client that reads on. */
	if (pass_on(out_fd, "0002", 4) == GA_EPIPE)
		error = GA_EPIPE;
done:
	curl_slist_free_all(headers);
	ga_buf_release(&gz);
	free(url);
	free(type);
	free(accept);
	return error;
}

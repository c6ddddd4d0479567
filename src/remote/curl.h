/*
 * curl.h: the two HTTP requests of git's smart HTTP protocol v2 that an
 * archive needs, on libcurl, with git's http.c rules: the discovery GET
 * of "<url>/info/refs?service=git-upload-pack" and the POST of a request
 * to "<url>/<service>", credentials asked for after a 401, redirects
 * followed on the discovery only (http.followRedirects), and git's
 * messages for failures.
 *
 * Only garchive-remote-http links this file (and libcurl).
 */
#ifndef GARCHIVE_REMOTE_CURL_H
#define GARCHIVE_REMOTE_CURL_H

#include <stddef.h>

#include "garchive/common.h"
#include "remote/credential.h"

struct http_settings;

struct http_conn {
	void *curl;			/* CURL * */
	const struct http_settings *settings;
	struct ga_buf base;		/* the URL, ending in "/" */
	struct credential cred;
	char *user_agent;
	char errbuf[256];		/* CURL_ERROR_SIZE */
};

/* The discovery's answer. */
struct http_discovery {
	struct ga_buf body;
	char *content_type;	/* lower case, without parameters */
	char *charset;		/* or NULL */
};

/*
 * Set up for `url` (a trailing "/" is added).  Returns 0, or GA_ERROR
 * with git's message for a proxy URL it refuses.
 */
int http_conn_init(struct http_conn *c, const struct http_settings *s,
		   const char *url, const char *default_agent);
void http_conn_release(struct http_conn *c);

/*
 * GET <base>info/refs?service=<service> with "Git-Protocol: version=2".
 * Returns 0 with `out` filled (release it with http_discovery_release()
 * either way), GA_ESILENT when git credential said why it failed, or
 * GA_ERROR with git's fatal message: "repository '<url>' not found",
 * "Authentication failed for '<url>'", "unable to access '<url>':
 * <curl's words>" (after "remote: " lines of a text/plain answer).
 */
int http_discover(struct http_discovery *out, struct http_conn *c,
		  const char *service);
void http_discovery_release(struct http_discovery *d);

/*
 * POST `len` bytes of pkt-lines to <base><service> with the protocol v2
 * headers, and copy the answer to `out_fd` as it comes (checking its
 * pkt-line framing).  Returns 0; or -1 after printing git's "error: RPC
 * failed; ..." line; or GA_ERROR with git's fatal message when the
 * answer is not pkt-lines.
 */
int http_post_rpc(struct http_conn *c, const char *service,
		  const char *body, size_t len, int out_fd);

/* The URL as git shows it in messages: without "user:password@". */
char *http_anonymize_url(const char *url);

#endif

/*
 * remote-http.c: garchive-remote-http, the http(s) transport of
 * `garchive --remote`, a remote helper as git's git-remote-http
 * (remote-curl.c) is for `git archive --remote` since git 2.44.
 *
 * garchive runs it as `garchive-remote-http <remote> <url>` and speaks
 * git's remote-helper protocol to it (gitremote-helpers(7)):
 *
 *	capabilities		-> "stateless-connect", "option", ""
 *	option <name> <value>	-> "unsupported" (no option changes a thing
 *				   for an archive; --exec is among them, as
 *				   in git: "setting remote service path not
 *				   supported by protocol")
 *	stateless-connect git-upload-archive
 *				-> "" once the server speaks protocol v2,
 *				   else "fallback"
 *
 * The server's protocol version is learnt from the discovery of
 * git-upload-pack (there is no discovery of upload-archive): a v2
 * capability advertisement, which is not passed on (the archive
 * protocol has no place for it).  Then each request the client writes,
 * pkt-lines up to a flush, is POSTed to <url>/git-upload-archive and
 * the answer is copied back, followed by a response-end packet (0002).
 *
 * It is an executable of its own so that garchive itself never loads
 * libcurl and the TLS libraries behind it: they cost every run several
 * milliseconds of start-up, and only an http(s) --remote needs them.
 */
#include "remote/curl.h"
#include "remote/http-config.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "pktline.h"
#include "repo-open.h"
#include "repofmt.h"
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libgit2.h"

#ifndef GARCHIVE_VERSION
#define GARCHIVE_VERSION "0.1.0"
#endif

/* Everything the helper owns. */
struct helper {
	git_repository *repo;
	struct ga_config *config;
	struct http_settings settings;
	struct http_conn conn;
	int conn_ready;
	const char *remote;
	const char *url;
};

static void report(enum ga_report_kind kind, const char *msg, void *payload)
{
	const char *prefix = kind == GA_REPORT_PLAIN ? "" :
			     kind == GA_REPORT_WARNING ? "warning: " :
			     "error: ";

	(void)payload;
	fprintf(stderr, "%s%s\n", prefix, msg);
	fflush(stderr);
}

static void out_of_memory(size_t size)
{
	fprintf(stderr, "fatal: Out of memory, malloc failed (tried to "
		"allocate %zu bytes)\n", size);
	exit(128);
}

/* Answer the client: its replies are read a byte at a time. */
static int say(const char *text)
{
	int error = pkt_write_all(1, text, strlen(text));

	if (error == -1)
		return ga_error_errno(errno, "write error");
	return error;
}

/*
 * The configuration git's helper would read: the client's repository
 * (GIT_DIR, which garchive sets when it runs in one), the user's and
 * the system's files, and the client's -c options (which garchive
 * passes in GIT_CONFIG_PARAMETERS, as git does).
 */
static int load_config(struct helper *h)
{
	const char *dir = getenv("GIT_DIR");

	if (dir && repo_open(&h->repo, dir,
			GIT_REPOSITORY_OPEN_NO_SEARCH |
			GIT_REPOSITORY_OPEN_BARE, NULL) < 0) {
		h->repo = NULL;
		git_error_clear();
	}
	return config_load(&h->config, h->repo, NULL, 0);
}

static int connect_http(struct helper *h)
{
	const char *agent = getenv("GIT_USER_AGENT");
	int error;

	if (h->conn_ready)
		return 0;
	if ((error = http_settings_load(&h->settings, h->config, h->url,
					h->remote)) < 0)
		return error;
	h->conn_ready = 1;
	return http_conn_init(&h->conn, &h->settings, h->url,
			      agent ? agent : "garchive/" GARCHIVE_VERSION);
}

/* ---- what the discovery says ---- */

/*
 * git's check of a dumb server's info/refs: object names of one length
 * (SHA-1 or SHA-256), a tab, a ref name.
 */
static int check_info_refs(const struct http_conn *c, const struct ga_buf *b)
{
	const char *p = b->ptr, *end = b->ptr + b->len, *tab;
	char *anon = http_anonymize_url(c->base.ptr);
	size_t hexsz = 40;
	int error = 0;

	tab = b->len ? memchr(p, '\t', b->len) : NULL;
	if (tab) {
		hexsz = (size_t)(tab - p);
		if (hexsz != 40 && hexsz != 64) {
			error = ga_error_set("%sinfo/refs not valid: could not "
					     "determine hash algorithm; is "
					     "this a git repository?", anon);
			goto done;
		}
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			break;
		tab = memchr(p, '\t', (size_t)(nl - p));
		if (!tab || (size_t)(tab - p) != hexsz) {
			error = ga_error_set("%sinfo/refs not valid: is this a "
					     "git repository?", anon);
			goto done;
		}
		p = nl + 1;
	}
done:
	free(anon);
	return error;
}

/*
 * Is this a protocol v2 server?  git's check_smart_http() and
 * discover_version(): a smart answer must start with "# service=..."
 * (v0) or "version 2" (v2, capabilities up to a flush).  Sets *v2.
 */
static int server_version(int *v2, const struct http_conn *c,
			  const struct http_discovery *d, const char *service)
{
	char *type = ga_xstrfmt("application/x-%s-advertisement", service);
	char *svc = ga_xstrfmt("# service=%s", service);
	char *line = ga_xmalloc(PKT_MAX);
	int fds[2] = { -1, -1 }, status, error = 0;
	size_t len;

	*v2 = 0;
	if (strcmp(d->content_type, type)) {
		error = check_info_refs(c, &d->body);
		goto done;
	}
	/* The advertisement is read as a stream of pkt-lines. */
	if (pipe(fds) < 0 || (d->body.len &&
			      ga_write_all(fds[1], d->body.ptr, d->body.len))) {
		error = ga_error_errno(errno, "pipe");
		goto done;
	}
	close(fds[1]);
	fds[1] = -1;
	status = pkt_read(fds[0], line, PKT_MAX, &len,
			  PKT_CHOMP_NEWLINE | PKT_DIE_ON_ERR |
			  PKT_GENTLE_ON_EOF);
	if (status < 0) {
		error = status;
	} else if (status == PKT_EOF) {
		error = ga_error_set("the remote end hung up upon initial "
				     "contact");
	} else if (status != PKT_NORMAL) {
		error = ga_error_set("invalid server response; expected "
				     "service, got flush packet");
	} else if (!strcmp(line, svc)) {
		*v2 = 0;
	} else if (!strcmp(line, "version 2")) {
		do {
			status = pkt_read(fds[0], line, PKT_MAX, &len,
					  PKT_CHOMP_NEWLINE | PKT_DIE_ON_ERR |
					  PKT_GENTLE_ON_EOF);
		} while (status == PKT_NORMAL);
		if (status < 0)
			error = status;
		else if (status != PKT_FLUSH)
			error = ga_error_set("expected flush after "
					     "capabilities");
		else
			*v2 = 1;
	} else {
		error = ga_error_set("invalid server response; got '%s'",
				     line);
	}
done:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	free(line);
	free(type);
	free(svc);
	return error;
}

/* ---- the requests ---- */

/*
 * One request from the client, pkt-lines up to a flush, as sent.
 * Returns 0, PKT_EOF when the client has no more, or an error code.
 */
static int read_request(struct ga_buf *req, char *buf)
{
	size_t len;
	int status, first = 1;

	ga_buf_setlen(req, 0);
	for (;;) {
		status = pkt_read(0, buf, PKT_MAX, &len,
				  first ? PKT_GENTLE_ON_EOF : 0);
		if (status < 0 || status == PKT_EOF)
			return status;
		first = 0;
		switch (status) {
		case PKT_FLUSH:
			ga_buf_puts(req, "0000");
			return 0;
		case PKT_DELIM:
			ga_buf_puts(req, "0001");
			break;
		case PKT_RESPONSE_END:
			return ga_error_set("remote server sent unexpected "
					    "response end packet");
		default:
			ga_buf_printf(req, "%04x", (unsigned)(len + 4));
			ga_buf_put(req, buf, len);
		}
	}
}

static int stateless_connect(struct helper *h, const char *service)
{
	struct http_discovery d;
	struct ga_buf req = GA_BUF_INIT;
	char *buf = NULL;
	int v2, error;

	/* git offers this for upload-pack too; garchive asks no such. */
	if (strcmp(service, "git-upload-archive"))
		return say("fallback\n");
	if ((error = connect_http(h)) < 0)
		return error;
	/* upload-archive has no discovery: upload-pack's tells the version. */
	error = http_discover(&d, &h->conn, "git-upload-pack");
	if (!error)
		error = server_version(&v2, &h->conn, &d, "git-upload-pack");
	http_discovery_release(&d);
	if (error)
		return error;
	if (!v2)
		return say("fallback\n");
	if ((error = say("\n")) < 0)
		return error;
	buf = ga_xmalloc(PKT_MAX);
	/* One POST per request, until the client has no more. */
	for (;;) {
		error = read_request(&req, buf);
		if (error == PKT_EOF) {
			error = 0;
			break;
		}
		if (error < 0)
			break;
		error = http_post_rpc(&h->conn, service, req.ptr, req.len, 1);
		/* After a failed request git's helper stops, quietly. */
		if (error == -1) {
			error = 0;
			break;
		}
		if (error < 0)
			break;
	}
	free(buf);
	ga_buf_release(&req);
	/* Done: the client reads the rest and hangs up. */
	return error < 0 ? error : 1;
}

/* The command loop; 0 at its normal end, 1 when the client hung up. */
static int serve(struct helper *h)
{
	struct ga_buf line = GA_BUF_INIT;
	const char *arg;
	int error = 0;

	for (;;) {
		if (transport_read_line(&line, 0) < 0) {
			error = 1;
			break;
		}
		if (!line.len)
			break;
		if (!strcmp(line.ptr, "capabilities")) {
			error = say("stateless-connect\noption\n\n");
		} else if (ga_skip_prefix(line.ptr, "option ", &arg)) {
			error = say("unsupported\n");
		} else if (ga_skip_prefix(line.ptr, "stateless-connect ",
					  &arg)) {
			error = stateless_connect(h, arg);
			if (error > 0) {
				error = 0;
				break;
			}
		} else {
			ga_report(GA_REPORT_ERROR, "remote-curl: unknown "
				  "command '%s' from git", line.ptr);
			error = 1;
		}
		if (error)
			break;
	}
	ga_buf_release(&line);
	return error;
}

int main(int argc, char **argv)
{
	struct helper h;
	int error, status = 0;

	memset(&h, 0, sizeof(h));
	ga_set_report_handler(report, NULL);
	ga_set_oom_handler(out_of_memory);
	/* A client that hangs up is an EPIPE here, then SIGPIPE below. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		ga_report(GA_REPORT_ERROR, "remote-curl: usage: "
			  "garchive-remote-http <remote> [<url>]");
		return 1;
	}
	h.remote = argv[1];
	h.url = argc > 2 ? argv[2] : argv[1];
	git_libgit2_init();
	/* GIT_DIR may be a repository only git 2.45 opens: see repofmt.h. */
	repofmt_register_extensions();
	git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
	error = load_config(&h);
	if (!error)
		error = serve(&h);
	if (error == GA_EPIPE) {
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	if (error == 1) {
		status = 1;
	} else if (error == GA_ESILENT) {
		status = 128;
	} else if (error < 0) {
		fprintf(stderr, "fatal: %s\n", ga_error_message());
		status = 128;
	}
	if (h.conn_ready) {
		http_conn_release(&h.conn);
		http_settings_release(&h.settings);
	}
	config_free(h.config);
	git_repository_free(h.repo);
	git_libgit2_shutdown();
	return status;
}

/*
 * http-backend.c: the upload-archive service over smart HTTP, as git's
 * http-backend.c (2.44 and later) serves it (see http-backend.h).
 */
#include "remote/http-backend.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "garchive/remote.h"
#include "run-command.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "libgit2.h"

#define ARCHIVE_ROUTE "/git-upload-archive"
#define REQUEST_TYPE "application/x-git-upload-archive-request"
#define RESULT_TYPE "application/x-git-upload-archive-result"

/* The headers of an answer, sent together by end_headers(). */
struct answer {
	struct ga_buf hdr;
};

static void status_line(struct answer *a, unsigned code, const char *msg)
{
	ga_buf_printf(&a->hdr, "Status: %u %s\r\n", code, msg);
}

static void header(struct answer *a, const char *name, const char *value)
{
	ga_buf_printf(&a->hdr, "%s: %s\r\n", name, value);
}

/* git's hdr_nocache(): no proxy or browser keeps a dynamic answer. */
static void no_cache(struct answer *a)
{
	header(a, "Expires", "Fri, 01 Jan 1980 00:00:00 GMT");
	header(a, "Pragma", "no-cache");
	header(a, "Cache-Control", "no-cache, max-age=0, must-revalidate");
}

static void end_headers(struct answer *a)
{
	ga_buf_puts(&a->hdr, "\r\n");
	(void)ga_write_all(1, a->hdr.ptr, a->hdr.len);
	ga_buf_release(&a->hdr);
}

/* The web server's error log gets the reason, the client a status. */
static void log_line(const char *prefix, const char *msg)
{
	fprintf(stderr, "%s%s\n", prefix, msg);
	fflush(stderr);
}

static int refuse(struct answer *a, unsigned code, const char *what,
		  const char *msg)
{
	status_line(a, code, what);
	no_cache(a);
	end_headers(a);
	log_line("", msg);
	return 0;
}

/* git's die_webcgi(): the message to the log, 500 to the client. */
static int internal_error(struct answer *a, const char *msg)
{
	log_line("fatal: ", msg);
	ga_buf_setlen(&a->hdr, 0);
	status_line(a, 500, "Internal Server Error");
	no_cache(a);
	end_headers(a);
	return 0;
}

/*
 * git's daemon_avoid_alias(): PATH_INFO must start with "/" (or "~")
 * and have no empty, "." or ".." component.
 */
static int is_alias_free(const char *p)
{
	int after_slash = 1, dots = 0;

	if (*p != '/' && *p != '~')
		return 0;
	for (p++;; p++) {
		char ch = *p;

		if (after_slash) {
			if (ch == '.') {
				dots++;
			} else if (ch == '/' || !ch) {
				if (ch == '/' ? dots < 3 : (dots && dots < 3))
					return 0;
				if (!ch)
					return 1;
				dots = 0;
			} else {
				after_slash = 0;
				dots = 0;
			}
		} else if (!ch) {
			return 1;
		} else if (ch == '/') {
			after_slash = 1;
			dots = 0;
		}
	}
}

/* git's getdir(): where the request points; NULL with the message set. */
static char *request_path(void)
{
	const char *info = getenv("PATH_INFO");
	const char *root = getenv("GIT_PROJECT_ROOT");
	const char *path = getenv("PATH_TRANSLATED");
	size_t len;

	if (root && *root) {
		if (!info || !*info) {
			ga_error_set("GIT_PROJECT_ROOT is set but PATH_INFO "
				     "is not");
			return NULL;
		}
		if (!is_alias_free(info)) {
			ga_error_set("'%s': aliased", info);
			return NULL;
		}
		len = strlen(root);
		return ga_xstrfmt("%s%s%s", root,
				  root[len - 1] == '/' ? "" : "/",
				  info + (info[0] == '/'));
	}
	if (path && *path)
		return ga_xstrdup(path);
	ga_error_set("No GIT_PROJECT_ROOT or PATH_TRANSLATED from server");
	return NULL;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Not ours: git's own http-backend answers, in our place. */
static int delegate(struct answer *a)
{
	const char *argv[] = { "git", "http-backend", NULL };
	char *msg;

	(void)child_exec_instead(argv);
	msg = ga_xstrfmt("cannot run git http-backend: %s", strerror(errno));
	internal_error(a, msg);
	free(msg);
	return GA_ERROR;
}

/* git's bad_request(): the route exists, the method is wrong. */
static int bad_method(struct answer *a)
{
	const char *proto = getenv("SERVER_PROTOCOL");

	if (proto && !strcmp(proto, "HTTP/1.1")) {
		status_line(a, 405, "Method Not Allowed");
		header(a, "Allow", "POST");
	} else {
		status_line(a, 400, "Bad Request");
	}
	no_cache(a);
	end_headers(a);
	return 0;
}

/*
 * Is the service on?  http.uploadarchive when set, else only for a
 * user the web server authenticated (git's "enabled = -1").
 */
static int service_enabled(int *out, git_repository *repo,
			   const struct http_backend_options *o)
{
	struct ga_config *cfg = NULL;
	const char *user = getenv("REMOTE_USER");
	int error;

	if ((error = config_load(&cfg, repo, o->config_overrides,
				 o->nr_config_overrides)) < 0)
		return error;
	error = config_get_bool(out, cfg, "http.uploadarchive");
	if (error == GA_ENOTFOUND) {
		*out = user && *user;
		error = 0;
	}
	config_free(cfg);
	return error;
}

/* ---- passing the request body to upload-archive ---- */

static int feed_plain(int to, ssize_t len)
{
	char buf[8192];

	while (len > 0) {
		ssize_t n = read(0, buf, (size_t)len < sizeof(buf) ?
				 (size_t)len : sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ga_error_errno(errno, "Reading request failed");
		if (!n)
			break;
		if (ga_write_all(to, buf, (size_t)n))
			return ga_error_set("unable to write to "
					    "'upload-archive'");
		len -= n;
	}
	return 0;
}

/* git's inflate_request() without buffering: gzip in, pkt-lines out. */
static int feed_gzip(int to, ssize_t len)
{
	unsigned char in[8192], out[8192];
	z_stream z;
	int ret = Z_OK, error = 0;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return ga_error_set("failed to initialize inflate");
	while (ret != Z_STREAM_END) {
		size_t want = len >= 0 && (size_t)len < sizeof(in) ?
			      (size_t)len : sizeof(in);
		ssize_t n = want ? read(0, in, want) : 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			error = ga_error_set("request ended in the middle of "
					     "the gzip stream");
			break;
		}
		if (len >= 0)
			len -= n;
		z.next_in = in;
		z.avail_in = (uInt)n;
		while (z.avail_in && ret != Z_STREAM_END) {
			z.next_out = out;
			z.avail_out = sizeof(out);
			ret = inflate(&z, Z_NO_FLUSH);
			if (ret != Z_OK && ret != Z_STREAM_END) {
				error = ga_error_set("zlib error inflating "
						     "request, result %d", ret);
				goto done;
			}
			if (ga_write_all(to, out, sizeof(out) - z.avail_out)) {
				error = ga_error_set("unable to write to "
						     "'upload-archive'");
				goto done;
			}
		}
	}
done:
	inflateEnd(&z);
	return error;
}

static int content_length(ssize_t *out)
{
	const char *s = getenv("CONTENT_LENGTH");
	char *end;
	long long v;

	*out = -1;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 0)
		return ga_error_set("failed to parse CONTENT_LENGTH: %s", s);
	*out = (ssize_t)v;
	return 0;
}

/* Our own executable, to run `upload-archive` with. */
static char *self_path(const char *argv0)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return ga_xstrdup(argv0);
	self[n] = '\0';
	return ga_xstrdup(self);
}

/*
 * git's run_service(): upload-archive writes the answer to our stdout,
 * reading the request from a pipe we fill (a gzip body, or one of known
 * length) or straight from our stdin.
 */
static int run_upload_archive(const struct http_backend_options *o,
			      int *exit_status)
{
	const char *enc = getenv("HTTP_CONTENT_ENCODING");
	int gzipped = enc && (!strcmp(enc, "gzip") || !strcmp(enc, "x-gzip"));
	const char **argv;
	char *self = self_path(o->argv0);
	struct child c = CHILD_INIT;
	ssize_t len;
	size_t i, j = 0;
	int error, code = 0;

	if ((error = content_length(&len)) < 0) {
		free(self);
		return error;
	}
	argv = ga_xcalloc(2 * o->nr_config_overrides + 4, sizeof(*argv));
	argv[j++] = self;
	for (i = 0; i < o->nr_config_overrides; i++) {
		argv[j++] = "-c";
		argv[j++] = o->config_overrides[i];
	}
	argv[j++] = "upload-archive";
	argv[j++] = ".";
	c.argv = argv;
	c.pipe_in = gzipped || len >= 0;
	error = child_start(&c);
	if (!error) {
		/* Only upload-archive answers from now on. */
		close(1);
		if (gzipped)
			error = feed_gzip(c.in, len);
		else if (len >= 0)
			error = feed_plain(c.in, len);
		child_close(&c.in);
		if (child_finish(&c, &code, NULL) < 0 && !error)
			error = GA_ERROR;
		*exit_status = code ? 1 : 0;
	}
	free(argv);
	free(self);
	return error;
}

static int serve_archive(struct answer *a, const struct http_backend_options *o,
			 char *dir, int *exit_status)
{
	git_repository *repo = NULL;
	const char *type = getenv("CONTENT_TYPE");
	const char *proto = getenv("HTTP_GIT_PROTOCOL");
	char *msg = NULL;
	int enabled, error;

	if (remote_enter_repo(&repo, dir, o->config_overrides,
			      o->nr_config_overrides) < 0) {
		/* git dies of a repository owned by someone else. */
		if (ga_starts_with(ga_error_message(), "detected dubious")) {
			error = internal_error(a, ga_error_message());
			goto done;
		}
		msg = ga_xstrfmt("Not a git repository: '%s'", dir);
		error = refuse(a, 404, "Not Found", msg);
		goto done;
	}
	if (!getenv("GIT_HTTP_EXPORT_ALL") &&
	    access("git-daemon-export-ok", F_OK)) {
		msg = ga_xstrfmt("Repository not exported: '%s'", dir);
		error = refuse(a, 404, "Not Found", msg);
		goto done;
	}
	if ((error = service_enabled(&enabled, repo, o)) < 0) {
		error = internal_error(a, ga_error_message());
		goto done;
	}
	/* upload-archive reads the client's protocol as git's does. */
	if (proto)
		setenv("GIT_PROTOCOL", proto, 0);
	if (!enabled) {
		error = refuse(a, 403, "Forbidden",
			       "Service not enabled: 'upload-archive'");
		goto done;
	}
	if (!type)
		type = "";
	if (strcmp(type, REQUEST_TYPE)) {
		status_line(a, 415, "Unsupported Media Type");
		no_cache(a);
		end_headers(a);
		msg = ga_xstrfmt("Expected POST with Content-Type '%s', but "
				 "received '%s' instead.\n", REQUEST_TYPE, type);
		(void)ga_write_all(1, msg, strlen(msg));
		error = 0;
		goto done;
	}
	no_cache(a);
	header(a, "Content-Type", RESULT_TYPE);
	end_headers(a);
	/* The headers are out: a failure now only reaches the log. */
	git_repository_free(repo);
	repo = NULL;
	if ((error = run_upload_archive(o, exit_status)) < 0) {
		log_line("fatal: ", ga_error_message());
		*exit_status = 1;
		error = 0;
	}
done:
	git_repository_free(repo);
	free(msg);
	return error;
}

int http_backend_serve(const struct http_backend_options *o,
		       int *exit_status)
{
	struct answer a = { GA_BUF_INIT };
	const char *method = getenv("REQUEST_METHOD");
	char *dir = NULL;
	int error;

	*exit_status = 0;
	if (!method) {
		error = internal_error(&a, "No REQUEST_METHOD from server");
		goto done;
	}
	if (!(dir = request_path())) {
		error = internal_error(&a, ga_error_message());
		goto done;
	}
	if (!ends_with(dir, ARCHIVE_ROUTE)) {
		error = delegate(&a);
		goto done;
	}
	if (strcmp(method, "POST")) {
		error = bad_method(&a);
		goto done;
	}
	dir[strlen(dir) - strlen(ARCHIVE_ROUTE)] = '\0';
	error = serve_archive(&a, o, dir, exit_status);
done:
	ga_buf_release(&a.hdr);
	free(dir);
	return error;
}

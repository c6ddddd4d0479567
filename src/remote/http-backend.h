/*
 * http-backend.h: garchive as the upload-archive service of git's smart
 * HTTP protocol, a CGI program (`garchive http-backend`, or garchive
 * started as garchive-http-backend) for a web server to run, as git's
 * git-http-backend serves it since git 2.44.
 *
 * It answers POST <repository>/git-upload-archive itself, with the
 * checks, status lines and headers of git's http-backend: the
 * repository from GIT_PROJECT_ROOT + PATH_INFO (or PATH_TRANSLATED),
 * git-daemon-export-ok unless GIT_HTTP_EXPORT_ALL is set, the service
 * enabled by http.uploadarchive or else by an authenticated user
 * (REMOTE_USER), the request's Content-Type, a gzip request body, the
 * client's Git-Protocol header; then `garchive upload-archive .` in the
 * repository writes the answer.  Every other request (the discovery
 * that comes first, fetches and pushes) is handed to `git http-backend`
 * unchanged, so one CGI serves the whole repository.
 */
#ifndef GARCHIVE_REMOTE_HTTP_BACKEND_H
#define GARCHIVE_REMOTE_HTTP_BACKEND_H

#include <stddef.h>

struct http_backend_options {
	const char *argv0;	/* how garchive was started */
	/* garchive's -c options, repeated for upload-archive. */
	const char *const *config_overrides;
	size_t nr_config_overrides;
};

/*
 * Serve one CGI request.  Returns 0 when an answer went out, failures
 * included (the web server's log gets git's words on stderr, the client
 * a status); a negative code only when `git http-backend` could not be
 * run for a request it serves (with git's "cannot run" words), after a
 * 500 answer.  *exit_status is what the CGI should exit with.
 */
int http_backend_serve(const struct http_backend_options *o,
		       int *exit_status);

#endif

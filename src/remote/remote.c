/*
 * remote.c: the remote archive protocol, both ends (git's
 * builtin/archive.c run_remote_archiver(), builtin/upload-archive.c),
 * and get-tar-commit-id (builtin/get-tar-commit-id.c).
 */
#include "garchive/remote.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "garchive/sink.h"
#include "odb.h"
#include "run-command.h"
#include "pktline.h"
#include "refdb.h"
#include "repo-open.h"
#include "repofmt.h"
#include "safedir.h"
#include "transport.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"

/* git's MAX_ARGS: the argument vector, argv[0] included. */
#define REMOTE_MAX_ARGS 64

static const char deadchild[] =
	"git upload-archive: archiver died with error";

const char *remote_upload_archive_usage(void)
{
	return "usage: git upload-archive <repository>\n";
}

/* ---- client ---- */

static int is_terminal_dumb(void)
{
	const char *t = getenv("TERM");

	return !t || !strcmp(t, "dumb");
}

/*
 * color.remote, else color.ui: never, always, auto or a boolean (true
 * meaning auto).  Auto highlights only on a terminal that is not dumb.
 */
static int want_sideband_color(int *out, const struct ga_config *cfg,
			       int err_fd)
{
	static const char *const keys[] = { "color.remote", "color.ui" };
	const char *v;
	size_t i;
	int b, error, setting = 2;	/* 0 never, 1 always, 2 auto */

	for (i = 0; i < GA_ARRAY_SIZE(keys); i++) {
		if (config_get_string(&v, cfg, keys[i]) != 0)
			continue;
		if (v && !strcasecmp(v, "never")) {
			setting = 0;
		} else if (v && !strcasecmp(v, "always")) {
			setting = 1;
		} else if (v && !strcasecmp(v, "auto")) {
			setting = 2;
		} else {
			if (!v)
				b = 1;
			else if ((error = config_parse_bool(&b, keys[i],
							    v)) < 0)
				return error;
			setting = b ? 2 : 0;
		}
		break;
	}
	if (setting == 2)
		setting = isatty(err_fd) && !is_terminal_dumb();
	*out = setting;
	return 0;
}

/*
 * Send the arguments in one write (after whatever the transport has
 * pending), so that a server which answers and hangs up at once is
 * heard rather than killing us with SIGPIPE mid-request.
 */
static int send_request(struct transport *t,
			const struct remote_client_options *o)
{
	struct ga_buf *req = &t->pending;
	size_t i;
	int error = 0;

	/*
	 * The format implied by -o goes first, so that an explicit
	 * --format among the arguments overrides it.
	 */
	if (o->format)
		error = pkt_buf_fmt(req, "argument --format=%s\n", o->format);
	for (i = 0; !error && i < o->nr_args; i++)
		error = pkt_buf_fmt(req, "argument %s\n", o->args[i]);
	if (error)
		return error;
	pkt_buf_flush(req);
	error = pkt_write_all(t->out, req->ptr, req->len);
	if (error == -1)
		return ga_error_errno(errno, "packet write with format failed");
	return error;
}

static int read_ack(int fd)
{
	char *buf = ga_xmalloc(PKT_MAX);
	size_t len;
	int status, error = 0;

	status = pkt_read(fd, buf, PKT_MAX, &len,
			  PKT_CHOMP_NEWLINE | PKT_DIE_ON_ERR);
	if (status < 0) {
		error = status;
	} else if (status != PKT_NORMAL) {
		error = ga_error_set("git archive: expected ACK/NAK, got a "
				     "flush packet");
	} else if (strcmp(buf, "ACK")) {
		if (!strncmp(buf, "NACK ", 5))
			error = ga_error_set("git archive: NACK %s", buf + 5);
		else
			error = ga_error_set("git archive: protocol error");
	} else {
		status = pkt_read(fd, buf, PKT_MAX, &len,
				  PKT_CHOMP_NEWLINE | PKT_DIE_ON_ERR);
		if (status < 0)
			error = status;
		else if (status != PKT_FLUSH)
			error = ga_error_set("git archive: expected a flush");
	}
	free(buf);
	return error;
}

int remote_archive(const struct remote_client_options *o, int out_fd,
		   int err_fd)
{
	struct transport t = TRANSPORT_INIT;
	struct transport_options to;
	struct sideband_style style;
	int error, disconnect;

	memset(&to, 0, sizeof(to));
	to.remote = o->remote;
	to.service = "git-upload-archive";
	to.exec = o->exec ? o->exec : to.service;
	to.config = o->config;
	to.git_dir = o->git_dir;
	to.dir = o->dir;
	to.err_fd = err_fd;
	to.config_overrides = o->config_overrides;
	to.nr_config_overrides = o->nr_config_overrides;

	memset(&style, 0, sizeof(style));
	style.me = "archive";
	if ((error = want_sideband_color(&style.color, o->config,
					 err_fd)) < 0)
		return error;
	style.ansi = isatty(err_fd) && !is_terminal_dumb();

	if ((error = transport_connect(&t, &to)) < 0 ||
	    (error = send_request(&t, o)) < 0 ||
	    (error = read_ack(t.in)) < 0)
		goto fail;
	error = sideband_recv(t.in, out_fd, err_fd, &style);
	if (error < 0 && error != GA_EREMOTE)
		goto fail;
	disconnect = transport_disconnect(&t, err_fd);
	if (error == GA_EREMOTE || disconnect == GA_EREMOTE)
		return GA_EREMOTE;
	return disconnect;
fail:
	transport_release(&t);
	return error;
}

/* ---- server ---- */

struct relay {
	int fd;			/* the writer's stdout or stderr, -1 at EOF */
	int band;
};

/*
 * git's error_clnt(): tell the client on band 3, then die with the
 * same words.
 */
static int error_to_client(int out_fd, const char *msg)
{
	int error = sideband_send(out_fd, 3, msg, strlen(msg));

	if (error == GA_EPIPE)
		return error;
	return ga_error_set("sent error to the client: %s", msg);
}

/* Move one read's worth from the writer to the client. */
static int relay_once(struct relay *r, int out_fd)
{
	char buf[PKT_SIDEBAND_CHUNK];
	ssize_t n = read(r->fd, buf, sizeof(buf));

	if (n < 0) {
		char *msg;
		int error;

		if (errno == EINTR || errno == EAGAIN)
			return 0;
		msg = ga_xstrfmt("read error: %s\n", strerror(errno));
		error = error_to_client(out_fd, msg);
		free(msg);
		return error;
	}
	if (!n) {
		child_close(&r->fd);
		return 0;
	}
	return sideband_send(out_fd, r->band, buf, (size_t)n);
}

static int relay_writer(struct relay relays[2], int out_fd)
{
	struct pollfd pfd[2];
	int error, i;

	while (relays[0].fd >= 0 || relays[1].fd >= 0) {
		for (i = 0; i < 2; i++) {
			pfd[i].fd = relays[i].fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return ga_error_errno(errno, "poll failed");
		}
		/*
		 * Messages first, as git does; the loop goes on until both
		 * streams end, so a writer that closes stderr early cannot
		 * block on a full stdout pipe.
		 */
		for (i = 0; i < 2; i++) {
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if ((error = relay_once(&relays[i], out_fd)) < 0)
				return error;
			if (pfd[i].revents & POLLIN)
				break;
		}
	}
	return 0;
}

int remote_upload_archive(const struct remote_server_options *o)
{
	struct child w = CHILD_INIT;
	struct relay relays[2];
	char *msg;
	int error, code = 0, signo = 0, err;

	w.argv = o->writer_argv;
	w.pipe_out = w.pipe_err = 1;
	if (child_start(&w) < 0) {
		err = errno;
		ga_error_clear();
		error = pkt_write_fmt(o->out_fd, "NACK unable to spawn "
				      "subprocess\n");
		if (error < 0)
			return error;
		return ga_error_errno(err, "upload-archive");
	}
	/* The writer checks the request itself: ACK before it starts. */
	if ((error = pkt_write_fmt(o->out_fd, "ACK\n")) < 0 ||
	    (error = pkt_flush(o->out_fd)) < 0)
		goto done;

	relays[0].fd = w.err;
	relays[0].band = 2;
	relays[1].fd = w.out;
	relays[1].band = 1;
	w.err = w.out = -1;
	error = relay_writer(relays, o->out_fd);
	/* On failure the writer sees EPIPE and ends; reap it either way. */
	child_close(&relays[0].fd);
	child_close(&relays[1].fd);
	if (child_finish(&w, &code, &signo) < 0 && !error)
		error = GA_ERROR;
	if (error)
		goto done;
	if ((msg = child_death_message("upload-archive--writer", signo)))
		ga_report(GA_REPORT_ERROR, "%s", msg);
	free(msg);
	if (code) {
		error = error_to_client(o->out_fd, deadchild);
		goto done;
	}
	error = pkt_flush(o->out_fd);
done:
	if (w.pid)
		(void)child_finish(&w, &code, NULL);
	return error;
}

/* ---- entering the repository ---- */

static int is_git_directory(const char *path)
{
	git_repository *repo = NULL;
	int ok, error;

	error = repo_open(&repo, path,
					GIT_REPOSITORY_OPEN_NO_SEARCH |
					GIT_REPOSITORY_OPEN_NO_DOTGIT |
					GIT_REPOSITORY_OPEN_BARE, NULL);
	ok = error == 0;
	git_repository_free(repo);
	git_error_clear();
	return ok;
}

/* The target of a ".git" file ("gitdir: <path>"), or NULL. */
static char *read_gitfile(const char *path)
{
	char buf[PATH_MAX + 16];
	char *dir, *slash, *target = NULL;
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (strncmp(buf, "gitdir: ", 8))
		return NULL;
	buf[8 + strcspn(buf + 8, "\r\n")] = '\0';
	if (buf[8] == '/')
		return ga_xstrdup(buf + 8);
	dir = ga_xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		target = ga_xstrfmt("%s/%s", dir, buf + 8);
	} else {
		target = ga_xstrdup(buf + 8);
	}
	free(dir);
	return target;
}

static int not_a_repository(const char *path)
{
	return ga_error_set("'%s' does not appear to be a git repository",
			    path);
}

int remote_enter_repo(git_repository **out, const char *path,
		      const char *const *overrides, size_t nr_overrides)
{
	static const char *const suffix[] = {
		"/.git", "", ".git/.git", ".git", NULL
	};
	size_t len = strlen(path), i;
	char *base = NULL, *candidate = NULL, *gitfile = NULL;
	char real[PATH_MAX];
	struct stat st;
	int error, safe;

	*out = NULL;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len >= PATH_MAX)
		return not_a_repository(path);
	candidate = ga_xstrndup(path, len);
	/* enter_repo(): only a leading '~' is expanded, not "%(prefix)/". */
	base = candidate[0] == '~' ? ga_interpolate_path(candidate, 0)
				   : ga_xstrdup(candidate);
	free(candidate);
	candidate = NULL;
	if (!base)
		return not_a_repository(path);
	for (i = 0; suffix[i]; i++) {
		free(candidate);
		candidate = ga_xstrfmt("%s%s", base, suffix[i]);
		if (!stat(candidate, &st) &&
		    (S_ISREG(st.st_mode) ||
		     (S_ISDIR(st.st_mode) && is_git_directory(candidate))))
			break;
	}
	if (!suffix[i] ||
	    (S_ISREG(st.st_mode) && !(gitfile = read_gitfile(candidate)))) {
		error = not_a_repository(path);
		goto done;
	}
	/*
	 * git checks the owners of what it found and of a gitfile's
	 * target, and names the target (or what it found, "~" expanded)
	 * in its refusal; safe.directory must name what it found.
	 */
	if ((error = safedir_check(&safe, overrides, nr_overrides,
				   gitfile, NULL, candidate)) < 0)
		goto done;
	if (!safe) {
		error = safedir_refuse(gitfile && realpath(gitfile, real) ?
				       real : candidate);
		goto done;
	}
	if (chdir(gitfile ? gitfile : candidate) < 0) {
		error = not_a_repository(path);
		goto done;
	}
	/*
	 * Opened bare: git serves from the repository directory without
	 * a work tree, and this is also where --add-file would look.
	 */
	error = repo_open(out, ".",
					GIT_REPOSITORY_OPEN_NO_SEARCH |
					GIT_REPOSITORY_OPEN_NO_DOTGIT |
					GIT_REPOSITORY_OPEN_BARE, NULL);
	if (error < 0)
		error = not_a_repository(path);
	else if (!(error = refdb_setup(*out, ".", 0)))
		/* git names what it serves "." (see odb.h). */
		error = odb_install(*out, ".", 1);
	git_error_clear();
done:
	free(base);
	free(candidate);
	free(gitfile);
	return error;
}

/* ---- the writer's arguments ---- */

void remote_free_arguments(char **args, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(args[i]);
	free(args);
}

int remote_read_arguments(char ***out, size_t *nr, int fd)
{
	char *buf = ga_xmalloc(PKT_MAX);
	char **args = ga_xcalloc(REMOTE_MAX_ARGS + 1, sizeof(*args));
	size_t n = 0, len;
	int status, error = 0;

	for (;;) {
		status = pkt_read(fd, buf, PKT_MAX, &len, PKT_CHOMP_NEWLINE);
		if (status < 0) {
			error = status;
			goto done;
		}
		/* A flush, a marker and an empty line all end the list. */
		if (status != PKT_NORMAL || !len)
			break;
		/* git counts its argv[0] too, hence the 63 it mentions. */
		if (n + 1 > REMOTE_MAX_ARGS) {
			error = ga_error_set("Too many options (>%d)",
					     REMOTE_MAX_ARGS - 1);
			goto done;
		}
		if (strncmp(buf, "argument ", 9)) {
			error = ga_error_set("'argument' token or flush "
					     "expected");
			goto done;
		}
		args[n++] = ga_xstrdup(buf + 9);
	}
done:
	free(buf);
	if (error) {
		remote_free_arguments(args, n);
		return error;
	}
	*out = args;
	*nr = n;
	return 0;
}

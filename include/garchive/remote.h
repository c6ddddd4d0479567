/*
 * remote.h: `git archive --remote` and the commands on its server side.
 *
 * Client: connect to <repo> (a local path, file://, ssh:// or scp-like
 * host:path through ssh, git:// over TCP, a remote name, or a remote
 * helper), send the pass-1 arguments as "argument <arg>" pkt-lines, read
 * ACK and a flush, then demultiplex the side-band stream: archive bytes
 * to the output, messages to stderr.
 *
 * Server: `upload-archive <dir>` replies ACK at once, starts the writer
 * (`upload-archive--writer <dir>`, which reads the arguments and writes
 * the archive as a local run would, restricted to what a remote client
 * may ask for) and multiplexes the writer's stdout and stderr.
 *
 * Also here: `get-tar-commit-id`, which reads the commit id back out of
 * a tar archive's pax global header.
 */
#ifndef GARCHIVE_REMOTE_H
#define GARCHIVE_REMOTE_H

#include <stddef.h>

#include <git2/types.h>

#include "garchive/errors.h"

struct ga_config;

struct remote_client_options {
	const char *remote;	/* --remote value */
	const char *exec;	/* --exec value, NULL: git-upload-archive */
	const char *format;	/* format inferred from -o, or NULL */
	char *const *args;	/* pass-1 leftovers, each sent as an argument */
	size_t nr_args;
	const struct ga_config *config;	/* the client's configuration */
	const char *git_dir;	/* the client's repository, or NULL */
	const char *dir;	/* where local commands run, NULL: the cwd */
	/* -c options, passed on to a remote helper as git passes them. */
	const char *const *config_overrides;
	size_t nr_config_overrides;
};

/*
 * Run the client, writing the archive to `out_fd` and remote messages
 * to `err_fd`.  Returns 0, GA_EREMOTE, GA_ESILENT, GA_EPIPE, or GA_ERROR
 * with git's message (e.g. "git archive: NACK <reason>", "operation not
 * supported by protocol", "transport 'file' not allowed").
 */
int remote_archive(const struct remote_client_options *opts, int out_fd,
		   int err_fd);

/* git's usage text of upload-archive (and its writer), with "\n". */
const char *remote_upload_archive_usage(void);

struct remote_server_options {
	/*
	 * The writer's command line: the garchive executable, the global
	 * options to repeat, "upload-archive--writer" and its arguments.
	 */
	const char *const *writer_argv;
	int out_fd;		/* the client: pkt-lines go here */
};

/*
 * Serve one request: start the writer (on failure send "NACK unable to
 * spawn subprocess" and fail with "upload-archive: <strerror>"), reply
 * ACK and a flush, and relay the writer's stdout on band 1 and its
 * stderr on band 2 in chunks of at most 16 KiB.  If the writer fails,
 * send "git upload-archive: archiver died with error" on band 3 and
 * return GA_ERROR with "sent error to the client: <that message>".
 * Returns 0 after the final flush, or GA_EPIPE if the client left.
 */
int remote_upload_archive(const struct remote_server_options *opts);

/*
 * git's enter_repo() for upload-archive: `path` with "~" and "~user"
 * expanded, tried as given with "/.git", "", ".git/.git" and ".git"
 * appended (a file being a gitfile); chdir there and open it.  A
 * repository that belongs to someone else is refused as git 2.39.5
 * refuses it, unless safe.directory (system, global, the environment's
 * and `overrides`, the -c options) allows it.  Returns 0, or GA_ERROR
 * with "'<path>' does not appear to be a git repository" or git's
 * "detected dubious ownership in repository at '<path>'" and its hint.
 */
int remote_enter_repo(git_repository **out, const char *path,
		      const char *const *overrides, size_t nr_overrides);

/*
 * The writer's half of the protocol: read "argument <arg>" pkt-lines
 * from `fd` until a flush (or an empty packet).  *out is a NULL-ended
 * array the caller frees with remote_free_arguments().  Errors: "Too
 * many options (>63)", "'argument' token or flush expected", and the
 * pkt-line ones.
 */
int remote_read_arguments(char ***out, size_t *nr, int fd);
void remote_free_arguments(char **args, size_t nr);

#endif

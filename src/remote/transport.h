/*
 * transport.h: opening a byte stream to a remote upload-archive, as
 * git's transport_get() + transport_connect() + git_connect() do.
 *
 * The --remote value is resolved like a fetch remote: remote.<name>.url
 * (first URL) or the value itself, rewritten by url.<base>.insteadOf.
 * Then, as in git:
 *   - "<helper>::<address>", remote.<name>.vcs, or a URL scheme that git
 *     does not speak itself: `git remote-<helper>`, or for http, https,
 *     ftp and ftps garchive's own garchive-remote-http (src/remote/),
 *     and its "connect" capability, or as git 2.44 and later its
 *     "stateless-connect" in protocol v2 ("can't connect to subservice
 *     git-upload-archive" with neither);
 *   - a bundle file: "operation not supported by protocol";
 *   - git://host[:port]/path: TCP, then the request packet
 *     "<service> <path>\0host=<host>\0[\0version=1\0]";
 *   - ssh://[user@]host[:port]/path and [user@]host:path: ssh (or
 *     GIT_SSH_COMMAND, core.sshCommand, GIT_SSH) with the remote command
 *     "<exec> '<path>'";
 *   - anything else is a local path (file:// included): "<exec> '<path>'"
 *     through the shell, without the caller's repository environment.
 * Transports are vetted by GIT_ALLOW_PROTOCOL / protocol.*.allow.
 * As in git 2.41 and later, only protocol.version=1 is announced to
 * upload-archive (git:// extra parameter, GIT_PROTOCOL, ssh SendEnv);
 * version 2, the default, is spoken only through http's helper.
 */
#ifndef GARCHIVE_TRANSPORT_H
#define GARCHIVE_TRANSPORT_H

#include "run-command.h"
#include "garchive/common.h"

struct ga_config;

struct transport_options {
	const char *remote;	/* --remote value */
	const char *service;	/* "git-upload-archive" */
	const char *exec;	/* the command to run (--exec), or service */
	const struct ga_config *config;
	const char *git_dir;	/* the caller's repository, or NULL */
	const char *dir;	/* where commands run, NULL: the cwd */
	int err_fd;		/* where git's non-fatal messages go */
	/* The client's -c options, for a remote helper. */
	const char *const *config_overrides;
	size_t nr_config_overrides;
};

struct transport {
	int in;			/* read the remote's replies here */
	int out;		/* write requests here */
	struct child child;	/* ssh, the shell, or a remote helper */
	char **argv;		/* the child's argv (owned) */
	char **env;		/* the child's environment edits (owned) */
	int helper;		/* a remote helper: its exit status counts */
	int stateless;		/* ...unless connected statelessly */
	char *name;		/* "remote-<helper>", for messages (owned) */
	/*
	 * Bytes the caller must send before its own (the git:// request):
	 * sent together, a server that hangs up at once is seen as an
	 * answer rather than as a broken pipe.
	 */
	struct ga_buf pending;
};

#define TRANSPORT_INIT { -1, -1, CHILD_INIT, NULL, NULL, 0, 0, NULL, \
			GA_BUF_INIT }

/*
 * Connect.  Returns 0, or GA_ERROR (GA_ESILENT when a remote helper
 * died before answering) with git's message.
 */
int transport_connect(struct transport *t, const struct transport_options *o);

/*
 * Close the stream and wait for the child.  Returns 0, or GA_EREMOTE
 * when a remote helper exited non-zero (git's transport_disconnect()
 * result); a child killed by a signal is reported on `err_fd` as git's
 * finish_command() does.
 */
int transport_disconnect(struct transport *t, int err_fd);

/*
 * Release everything on an error path: the stream is closed, the child
 * is not waited for (git dies without waiting either).
 */
void transport_release(struct transport *t);

/*
 * One line of the remote-helper protocol from `fd`, without its "\n",
 * read a byte at a time so that nothing after it is consumed.  Returns
 * 0, or -1 at the end of input before any byte.
 */
int transport_read_line(struct ga_buf *line, int fd);

#endif

/*
 * convert.c: git's checkout conversion for the blobs `git archive`
 * buffers, matching git 2.39.5's convert.c step by step: ident, then
 * end of line, then working-tree-encoding, then the filter driver.
 *
 * The filter drivers follow git's run-command and sub-process rules,
 * because their observable behaviour (which program runs, with which
 * argv and cwd, and every "error:" line when one fails) must be git's:
 *
 * - a command with no shell metacharacter is looked up in PATH and
 *   exec'd directly, anything else runs as `/bin/sh -c CMD CMD`;
 * - a smudge command gets the blob on stdin and answers on stdout; we
 *   feed and drain it with poll(), so neither side blocks on a full pipe;
 * - a process filter speaks the long-running filter protocol version 2
 *   over pkt-lines, sequentially as git does (the protocol makes the
 *   filter read a whole blob before it answers).
 *
 * The caller must ignore SIGPIPE (main does): writing to a filter that
 * exited must give EPIPE, as in git, which ignores it around these
 * writes.  Children get SIGPIPE back to its default.
 *
 * git's non-fatal "error:" lines go through ga_report().  The "fatal:"
 * line git prints for a command that cannot be exec'd (and then carries
 * on) is written by the forked child itself, see child_fail().  A struct
 * convert is used by one thread at a time.
 */
#include "convert.h"

#include "attr.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "pktline.h"
#include "utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <git2/odb.h>
#include <git2/oid.h>

extern char **environ;

const char *const convert_attr_names[CONVERT_ATTR_NR] = {
	"text", "eol", "crlf", "ident", "filter", "working-tree-encoding"
};

/* git's enum crlf_action: what the attributes ask for, then resolved. */
enum crlf_action {
	CRLF_UNDEFINED,
	CRLF_BINARY,
	CRLF_TEXT,
	CRLF_TEXT_INPUT,
	CRLF_TEXT_CRLF,
	CRLF_AUTO,
	CRLF_AUTO_INPUT,
	CRLF_AUTO_CRLF
};

enum auto_crlf { AUTO_CRLF_FALSE, AUTO_CRLF_TRUE, AUTO_CRLF_INPUT };

/* core.eol; "native" is LF on the Unix builds of git we imitate. */
enum eol { EOL_UNSET, EOL_CRLF, EOL_LF };
#define EOL_NATIVE EOL_LF

#define CAP_CLEAN	(1u << 0)
#define CAP_SMUDGE	(1u << 1)
#define CAP_DELAY	(1u << 2)

#define SHELL_PATH "/bin/sh"
/* run-command's prepare_shell_cmd: these make git go through the shell. */
#define SHELL_METACHARS "|&;<>()$`\\\"' \t\n*?[#~=%"

struct driver {
	struct driver *next;
	char *name;
	char *smudge;		/* NULL when not configured */
	char *process;
	int required;
};

struct child {
	pid_t pid;
	int in;			/* the child's stdin (we write), or -1 */
	int out;		/* the child's stdout (we read), or -1 */
};

/* A running long-running filter, found by its command as in git. */
struct subprocess {
	struct subprocess *next;
	char *cmd;
	struct child child;
	unsigned int caps;
};

struct convert {
	const struct ga_config *cfg;
	char *workdir;
	const struct convert_meta *meta;
	enum auto_crlf auto_crlf;
	enum eol core_eol;
	int drivers_loaded;		/* 1: read; -1: failed, as below */
	int drivers_error;
	char *drivers_error_msg;
	struct driver *drivers;
	struct subprocess *procs;
};

/* The per-path decision, git's struct conv_attrs. */
struct conv_attrs {
	struct driver *drv;
	enum crlf_action crlf_action;
	int ident;
	const char *encoding;
};

/*
 * Text statistics
 */

struct text_stat {
	size_t nul, lonecr, lonelf, crlf;
	size_t printable, nonprintable;
};

static void gather_stats(const unsigned char *buf, size_t size,
			 struct text_stat *st)
{
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < size; i++) {
		unsigned char c = buf[i];

		if (c == '\r') {
			if (i + 1 < size && buf[i + 1] == '\n') {
				st->crlf++;
				i++;
			} else {
				st->lonecr++;
			}
			continue;
		}
		if (c == '\n') {
			st->lonelf++;
			continue;
		}
		if (c == 127) {
			st->nonprintable++;
		} else if (c < 32) {
			/* BS, HT, ESC and FF count as text, as in git. */
			if (c == '\b' || c == '\t' || c == '\033' ||
			    c == '\014')
				st->printable++;
			else {
				if (!c)
					st->nul++;
				st->nonprintable++;
			}
		} else {
			st->printable++;
		}
	}
	/* A trailing DOS end-of-file mark (^Z) is not held against text. */
	if (size >= 1 && buf[size - 1] == '\032')
		st->nonprintable--;
}

/* git's convert_is_binary: lone CR, NUL, or > 1/128 non-printables. */
static int convert_is_binary(const struct text_stat *st)
{
	if (st->lonecr || st->nul)
		return 1;
	return (st->printable >> 7) < st->nonprintable;
}

/*
 * Configuration
 */

static int text_eol_is_crlf(const struct convert *conv)
{
	if (conv->auto_crlf == AUTO_CRLF_TRUE)
		return 1;
	if (conv->auto_crlf == AUTO_CRLF_INPUT)
		return 0;
	if (conv->core_eol == EOL_CRLF)
		return 1;
	if (conv->core_eol == EOL_UNSET && EOL_NATIVE == EOL_CRLF)
		return 1;
	return 0;
}

static enum eol output_eol(const struct convert *conv,
			   enum crlf_action action)
{
	switch (action) {
	case CRLF_BINARY:
		return EOL_UNSET;
	case CRLF_TEXT_CRLF:
	case CRLF_UNDEFINED:
	case CRLF_AUTO_CRLF:
		return EOL_CRLF;
	case CRLF_TEXT_INPUT:
	case CRLF_AUTO_INPUT:
		return EOL_LF;
	case CRLF_TEXT:
	case CRLF_AUTO:
		return text_eol_is_crlf(conv) ? EOL_CRLF : EOL_LF;
	}
	return conv->core_eol;
}

static struct driver *find_driver(struct convert *conv, const char *name,
				  size_t len)
{
	struct driver *drv;

	for (drv = conv->drivers; drv; drv = drv->next)
		if (!strncmp(drv->name, name, len) && !drv->name[len])
			return drv;
	return NULL;
}

static int set_command(char **dst, const char *name, const char *value,
		       const char *origin)
{
	if (!value) {
		/* git_config_string's complaint, then git_config dies. */
		ga_report(GA_REPORT_ERROR, "missing value for '%s'", name);
		if (origin && *origin)
			return ga_error_set("bad config variable '%s'%s", name,
					    origin);
		return ga_error_set("unable to parse '%s' from command-line config",
				    name);
	}
	free(*dst);
	*dst = ga_xstrdup(value);
	return 0;
}

/* git's read_convert_config: every filter.<name>.<key>, in order. */
static int read_filter_entry(const char *name, const char *value,
			     const char *origin, void *payload)
{
	struct convert *conv = payload;
	const char *sub, *key;
	struct driver *drv;
	size_t sublen;
	char *clean = NULL;
	int error;

	if (strncasecmp(name, "filter.", 7))
		return 0;
	sub = name + 7;
	key = strrchr(name, '.');
	if (key < sub)
		return 0;	/* "filter.key": no driver name */
	sublen = (size_t)(key - sub);
	key++;

	if (!(drv = find_driver(conv, sub, sublen))) {
		struct driver **tail = &conv->drivers;

		drv = ga_xcalloc(1, sizeof(*drv));
		drv->name = ga_xstrndup(sub, sublen);
		while (*tail)
			tail = &(*tail)->next;
		*tail = drv;
	}
	if (!strcasecmp(key, "smudge"))
		return set_command(&drv->smudge, name, value, origin);
	if (!strcasecmp(key, "process"))
		return set_command(&drv->process, name, value, origin);
	if (!strcasecmp(key, "clean")) {
		/* Not used on checkout, but git checks it all the same. */
		error = set_command(&clean, name, value, origin);
		free(clean);
		return error;
	}
	if (!strcasecmp(key, "required"))
		return config_parse_bool(&drv->required, name, value);
	return 0;
}

/*
 * git reads the filter.* keys when it converts its first file, so a bad
 * one stops the archive there and not at startup.
 */
static void free_drivers(struct convert *conv)
{
	struct driver *drv;

	while ((drv = conv->drivers)) {
		conv->drivers = drv->next;
		free(drv->name);
		free(drv->smudge);
		free(drv->process);
		free(drv);
	}
}

/*
 * Read the filter drivers once.  A bad one fails every call, not only
 * the first, with the same error and without a second report: a caller
 * that only asks (convert_is_identity) must not swallow the error git
 * gives when it converts.
 */
static int load_drivers(struct convert *conv)
{
	int error;

	if (conv->drivers_loaded > 0)
		return 0;
	if (conv->drivers_loaded < 0)
		return ga_error_restore(conv->drivers_error,
					conv->drivers_error_msg);
	if ((error = config_foreach(conv->cfg, read_filter_entry, conv)) < 0) {
		free_drivers(conv);
		conv->drivers_loaded = -1;
		conv->drivers_error = error;
		conv->drivers_error_msg = ga_xstrdup(ga_error_message());
		return error;
	}
	conv->drivers_loaded = 1;
	return 0;
}

/*
 * git_default_core_config sees every core.autocrlf and core.eol in
 * order, so a malformed core.autocrlf anywhere is fatal even when a
 * later one would override it.
 */
static int read_core_entry(const char *name, const char *value,
			   const char *origin, void *payload)
{
	struct convert *conv = payload;
	int b, error;

	(void)origin;
	if (!strcasecmp(name, "core.autocrlf")) {
		if (value && !strcasecmp(value, "input")) {
			conv->auto_crlf = AUTO_CRLF_INPUT;
			return 0;
		}
		if ((error = config_parse_bool(&b, "core.autocrlf", value)) < 0)
			return error;
		conv->auto_crlf = b ? AUTO_CRLF_TRUE : AUTO_CRLF_FALSE;
	} else if (!strcasecmp(name, "core.eol")) {
		if (value && !strcasecmp(value, "lf"))
			conv->core_eol = EOL_LF;
		else if (value && !strcasecmp(value, "crlf"))
			conv->core_eol = EOL_CRLF;
		else if (value && !strcasecmp(value, "native"))
			conv->core_eol = EOL_NATIVE;
		else
			conv->core_eol = EOL_UNSET;
	}
	return 0;
}

int convert_new(struct convert **out, const struct ga_config *cfg,
		const char *workdir, const struct convert_meta *meta)
{
	struct convert *conv;
	int error;

	conv = ga_xcalloc(1, sizeof(*conv));
	conv->cfg = cfg;
	conv->workdir = workdir ? ga_xstrdup(workdir) : NULL;
	conv->meta = meta;
	conv->auto_crlf = AUTO_CRLF_FALSE;
	conv->core_eol = EOL_UNSET;
	if ((error = config_foreach(cfg, read_core_entry, conv)) < 0) {
		convert_free(conv);
		return error;
	}
	*out = conv;
	return 0;
}

/*
 * Attributes
 */

static enum crlf_action check_crlf(const struct attr_value *a)
{
	switch (a->state) {
	case ATTR_SET:
		return CRLF_TEXT;
	case ATTR_UNSET:
		return CRLF_BINARY;
	case ATTR_UNSPECIFIED:
		return CRLF_UNDEFINED;
	case ATTR_VALUE:
		if (!strcmp(a->value, "input"))
			return CRLF_TEXT_INPUT;
		if (!strcmp(a->value, "auto"))
			return CRLF_AUTO;
		break;
	}
	return CRLF_UNDEFINED;
}

static enum eol check_eol(const struct attr_value *a)
{
	if (a->state != ATTR_VALUE)
		return EOL_UNSET;
	if (!strcmp(a->value, "lf"))
		return EOL_LF;
	if (!strcmp(a->value, "crlf"))
		return EOL_CRLF;
	return EOL_UNSET;
}

static int convert_attrs(struct conv_attrs *ca, struct convert *conv,
			 const struct attr_value *attrs)
{
	const struct attr_value *enc = &attrs[CONVERT_ATTR_ENCODING];
	const struct attr_value *filter = &attrs[CONVERT_ATTR_FILTER];
	enum crlf_action action;
	int error;

	memset(ca, 0, sizeof(*ca));
	if ((error = load_drivers(conv)) < 0)
		return error;

	/* text wins over the legacy crlf attribute. */
	action = check_crlf(&attrs[CONVERT_ATTR_TEXT]);
	if (action == CRLF_UNDEFINED)
		action = check_crlf(&attrs[CONVERT_ATTR_CRLF]);
	ca->ident = attrs[CONVERT_ATTR_IDENT].state == ATTR_SET;
	if (filter->state == ATTR_VALUE)
		ca->drv = find_driver(conv, filter->value,
				      strlen(filter->value));
	/* eol=... implies text unless the file is binary (-text). */
	if (action != CRLF_BINARY) {
		enum eol eol = check_eol(&attrs[CONVERT_ATTR_EOL]);

		if (action == CRLF_AUTO && eol == EOL_LF)
			action = CRLF_AUTO_INPUT;
		else if (action == CRLF_AUTO && eol == EOL_CRLF)
			action = CRLF_AUTO_CRLF;
		else if (eol == EOL_LF)
			action = CRLF_TEXT_INPUT;
		else if (eol == EOL_CRLF)
			action = CRLF_TEXT_CRLF;
	}

	/*
	 * git tests for an empty value before true/false, and its "false"
	 * is an empty string: only "working-tree-encoding" alone dies.
	 */
	switch (enc->state) {
	case ATTR_UNSPECIFIED:
	case ATTR_UNSET:
		break;
	case ATTR_SET:
		return ga_error_set("true/false are no valid working-tree-encodings");
	case ATTR_VALUE:
		if (*enc->value && !utf8_same_encoding(enc->value, "UTF-8"))
			ca->encoding = enc->value;
		break;
	}

	if (action == CRLF_TEXT)
		action = text_eol_is_crlf(conv) ? CRLF_TEXT_CRLF
						: CRLF_TEXT_INPUT;
	if (action == CRLF_UNDEFINED) {
		switch (conv->auto_crlf) {
		case AUTO_CRLF_FALSE:
			action = CRLF_BINARY;
			break;
		case AUTO_CRLF_TRUE:
			action = CRLF_AUTO_CRLF;
			break;
		case AUTO_CRLF_INPUT:
			action = CRLF_AUTO_INPUT;
			break;
		}
	}
	ca->crlf_action = action;
	return 0;
}

/*
 * ident
 */

/* git's count_ident: "$Id$" and any "$Id:...$" on one line. */
static size_t count_ident(const unsigned char *cp, size_t size)
{
	size_t cnt = 0;

	while (size) {
		unsigned char ch = *cp++;

		size--;
		if (ch != '$')
			continue;
		if (size < 3)
			break;
		if (memcmp("Id", cp, 2))
			continue;
		ch = cp[2];
		cp += 3;
		size -= 3;
		if (ch == '$')
			cnt++;
		if (ch != ':')
			continue;
		while (size) {
			ch = *cp++;
			size--;
			if (ch == '$') {
				cnt++;
				break;
			}
			if (ch == '\n')
				break;
		}
	}
	return cnt;
}

/*
 * Replace "$Id$" and git-style "$Id: ... $" by "$Id: <hex> $".  An
 * expansion with a space anywhere but right before the closing '$' is
 * some other system's and is kept; so is one broken by a newline.
 */
static int ident_to_worktree(struct ga_buf *dst, const unsigned char *src,
			     size_t len, const char *hex)
{
	const unsigned char *dollar, *end;

	if (!count_ident(src, len))
		return 0;
	ga_buf_grow(dst, len);
	for (;;) {
		dollar = memchr(src, '$', len);
		if (!dollar)
			break;
		ga_buf_put(dst, src, (size_t)(dollar + 1 - src));
		len -= (size_t)(dollar + 1 - src);
		src = dollar + 1;

		if (len < 3 || memcmp("Id", src, 2))
			continue;
		if (src[2] == '$') {
			src += 3;
			len -= 3;
		} else if (src[2] == ':') {
			end = memchr(src + 3, '$', len - 3);
			if (!end)
				break;
			if (memchr(src + 3, '\n', (size_t)(end - src - 3)))
				continue;
			/*
			 * git searches for a space from src + 4 with a length
			 * that is negative for "$Id:$"; any space it finds then
			 * lies after the '$', so "$Id:$" is replaced.
			 */
			if (end - src > 4) {
				const unsigned char *spc =
					memchr(src + 4, ' ',
					       (size_t)(end - src - 4));

				if (spc && spc < end - 1)
					continue;
			}
			len -= (size_t)(end + 1 - src);
			src = end + 1;
		} else {
			continue;
		}
		ga_buf_puts(dst, "Id: ");
		ga_buf_puts(dst, hex);
		ga_buf_puts(dst, " $");
	}
	ga_buf_put(dst, src, len);
	return 1;
}

/*
 * End of line
 */

static int will_convert_lf_to_crlf(const struct convert *conv,
				   const struct text_stat *st,
				   enum crlf_action action)
{
	if (output_eol(conv, action) != EOL_CRLF)
		return 0;
	if (!st->lonelf)
		return 0;
	if (action == CRLF_AUTO || action == CRLF_AUTO_INPUT ||
	    action == CRLF_AUTO_CRLF) {
		/* "auto" never touches a file with CRs or that looks binary. */
		if (st->lonecr || st->crlf)
			return 0;
		if (convert_is_binary(st))
			return 0;
	}
	return 1;
}

static int crlf_to_worktree(const struct convert *conv, struct ga_buf *dst,
			    const unsigned char *src, size_t len,
			    enum crlf_action action)
{
	struct text_stat st;
	const unsigned char *nl;

	if (!len || output_eol(conv, action) != EOL_CRLF)
		return 0;
	gather_stats(src, len, &st);
	if (!will_convert_lf_to_crlf(conv, &st, action))
		return 0;
	ga_buf_grow(dst, len + st.lonelf);
	while ((nl = memchr(src, '\n', len))) {
		if (nl > src && nl[-1] == '\r') {
			ga_buf_put(dst, src, (size_t)(nl + 1 - src));
		} else {
			ga_buf_put(dst, src, (size_t)(nl - src));
			ga_buf_put(dst, "\r\n", 2);
		}
		len -= (size_t)(nl + 1 - src);
		src = nl + 1;
	}
	ga_buf_put(dst, src, len);
	return 1;
}

/*
 * working-tree-encoding
 */

static int encode_to_worktree(struct ga_buf *dst, const char *path,
			      const unsigned char *src, size_t len,
			      const char *enc)
{
	if (!enc || !len)
		return 0;
	if (utf8_reencode(dst, (const char *)src, len, enc, "UTF-8") < 0) {
		ga_report(GA_REPORT_ERROR,
			  "failed to encode '%s' from %s to %s", path, "UTF-8",
			  enc);
		return 0;
	}
	return 1;
}

/*
 * Child processes, as git's run-command starts them
 */

/* Pipes whose ends are not 0, 1 or 2, so dup2 in the child is simple. */
static int pipe_cloexec(int fds[2])
{
	int i;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	for (i = 0; i < 2; i++) {
		if (fds[i] <= 2) {
			int fd = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);

			if (fd < 0) {
				close(fds[0]);
				close(fds[1]);
				return -1;
			}
			close(fds[i]);
			fds[i] = fd;
		}
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* git's is_executable: a regular file with the owner's x bit. */
static int is_executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) &&
	       (st.st_mode & S_IXUSR);
}

/*
 * git's locate_in_PATH.  git runs filters from its own cwd, the work
 * tree; ours may differ, so relative PATH entries are checked against
 * `workdir` (the child chdirs there before exec).
 */
static char *locate_in_path(const char *file, const char *workdir)
{
	const char *p = getenv("PATH"), *end;
	struct ga_buf cand = GA_BUF_INIT, probe = GA_BUF_INIT;

	if (!p || !*p)
		return NULL;
	for (;;) {
		end = strchrnul(p, ':');
		ga_buf_setlen(&cand, 0);
		if (end != p) {
			ga_buf_put(&cand, p, (size_t)(end - p));
			ga_buf_putc(&cand, '/');
		}
		ga_buf_puts(&cand, file);
		ga_buf_setlen(&probe, 0);
		if (workdir && cand.ptr[0] != '/') {
			ga_buf_puts(&probe, workdir);
			ga_buf_putc(&probe, '/');
		}
		ga_buf_puts(&probe, cand.ptr);
		if (is_executable(probe.ptr)) {
			ga_buf_release(&probe);
			return ga_buf_detach(&cand, NULL);
		}
		if (!*end)
			break;
		p = end + 1;
	}
	ga_buf_release(&cand);
	ga_buf_release(&probe);
	return NULL;
}

/* In the child: only async-signal-safe calls from here on. */
static void child_write(const char *s)
{
	size_t len = strlen(s);
	ssize_t n;

	while (len) {
		n = write(2, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/*
 * git's child_err_spew prints "fatal: ..." lines for a child that could
 * not exec.  The child writes them itself, to the same stderr, before
 * telling the parent; strerrordesc_np() is a plain table lookup, safe
 * after fork.
 */
static void __attribute__((noreturn))
child_fail(int notify, const char *msg, int err)
{
	const char *desc = strerrordesc_np(err);
	ssize_t n;

	child_write(msg);
	child_write(desc ? desc : "Unknown error");
	child_write("\n");
	do {
		n = write(notify, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	_exit(1);
}

/*
 * Start `cmd` the way git's start_command does with use_shell: stdin and
 * stdout are pipes, stderr is shared, cwd is `workdir`.  Returns 0, or -1
 * after git's messages for a command that cannot run (callers add their
 * own line, as git does).
 */
static int child_start(struct child *c, const char *cmd, const char *workdir)
{
	struct sigaction sa;
	sigset_t none;
	char *prog = NULL, *msg_run = NULL, *msg_exec = NULL, *msg_cd = NULL;
	const char *argv[5], *sh_argv[3];
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, notify[2] = { -1, -1 };
	int shell, err;
	ssize_t n;
	pid_t pid;

	c->pid = -1;
	c->in = c->out = -1;

	shell = cmd[strcspn(cmd, SHELL_METACHARS)] != '\0';
	if (shell) {
		argv[0] = SHELL_PATH;
		argv[1] = "-c";
		argv[2] = cmd;
		argv[3] = cmd;
		argv[4] = NULL;
	} else {
		if (!strchr(cmd, '/')) {
			prog = locate_in_path(cmd, workdir);
			if (!prog) {
				ga_report(GA_REPORT_ERROR, "cannot run %s: %s",
					  cmd, strerror(ENOENT));
				return -1;
			}
		}
		argv[0] = prog ? prog : cmd;
		argv[1] = NULL;
		/* A script without #! is run by the shell, as execvp does. */
		sh_argv[0] = SHELL_PATH;
		sh_argv[1] = argv[0];
		sh_argv[2] = NULL;
	}

	if (pipe_cloexec(in) < 0 || pipe_cloexec(out) < 0 ||
	    pipe_cloexec(notify) < 0) {
		ga_report(GA_REPORT_ERROR, "cannot create pipe for %s: %s", cmd,
			  strerror(errno));
		goto fail;
	}
	/* Messages are formatted before fork: the child may not malloc. */
	msg_run = ga_xstrfmt("fatal: cannot run %s: ", cmd);
	msg_exec = ga_xstrfmt("fatal: cannot exec '%s': ", cmd);
	msg_cd = ga_xstrfmt("fatal: exec '%s': cd to '%s' failed: ", cmd,
			    workdir ? workdir : "");

	pid = fork();
	if (pid < 0) {
		ga_report(GA_REPORT_ERROR, "cannot fork() for %s: %s", cmd,
			  strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGPIPE, &sa, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			child_fail(notify[1], "fatal: dup2() in child failed: ",
				   errno);
		if (workdir && chdir(workdir) < 0)
			child_fail(notify[1], msg_cd, errno);
		execve(argv[0], (char *const *)argv, environ);
		if (errno == ENOEXEC && !shell)
			execve(SHELL_PATH, (char *const *)sh_argv, environ);
		err = errno;
		child_fail(notify[1], err == ENOENT ? msg_run : msg_exec, err);
	}

	close_fd(&in[0]);
	close_fd(&out[1]);
	close_fd(&notify[1]);
	/* EOF on the notify pipe means exec succeeded. */
	do {
		n = read(notify[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close_fd(&notify[0]);
	if (n > 0) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		goto fail;
	}
	c->pid = pid;
	c->in = in[1];
	c->out = out[0];
	free(prog);
	free(msg_run);
	free(msg_exec);
	free(msg_cd);
	return 0;

fail:
	close_fd(&in[0]);
	close_fd(&in[1]);
	close_fd(&out[0]);
	close_fd(&out[1]);
	close_fd(&notify[0]);
	close_fd(&notify[1]);
	free(prog);
	free(msg_run);
	free(msg_exec);
	free(msg_cd);
	return -1;
}

/*
 * git's wait_or_whine: the exit code, or 128 + signal number with a
 * "died of signal" line except for the signals a user sends on purpose
 * and SIGPIPE.
 */
static int child_wait(struct child *c, const char *argv0)
{
	int status, code = -1, sig;

	close_fd(&c->in);
	close_fd(&c->out);
	if (c->pid < 0)
		return -1;
	while (waitpid(c->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ga_report(GA_REPORT_ERROR, "waitpid for %s failed: %s",
				  argv0, strerror(errno));
			c->pid = -1;
			return -1;
		}
	}
	c->pid = -1;
	if (WIFSIGNALED(status)) {
		sig = WTERMSIG(status);
		if (sig != SIGINT && sig != SIGQUIT && sig != SIGPIPE)
			ga_report(GA_REPORT_ERROR, "%s died of signal %d",
				  argv0, sig);
		code = sig + 128;
	} else if (WIFEXITED(status)) {
		code = WEXITSTATUS(status);
	} else {
		ga_report(GA_REPORT_ERROR, "waitpid is confused (%s)", argv0);
	}
	return code;
}

/*
 * filter.<driver>.smudge
 */

/* strbuf_expand with only %f: "%%" is '%', unknown "%x" stays. */
static char *expand_command(const char *cmd, const char *path)
{
	struct ga_buf out = GA_BUF_INIT;
	const char *pct;

	for (;;) {
		pct = strchrnul(cmd, '%');
		ga_buf_put(&out, cmd, (size_t)(pct - cmd));
		if (!*pct)
			break;
		cmd = pct + 1;
		if (*cmd == '%') {
			ga_buf_putc(&out, '%');
			cmd++;
		} else if (*cmd == 'f') {
			ga_sq_quote(&out, path);
			cmd++;
		} else {
			ga_buf_putc(&out, '%');
		}
	}
	return ga_buf_detach(&out, NULL);
}

/*
 * Feed `src` to the child and collect its output at the same time, so a
 * filter that writes before it has read everything never blocks us.
 * EPIPE is not an error (the filter may not want all of its input), as
 * in git.
 */
static void pump(struct child *c, const unsigned char *src, size_t len,
		 struct ga_buf *dst, int *write_err, int *read_err)
{
	struct pollfd pfd[2];
	size_t off = 0;
	ssize_t n;
	int nfds;

	if (fcntl(c->in, F_SETFL, fcntl(c->in, F_GETFL) | O_NONBLOCK) < 0)
		*write_err = 1;
	while (c->in >= 0 || c->out >= 0) {
		if (c->in >= 0 && (off == len || *write_err)) {
			if (close(c->in) < 0)
				*write_err = 1;
			c->in = -1;
			continue;
		}
		nfds = 0;
		if (c->in >= 0) {
			pfd[nfds].fd = c->in;
			pfd[nfds].events = POLLOUT;
			nfds++;
		}
		if (c->out >= 0) {
			pfd[nfds].fd = c->out;
			pfd[nfds].events = POLLIN;
			nfds++;
		}
		if (poll(pfd, (nfds_t)nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			*write_err = *read_err = 1;
			close_fd(&c->in);
			close_fd(&c->out);
			break;
		}
		if (c->in >= 0 && pfd[0].revents) {
			size_t chunk = len - off > 65536 ? 65536 : len - off;

			n = write(c->in, src + off, chunk);
			if (n > 0) {
				off += (size_t)n;
			} else if (n < 0 && errno == EPIPE) {
				off = len;
			} else if (n < 0 && errno != EAGAIN &&
				   errno != EINTR) {
				*write_err = 1;
			}
		}
		if (c->out >= 0 && pfd[nfds - 1].revents) {
			ga_buf_grow(dst, 65536);
			n = read(c->out, dst->ptr + dst->len, 65536);
			if (n > 0) {
				dst->len += (size_t)n;
				dst->ptr[dst->len] = '\0';
			} else if (n == 0) {
				close_fd(&c->out);
			} else if (errno != EAGAIN && errno != EINTR) {
				*read_err = 1;
				close_fd(&c->out);
			}
		}
	}
}

/* git's apply_single_file_filter; 1 when `dst` holds the output. */
static int apply_smudge_command(struct convert *conv, struct ga_buf *dst,
				const char *path, const unsigned char *src,
				size_t len, const char *cmd)
{
	struct child c;
	struct ga_buf out = GA_BUF_INIT;
	char *expanded = expand_command(cmd, path);
	int write_err = 0, read_err = 0, status, ok = 0;

	if (child_start(&c, expanded, conv->workdir) < 0) {
		ga_report(GA_REPORT_ERROR,
			  "cannot fork to run external filter '%s'", cmd);
		ga_report(GA_REPORT_ERROR, "external filter '%s' failed", cmd);
		goto done;
	}
	pump(&c, src, len, &out, &write_err, &read_err);
	if (write_err)
		ga_report(GA_REPORT_ERROR,
			  "cannot feed the input to external filter '%s'", cmd);
	status = child_wait(&c, expanded);
	if (status)
		ga_report(GA_REPORT_ERROR, "external filter '%s' failed %d",
			  cmd, status);
	if (read_err)
		ga_report(GA_REPORT_ERROR,
			  "read from external filter '%s' failed", cmd);
	if (write_err || status)
		ga_report(GA_REPORT_ERROR, "external filter '%s' failed", cmd);
	if (!write_err && !status && !read_err) {
		ga_buf_setlen(dst, 0);
		ga_buf_put(dst, out.ptr ? out.ptr : "", out.len);
		ok = 1;
	}
done:
	ga_buf_release(&out);
	free(expanded);
	return ok;
}

/*
 * subprocess_read_status: the last "status=" of a list wins.  A flush,
 * an empty packet or the end of input (*eof) ends the list.
 */
static int read_status(int fd, struct ga_buf *status, int *eof)
{
	char *buf = ga_xmalloc(PKT_MAX);
	size_t len;
	int ret;

	*eof = 0;
	for (;;) {
		ret = pkt_read(fd, buf, PKT_MAX, &len,
			       PKT_CHOMP_NEWLINE | PKT_GENTLE_ON_EOF);
		if (ret < 0)
			break;
		if (ret == PKT_EOF)
			*eof = 1;
		if (!len)
			break;
		if (!strncmp(buf, "status=", 7)) {
			ga_buf_setlen(status, 0);
			ga_buf_puts(status, buf + 7);
		}
	}
	free(buf);
	return ret < 0 ? ret : 0;
}

/*
 * filter.<driver>.process
 */

static void subprocess_free(struct subprocess *sp)
{
	if (!sp)
		return;
	/* As git's exit handler: closing the pipes asks it to stop. */
	close_fd(&sp->child.in);
	close_fd(&sp->child.out);
	while (sp->child.pid > 0 && waitpid(sp->child.pid, NULL, 0) < 0 &&
	       errno == EINTR)
		;
	free(sp->cmd);
	free(sp);
}

/* subprocess_stop_command: SIGTERM, then wait as git does. */
static void subprocess_stop(struct subprocess *sp)
{
	if (sp->child.pid > 0)
		kill(sp->child.pid, SIGTERM);
	child_wait(&sp->child, sp->cmd);
}

static void subprocess_unlink(struct convert *conv, struct subprocess *sp)
{
	struct subprocess **pp;

	for (pp = &conv->procs; *pp; pp = &(*pp)->next) {
		if (*pp == sp) {
			*pp = sp->next;
			break;
		}
	}
}

/* git's handshake_version; -1 after git's error line. */
static int handshake_version(struct subprocess *sp, char *buf, int *fatal)
{
	char *line = NULL, *end;
	const char *p;
	long version;
	int in = sp->child.in, out = sp->child.out;

	/* Our lines are far shorter than a packet: no fatal error here. */
	if (pkt_write_fmt_gently(in, "git-filter-client\n")) {
		ga_report(GA_REPORT_ERROR,
			  "Could not write client identification");
		return -1;
	}
	if (pkt_write_fmt_gently(in, "version=2\n")) {
		ga_report(GA_REPORT_ERROR, "Could not write requested version");
		return -1;
	}
	if (pkt_flush_gently(in)) {
		ga_report(GA_REPORT_ERROR, "Could not write flush packet");
		return -1;
	}
	if ((*fatal = pkt_read_line(out, buf, PKT_MAX, &line)) < 0)
		return -1;
	if (!line || strcmp(line, "git-filter-server")) {
		ga_report(GA_REPORT_ERROR,
			  "Unexpected line '%s', expected git-filter-server",
			  line ? line : "<flush packet>");
		return -1;
	}
	if ((*fatal = pkt_read_line(out, buf, PKT_MAX, &line)) < 0)
		return -1;
	p = line && !strncmp(line, "version=", 8) ? line + 8 : NULL;
	errno = 0;
	version = p ? strtol(p, &end, 10) : 0;
	if (!p || errno || *end || end == p || version != (int)version) {
		ga_report(GA_REPORT_ERROR,
			  "Unexpected line '%s', expected version",
			  line ? line : "<flush packet>");
		return -1;
	}
	if ((*fatal = pkt_read_line(out, buf, PKT_MAX, &line)) < 0)
		return -1;
	if (line) {
		ga_report(GA_REPORT_ERROR,
			  "Unexpected line '%s', expected flush", line);
		return -1;
	}
	if (version != 2) {
		ga_report(GA_REPORT_ERROR, "Version %d not supported",
			  (int)version);
		return -1;
	}
	return 0;
}

/* git's handshake_capabilities: git asks for all three it knows. */
static int handshake_capabilities(struct subprocess *sp, char *buf,
				  int *fatal)
{
	static const struct {
		const char *name;
		unsigned int flag;
	} caps[] = {
		{ "clean", CAP_CLEAN },
		{ "smudge", CAP_SMUDGE },
		{ "delay", CAP_DELAY },
	};
	char *line = NULL;
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(caps); i++) {
		if (pkt_write_fmt_gently(sp->child.in, "capability=%s\n",
					 caps[i].name)) {
			ga_report(GA_REPORT_ERROR,
				  "Could not write requested capability");
			return -1;
		}
	}
	if (pkt_flush_gently(sp->child.in)) {
		ga_report(GA_REPORT_ERROR, "Could not write flush packet");
		return -1;
	}
	for (;;) {
		if ((*fatal = pkt_read_line(sp->child.out, buf, PKT_MAX,
					    &line)) < 0)
			return -1;
		if (!line)
			break;
		if (strncmp(line, "capability=", 11))
			continue;
		for (i = 0; i < GA_ARRAY_SIZE(caps); i++)
			if (!strcmp(line + 11, caps[i].name))
				break;
		if (i == GA_ARRAY_SIZE(caps)) {
			*fatal = ga_error_set("subprocess '%s' requested unsupported capability '%s'",
					      sp->cmd, line + 11);
			return -1;
		}
		sp->caps |= caps[i].flag;
	}
	return 0;
}

/*
 * git's subprocess_start: NULL (after git's messages) when the process
 * cannot run or its handshake fails; git then tries again for the next
 * blob.  A fatal protocol error is returned in *fatal.
 */
static struct subprocess *subprocess_start(struct convert *conv,
					   const char *cmd, int *fatal)
{
	struct subprocess *sp = ga_xcalloc(1, sizeof(*sp));
	char *buf = ga_xmalloc(PKT_MAX);
	int failed;

	*fatal = 0;
	sp->cmd = ga_xstrdup(cmd);
	if (child_start(&sp->child, cmd, conv->workdir) < 0) {
		ga_report(GA_REPORT_ERROR, "cannot fork to run subprocess '%s'",
			  cmd);
		goto fail;
	}
	failed = handshake_version(sp, buf, fatal) < 0 ||
		 handshake_capabilities(sp, buf, fatal) < 0;
	if (*fatal < 0)
		goto fail;
	if (failed) {
		ga_report(GA_REPORT_ERROR,
			  "initialization for subprocess '%s' failed", cmd);
		subprocess_stop(sp);
		goto fail;
	}
	free(buf);
	sp->next = conv->procs;
	conv->procs = sp;
	return sp;
fail:
	free(buf);
	subprocess_free(sp);
	return NULL;
}

/*
 * Write one smudge request: metadata, then the content.  Returns 0, 1
 * after git's "error:" line for a write that failed, or GA_ERROR for a
 * line too long for a packet, which git dies of.
 */
static int send_request(struct convert *conv, struct subprocess *sp,
			const char *path, const char *oid_hex,
			const unsigned char *src, size_t len)
{
	const struct convert_meta *meta = conv->meta;
	int in = sp->child.in, error;

	if ((error = pkt_write_fmt_gently(in, "command=smudge\n")))
		return error;
	if (strlen(path) > PKT_DATA_MAX - strlen("pathname=\n")) {
		ga_report(GA_REPORT_ERROR,
			  "path name too long for external filter");
		return 1;
	}
	if ((error = pkt_write_fmt_gently(in, "pathname=%s\n", path)))
		return error;
	if (meta && meta->ref &&
	    (error = pkt_write_fmt_gently(in, "ref=%s\n", meta->ref)))
		return error;
	if (meta && meta->treeish &&
	    (error = pkt_write_fmt_gently(in, "treeish=%s\n",
					  meta->treeish)))
		return error;
	if (oid_hex &&
	    (error = pkt_write_fmt_gently(in, "blob=%s\n", oid_hex)))
		return error;
	if ((error = pkt_flush_gently(in)) ||
	    (error = pkt_write_data_gently(in, src, len)))
		return error;
	return pkt_flush_gently(in);
}

/*
 * git's apply_multi_file_filter; 1 when `dst` holds the output, 0 when
 * the filter did not deliver, or GA_ERROR where git dies.
 */
static int apply_process_filter(struct convert *conv, struct ga_buf *dst,
				const char *path, const char *oid_hex,
				const unsigned char *src, size_t len,
				const char *cmd)
{
	struct subprocess *sp;
	struct ga_buf status = GA_BUF_INIT, out = GA_BUF_INIT;
	int fatal = 0, eof = 0, err;

	for (sp = conv->procs; sp; sp = sp->next)
		if (!strcmp(sp->cmd, cmd))
			break;
	if (!sp) {
		sp = subprocess_start(conv, cmd, &fatal);
		if (!sp)
			return fatal < 0 ? fatal : 0;
	}
	if (!(sp->caps & CAP_SMUDGE))
		return 0;

	err = send_request(conv, sp, path, oid_hex, src, len);
	if (err < 0) {
		fatal = err;
		goto done;
	}
	if (!err) {
		if ((fatal = read_status(sp->child.out, &status, &eof)) < 0)
			goto done;
		err = eof || !status.ptr || strcmp(status.ptr, "success");
	}
	if (!err) {
		fatal = pkt_read_packetized(sp->child.out, &out,
					    PKT_GENTLE_ON_EOF);
		if (fatal < 0)
			goto done;
		err = fatal == PKT_EOF;
	}
	if (!err) {
		/* The status is not reset: an empty list keeps "success". */
		if ((fatal = read_status(sp->child.out, &status, &eof)) < 0)
			goto done;
		err = eof || strcmp(status.ptr, "success");
	}

	if (!err) {
		ga_buf_setlen(dst, 0);
		ga_buf_put(dst, out.ptr ? out.ptr : "", out.len);
	} else if (status.ptr && !strcmp(status.ptr, "error")) {
		;	/* the filter failed on this blob only */
	} else if (status.ptr && !strcmp(status.ptr, "abort")) {
		/* A permanent failure: git stops asking it to smudge. */
		sp->caps &= ~CAP_SMUDGE;
	} else {
		/* Protocol trouble: stop it, restart it for the next blob. */
		ga_report(GA_REPORT_ERROR, "external filter '%s' failed", cmd);
		subprocess_unlink(conv, sp);
		subprocess_stop(sp);
		subprocess_free(sp);
	}
done:
	ga_buf_release(&status);
	ga_buf_release(&out);
	if (fatal < 0)
		return fatal;
	return !err;
}

/* git's apply_filter for CAP_SMUDGE: a process takes precedence. */
static int apply_filter(struct convert *conv, struct ga_buf *dst,
			const char *path, const char *oid_hex,
			const unsigned char *src, size_t len,
			const struct driver *drv)
{
	if (!drv)
		return 0;
	/* Even an empty filter.<driver>.process disables the smudge. */
	if (!drv->process && drv->smudge && *drv->smudge)
		return apply_smudge_command(conv, dst, path, src, len,
					    drv->smudge);
	if (drv->process && *drv->process)
		return apply_process_filter(conv, dst, path, oid_hex, src, len,
					    drv->process);
	return 0;
}

/*
 * The pipeline
 */

int convert_maybe(struct ga_buf *out, int *changed, struct convert *conv,
		  const char *path, const char *oid_hex,
		  const unsigned char *data, size_t len,
		  const struct attr_value *attrs)
{
	struct conv_attrs ca;
	struct ga_buf bufs[2] = { GA_BUF_INIT, GA_BUF_INIT };
	struct ga_buf *cur = NULL, *next = &bufs[0];
	const unsigned char *src = data;
	char hex[GIT_OID_HEXSZ + 1];
	int ret, error;

	if ((error = convert_attrs(&ca, conv, attrs)) < 0)
		return error;
	if (!oid_hex) {
		git_oid oid;

		if (git_odb_hash(&oid, data, len, GIT_OBJECT_BLOB) < 0)
			return ga_error_from_git(NULL);
		git_oid_tostr(hex, sizeof(hex), &oid);
		oid_hex = hex;
	}

	/*
	 * Each step reads `src`/`len` and, when it changes something, writes
	 * into the other buffer, which then becomes the input.
	 */
#define STEP_DONE() do { \
		cur = next; \
		src = (const unsigned char *)cur->ptr; \
		len = cur->len; \
		next = cur == &bufs[0] ? &bufs[1] : &bufs[0]; \
		ga_buf_setlen(next, 0); \
	} while (0)

	if (ca.ident && ident_to_worktree(next, src, len, oid_hex))
		STEP_DONE();
	if (crlf_to_worktree(conv, next, src, len, ca.crlf_action))
		STEP_DONE();
	if (encode_to_worktree(next, path, src, len, ca.encoding))
		STEP_DONE();
	ret = apply_filter(conv, next, path, oid_hex, src, len, ca.drv);
	if (ret < 0) {
		error = ret;
		goto done;
	}
	if (ret)
		STEP_DONE();
	else if (ca.drv && ca.drv->required) {
		error = ga_error_set("%s: smudge filter %s failed", path,
				     ca.drv->name);
		goto done;
	}
#undef STEP_DONE

	ga_buf_setlen(out, 0);
	*changed = src != data;
	if (*changed)
		ga_buf_put(out, src, len);
	error = 0;
done:
	ga_buf_release(&bufs[0]);
	ga_buf_release(&bufs[1]);
	return error;
}

int convert_is_identity(struct convert *conv, const struct attr_value *attrs)
{
	struct conv_attrs ca;
	int error;

	if ((error = convert_attrs(&ca, conv, attrs)) < 0)
		return error;
	/* A driver, even one without commands, may fail as "required". */
	return !ca.ident && !ca.encoding && !ca.drv &&
		output_eol(conv, ca.crlf_action) != EOL_CRLF;
}

void convert_free(struct convert *conv)
{
	struct subprocess *sp;

	if (!conv)
		return;
	/*
	 * git's exit handler for a process filter closes its pipes, which
	 * asks it to shut down, and waits with finish_command(): a death
	 * by signal gets its "error:" line.
	 */
	while ((sp = conv->procs)) {
		conv->procs = sp->next;
		child_wait(&sp->child, sp->cmd);
		subprocess_free(sp);
	}
	free_drivers(conv);
	free(conv->drivers_error_msg);
	free(conv->workdir);
	free(conv);
}

/*
 * gzip-cmd.c: `garchive gzip`, a filter that stands in for `gzip -cn`.
 *
 * It takes gzip's options for compressing to stdout (-c, -n, -1 to -9,
 * --fast, --best, -f, -q, -k, in clusters such as -cn9, long ones by any
 * unique prefix as gzip's getopt_long takes them) plus --threads=N, and
 * always writes to stdout: each FILE (or stdin) becomes one gzip member,
 * as with `gzip -cn FILE...`.  Errors are worded as gzip words them.
 *
 * The same parser decides whether a tar.<format>.command names
 * `garchive gzip`, so that the archive pipeline can run the engine in
 * process instead of starting a child.
 */
#include "garchive/gzip.h"
#include "garchive/common.h"
#include "garchive/sink.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_BUF	(256u << 10)
#define TRY_HELP	"\nTry 'garchive gzip --help' for more information."

static const char usage_text[] =
	"usage: garchive gzip [-1..-9] [-c] [-n] [--threads=<n>] "
	"[<file>...]\n"
	"\n"
	"Compress each <file> (or stdin) to stdout with the bytes of\n"
	"GNU gzip's `gzip -cn`, on several threads.\n"
	"\n"
	"    -1 .. -9, --fast, --best   compression level (default 6)\n"
	"    -c, --stdout               write to stdout (always done)\n"
	"    -n, --no-name              store no name or time (always done)\n"
	"    -f, --force                write to a terminal too\n"
	"    --threads=<n>              worker threads (0: one per CPU)\n";

const char *gzip_command_usage(void)
{
	return usage_text;
}

enum opt_id {
	OPT_STDOUT, OPT_NO_NAME, OPT_FAST, OPT_BEST, OPT_FORCE, OPT_QUIET,
	OPT_KEEP, OPT_HELP, OPT_THREADS, OPT_STATS, OPT_CHUNK_SIZE
};

static const struct {
	const char *name;
	enum opt_id id;
	int arg;		/* takes a value */
} long_opts[] = {
	{ "stdout", OPT_STDOUT, 0 },
	{ "to-stdout", OPT_STDOUT, 0 },
	{ "no-name", OPT_NO_NAME, 0 },
	{ "fast", OPT_FAST, 0 },
	{ "best", OPT_BEST, 0 },
	{ "force", OPT_FORCE, 0 },
	{ "quiet", OPT_QUIET, 0 },
	{ "keep", OPT_KEEP, 0 },
	{ "help", OPT_HELP, 0 },
	{ "threads", OPT_THREADS, 1 },
	/* For tests and measurements, not in the usage: */
	{ "stats", OPT_STATS, 0 },
	{ "chunk-size", OPT_CHUNK_SIZE, 1 },
};

static int parse_threads(struct gzip_command *cmd, const char *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < 0 || n > 1024)
		return ga_error_usage(GA_USAGE_NONE, "invalid number of "
				      "threads: '%s'" TRY_HELP, v);
	cmd->opts.threads = (int)n;
	return 0;
}

/* The unit of parallel work, in bytes: a multiple of 32 KiB. */
static int parse_chunk_size(struct gzip_command *cmd, const char *v)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (!*v || *end || errno || !n || n % 32768 || n > (1ull << 30))
		return ga_error_usage(GA_USAGE_NONE,
				      "invalid chunk size: '%s'" TRY_HELP, v);
	cmd->opts.chunk_size = (size_t)n;
	return 0;
}

static int apply(struct gzip_command *cmd, enum opt_id id, const char *v)
{
	switch (id) {
	case OPT_FAST:
		cmd->opts.level = 1;
		break;
	case OPT_BEST:
		cmd->opts.level = 9;
		break;
	case OPT_FORCE:
		cmd->force = 1;
		break;
	case OPT_QUIET:
		cmd->quiet = 1;
		break;
	case OPT_HELP:
		cmd->help = 1;
		break;
	case OPT_THREADS:
		return parse_threads(cmd, v);
	case OPT_STATS:
		cmd->stats = 1;
		break;
	case OPT_CHUNK_SIZE:
		return parse_chunk_size(cmd, v);
	case OPT_STDOUT:
	case OPT_NO_NAME:
	case OPT_KEEP:
		break;	/* what garchive gzip always does, or nothing */
	}
	return 0;
}

/* --name[=value], with gzip's unique prefixes; *i moves past a value. */
static int parse_long(struct gzip_command *cmd, int argc, char **argv,
		      int *i)
{
	const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg), k;
	int found = -1;

	for (k = 0; k < GA_ARRAY_SIZE(long_opts); k++) {
		if (strncmp(long_opts[k].name, arg, len))
			continue;
		if (!long_opts[k].name[len]) {
			found = (int)k;
			break;
		}
		if (found >= 0 && long_opts[found].id != long_opts[k].id)
			return ga_error_usage(GA_USAGE_NONE, "option '%s' "
					      "is ambiguous" TRY_HELP,
					      argv[*i]);
		found = (int)k;
	}
	if (found < 0)
		return ga_error_usage(GA_USAGE_NONE,
				      "unrecognized option '%s'" TRY_HELP,
				      argv[*i]);
	if (!long_opts[found].arg) {
		if (eq)
			return ga_error_usage(GA_USAGE_NONE,
				"option '--%s' doesn't allow an argument"
				TRY_HELP, long_opts[found].name);
		return apply(cmd, long_opts[found].id, NULL);
	}
	if (eq)
		return apply(cmd, long_opts[found].id, eq + 1);
	if (*i + 1 >= argc)
		return ga_error_usage(GA_USAGE_NONE,
			"option '--%s' requires an argument" TRY_HELP,
			long_opts[found].name);
	return apply(cmd, long_opts[found].id, argv[++*i]);
}

/* A cluster of short options such as -cn9. */
static int parse_short(struct gzip_command *cmd, const char *arg)
{
	const char *p;

	for (p = arg + 1; *p; p++) {
		if (*p >= '1' && *p <= '9') {
			cmd->opts.level = *p - '0';
			continue;
		}
		switch (*p) {
		case 'c':
		case 'n':
		case 'k':
			break;
		case 'q':
			cmd->quiet = 1;
			break;
		case 'f':
			cmd->force = 1;
			break;
		case 'h':
			cmd->help = 1;
			break;
		default:
			return ga_error_usage(GA_USAGE_NONE, "invalid "
					      "option -- '%c'" TRY_HELP, *p);
		}
	}
	return 0;
}

int gzip_command_parse(struct gzip_command *out, int argc, char **argv)
{
	size_t nfiles = 0;
	int i, error = 0, options = 1;

	memset(out, 0, sizeof(*out));
	out->opts.level = -1;
	out->opts.threads = -1;
	out->files = ga_xcalloc((size_t)(argc > 0 ? argc : 1),
				sizeof(*out->files));
	for (i = 1; i < argc && !error; i++) {
		const char *a = argv[i];

		if (options && !strcmp(a, "--"))
			options = 0;
		else if (options && !strncmp(a, "--", 2))
			error = parse_long(out, argc, argv, &i);
		else if (options && a[0] == '-' && a[1])
			error = parse_short(out, a);
		else
			out->files[nfiles++] = ga_xstrdup(a);
	}
	return error;
}

void gzip_command_release(struct gzip_command *cmd)
{
	size_t i;

	if (!cmd || !cmd->files)
		return;
	for (i = 0; cmd->files[i]; i++)
		free(cmd->files[i]);
	free(cmd->files);
	cmd->files = NULL;
}

/*
 * Shell syntax (quotes, expansions, redirections, several commands)
 * makes a command one for the shell; plain words separated by blanks do
 * not.  An '=' can only be in --threads=N: an assignment before the
 * program name leaves argv[0] something else than garchive.
 */
static int plain_words(const char *s)
{
	return !strpbrk(s, "|&;<>()$`\\\"'*?[#~%\n");
}

int gzip_command_match(struct gzip_options *out, const char *command)
{
	char *copy, *save = NULL, *w;
	char *argv[64];
	struct gzip_command cmd;
	const char *base;
	int argc = 0, result = 0, error;

	if (!plain_words(command))
		return 0;
	copy = ga_xstrdup(command);
	for (w = strtok_r(copy, " \t", &save); w && argc < 63;
	     w = strtok_r(NULL, " \t", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	base = argc ? strrchr(argv[0], '/') : NULL;
	base = base ? base + 1 : argc ? argv[0] : "";
	if (argc >= 2 && !w && !strcmp(base, "garchive") &&
	    !strcmp(argv[1], "gzip")) {
		error = gzip_command_parse(&cmd, argc - 1, argv + 1);
		if (error < 0) {
			result = error;
		} else if (!cmd.files[0] && !cmd.help && !cmd.stats) {
			/* A filter of stdin to stdout, as a command is. */
			*out = cmd.opts;
			result = 1;
		}
		gzip_command_release(&cmd);
	}
	free(copy);
	return result;
}

/* ---- running it ---- */

static void add_stats(struct gzip_stats *to, const struct gzip_stats *s)
{
	to->input += s->input;
	to->parsed += s->parsed;
	to->speculated += s->speculated;
	to->used += s->used;
	to->resynced += s->resynced;
	to->fallbacks += s->fallbacks;
	to->fallback_bytes += s->fallback_bytes;
	to->sync_distance += s->sync_distance;
	if (s->max_sync_distance > to->max_sync_distance)
		to->max_sync_distance = s->max_sync_distance;
	to->blocks += s->blocks;
}

/*
 * Standard output as gzip writes to it: a failed write ends the run
 * with "stdout: <reason>" (see gzip_command_run()), a reader that went
 * away with SIGPIPE.
 */
struct stdout_sink {
	struct sink base;
	int fd;
	int err;		/* errno of the failed write, or 0 */
};

static int stdout_write(struct sink *s, const void *buf, size_t len)
{
	struct stdout_sink *o = (struct stdout_sink *)s;
	const char *p = buf;

	while (len) {
		ssize_t n = write(o->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE)
			return ga_error_code(GA_EPIPE, "stdout: %s",
					     strerror(errno));
		if (n <= 0) {
			o->err = n < 0 ? errno : ENOSPC;
			return ga_error_errno(o->err, "stdout");
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int stdout_finish(struct sink *s)
{
	(void)s;
	return 0;
}

static void stdout_free(struct sink *s)
{
	(void)s;
}

/* What one run carries from a file to the next. */
struct run_state {
	uint8_t *buf;		/* read buffer */
	uint8_t *window;	/* gzip's buffer after the last file */
	int have_window;
	struct gzip_stats *stats;
	struct stdout_sink out;
	int status;		/* gzip's: 1 after an error, else 2 after a
				   warning */
};

/* One gzip member: everything `in` has, compressed to stdout. */
static int compress_fd(const struct gzip_command *cmd, int in,
		       const char *name, struct run_state *rs)
{
	struct sink *gz = NULL;
	struct gzip_options opts = cmd->opts;
	struct gzip_stats st;
	uint8_t *buf = rs->buf;
	int error;

	opts.window = rs->have_window ? rs->window : NULL;
	if ((error = gzip_sink_open(&gz, &opts, &rs->out.base)) < 0)
		return error;
	for (;;) {
		ssize_t n = read(in, buf, READ_BUF);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error = ga_error_errno(errno, "%s", name);
			break;
		}
		if (!n) {
			if (!(error = gz->finish(gz))) {
				memcpy(rs->window, gzip_sink_window(gz),
				       GZIP_WINDOW_SIZE);
				rs->have_window = 1;
			}
			break;
		}
		if ((error = gz->write(gz, buf, (size_t)n)) < 0)
			break;
	}
	gzip_sink_stats(gz, &st);
	if (rs->stats)
		add_stats(rs->stats, &st);
	gz->free(gz);
	return error;
}

/*
 * gzip reads stdin only when it may: compressed data is not for a
 * terminal (a file operand's output is written anyway, as gzip does).
 */
static int compress_stdin(const struct gzip_command *cmd,
			  struct run_state *rs)
{
	if (!cmd->force && isatty(rs->out.fd))
		return ga_error_set("compressed data not written to a "
				    "terminal. Use -f to force compression.\n"
				    "For help, type: garchive gzip -h");
	return compress_fd(cmd, 0, "stdin", rs);
}

/*
 * A problem with one operand, which gzip reports and goes on from:
 * an error (status 1), or a warning (status 2 unless an error came
 * before or comes after), which -q silences.
 */
static void operand_problem(struct run_state *rs, int warning, int quiet)
{
	if (!warning || !quiet)
		ga_report(GA_REPORT_PLAIN, "garchive gzip: %s",
			  ga_error_message());
	ga_error_clear();
	if (!warning)
		rs->status = 1;
	else if (!rs->status)
		rs->status = 2;
}

static int compress_file(const struct gzip_command *cmd, const char *file,
			 struct run_state *rs)
{
	struct stat st;
	int fd, error;

	if (!strcmp(file, "-"))
		return compress_stdin(cmd, rs);
	fd = open(file, O_RDONLY);
	if (fd < 0) {
		ga_error_errno(errno, "%s", file);
		operand_problem(rs, 0, cmd->quiet);
		return 0;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		ga_error_set("%s is a directory -- ignored", file);
		operand_problem(rs, 1, cmd->quiet);
		return 0;
	}
	error = compress_fd(cmd, fd, file, rs);
	close(fd);
	return error;
}

int gzip_command_run(const struct gzip_command *cmd, int out_fd,
		     struct gzip_stats *stats, int *status)
{
	struct run_state rs;
	size_t i;
	int error = 0;

	memset(&rs, 0, sizeof(rs));
	rs.stats = stats;
	rs.out.base.write = stdout_write;
	rs.out.base.finish = stdout_finish;
	rs.out.base.free = stdout_free;
	rs.out.fd = out_fd;
	if (stats)
		memset(stats, 0, sizeof(*stats));
	rs.buf = ga_xmalloc(READ_BUF);
	rs.window = ga_xmalloc(GZIP_WINDOW_SIZE);
	if (!cmd->files[0])
		error = compress_stdin(cmd, &rs);
	for (i = 0; cmd->files[i] && !error; i++)
		error = compress_file(cmd, cmd->files[i], &rs);
	free(rs.buf);
	free(rs.window);
	/* gzip's write_error(): a blank line first, then the reason. */
	if (error && rs.out.err) {
		ga_error_clear();
		ga_report(GA_REPORT_PLAIN, "\ngarchive gzip: stdout: %s",
			  strerror(rs.out.err));
		error = GA_ESILENT;
	}
	*status = rs.status;
	return error;
}

/*
 * gzip-cmd.c: `garchive gzip`, a filter that stands in for `gzip -cn`.
 *
 * It takes gzip's options for compressing to stdout (-c, -n, -1 to -9,
 * --fast, --best, -f, -q, -k, in clusters such as -cn9, long ones by any
 * unique prefix as gzip's getopt_long takes them) plus --threads=N, and
 * always writes to stdout: each FILE (or stdin) becomes one gzip member,
 * as with `gzip -cn FILE...`.  Errors are worded as gzip words them.
 * The options are read by gzip-options.c, which the archive pipeline
 * also uses for a tar.<format>.command that names `garchive gzip`.
 */
#include "gzip-options.h"
#include "garchive/common.h"
#include "garchive/sink-contract.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_BUF	(256u << 10)

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

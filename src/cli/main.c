/*
 * main.c: garchive's process.  It sets the process up, picks the
 * command (cli.c) and runs it from its own file, as git.c runs git's
 * builtin/ commands:
 *
 *	archive			cmd-archive.c
 *	upload-archive(--writer)	cmd-upload-archive.c
 *	get-tar-commit-id	get-tar-commit-id.c
 *	verify			cmd-verify.c
 *	gzip			cmd-gzip.c
 *	http-backend		cmd-http-backend.c
 *	--version		cmd-version.c, help in help.c
 *
 * It is the only place that prints diagnostics and picks the exit
 * status, as git does: "fatal:" and 128 for runtime errors, "error:"
 * and 129 for usage errors, "error:" and 255 for a failure while entries
 * are written, death by SIGPIPE when the reader of our output goes away.
 */
#include "run.h"
#include "garchive/cli.h"
#include "garchive/common.h"
#include "help.h"
#include "repofmt.h"

#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libgit2.h"

/* libgit2's pack windows: see tune_libgit2(). */
#ifndef MAIN_MWINDOW_SIZE
#define MAIN_MWINDOW_SIZE		((size_t)1 << 30)
#endif
#define MAIN_MWINDOW_MAPPED_LIMIT	((size_t)8 << 30)
/* libgit2's object cache: see tune_libgit2(). */
#define MAIN_CACHE_TREE_LIMIT		((size_t)4 << 20)
#define MAIN_CACHE_MAX_SIZE		((ssize_t)64 << 20)
/* Blocks from this size on are mapped on their own: see tune_malloc(). */
#define MAIN_MMAP_THRESHOLD		(256 * 1024)
/* Free memory at the heap's top given back from this size on. */
#define MAIN_TRIM_THRESHOLD		((size_t)1 << 20)

/*
 * Write "<prefix><msg>\n" as git's vreportf() does: in one write, cut
 * at 4095 bytes, with control characters other than tab and newline
 * shown as '?' (so a remote cannot drive our terminal).
 */
static void diagnose(const char *prefix, const char *msg)
{
	char line[4096];
	size_t len = (size_t)snprintf(line, sizeof(line), "%s%s", prefix,
				      msg);
	size_t i;
	ssize_t unused;

	if (len > sizeof(line) - 1)
		len = sizeof(line) - 1;
	for (i = strlen(prefix); i < len; i++)
		if (((unsigned char)line[i] < 0x20 || line[i] == 0x7f) &&
		    line[i] != '\t' && line[i] != '\n')
			line[i] = '?';
	line[len++] = '\n';
	fflush(stderr);
	unused = write(2, line, len);
	(void)unused;
}

static void report(enum ga_report_kind kind, const char *msg, void *payload)
{
	(void)payload;
	if (kind == GA_REPORT_PLAIN)
		diagnose("", msg);
	else
		diagnose(kind == GA_REPORT_WARNING ? "warning: " : "error: ",
			 msg);
}

/*
 * libgit2's settings for reading a whole tree once, set before any
 * repository is opened.
 */
static void tune_libgit2(void)
{
	/* Repositories owned by others: git's rules, see safedir.h. */
	git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
	/*
	 * The repository formats git reads (repofmt.h), among them
	 * extensions.partialClone, which libgit2 1.5 refuses to open and
	 * garchive reads itself (promisor.h).
	 */
	repofmt_register_extensions();
	/* git does not re-hash objects it reads for an archive either. */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	/*
	 * Map packs in large windows (libgit2's 64-bit defaults, 1 GiB
	 * windows and 8 GiB mapped), so that a pack is mapped once, as
	 * git maps it.  In a real pack a tree's blobs and their delta
	 * bases are scattered, and small windows (1 MiB, 4 MiB mapped)
	 * were mapped and unmapped thousands of times.  The pages touched
	 * count in peak RSS, as git's do, but they are the page cache's
	 * (file-backed), not memory of our own: private memory (RssAnon)
	 * does not grow with the pack.
	 */
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, MAIN_MWINDOW_SIZE);
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT,
			 MAIN_MWINDOW_MAPPED_LIMIT);
	/*
	 * Trees are read several times (the checks before the walk, the
	 * walk, the prefetch scout, every .gitattributes lookup from the
	 * root), but libgit2 caches only trees under 4 KiB: keep them all,
	 * up to a bound.  Blobs stay uncached: each is read once.
	 */
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE,
			 MAIN_CACHE_TREE_LIMIT);
	git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, MAIN_CACHE_MAX_SIZE);
}

/*
 * glibc raises its mmap threshold to the size of each large block freed
 * (up to 32 MiB), after which blobs of that size come from the arenas
 * of the threads that read them and stay there when freed.  A fixed
 * threshold sends every large buffer back to the system on free(), so
 * peak memory follows what is live.  Its trim threshold (128 KiB) gave
 * the heap's top back after each zlib stream (a deflate state is about
 * 270 KiB) only to grow it again for the next: thousands of brk() calls
 * and TLB flushes for a zip.  1 MiB kept costs less than that churn.
 */
static void tune_malloc(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, MAIN_MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, MAIN_TRIM_THRESHOLD);
#endif
}

static void out_of_memory(size_t size)
{
	fprintf(stderr, "fatal: Out of memory, malloc failed (tried to "
		"allocate %zu bytes)\n", size);
	exit(128);
}

/*
 * Flush what went to stdout through stdio (--list, --version, usage).
 * A failed write may have happened in an earlier, implicit flush, so the
 * error flag counts too.  A reader that went away is EPIPE, which ends
 * in death by SIGPIPE as git's would.
 */
static int flush_stdout(void)
{
	int err;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	err = errno ? errno : EIO;
	if (err == EPIPE)
		return GA_EPIPE;
	return ga_error_errno(err, "write error");
}

/*
 * As git's sanitize_stdfds(): a closed stdin, stdout or stderr is
 * opened on /dev/null, so that no file we open later (the -o temporary,
 * a pack) takes its number and receives diagnostics or the archive.
 */
static void sanitize_stdfds(void)
{
	int fd = open("/dev/null", O_RDWR);

	while (fd >= 0 && fd <= 2)
		fd = dup(fd);
	if (fd > 2)
		close(fd);
}

/*
 * Print the stored error as git would and return git's exit status.
 * `usage` replaces git archive's usage text for other subcommands.
 */
static int report_message(int code, const char *usage)
{
	const char *msg = ga_error_message();

	if (!usage)
		usage = cli_usage();
	switch (code) {
	case GA_EUSAGE:
		if (*msg)
			diagnose("error: ", msg);
		if (ga_error_usage_dest() == GA_USAGE_STDOUT) {
			fputs(usage, stdout);
			fflush(stdout);
		} else if (ga_error_usage_dest() == GA_USAGE_STDERR) {
			fputs(usage, stderr);
		}
		return 129;
	case GA_EREMOTE:
		/* The remote side's words are on stderr already. */
		if (*msg)
			diagnose("", msg);
		return 1;
	case GA_ESILENT:
		return 128;
	case GA_EARCHIVE:
		diagnose("error: ", msg);
		return 255;
	case GA_ECORRUPT:
		/* git's error() lines (if any), then its fatal line. */
		diagnose(strncmp(msg, "fatal: ", 7) ? "error: " : "", msg);
		return 128;
	default:
		diagnose("fatal: ", *msg ? msg : "unknown error");
		return 128;
	}
}

/* garchive's advice after git's words: one "hint: " line each. */
static void print_hint(const char *hint)
{
	const char *nl;
	char *line;

	while (hint && *hint) {
		nl = strchrnul(hint, '\n');
		line = ga_xstrndup(hint, (size_t)(nl - hint));
		diagnose("hint: ", line);
		free(line);
		hint = *nl ? nl + 1 : nl;
	}
}

static int report_failure(int code, const char *usage)
{
	int status = report_message(code, usage);

	print_hint(ga_error_hint_message());
	return status;
}

/* The arguments of a command chosen by name, owned as cli's are. */
static void copy_args(struct cli_global *g, int argc, char **argv)
{
	int i;

	g->argc = argc;
	g->argv = ga_xcalloc((size_t)argc + 1, sizeof(*g->argv));
	for (i = 0; i < argc; i++)
		g->argv[i] = ga_xstrdup(argv[i]);
}

/* Started as garchive-http-backend, the CGI program (a link to us). */
static int invoked_as_http_backend(const char *argv0)
{
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;

	base = base ? base + 1 : argv0;
	return base && !strcmp(base, "garchive-http-backend");
}

/*
 * Started as git-upload-archive, the server command.  Its writer may
 * carry that name too (when /proc/self/exe is missing): it is told
 * apart by its first argument.
 */
static int invoked_as_upload_archive(int argc, char **argv)
{
	const char *base = argv[0] ? strrchr(argv[0], '/') : NULL;

	base = base ? base + 1 : argv[0];
	if (!base || strcmp(base, "git-upload-archive"))
		return 0;
	return argc < 2 || strcmp(argv[1], "upload-archive--writer");
}

int main(int argc, char **argv)
{
	struct run r;
	int error, status = 0;
	int stdout_closed = fcntl(1, F_GETFD) < 0;

	sanitize_stdfds();
	memset(&r, 0, sizeof(r));
	r.stdout_closed = stdout_closed;
	r.out.fd = 1;
	ga_set_report_handler(report, NULL);
	ga_set_oom_handler(out_of_memory);
	/*
	 * Broken pipes come back as EPIPE so a partial -o file can be
	 * removed first; then we die of SIGPIPE as git would.
	 */
	signal(SIGPIPE, SIG_IGN);
	git_libgit2_init();
	tune_libgit2();
	tune_malloc();

	r.self = argv[0];
	if (invoked_as_upload_archive(argc, argv)) {
		/* Installed as git-upload-archive, e.g. for ssh servers. */
		r.global.command = CLI_UPLOAD_ARCHIVE;
		copy_args(&r.global, argc, argv);
		error = 0;
	} else if (invoked_as_http_backend(argv[0])) {
		/* A web server runs CGI programs without arguments. */
		r.global.command = CLI_HTTP_BACKEND;
		copy_args(&r.global, 1, argv);
		error = 0;
	} else {
		error = cli_parse_global(&r.global, argc, argv);
		/*
		 * git exports --attr-source for itself and its children
		 * (filters, a local upload-archive) alike.
		 */
		if (!error && r.global.attr_source)
			setenv("GIT_ATTR_SOURCE", r.global.attr_source, 1);
	}
	if (!error) {
		switch (r.global.command) {
		case CLI_ARCHIVE:
			error = cmd_archive(&r);
			break;
		case CLI_VERSION:
			cmd_version();
			break;
		case CLI_HELP:
			error = help_show_manual(argc > 0 ? argv[0] : NULL);
			break;
		case CLI_UPLOAD_ARCHIVE:
			error = cmd_upload_archive(&r);
			break;
		case CLI_UPLOAD_ARCHIVE_WRITER:
			error = cmd_upload_archive_writer(&r);
			break;
		case CLI_GET_TAR_COMMIT_ID:
			error = cmd_get_tar_commit_id(&r);
			break;
		case CLI_VERIFY:
			error = cmd_verify(&r);
			break;
		case CLI_GZIP:
			error = cmd_gzip(&r);
			break;
		case CLI_HTTP_BACKEND:
			error = cmd_http_backend(&r);
			break;
		}
	}
	if (!error)
		status = r.exit_status;
	if (!error)
		error = output_commit(&r.out);
	if (!error)
		error = flush_stdout();

	if (error) {
		output_abort(&r.out);
		if (error == GA_EPIPE) {
			run_release(&r);
			git_libgit2_shutdown();
			signal(SIGPIPE, SIG_DFL);
			raise(SIGPIPE);
			return 141;
		}
		if (r.global.command == CLI_GZIP) {
			/* As gzip: "<program>: <message>", status 1. */
			if (error != GA_ESILENT)
				diagnose("garchive gzip: ", ga_error_message());
			status = 1;
		} else {
			status = report_failure(error, r.usage);
		}
	}
	run_release(&r);
	git_libgit2_shutdown();
	return status;
}

/*
 * main.c: garchive's process.  It wires the stages together
 *
 *	cli -> treeish -> walk -> tar|zip -> filter
 *
 * and is the only place that prints diagnostics and picks the exit
 * status, as git does: "fatal:" and 128 for runtime errors, "error:"
 * and 129 for usage errors, "error:" and 255 for a failure while entries
 * are written, death by SIGPIPE when the reader of our output goes away.
 *
 * The repository is found as git's setup finds it (setup.c), -o is
 * written atomically (output.c), and what the environment decides for
 * the walk is in walk-env.c.
 *
 * The same process serves the other end of --remote: `upload-archive`
 * (also when installed as git-upload-archive) relays its writer,
 * `upload-archive--writer`, which runs the archive path above with the
 * client's arguments; and `get-tar-commit-id` reads an archive back.
 */
#include "garchive/archive.h"
#include "garchive/cli.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "garchive/filter.h"
#include "garchive/format.h"
#include "garchive/gzip.h"
#include "garchive/remote.h"
#include "garchive/treeish.h"
#include "garchive/verify.h"
#include "garchive/walk.h"
#include "run-command.h"
#include "progress.h"
#include "remote/http-backend.h"
#include "rawtree.h"
#include "repofmt.h"
#include "help.h"
#include "output.h"
#include "safedir.h"
#include "setup.h"
#include "submodule.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"
#include <zlib.h>

#ifndef GARCHIVE_VERSION
#define GARCHIVE_VERSION "0.1.0"
#endif

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

/* Everything one run owns, released in one place. */
struct run {
	struct cli_global global;
	struct archive_options opts;
	git_repository *repo;
	struct ga_config *config;
	struct format_list formats;
	char *cwd_prefix;	/* "" or "sub/dir/" */
	char *output_path;	/* -o file, as opened */
	struct output out;
	struct treeish treeish;
	struct walk *walk;
	struct sink *sink;
	struct archive_writer *writer;
	struct progress *progress;	/* NULL when none is shown */
	struct submodules *submodules;	/* --recurse-submodules */
	uint64_t files, bytes;		/* what the meter counts */
	struct walk_env *walk_env;	/* what the walk's options point at */
	char *dubious;		/* a repository refused for its owner */

	/* garchive verify */
	struct verify_options vopts;
	struct verify *verify;

	/* Serving a --remote client (upload-archive--writer). */
	int serving;
	int allow_unreachable;	/* uploadArchive.allowUnreachable */
	char **sent_args;	/* the client's arguments */
	size_t nr_sent_args;

	const char *self;	/* argv[0], to start ourselves again */
	const char *usage;	/* usage text of a subcommand, or NULL */
	int exit_status;	/* non-zero status of a successful run */
};

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
	/* The repository formats git reads: see repofmt.h. */
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
 * peak memory follows what is live.
 */
static void tune_malloc(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, MAIN_MMAP_THRESHOLD);
#endif
}

static void out_of_memory(size_t size)
{
	fprintf(stderr, "fatal: Out of memory, malloc failed (tried to "
		"allocate %zu bytes)\n", size);
	exit(128);
}

/* The repository we run in, if any: see setup.h. */
static int open_repository(struct run *r)
{
	return setup_repository(&r->repo, &r->cwd_prefix, &r->dubious,
				(const char *const *)r->global.config,
				r->global.nr_config);
}

/* ---- the archive ---- */

/* Write `len` bytes to `fd` as the archive would go there. */
static int write_out(int fd, const char *buf, size_t len)
{
	struct sink *sink = NULL;
	int error;

	if ((error = sink_open_fd(&sink, fd)) < 0)
		return error;
	error = sink->write(sink, buf, len);
	sink->free(sink);
	return error;
}

/*
 * --list, where the archive would go (-o FILE too, as git writes it).
 * A remote client is shown only the formats it may ask for.
 */
static int print_formats(const struct format_list *formats, int serving,
			 int fd)
{
	struct ga_buf list = GA_BUF_INIT;
	size_t i;
	int error;

	for (i = 0; i < formats->nr; i++)
		if (!serving || formats->items[i].remote)
			ga_buf_printf(&list, "%s\n", formats->items[i].name);
	error = list.len ? write_out(fd, list.ptr, list.len) : 0;
	ga_buf_release(&list);
	return error;
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
 * --git-completion-helper: the option list git's parse-options prints
 * for shell completion.  After pass 2 it goes where the archive would.
 */
static int print_completion(struct run *r, int fd)
{
	return write_out(fd, r->opts.completion, strlen(r->opts.completion));
}

/*
 * Without --threads, garchive.threads gives the number of workers; 0
 * (either way, or neither given) means one per CPU.
 */
static int resolve_threads(struct run *r)
{
	const char *s = NULL;
	int64_t v;
	int error;

	if (r->opts.threads >= 0)
		return 0;
	r->opts.threads = 0;
	error = config_get_int64(&v, r->config, "garchive.threads");
	if (error == GA_ENOTFOUND) {
		ga_error_clear();
		return 0;
	}
	if (error < 0)
		return error;
	if (v < 0 || v > INT_MAX) {
		config_get_string(&s, r->config, "garchive.threads");
		return ga_error_set("bad numeric config value '%s' for "
				    "'garchive.threads': out of range",
				    s ? s : "");
	}
	r->opts.threads = (int)v;
	return 0;
}

static int fill_walk_options(struct run *r, struct walk_options *wo)
{
	memset(wo, 0, sizeof(*wo));
	wo->treeish = &r->treeish;
	wo->config = r->config;
	wo->prefix = r->opts.prefix ? r->opts.prefix : "";
	wo->cwd_prefix = r->cwd_prefix;
	wo->pathspecs = r->opts.pathspecs;
	wo->nr_pathspecs = r->opts.nr_pathspecs;
	wo->extras = r->opts.extras;
	wo->nr_extras = r->opts.nr_extras;
	wo->worktree_attributes = r->opts.worktree_attributes;
	wo->threads = r->opts.threads;
	wo->want_text_hint = r->opts.format->writer == FORMAT_ZIP;
	wo->reading_bound = r->opts.format->writer == FORMAT_TAR &&
		r->opts.format->filter.kind == FILTER_NONE;
	wo->stream_large = r->opts.format->writer == FORMAT_TAR;
	/*
	 * gzip -cn (or a command) compresses on a core of its own and sets
	 * the pace: reading ahead on that core would only slow it down.
	 */
	if (r->opts.format->filter.kind == FILTER_GZIP ||
	    r->opts.format->filter.kind == FILTER_COMMAND)
		wo->cpus_taken_by_filter = 1;
	/*
	 * zip: deflating is the work, on the writer's threads.  The walk
	 * reads blobs itself (workers reading ahead would only add their
	 * own caches to the peak) and hands large ones on unread, so that
	 * a deflate worker reads each when it has room for it.  Not with
	 * -v: a member that cannot be read would fail after the names of
	 * later entries are listed, where git stops first.
	 */
	if (r->opts.format->writer == FORMAT_ZIP) {
		wo->threads = 1;
		if (!r->opts.verbose)
			wo->defer_above = ZIP_DEFER_ABOVE;
	}

	return walk_env_load(&r->walk_env, wo, r->repo, r->config);
}

static void fill_archive_args(struct run *r, struct archive_args *args,
			      char *commit_hex)
{
	time_t t;

	memset(args, 0, sizeof(*args));
	args->mtime = r->treeish.mtime;
	if (r->treeish.commit) {
		git_oid_tostr(commit_hex, GA_OID_MAX_HEXSZ + 1,
			      &r->treeish.commit_id);
		args->commit_hex = commit_hex;
	}
	args->level = r->opts.level;
	args->tar_umask = r->formats.tar_umask;
	args->threads = r->opts.threads;
	t = (time_t)r->treeish.mtime;
	localtime_r(&t, &args->mtime_local);
}

/*
 * The meter of a run, if one is to be shown: its total is the number of
 * files, links and submodules of the tree, counted from the raw trees
 * (cached by now: the walk's checks read them all), plus the extra
 * files.  With pathspecs or submodules the total is not known in
 * advance.
 */
static void start_progress(struct run *r, int setting, const char *title,
			   int out_fd)
{
	git_odb *odb = NULL;
	uint64_t total = 0;

	if (r->serving || (setting < 0 && r->opts.verbose) ||
	    !progress_wanted(setting, out_fd))
		return;
	/* Submodules are counted as they come, like pathspecs' matches. */
	if (!r->opts.nr_pathspecs && !r->opts.recurse_submodules &&
	    git_repository_odb(&odb, r->repo) == 0 &&
	    rawtree_count(&total, odb, &r->treeish.tree_id,
			  r->treeish.hexsz / 2) == 0)
		total += r->opts.nr_extras;
	else
		total = 0;
	ga_error_clear();
	git_error_clear();
	git_odb_free(odb);
	r->progress = progress_start(title, total, 2);
}

/* One more entry for the meter. */
static void count_entry(struct run *r, const struct archive_entry *entry)
{
	if (!r->progress)
		return;
	if (entry->mode != ARCHIVE_MODE_DIR)
		r->files++;
	r->bytes += entry->size;
	progress_update(r->progress, r->files, r->bytes);
}

static void finish_progress(struct run *r)
{
	progress_done(r->progress, r->files, r->bytes);
	r->progress = NULL;
}

static int write_entries(struct run *r)
{
	struct archive_entry *entry;
	int error;

	while ((error = walk_next(&entry, r->walk)) == 0) {
		if (r->opts.verbose && !entry->is_extra)
			fprintf(stderr, "%.*s\n", (int)entry->path_len,
				entry->path);
		if ((error = r->writer->add(r->writer, entry)) < 0)
			return error;
		count_entry(r, entry);
	}
	return error == GA_ITEROVER ? 0 : error;
}

static int resolve_treeish(struct run *r)
{
	struct treeish_options to = { 0 };

	to.name = r->opts.treeish;
	to.cwd_prefix = r->cwd_prefix;
	to.mtime = r->opts.mtime;
	to.source_date_epoch = getenv("SOURCE_DATE_EPOCH");
	to.remote = r->serving;
	to.allow_unreachable = r->allow_unreachable;
	return treeish_resolve(&r->treeish, r->repo, &to);
}

/* --recurse-submodules: the repositories behind gitlinks, for the walk. */
static const struct walk_submodules *open_submodules(struct run *r)
{
	struct submodules_options so;

	memset(&so, 0, sizeof(so));
	so.repo = r->repo;
	so.tree_id = &r->treeish.tree_id;
	so.config_overrides = (const char *const *)r->global.config;
	so.nr_config_overrides = r->global.nr_config;
	so.skip_missing = r->opts.recurse_submodules ==
			  CLI_SUBMODULES_SKIP_MISSING;
	submodules_new(&r->submodules, &so);
	return submodules_hooks(r->submodules);
}

static int write_archive(struct run *r)
{
	const struct format *fmt = r->opts.format;
	struct walk_options wo;
	struct archive_args args;
	struct filter_spec filter;
	char commit_hex[GA_OID_MAX_HEXSZ + 1];
	int error;

	if ((error = resolve_treeish(r)) < 0)
		return error;
	if ((error = resolve_threads(r)) < 0 ||
	    (error = fill_walk_options(r, &wo)) < 0)
		return error;
	if (r->opts.recurse_submodules)
		wo.submodules = open_submodules(r);
	if ((error = walk_new(&r->walk, r->repo, &wo)) < 0)
		return error;

	fill_archive_args(r, &args, commit_hex);
	filter = fmt->filter;
	filter.threads = r->opts.threads;
	if ((error = filter_open(&r->sink, &filter, r->opts.level,
				 r->out.fd)) < 0)
		return error;
	if (fmt->writer == FORMAT_ZIP)
		error = zip_writer_new(&r->writer, r->sink, &args);
	else
		error = tar_writer_new(&r->writer, r->sink, &args);
	if (error < 0)
		return error;
	start_progress(r, r->opts.progress, "Writing archive", r->out.fd);
	if ((error = write_entries(r)) < 0 ||
	    (error = r->writer->finish(r->writer)) < 0 ||
	    (error = r->sink->finish(r->sink)) < 0)
		return error;
	finish_progress(r);
	return 0;
}

/* The configuration and the format table, read once per run. */
static int load_settings(struct run *r, mode_t umask_bits)
{
	int error;

	if ((error = config_load(&r->config, r->repo,
				 (const char *const *)r->global.config,
				 r->global.nr_config)) < 0)
		return error;
	return format_list_load(&r->formats, r->config,
				(unsigned int)umask_bits);
}

/*
 * Pass 2, git's checks and the archive itself: the part a local run
 * and the writer serving a remote client have in common.
 */
static int archive_from_options(struct run *r)
{
	int error;

	/* git reads this before parsing anything: a bad value stops all. */
	error = config_get_bool(&r->allow_unreachable, r->config,
				"uploadarchive.allowunreachable");
	if (error == GA_ENOTFOUND)
		r->allow_unreachable = 0;
	else if (error < 0)
		return error;

	if ((error = cli_parse_archive(&r->opts, &r->formats, r->cwd_prefix,
				       r->serving)) < 0)
		return error;
	if (r->opts.completion)
		return print_completion(r, r->out.fd);
	if (r->opts.list)
		return print_formats(&r->formats, r->serving, r->out.fd);
	/* cli refuses these already; never serve a local-only format. */
	if (r->serving && !r->opts.format->remote)
		return ga_error_set("Unknown archive format '%s'",
				    r->opts.format->name);
	if (!r->repo && r->dubious)
		return safedir_refuse(r->dubious);
	if (!r->repo)
		return ga_error_set("not a git repository (or any of the "
				    "parent directories): .git");
	return write_archive(r);
}

/* --remote: the archive comes from upload-archive on the other side. */
static int run_remote_client(struct run *r)
{
	struct remote_client_options o;
	const struct format *hint = NULL;

	memset(&o, 0, sizeof(o));
	if (r->opts.output)
		hint = format_infer(&r->formats, r->opts.output);
	o.remote = r->opts.remote;
	o.exec = r->opts.exec;
	o.format = hint ? hint->name : NULL;
	o.args = r->opts.pass1_args;
	o.nr_args = r->opts.nr_pass1_args;
	o.config = r->config;
	o.git_dir = r->repo ? git_repository_path(r->repo) : NULL;
	o.config_overrides = (const char *const *)r->global.config;
	o.nr_config_overrides = r->global.nr_config;
	/* git runs its transports from the top of the work tree. */
	if (r->repo && *r->cwd_prefix)
		o.dir = git_repository_workdir(r->repo);
	return remote_archive(&o, r->out.fd, 2);
}

static int run_archive(struct run *r)
{
	mode_t umask_bits = umask(0);
	int error;

	umask(umask_bits);
	if ((error = open_repository(r)) < 0)
		return error;
	if ((error = load_settings(r, umask_bits)) < 0)
		return error;
	if ((error = cli_parse_pass1(&r->opts, r->global.argc,
				     r->global.argv)) < 0)
		return error;
	if (r->opts.completion)
		return print_completion(r, 1);

	if (r->opts.output) {
		/*
		 * git changes to the top of the work tree and prefixes -o
		 * with the subdirectory, except for "-", which lands at the
		 * top.  The prefixed name is also what the format is
		 * inferred from.
		 */
		const char *o = r->opts.output;
		const char *top = r->repo ? git_repository_workdir(r->repo)
					  : NULL;
		char *named;

		if (o[0] == '/')
			named = ga_xstrdup(o);
		else if (!strcmp(o, "-"))
			named = ga_xstrdup(o);
		else
			named = ga_xstrfmt("%s%s", r->cwd_prefix, o);
		if (!strcmp(o, "-") && top && *r->cwd_prefix)
			r->output_path = ga_xstrfmt("%s-", top);
		else
			r->output_path = ga_xstrdup(o);
		free(r->opts.output);
		r->opts.output = named;
		if ((error = output_open(&r->out, r->output_path,
					 umask_bits)) < 0)
			return error;
	}
	if (r->opts.remote)
		return run_remote_client(r);
	return archive_from_options(r);
}

/* ---- the server side of --remote ---- */

static int subcommand_usage(struct run *r, const char *usage)
{
	r->usage = usage;
	return ga_error_usage(GA_USAGE_STDERR, NULL);
}

/*
 * upload-archive <dir>: relay a writer, started as
 * "<us> [-c ...] upload-archive--writer <args>", to the client.
 */
static int run_upload_archive(struct run *r)
{
	struct remote_server_options o;
	const char **argv;
	char self[PATH_MAX];
	ssize_t n;
	size_t i, j = 0;
	int error;

	if (r->global.argc == 2 && !strcmp(r->global.argv[1], "-h"))
		return subcommand_usage(r, remote_upload_archive_usage());
	/* Our own executable, even when started as git-upload-archive. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0)
		self[n] = '\0';
	argv = ga_xcalloc(2 * r->global.nr_config + (size_t)r->global.argc + 2,
			  sizeof(*argv));
	argv[j++] = n > 0 ? self : r->self;
	for (i = 0; i < r->global.nr_config; i++) {
		argv[j++] = "-c";
		argv[j++] = r->global.config[i];
	}
	argv[j++] = "upload-archive--writer";
	for (i = 1; i < (size_t)r->global.argc; i++)
		argv[j++] = r->global.argv[i];
	argv[j] = NULL;

	memset(&o, 0, sizeof(o));
	o.writer_argv = argv;
	o.out_fd = 1;
	error = remote_upload_archive(&o);
	free(argv);
	return error;
}

/*
 * upload-archive--writer <dir>: the archive a local run in <dir> would
 * write, with the client's arguments (read from stdin as pkt-lines and
 * parsed by pass 2 only, so -o and --remote are refused as git does)
 * and the restrictions of remote mode.
 */
static int run_upload_archive_writer(struct run *r)
{
	mode_t umask_bits = umask(0);
	size_t i;
	int error;

	umask(umask_bits);
	if (r->global.argc != 2 || !strcmp(r->global.argv[1], "-h"))
		return subcommand_usage(r, remote_upload_archive_usage());
	if ((error = remote_enter_repo(&r->repo, r->global.argv[1],
			(const char *const *)r->global.config,
			r->global.nr_config)) < 0)
		return error;
	r->cwd_prefix = ga_xstrdup("");
	if ((error = load_settings(r, umask_bits)) < 0)
		return error;
	if ((error = remote_read_arguments(&r->sent_args, &r->nr_sent_args,
					   0)) < 0)
		return error;

	/*
	 * What pass 1 would leave for pass 2, with nothing taken out; the
	 * options own their copies, as after cli_parse_pass1().  The
	 * client gets git's usage text, as from git's server.
	 */
	r->serving = 1;
	r->usage = cli_git_usage();
	r->opts.level = -1;
	r->opts.pass1_args = ga_xcalloc(r->nr_sent_args + 1, sizeof(char *));
	for (i = 0; i < r->nr_sent_args; i++)
		r->opts.pass1_args[i] = ga_xstrdup(r->sent_args[i]);
	r->opts.nr_pass1_args = r->nr_sent_args;
	return archive_from_options(r);
}

/* ---- garchive verify ---- */

/*
 * The archive verify compares with, written as a local run would but
 * into verify's digests: the tree-ish is resolved here, verify decides
 * the prefix, time and umask from the file, and each entry passes
 * verify's hooks on its way to the writer.
 */
static int write_expected(struct run *r, const char *name)
{
	struct verify_plan plan;
	struct walk_options wo;
	struct archive_args args;
	struct archive_entry *entry;
	struct sink *sink;
	char commit_hex[GA_OID_MAX_HEXSZ + 1];
	const char *prefix;
	size_t i;
	int error;

	r->opts.treeish = ga_xstrdup(name);
	r->opts.level = -1;
	r->opts.threads = -1;
	r->opts.format = format_lookup(&r->formats, verify_is_zip(r->verify)
				       ? "zip" : "tar");
	r->opts.nr_pathspecs = r->vopts.nr_pathspecs;
	r->opts.pathspecs = ga_xcalloc(r->opts.nr_pathspecs + 1,
				       sizeof(char *));
	for (i = 0; i < r->opts.nr_pathspecs; i++)
		r->opts.pathspecs[i] = ga_xstrdup(r->vopts.pathspecs[i]);
	if ((error = resolve_treeish(r)) < 0)
		return error;

	fill_archive_args(r, &args, commit_hex);
	memset(&plan, 0, sizeof(plan));
	plan.treeish_name = name;
	plan.tree_id = &r->treeish.tree_id;
	plan.commit_hex = args.commit_hex;
	plan.default_mtime = r->treeish.mtime;
	plan.repo = r->repo;
	if ((error = verify_prepare(r->verify, &plan, &args, &prefix)) < 0)
		return error;
	r->opts.prefix = ga_xstrdup(prefix);

	if ((error = resolve_threads(r)) < 0 ||
	    (error = fill_walk_options(r, &wo)) < 0)
		return error;
	/* Every entry's content passes verify's hooks: none deferred. */
	wo.defer_above = 0;
	if ((error = walk_new(&r->walk, r->repo, &wo)) < 0)
		return error;
	sink = verify_expect_sink(r->verify);
	if (r->opts.format->writer == FORMAT_ZIP)
		error = zip_writer_new(&r->writer, sink, &args);
	else
		error = tar_writer_new(&r->writer, sink, &args);
	if (error < 0)
		return error;
	/* verify's answer comes after the meters: they share a terminal. */
	start_progress(r, r->vopts.progress, "Writing expected archive", -1);
	while ((error = walk_next(&entry, r->walk)) == 0) {
		verify_expect_entry(r->verify, entry);
		error = r->writer->add(r->writer, entry);
		verify_expect_done(r->verify, entry);
		if (error < 0)
			return error;
		count_entry(r, entry);
	}
	if (error != GA_ITEROVER)
		return error;
	if ((error = r->writer->finish(r->writer)) < 0 ||
	    (error = sink->finish(sink)) < 0)
		return error;
	finish_progress(r);
	return 0;
}

/*
 * garchive verify <file> [<tree-ish> [<path>...]]: exit 0 when the file
 * holds what the tree-ish gives (identical, or with other compression
 * or other archive bytes), 1 when it does not.  It compares with the
 * whole tree-ish wherever it runs (a local archive run from a
 * subdirectory archives only that), with pathspecs from the top.
 */
static int run_verify(struct run *r)
{
	mode_t umask_bits = umask(0);
	const char *name;
	int error;

	umask(umask_bits);
	r->usage = cli_verify_usage();
	if ((error = cli_parse_verify(&r->vopts, r->global.argc,
				      r->global.argv)) < 0)
		return error;
	r->usage = NULL;
	if ((error = open_repository(r)) < 0 ||
	    (error = load_settings(r, umask_bits)) < 0)
		return error;
	if (!r->repo)
		return ga_error_set("not a git repository (or any of the "
				    "parent directories): .git");
	free(r->cwd_prefix);
	r->cwd_prefix = ga_xstrdup("");
	if ((error = verify_open(&r->verify, &r->vopts, &r->formats,
				 r->formats.tar_umask)) < 0)
		return error;
	name = r->vopts.treeish;
	if (!name)
		name = verify_recorded_commit(r->verify);
	if (!name && verify_is_zip(r->verify) && !strcmp(r->vopts.file, "-"))
		return ga_error_set("a zip archive records its commit at its "
				    "end: name the tree-ish to compare it "
				    "with when reading standard input");
	if (!name)
		return ga_error_set("'%s' records no commit: name the "
				    "tree-ish to compare it with",
				    r->vopts.file);
	if ((error = write_expected(r, name)) < 0)
		return error;
	if (progress_wanted(r->vopts.progress, -1))
		verify_set_progress(r->verify, progress_start(
			"Verifying archive", 0, 2));
	if ((error = verify_check(r->verify)) < 0)
		return error;
	if (verify_report(r->verify, stdout) == VERIFY_DIFFERENT)
		r->exit_status = 1;
	return 0;
}

static int run_get_tar_commit_id(struct run *r)
{
	int error, found;

	if (r->global.argc != 1)
		return subcommand_usage(r, remote_get_tar_commit_id_usage());
	if ((error = remote_get_tar_commit_id(&found, 0, 1)) < 0)
		return error;
	/* Not an archive of a commit: git exits 1 and says nothing. */
	if (!found)
		r->exit_status = 1;
	return 0;
}

/*
 * gzip [options] [<file>...]: the built-in gzip as a filter.  Its
 * failures are reported as gzip reports them (see main()).
 */
static int run_gzip(struct run *r)
{
	struct gzip_command cmd;
	struct gzip_stats st;
	int error;

	if ((error = gzip_command_parse(&cmd, r->global.argc,
					r->global.argv)) < 0)
		goto done;
	if (cmd.help) {
		fputs(gzip_command_usage(), stdout);
		goto done;
	}
	error = gzip_command_run(&cmd, 1, &st);
	if (!error && cmd.stats)
		fprintf(stderr, "gzip stats: input %llu parsed %llu "
			"speculated %llu used %llu resynced %llu "
			"fallbacks %llu (%llu bytes) sync distance %llu "
			"(max %llu) blocks %llu\n",
			(unsigned long long)st.input,
			(unsigned long long)st.parsed,
			(unsigned long long)st.speculated,
			(unsigned long long)st.used,
			(unsigned long long)st.resynced,
			(unsigned long long)st.fallbacks,
			(unsigned long long)st.fallback_bytes,
			(unsigned long long)st.sync_distance,
			(unsigned long long)st.max_sync_distance,
			(unsigned long long)st.blocks);
done:
	gzip_command_release(&cmd);
	return error;
}

/*
 * http-backend: one CGI request of git's smart HTTP protocol, the
 * upload-archive service ours, everything else git's (see
 * remote/http-backend.h).
 */
static int run_http_backend(struct run *r)
{
	struct http_backend_options o;

	if (r->global.argc != 1)
		return subcommand_usage(r, "usage: garchive http-backend\n");
	memset(&o, 0, sizeof(o));
	o.argv0 = r->self;
	o.config_overrides = (const char *const *)r->global.config;
	o.nr_config_overrides = r->global.nr_config;
	return http_backend_serve(&o, &r->exit_status);
}

static void run_release(struct run *r)
{
	if (r->writer)
		r->writer->free(r->writer);
	if (r->sink)
		r->sink->free(r->sink);
	progress_free(r->progress);
	walk_free(r->walk);
	/* After the writer and the walk: entries may hold their objects. */
	submodules_free(r->submodules);
	verify_free(r->verify);
	verify_options_release(&r->vopts);
	treeish_release(&r->treeish);
	format_list_release(&r->formats);
	config_free(r->config);
	git_repository_free(r->repo);
	cli_options_release(&r->opts);
	cli_global_release(&r->global);
	free(r->cwd_prefix);
	free(r->output_path);
	walk_env_free(r->walk_env);
	free(r->dubious);
	output_release(&r->out);
	remote_free_arguments(r->sent_args, r->nr_sent_args);
}

/*
 * The first line of `gzip --version`, from the gzip that tgz and tar.gz
 * run, or NULL when it cannot be run.
 */
static char *gzip_version(void)
{
	const char *argv[] = { "gzip", "--version", NULL };
	struct child c = CHILD_INIT;
	struct ga_buf out = GA_BUF_INIT;
	char *line = NULL;
	int code = -1;

	c.argv = argv;
	c.null_in = c.null_err = c.pipe_out = 1;
	if (child_start(&c) < 0) {
		ga_error_clear();
		return NULL;
	}
	(void)ga_buf_read_fd(&out, c.out);
	(void)child_finish(&c, &code, NULL);
	/* "gzip 1.12" */
	if (code == 0 && out.len) {
		const char *v = !strncmp(out.ptr, "gzip ", 5) ? out.ptr + 5
							      : out.ptr;

		line = ga_xstrndup(v, strcspn(v, "\n"));
	}
	ga_buf_release(&out);
	return line;
}

/*
 * "garchive --version": the version, and what the bytes depend on: the
 * libgit2 that reads the objects, the zlib that deflates zip members
 * (and tgz without gzip), and the gzip that compresses tgz.
 * --build-options (git's word) is accepted and changes nothing.
 */
static void print_version(void)
{
	int major, minor, rev;
	char *gzip = gzip_version();

	git_libgit2_version(&major, &minor, &rev);
	printf("garchive version %s\n", GARCHIVE_VERSION);
	printf("libgit2: %d.%d.%d\n", major, minor, rev);
	printf("zlib: %s\n", zlibVersion());
	printf("gzip: %s\n", gzip ? gzip : "not found (tgz falls back to "
	       "the in-process deflater)");
	free(gzip);
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

	sanitize_stdfds();
	memset(&r, 0, sizeof(r));
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
	}
	if (!error) {
		switch (r.global.command) {
		case CLI_ARCHIVE:
			error = run_archive(&r);
			break;
		case CLI_VERSION:
			print_version();
			break;
		case CLI_HELP:
			error = help_show_manual(argc > 0 ? argv[0] : NULL);
			break;
		case CLI_UPLOAD_ARCHIVE:
			error = run_upload_archive(&r);
			break;
		case CLI_UPLOAD_ARCHIVE_WRITER:
			error = run_upload_archive_writer(&r);
			break;
		case CLI_GET_TAR_COMMIT_ID:
			error = run_get_tar_commit_id(&r);
			break;
		case CLI_VERIFY:
			error = run_verify(&r);
			break;
		case CLI_GZIP:
			error = run_gzip(&r);
			break;
		case CLI_HTTP_BACKEND:
			error = run_http_backend(&r);
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

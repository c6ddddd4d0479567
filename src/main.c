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
 * It also makes -o atomic: the archive goes to a temporary file in the
 * target's directory, renamed over the target only on success.
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
#include "garchive/walk.h"

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

#include <git2.h>
#include <zlib.h>

#ifndef GARCHIVE_VERSION
#define GARCHIVE_VERSION "0.1.0"
#endif

/* libgit2's pack windows: see tune_libgit2(). */
#define MAIN_MWINDOW_SIZE		((size_t)1 << 20)
#define MAIN_MWINDOW_MAPPED_LIMIT	((size_t)4 << 20)
/* libgit2's object cache: see tune_libgit2(). */
#define MAIN_CACHE_TREE_LIMIT		((size_t)4 << 20)
#define MAIN_CACHE_MAX_SIZE		((ssize_t)64 << 20)
/* Blocks from this size on are mapped on their own: see tune_malloc(). */
#define MAIN_MMAP_THRESHOLD		(256 * 1024)

/* git's system attributes file on Debian (prefix /usr, sysconfdir /etc). */
#define SYSTEM_ATTRIBUTES "/etc/gitattributes"

/* Where the archive goes: stdout, or -o FILE through a temporary file. */
struct output {
	const char *path;	/* the target, NULL for stdout */
	char *tmp;		/* temporary file being written, or NULL */
	int fd;
};

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
	char *attr_global;
	char *attr_info;
	char *attr_info_shown;	/* its name in messages, or NULL */
	char *toplevel;

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
	/* git does not re-hash objects it reads for an archive either. */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	/*
	 * Map packs in small windows with a low limit on what stays
	 * mapped.  The defaults (1 GiB windows, 8 GiB mapped) keep every
	 * page of the pack we touched in our resident set, as git's do;
	 * the pages stay in the page cache anyway, so remapping them costs
	 * little, and peak memory no longer grows with the size of the
	 * pack.  Objects are read close to pack order, so windows are
	 * rarely remapped.
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

/* ---- repository and paths ---- */

/*
 * The subdirectory of the work tree we run in, as git's "prefix": ""
 * at the top or outside the work tree, else "dir/sub/".
 */
static char *compute_cwd_prefix(git_repository *repo)
{
	const char *workdir = repo ? git_repository_workdir(repo) : NULL;
	char cwd[PATH_MAX], top[PATH_MAX];
	size_t len;

	if (!workdir || !getcwd(cwd, sizeof(cwd)) || !realpath(workdir, top))
		return ga_xstrdup("");
	len = strlen(top);
	while (len > 1 && top[len - 1] == '/')
		top[--len] = '\0';
	if (strncmp(cwd, top, len) || (cwd[len] && cwd[len] != '/'))
		return ga_xstrdup("");
	if (!cwd[len] || !cwd[len + 1])
		return ga_xstrdup("");
	return ga_xstrfmt("%s/", cwd + len + 1);
}

static int set_workdir(git_repository *repo, const char *dir)
{
	char real[PATH_MAX];

	const char *current = git_repository_workdir(repo);
	size_t len;

	if (!realpath(dir, real))
		return ga_error_errno(errno, "cannot chdir to '%s'", dir);
	/*
	 * libgit2 1.5 leaks when asked for the work tree it already has,
	 * so only ask for a different one.
	 */
	len = strlen(real);
	if (current && !strncmp(current, real, len) &&
	    (!strcmp(current + len, "/") || !current[len]))
		return 0;
	if (git_repository_set_workdir(repo, real, 0) < 0)
		return ga_error_from_git(NULL);
	return 0;
}

static int has_core_worktree(git_repository *repo)
{
	git_config *cfg = NULL;
	git_buf value = { 0 };
	int found = 0;

	if (git_repository_config_snapshot(&cfg, repo) == 0 &&
	    git_config_get_string_buf(&value, cfg, "core.worktree") == 0)
		found = 1;
	git_buf_dispose(&value);
	git_config_free(cfg);
	git_error_clear();
	return found;
}

/*
 * libgit2 parses the repository's config to open it, so a malformed
 * file fails there, with libgit2's words ("... (in /path/config:6)").
 * Say it as git does: "bad config line 6 in file .git/config", naming
 * the file relative to the top of the work tree when we run inside it.
 */
static int open_failed(void)
{
	const git_error *e = git_error_last();
	const char *in, *colon;
	char cwd[PATH_MAX], *path, *shown;
	int line;
	size_t len;

	if (!e || e->klass != GIT_ERROR_CONFIG || !e->message ||
	    !(in = strstr(e->message, "(in ")) ||
	    !(colon = strrchr(in, ':')) || sscanf(colon + 1, "%d", &line) != 1)
		return ga_error_from_git(NULL);
	path = ga_xstrndup(in + 4, (size_t)(colon - in - 4));
	len = strlen(path);
	shown = path;
	if (getcwd(cwd, sizeof(cwd)) && len > 12 &&
	    !strcmp(path + len - 12, "/.git/config") &&
	    !strncmp(cwd, path, len - 12) &&
	    (cwd[len - 12] == '\0' || cwd[len - 12] == '/'))
		shown = path + len - 11;
	ga_error_set("bad config line %d in file %s", line, shown);
	free(path);
	return GA_ERROR;
}

/*
 * Find the repository as git's setup does.  libgit2's own handling of
 * the environment differs from git's, so it is done here: GIT_DIR names
 * the repository (no discovery), and then the work tree is GIT_WORK_TREE,
 * core.worktree, or the current directory unless the repository is bare.
 */
static int open_repository(struct run *r)
{
	const char *gitdir = getenv("GIT_DIR");
	const char *worktree = getenv("GIT_WORK_TREE");
	int error;

	if (gitdir && *gitdir) {
		error = git_repository_open_ext(&r->repo, gitdir,
						GIT_REPOSITORY_OPEN_NO_SEARCH,
						NULL);
		if (error < 0 && git_error_last() &&
		    git_error_last()->klass == GIT_ERROR_CONFIG)
			return open_failed();
		if (error < 0)
			return ga_error_set("not a git repository: '%s'",
					    gitdir);
		if (worktree && *worktree)
			error = set_workdir(r->repo, worktree);
		else if (!git_repository_is_bare(r->repo) &&
			 !has_core_worktree(r->repo))
			error = set_workdir(r->repo, ".");
		else
			error = 0;
		if (error < 0)
			return error;
	} else {
		error = git_repository_open_ext(&r->repo, ".", 0,
				getenv("GIT_CEILING_DIRECTORIES"));
		if (error == GIT_ENOTFOUND) {
			/* Not in a repository: fine until one is needed. */
			r->repo = NULL;
			git_error_clear();
		} else if (error < 0) {
			return open_failed();
		} else if (worktree && *worktree &&
			   (error = set_workdir(r->repo, worktree)) < 0) {
			return error;
		}
	}
	r->cwd_prefix = compute_cwd_prefix(r->repo);
	return 0;
}

/* ---- -o ---- */

/*
 * The temporary -o file, for the signal handler: a run stopped by
 * SIGTERM (a pipeline's timeout), SIGINT or SIGHUP must not leave it
 * behind.  This is garchive's only mutable file-scope state, because a
 * handler can reach nothing else.
 */
static char *volatile signal_tmp;

static void remove_tmp_on_signal(int sig)
{
	char *tmp = signal_tmp;

	if (tmp)
		unlink(tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Catch the signals that end a run, unless they are ignored (nohup). */
static void watch_tmp(char *tmp)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
	size_t i;

	signal_tmp = tmp;
	for (i = 0; i < GA_ARRAY_SIZE(sigs); i++) {
		struct sigaction sa;

		if (sigaction(sigs[i], NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_DFL)
			signal(sigs[i], remove_tmp_on_signal);
	}
}

/*
 * Open the output.  A regular file (or a new one) is written through a
 * temporary file beside it; anything else that exists (a device, a
 * FIFO) is written directly, since it cannot be replaced by rename.
 */
static int output_open(struct output *o, const char *path, mode_t umask_bits)
{
	struct stat st;
	const char *slash;
	int fd;

	o->path = path;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd < 0)
			return ga_error_errno(errno, "could not open '%s' for "
					      "writing", path);
		o->fd = fd;
		return 0;
	}
	slash = strrchr(path, '/');
	if (slash)
		o->tmp = ga_xstrfmt("%.*s/.garchive-XXXXXX",
				    (int)(slash - path), path);
	else
		o->tmp = ga_xstrdup(".garchive-XXXXXX");
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		int err = errno;

		free(o->tmp);
		o->tmp = NULL;
		return ga_error_errno(err, "could not open '%s' for writing",
				      path);
	}
	/* mkstemp makes 0600; give what open(..., 0666) would have. */
	if (fchmod(fd, 0666 & ~umask_bits) < 0) {
		int err = errno;

		close(fd);
		unlink(o->tmp);
		return ga_error_errno(err, "could not open '%s' for writing",
				      path);
	}
	o->fd = fd;
	watch_tmp(o->tmp);
	return 0;
}

static int output_commit(struct output *o)
{
	int fd = o->fd;

	if (!o->path)
		return 0;
	o->fd = -1;
	if (close(fd) < 0)
		return ga_error_errno(errno, "write error");
	if (o->tmp) {
		if (rename(o->tmp, o->path) < 0)
			return ga_error_errno(errno, "unable to rename '%s' to "
					      "'%s'", o->tmp, o->path);
		signal_tmp = NULL;
		free(o->tmp);
		o->tmp = NULL;
	}
	return 0;
}

/* Remove what a failed run wrote; never leaves a partial -o file. */
static void output_abort(struct output *o)
{
	if (o->path && o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp) {
		unlink(o->tmp);
		signal_tmp = NULL;
		free(o->tmp);
		o->tmp = NULL;
	}
}

/* ---- the archive ---- */

/* A remote client is shown only the formats it may ask for. */
static void print_formats(const struct format_list *formats, int serving)
{
	size_t i;

	for (i = 0; i < formats->nr; i++)
		if (!serving || formats->items[i].remote)
			printf("%s\n", formats->items[i].name);
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
	struct sink *sink = NULL;
	int error;

	if ((error = filter_open_fd(&sink, fd)) < 0)
		return error;
	error = sink->write(sink, r->opts.completion,
			    strlen(r->opts.completion));
	sink->free(sink);
	return error;
}

static char *default_global_attributes(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg)
		return ga_xstrfmt("%s/git/attributes", xdg);
	if (home)
		return ga_xstrfmt("%s/.config/git/attributes", home);
	return NULL;
}

/* Expand a leading "~/" as git does for core.attributesFile. */
static char *expand_home(const char *path)
{
	const char *home = getenv("HOME");

	if (!strncmp(path, "~/", 2) && home)
		return ga_xstrfmt("%s%s", home, path + 1);
	return ga_xstrdup(path);
}

/* A boolean environment variable, parsed and refused as git does. */
static int env_bool(int *out, const char *name)
{
	const char *v = getenv(name);

	*out = 0;
	if (!v)
		return 0;
	return config_parse_bool(out, name, v);
}

/*
 * info/attributes as git names it in warnings: after its own $GIT_DIR,
 * which is GIT_DIR as given, ".git" from a work tree, nothing when run
 * in a bare repository's directory, else an absolute path.
 */
static char *info_attributes_name(struct run *r)
{
	const char *env = getenv("GIT_DIR");
	const char *common = git_repository_commondir(r->repo);
	const char *workdir = git_repository_workdir(r->repo);
	char cwd[PATH_MAX], real[PATH_MAX];
	size_t len;

	if (env && *env)
		return ga_xstrfmt("%s/info/attributes", env);
	if (git_repository_is_worktree(r->repo) ||
	    !getcwd(cwd, sizeof(cwd)) || !realpath(common, real))
		return NULL;
	if (!workdir)
		return !strcmp(cwd, real) ? ga_xstrdup("info/attributes")
					  : NULL;
	len = strlen(real);
	if (len > 5 && !strcmp(real + len - 5, "/.git") &&
	    !strncmp(cwd, real, len - 5) &&
	    (!cwd[len - 5] || cwd[len - 5] == '/'))
		return ga_xstrdup(".git/info/attributes");
	return NULL;
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
	const char *attrfile = NULL;
	const char *workdir = git_repository_workdir(r->repo);
	char top[PATH_MAX];
	int nosystem, error;

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

	/* Pathspecs want the top without a trailing slash, links resolved. */
	if (!realpath(workdir ? workdir : git_repository_path(r->repo), top))
		return ga_error_errno(errno, "unable to get the top directory");
	r->toplevel = ga_xstrdup(top);
	wo->toplevel = r->toplevel;
	wo->pathspec_env.bare = !workdir;

	if ((error = env_bool(&nosystem, "GIT_ATTR_NOSYSTEM")) < 0)
		return error;
	if (!nosystem)
		wo->attr_system_file = SYSTEM_ATTRIBUTES;
	if (config_get_string(&attrfile, r->config,
			      "core.attributesfile") == 0 && attrfile) {
		r->attr_global = expand_home(attrfile);
		/*
		 * git has changed to the top of the work tree and opens
		 * a relative name there; in a bare repository it stays
		 * where it was started.
		 */
		if (workdir && r->attr_global[0] != '/') {
			char *abs = ga_xstrfmt("%s/%s", top, r->attr_global);

			free(r->attr_global);
			r->attr_global = abs;
		}
	} else {
		r->attr_global = default_global_attributes();
	}
	wo->attr_global_file = r->attr_global;
	r->attr_info = ga_xstrfmt("%sinfo/attributes",
				  git_repository_commondir(r->repo));
	wo->attr_info_file = r->attr_info;
	r->attr_info_shown = info_attributes_name(r);
	wo->attr_info_file_shown = r->attr_info_shown;

	if ((error = env_bool(&wo->pathspec_env.literal,
			      "GIT_LITERAL_PATHSPECS")) < 0 ||
	    (error = env_bool(&wo->pathspec_env.glob,
			      "GIT_GLOB_PATHSPECS")) < 0 ||
	    (error = env_bool(&wo->pathspec_env.noglob,
			      "GIT_NOGLOB_PATHSPECS")) < 0 ||
	    (error = env_bool(&wo->pathspec_env.icase,
			      "GIT_ICASE_PATHSPECS")) < 0)
		return error;
	return 0;
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
	}
	return error == GA_ITEROVER ? 0 : error;
}

static int write_archive(struct run *r)
{
	const struct format *fmt = r->opts.format;
	struct treeish_options to = { 0 };
	struct walk_options wo;
	struct archive_args args;
	struct filter_spec filter;
	char commit_hex[GA_OID_MAX_HEXSZ + 1];
	int error;

	to.name = r->opts.treeish;
	to.cwd_prefix = r->cwd_prefix;
	to.mtime = r->opts.mtime;
	to.remote = r->serving;
	to.allow_unreachable = r->allow_unreachable;
	if ((error = treeish_resolve(&r->treeish, r->repo, &to)) < 0)
		return error;

	if ((error = resolve_threads(r)) < 0 ||
	    (error = fill_walk_options(r, &wo)) < 0)
		return error;
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
	if ((error = write_entries(r)) < 0 ||
	    (error = r->writer->finish(r->writer)) < 0)
		return error;
	return r->sink->finish(r->sink);
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
	if (r->opts.list) {
		print_formats(&r->formats, r->serving);
		return 0;
	}
	/* cli refuses these already; never serve a local-only format. */
	if (r->serving && !r->opts.format->remote)
		return ga_error_set("Unknown archive format '%s'",
				    r->opts.format->name);
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
	if ((error = remote_enter_repo(&r->repo, r->global.argv[1])) < 0)
		return error;
	r->cwd_prefix = ga_xstrdup("");
	if ((error = load_settings(r, umask_bits)) < 0)
		return error;
	if ((error = remote_read_arguments(&r->sent_args, &r->nr_sent_args,
					   0)) < 0)
		return error;

	/*
	 * What pass 1 would leave for pass 2, with nothing taken out; the
	 * options own their copies, as after cli_parse_pass1().
	 */
	r->serving = 1;
	r->opts.level = -1;
	r->opts.pass1_args = ga_xcalloc(r->nr_sent_args + 1, sizeof(char *));
	for (i = 0; i < r->nr_sent_args; i++)
		r->opts.pass1_args[i] = ga_xstrdup(r->sent_args[i]);
	r->opts.nr_pass1_args = r->nr_sent_args;
	return archive_from_options(r);
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

static void run_release(struct run *r)
{
	if (r->writer)
		r->writer->free(r->writer);
	if (r->sink)
		r->sink->free(r->sink);
	walk_free(r->walk);
	treeish_release(&r->treeish);
	format_list_release(&r->formats);
	config_free(r->config);
	git_repository_free(r->repo);
	cli_options_release(&r->opts);
	cli_global_release(&r->global);
	free(r->cwd_prefix);
	free(r->output_path);
	free(r->attr_global);
	free(r->attr_info);
	free(r->attr_info_shown);
	free(r->toplevel);
	remote_free_arguments(r->sent_args, r->nr_sent_args);
}

/*
 * `garchive help` and `--help` show the manual with man(1), as `git help`
 * does.  Run from its build tree, garchive shows the page beside it
 * (man -l), the one that matches the binary.  Installed, it puts its own
 * <prefix>/share/man in front of MANPATH, as git does with its mandir,
 * so `man garchive` finds the page whatever the prefix; the trailing
 * colon keeps man's usual search path after it.  Returns only on failure,
 * with git's messages.
 */
static int show_manual(const char *argv0)
{
	const char *old_manpath = getenv("MANPATH");
	char exe[PATH_MAX], mandir[PATH_MAX], *slash, *path = NULL;
	char *manpath = NULL;
	int err;

	if (!realpath("/proc/self/exe", exe) &&
	    !(argv0 && strchr(argv0, '/') && realpath(argv0, exe)))
		exe[0] = '\0';
	/* main ignores SIGPIPE; man and its pager must not inherit that. */
	signal(SIGPIPE, SIG_DFL);
	slash = strrchr(exe, '/');
	if (slash) {
		*slash = '\0';
		path = ga_xstrfmt("%s/Documentation/garchive.1", exe);
		if (access(path, R_OK) == 0) {
			execlp("man", "man", "-l", path, (char *)NULL);
			goto failed;
		}
		free(path);
		path = ga_xstrfmt("%s/../share/man", exe);
		if (realpath(path, mandir)) {
			free(path);
			path = ga_xstrfmt("%s/man1/garchive.1", mandir);
			if (access(path, R_OK) == 0) {
				manpath = ga_xstrfmt("%s:%s", mandir,
					old_manpath ? old_manpath : "");
				setenv("MANPATH", manpath, 1);
			}
		}
	}
	execlp("man", "man", "garchive", (char *)NULL);
failed:
	err = errno;
	free(path);
	free(manpath);
	signal(SIGPIPE, SIG_IGN);
	ga_warning("failed to exec 'man': %s", strerror(err));
	return ga_error_set("no man viewer handled the request");
}

/*
 * "garchive --version", and with --build-options (as git's) what the
 * bytes depend on: the zlib the in-process deflaters link against.
 */
static void print_version(const struct cli_global *g)
{
	int major, minor, rev, i;

	printf("garchive version %s\n", GARCHIVE_VERSION);
	for (i = 1; i < g->argc; i++) {
		if (strcmp(g->argv[i], "--build-options"))
			continue;
		git_libgit2_version(&major, &minor, &rev);
		printf("libgit2: %d.%d.%d\n", major, minor, rev);
		printf("zlib: %s\n", zlibVersion());
		break;
	}
}

/*
 * Print the stored error as git would and return git's exit status.
 * `usage` replaces git archive's usage text for other subcommands.
 */
static int report_failure(int code, const char *usage)
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
	default:
		diagnose("fatal: ", *msg ? msg : "unknown error");
		return 128;
	}
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
		r.global.argc = argc;
		r.global.argv = argv;
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
			print_version(&r.global);
			break;
		case CLI_HELP:
			error = show_manual(argc > 0 ? argv[0] : NULL);
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
		case CLI_GZIP:
			error = run_gzip(&r);
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

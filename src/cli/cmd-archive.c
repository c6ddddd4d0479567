/*
 * cmd-archive.c: `garchive [archive]`, git archive itself: the two
 * passes over the command line, -o, --list, --remote, and the pipeline
 *
 *	treeish -> walk -> tar|zip -> sink
 *
 * that a local run and the writer serving a remote client share.
 */
#include "run.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "garchive/remote.h"
#include "garchive/sink.h"
#include "git-version.h"
#include "progress.h"
#include "promisor.h"
#include "rawtree.h"
#include "safedir.h"
#include "submodule.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/*
 * Whether the git garchive follows (git-version.h) is at least
 * major.minor.patch: 1, 0, or an error.  Asked of the run's settings.
 */
static int follows_git_at_least(struct run *r, int major, int minor,
				int patch)
{
	r->followed.cfg = r->config;
	return git_version_at_least(&r->followed, major, minor, patch);
}

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
int run_resolve_threads(struct run *r)
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
		return config_bad_number("garchive.threads", s, 1);
	}
	r->opts.threads = (int)v;
	return 0;
}

int run_fill_walk_options(struct run *r, struct walk_options *wo)
{
	memset(wo, 0, sizeof(*wo));
	wo->treeish = &r->treeish;
	wo->config = r->config;
	wo->prefix = r->opts.prefix ? r->opts.prefix : "";
	wo->cwd_prefix = r->cwd_prefix;
	if (r->treeish_keep_prefix)
		wo->cwd_base = r->cwd_prefix;
	wo->pathspecs = r->opts.pathspecs;
	wo->nr_pathspecs = r->opts.nr_pathspecs;
	wo->extras = r->opts.extras;
	wo->nr_extras = r->opts.nr_extras;
	wo->worktree_attributes = r->opts.worktree_attributes;
	wo->threads = r->opts.threads;
	/* The later stages say what they need of the walk. */
	sink_walk_needs(&r->opts.format->sink, wo);
	if (r->opts.format->writer == FORMAT_ZIP)
		zip_walk_needs(wo, r->opts.verbose);
	else
		tar_walk_needs(wo);
	return walk_env_load(&r->walk_env, wo, r->repo, r->config);
}

void run_fill_archive_args(struct run *r, struct archive_args *args,
			   char *commit_hex)
{
	time_t t;

	memset(args, 0, sizeof(*args));
	args->mtime = r->treeish.mtime;
	if (r->treeish.commit) {
		ga_oid_fmt(commit_hex, &r->treeish.commit_id);
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
void run_start_progress(struct run *r, int setting, const char *title,
			int out_fd)
{
	git_odb *odb = NULL;
	uint64_t total = 0;

	if (r->serving || (setting < 0 && r->opts.verbose) ||
	    !progress_wanted(setting, out_fd))
		return;
	/* Submodules are counted as they come, like pathspecs' matches. */
	if (r->treeish.no_subtree)
		total = r->opts.nr_extras;
	else if (!r->opts.nr_pathspecs && !r->opts.recurse_submodules &&
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
void run_count_entry(struct run *r, const struct archive_entry *entry)
{
	if (!r->progress)
		return;
	if (entry->mode != ARCHIVE_MODE_DIR)
		r->files++;
	r->bytes += entry->size;
	progress_update(r->progress, r->files, r->bytes);
}

void run_finish_progress(struct run *r)
{
	progress_done(r->progress, r->files, r->bytes);
	r->progress = NULL;
}

static int write_entries(struct run *r, const struct run_pipeline *p)
{
	struct archive_entry *entry;
	int error;

	while ((error = walk_next(&entry, r->walk)) == 0) {
		if (r->opts.verbose && !entry->is_extra)
			fprintf(stderr, "%.*s\n", (int)entry->path_len,
				entry->path);
		if (p->before)
			p->before(p->payload, entry);
		error = r->writer->add(r->writer, entry);
		if (p->after)
			p->after(p->payload, entry);
		if (error < 0)
			return error;
		run_count_entry(r, entry);
	}
	if (error == GA_ITEROVER)
		return 0;
	/*
	 * Write what git has written when it meets the same entry, so that
	 * the output is git's as far as git got.  git writes those bytes
	 * before it reads the entry: a write that fails is its failure.
	 */
	if (r->writer->abandon) {
		int werror = r->writer->abandon(r->writer);

		if (werror < 0)
			return werror;
	}
	return error;
}

int run_write_pipeline(struct run *r, struct sink *sink,
		       const struct archive_args *args,
		       const struct run_pipeline *p)
{
	int error;

	if (r->opts.format->writer == FORMAT_ZIP)
		error = zip_writer_new(&r->writer, sink, args);
	else
		error = tar_writer_new(&r->writer, sink, args);
	if (error < 0)
		return error;
	run_start_progress(r, p->progress, p->title, p->progress_fd);
	if ((error = write_entries(r, p)) < 0 ||
	    (error = r->writer->finish(r->writer)) < 0 ||
	    (error = sink->finish(sink)) < 0)
		return error;
	run_finish_progress(r);
	return 0;
}

int run_resolve_treeish(struct run *r)
{
	struct treeish_options to = { 0 };

	to.name = r->opts.treeish;
	to.cwd_prefix = r->cwd_prefix;
	to.mtime = r->opts.mtime;
	to.source_date_epoch = getenv("SOURCE_DATE_EPOCH");
	to.remote = r->serving;
	to.allow_unreachable = r->allow_unreachable;
	to.config = r->config;
	/*
	 * Run from a subdirectory, git 2.41 and later (92b1dd1b9e) keep
	 * the prefix for pathspecs and attributes; 2.39 archived the
	 * subtree as if it were the whole tree.  garchive does as the git
	 * it follows, and asks which only in this case.
	 */
	if (*r->cwd_prefix) {
		int newer = follows_git_at_least(r, 2, 41, 0);

		if (newer < 0)
			return newer;
		to.keep_prefix = newer;
	}
	r->treeish_keep_prefix = to.keep_prefix;
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
	struct run_pipeline pipeline = { NULL, NULL, NULL, r->opts.progress,
					 "Writing archive", r->out.fd };
	struct walk_options wo;
	struct archive_args args;
	struct sink_spec spec;
	char commit_hex[GA_OID_MAX_HEXSZ + 1];
	int error;

	if ((error = run_resolve_treeish(r)) < 0)
		return error;
	if ((error = run_resolve_threads(r)) < 0 ||
	    (error = run_fill_walk_options(r, &wo)) < 0)
		return error;
	if (r->opts.recurse_submodules)
		wo.submodules = open_submodules(r);
	/* A partial clone: the blobs it lacks, in one fetch, as git. */
	if (!r->treeish.no_subtree &&
	    (error = promisor_prefetch_tree(r->repo, r->config,
					    &r->treeish.tree_id)) < 0)
		return error;
	if ((error = walk_new(&r->walk, r->repo, &wo)) < 0)
		return error;

	run_fill_archive_args(r, &args, commit_hex);
	spec = fmt->sink;
	spec.threads = r->opts.threads;
	if ((error = sink_open(&r->sink, &spec, r->opts.level,
				 r->out.fd)) < 0)
		return error;
	return run_write_pipeline(r, r->sink, &args, &pipeline);
}

/*
 * git 2.43 and later read attr.tree with the rest of the core settings,
 * before the arguments, and die on one without a value.
 */
static int attr_tree_valued(const struct config_entry *e, void *payload)
{
	(void)payload;
	if (!strcmp(e->name, "attr.tree") && !e->value)
		return config_error_nonbool(e);
	return 0;
}

/*
 * --list with a positional argument: git 2.43.1 and later (d6b6cd1393)
 * refuse it, git 2.39 lists the formats and ignores it.  garchive does
 * as the git it follows.
 */
static int refuse_list_extra(struct run *r)
{
	int newer = follows_git_at_least(r, 2, 43, 1);

	if (newer < 0)
		return newer;
	if (newer)
		return ga_error_set("extra command line parameter '%s'",
				    r->opts.list_extra);
	return 0;
}

/*
 * Pass 2, git's checks and the archive itself: the part a local run
 * and the writer serving a remote client have in common.
 */
int run_archive_from_options(struct run *r)
{
	int error;

	/* git reads this before parsing anything: a bad value stops all. */
	error = config_get_bool(&r->allow_unreachable, r->config,
				"uploadarchive.allowunreachable");
	if (error == GA_ENOTFOUND)
		r->allow_unreachable = 0;
	else if (error < 0)
		return error;

	if ((error = config_foreach_entry(r->config, attr_tree_valued,
					  NULL)) < 0)
		return error;

	if ((error = cli_parse_archive(&r->opts, &r->formats, r->cwd_prefix,
				       r->serving)) < 0)
		return error;
	if (r->opts.completion)
		return print_completion(r, r->out.fd);
	if (r->opts.list && r->opts.list_extra &&
	    (error = refuse_list_extra(r)) < 0)
		return error;
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

/*
 * An empty -o/--output=: git 2.47 and later (cf8c4237eb) take it as no
 * -o at all and write to standard output; git 2.39 fails to open '', or
 * in a subdirectory the subdirectory itself (the prefix plus nothing,
 * from the top).  garchive does as the git it follows, and asks which
 * only here.
 */
static int empty_output(struct run *r)
{
	int newer = follows_git_at_least(r, 2, 47, 0);

	if (newer < 0)
		return newer;
	if (newer) {
		free(r->opts.output);
		r->opts.output = NULL;
	} else if (*r->cwd_prefix) {
		return ga_error_errno(EISDIR, "could not open '%s' for writing",
				      r->cwd_prefix);
	}
	return 0;
}

int cmd_archive(struct run *r)
{
	mode_t umask_bits = umask(0);
	int error;

	umask(umask_bits);
	if ((error = run_open_repository(r)) < 0)
		return error;
	if ((error = run_load_settings(r, umask_bits)) < 0)
		return error;
	if ((error = cli_parse_pass1(&r->opts, r->global.argc,
				     r->global.argv)) < 0)
		return error;
	if (r->opts.completion)
		return print_completion(r, 1);

	if (r->opts.output && !*r->opts.output &&
	    (error = empty_output(r)) < 0)
		return error;
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
	return run_archive_from_options(r);
}

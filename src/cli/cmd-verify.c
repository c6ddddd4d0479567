/*
 * cmd-verify.c: `garchive verify`: the expected archive, written by the
 * same steps as a local run (cmd-archive.c) into verify's digests, then
 * the file read and compared (src/verify).
 */
#include "run.h"
#include "garchive/common.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * The archive verify compares with, written as a local run would but
 * into verify's digests: the tree-ish is resolved here, verify decides
 * the prefix, time and umask from the file, and each entry passes
 * verify's hooks on its way to the writer.
 */
static void expect_entry(void *payload, struct archive_entry *entry)
{
	verify_expect_entry(payload, entry);
}

static void expect_done(void *payload, struct archive_entry *entry)
{
	verify_expect_done(payload, entry);
}

static int write_expected(struct run *r, const char *name)
{
	struct run_pipeline pipeline = { expect_entry, expect_done, NULL, 0,
					 "Writing expected archive", -1 };
	struct verify_plan plan;
	struct walk_options wo;
	struct archive_args args;
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
	if ((error = run_resolve_treeish(r)) < 0)
		return error;

	run_fill_archive_args(r, &args, commit_hex);
	memset(&plan, 0, sizeof(plan));
	plan.treeish_name = name;
	plan.tree_id = &r->treeish.tree_id;
	plan.commit_hex = args.commit_hex;
	plan.default_mtime = r->treeish.mtime;
	plan.repo = r->repo;
	if ((error = verify_prepare(r->verify, &plan, &args, &prefix)) < 0)
		return error;
	r->opts.prefix = ga_xstrdup(prefix);

	if ((error = run_resolve_threads(r)) < 0 ||
	    (error = run_fill_walk_options(r, &wo)) < 0)
		return error;
	/* Every entry's content passes verify's hooks: none deferred. */
	wo.defer_above = 0;
	if ((error = walk_new(&r->walk, r->repo, &wo)) < 0)
		return error;
	/* verify's answer comes after the meters: they share a terminal. */
	pipeline.progress = r->vopts.progress;
	pipeline.payload = r->verify;
	return run_write_pipeline(r, verify_expect_sink(r->verify), &args,
				  &pipeline);
}

/*
 * garchive verify <file> [<tree-ish> [<path>...]]: exit 0 when the file
 * holds what the tree-ish gives (identical, or with other compression
 * or other archive bytes), 1 when it does not.  It compares with the
 * whole tree-ish wherever it runs (a local archive run from a
 * subdirectory archives only that), with pathspecs from the top.
 */
int cmd_verify(struct run *r)
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
	if ((error = run_open_repository(r)) < 0 ||
	    (error = run_load_settings(r, umask_bits)) < 0)
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

/*
 * run.c: what several commands do with a run: find the repository, read
 * the configuration and the formats, ask for a command's usage, and
 * release everything a run owns, in one place.
 */
#include "run.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "garchive/remote.h"
#include "progress.h"
#include "setup.h"
#include "submodule.h"

#include <stdlib.h>
#include <string.h>

/* The repository we run in, if any: see setup.h. */
int run_open_repository(struct run *r)
{
	return setup_repository(&r->repo, &r->cwd_prefix, &r->dubious,
				(const char *const *)r->global.config,
				r->global.nr_config);
}

/* The configuration and the format table, read once per run. */
int run_load_settings(struct run *r, mode_t umask_bits)
{
	int error;

	if ((error = config_load(&r->config, r->repo,
				 (const char *const *)r->global.config,
				 r->global.nr_config)) < 0)
		return error;
	return format_list_load(&r->formats, r->config,
				(unsigned int)umask_bits);
}

int run_usage(struct run *r, const char *usage)
{
	r->usage = usage;
	return ga_error_usage(GA_USAGE_STDERR, NULL);
}

/*
 * git 2.49's show_usage_if_asked(): a lone -h or --help-all asks for
 * the usage, which then goes to stdout (status 129 all the same);
 * git 2.39 printed it on stderr like any other usage error.
 */
int run_usage_if_asked(struct run *r, const char *usage)
{
	const char *arg = r->global.argc == 2 ? r->global.argv[1] : NULL;

	if (!arg || (strcmp(arg, "-h") && strcmp(arg, "--help-all")))
		return 0;
	r->usage = usage;
	return ga_error_usage(GA_USAGE_STDOUT, NULL);
}

void run_release(struct run *r)
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

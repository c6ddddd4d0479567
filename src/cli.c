/*
 * cli.c: placeholder parser for the most common options; replaced by
 * the parse-options compatible parser.
 */
#include "garchive/cli.h"
#include "garchive/common.h"
#include "garchive/format.h"

#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: git archive [<options>] <tree-ish> [<path>...]\n";

const char *cli_usage(void)
{
	return usage_text;
}

int cli_parse_global(struct cli_global *out, int argc, char **argv)
{
	memset(out, 0, sizeof(*out));
	out->command = CLI_ARCHIVE;
	out->argc = argc;
	out->argv = argv;
	if (argc > 1 && !strcmp(argv[1], "--version"))
		out->command = CLI_VERSION;
	else if (argc > 1 && !strcmp(argv[1], "upload-archive"))
		out->command = CLI_UPLOAD_ARCHIVE;
	else if (argc > 1 && !strcmp(argv[1], "upload-archive--writer"))
		out->command = CLI_UPLOAD_ARCHIVE_WRITER;
	else if (argc > 1 && !strcmp(argv[1], "get-tar-commit-id"))
		out->command = CLI_GET_TAR_COMMIT_ID;
	/* A subcommand's argv[0] is its own name. */
	if (out->command != CLI_ARCHIVE && out->command != CLI_VERSION) {
		out->argc = argc - 1;
		out->argv = argv + 1;
	}
	return 0;
}

void cli_global_release(struct cli_global *g)
{
	free(g->config);
}

int cli_parse_pass1(struct archive_options *opts, int argc, char **argv)
{
	int i;

	opts->level = -1;
	opts->pass1_args = ga_xcalloc((size_t)argc, sizeof(char *));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			opts->output = ga_xstrdup(argv[++i]);
		else if (!strncmp(argv[i], "--output=", 9))
			opts->output = ga_xstrdup(argv[i] + 9);
		else if (!strcmp(argv[i], "--remote") && i + 1 < argc)
			opts->remote = ga_xstrdup(argv[++i]);
		else if (!strncmp(argv[i], "--remote=", 9))
			opts->remote = ga_xstrdup(argv[i] + 9);
		else if (!strcmp(argv[i], "--exec") && i + 1 < argc)
			opts->exec = ga_xstrdup(argv[++i]);
		else if (!strncmp(argv[i], "--exec=", 7))
			opts->exec = ga_xstrdup(argv[i] + 7);
		else
			opts->pass1_args[opts->nr_pass1_args++] = argv[i];
	}
	return 0;
}

int cli_parse_archive(struct archive_options *opts,
		      const struct format_list *formats,
		      const char *cwd_prefix, int remote)
{
	const char *format = NULL;
	size_t i;

	(void)cwd_prefix, (void)remote;
	opts->pathspecs = ga_xcalloc(opts->nr_pass1_args + 1, sizeof(char *));
	opts->prefix = ga_xstrdup("");
	for (i = 0; i < opts->nr_pass1_args; i++) {
		char *a = opts->pass1_args[i];

		if (!strncmp(a, "--format=", 9))
			format = a + 9;
		else if (!strncmp(a, "--prefix=", 9)) {
			free(opts->prefix);
			opts->prefix = ga_xstrdup(a + 9);
		} else if (!strcmp(a, "-v"))
			opts->verbose = 1;
		else if (!strcmp(a, "-l") || !strcmp(a, "--list"))
			opts->list = 1;
		else if (!strncmp(a, "--mtime=", 8))
			opts->mtime = ga_xstrdup(a + 8);
		else if (!opts->treeish)
			opts->treeish = ga_xstrdup(a);
		else
			opts->pathspecs[opts->nr_pathspecs++] = ga_xstrdup(a);
	}
	if (opts->list)
		return 0;
	if (!format && opts->output) {
		const struct format *f = format_infer(formats, opts->output);

		format = f ? f->name : NULL;
	}
	if (!format)
		format = "tar";
	if (!opts->treeish)
		return ga_error_usage(GA_USAGE_STDERR, NULL);
	opts->format = format_lookup(formats, format);
	if (!opts->format)
		return ga_error_set("Unknown archive format '%s'", format);
	return format_check_level(opts->format, opts->level);
}

void cli_options_release(struct archive_options *opts)
{
	size_t i;

	free(opts->output);
	free(opts->remote);
	free(opts->exec);
	free(opts->pass1_args);
	free(opts->prefix);
	free(opts->mtime);
	free(opts->treeish);
	for (i = 0; i < opts->nr_pathspecs; i++)
		free(opts->pathspecs[i]);
	free(opts->pathspecs);
}

/*
 * Fuzz the command line: git's parse-options rules for both passes
 * (abbreviations, --no-*, clusters, -NUM, `--`, --add-file,
 * --add-virtual-file, format inference from -o).  The input is argv,
 * split at NUL bytes; the first byte picks the subdirectory we pretend
 * to run in and whether to parse as an upload-archive server.
 */
#include "fuzz.h"

#include "garchive/cli.h"
#include "garchive/format.h"

static struct format table[] = {
	{ "tar", FORMAT_TAR, { SINK_NONE, NULL, 0 }, 1 },
	{ "tgz", FORMAT_TAR, { SINK_GZIP, NULL, 0 }, 1 },
	{ "tar.gz", FORMAT_TAR, { SINK_GZIP, NULL, 0 }, 1 },
	{ "tar.xz", FORMAT_TAR, { SINK_COMMAND, "xz -c", 0 }, 0 },
	{ "zip", FORMAT_ZIP, { SINK_NONE, NULL, 0 }, 1 },
};

static void check_options(const struct archive_options *o)
{
	size_t i;

	if (o->list || o->completion)
		return;
	FUZZ_CHECK(o->format != NULL);
	FUZZ_CHECK(o->treeish != NULL);
	/*
	 * No check of the level: git narrows -NUM to an int, and a wrapped
	 * negative value goes on to the filter command or to the zip
	 * writer, which refuse it with git's messages later.
	 */
	for (i = 0; i < o->nr_pathspecs; i++)
		FUZZ_CHECK(o->pathspecs[i] != NULL);
	for (i = 0; i < o->nr_extras; i++) {
		FUZZ_CHECK(o->extras[i].path != NULL);
		FUZZ_CHECK(o->extras[i].disk_path || o->extras[i].content);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct format_list formats = { table, GA_ARRAY_SIZE(table), 0, 002 };
	struct cli_global global;
	struct archive_options opts;
	char **args, *block, **argv;
	const char *cwd_prefix;
	size_t n, i;
	int flags, error;

	if (!size)
		return 0;
	flags = data[0];
	cwd_prefix = flags & 1 ? "sub/dir/" : "";
	n = fuzz_split(&args, &block, data + 1, size - 1, '\0', 64);
	argv = ga_xcalloc(n + 2, sizeof(*argv));
	argv[0] = "garchive";
	for (i = 0; i < n; i++)
		argv[i + 1] = args[i];

	memset(&global, 0, sizeof(global));
	memset(&opts, 0, sizeof(opts));
	error = cli_parse_global(&global, (int)n + 1, argv);
	if (!error && global.command == CLI_ARCHIVE) {
		error = cli_parse_pass1(&opts, global.argc, global.argv);
		if (!error && !opts.completion) {
			error = cli_parse_archive(&opts, &formats, cwd_prefix,
						  flags & 2 ? 1 : 0);
			if (!error)
				check_options(&opts);
		}
		cli_options_release(&opts);
	}
	FUZZ_CHECK(error == 0 || error == GA_ERROR || error == GA_EUSAGE);
	FUZZ_CHECK(error == 0 || *ga_error_message() ||
		   error == GA_EUSAGE);
	cli_global_release(&global);
	ga_error_clear();
	free(argv);
	free(args);
	free(block);
	return 0;
}

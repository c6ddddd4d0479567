/*
 * Fuzz --add-virtual-file's argument: git's C-style quoted path
 * ("a\tb":content), the colon that ends an unquoted path, the errors
 * (unclosed quote, missing colon, empty file name).  The parser is
 * static in cli.c, so it is driven through cli_parse_archive() with the
 * input as the option's value (one argument, which pass 1 keeps), with
 * and without --prefix.
 */
#include "fuzz.h"

#include "garchive/cli.h"
#include "garchive/format.h"

static struct format table[] = {
	{ "tar", FORMAT_TAR, { SINK_NONE, NULL, 0 }, 1 },
	{ "zip", FORMAT_ZIP, { SINK_NONE, NULL, 0 }, 1 },
};

static void parse(const char *arg, const char *prefix, size_t arg_len)
{
	struct format_list formats = { table, GA_ARRAY_SIZE(table), 0, 002 };
	struct archive_options opts;
	char *argv[6], *opt = ga_xstrfmt("--add-virtual-file=%s", arg);
	int argc = 0, error;

	argv[argc++] = "archive";
	if (prefix)
		argv[argc++] = (char *)prefix;
	argv[argc++] = opt;
	argv[argc++] = "HEAD";
	argv[argc] = NULL;

	memset(&opts, 0, sizeof(opts));
	error = cli_parse_pass1(&opts, argc, argv);
	FUZZ_CHECK(error == 0);
	error = cli_parse_archive(&opts, &formats, "", 0);
	if (!error) {
		const struct extra_file *x;

		FUZZ_CHECK(opts.nr_extras == 1);
		x = &opts.extras[0];
		/*
		 * The path may still be empty as a C string: a quoted
		 * "\000..." ends it at once, and git writes such a member
		 * with an empty name too (byte for byte the same).
		 */
		FUZZ_CHECK(x->path != NULL);
		FUZZ_CHECK(!x->disk_path);
		/* The content is the tail of the argument, unchanged. */
		FUZZ_CHECK(x->content_len < arg_len);
		FUZZ_CHECK(!memcmp(x->content,
				   arg + arg_len - x->content_len,
				   x->content_len));
		FUZZ_CHECK(arg[arg_len - x->content_len - 1] == ':');
	} else {
		FUZZ_CHECK(error == GA_ERROR);
		FUZZ_CHECK(*ga_error_message());
	}
	cli_options_release(&opts);
	ga_error_clear();
	free(opt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *arg = fuzz_cstr(data, size);
	size_t len = strlen(arg);

	parse(arg, NULL, len);
	parse(arg, "--prefix=pre/", len);
	free(arg);
	return 0;
}

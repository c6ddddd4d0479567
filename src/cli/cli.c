/*
 * cli.c: git archive's command line, as git 2.39 parses it.
 *
 * git parses `git archive` twice with its parse-options machinery.  The
 * builtin wrapper (pass 1) knows only -o/--output, --remote and --exec,
 * keeps everything else, and never abbreviates; archive.c (pass 2) then
 * parses what is left with the full option table.  Each quirk of
 * parse-options shows in the messages and exit codes users see, so the
 * same algorithm is implemented once (parse-options.c, driven by a table
 * of struct optspec) and this file runs it with each pass's table and
 * flags.
 */
#include "garchive/cli.h"
#include "garchive/common.h"
#include "garchive/format.h"
#include "garchive/verify.h"
#include "parse-options.h"
#include "quote.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * git archive's usage text.  A local run shows it with garchive's name
 * and then garchive's own options; the server of --remote shows git's,
 * as git's server does.  t/unit/cli.c compares it with what git prints.
 */
#define USAGE_LINES(cmd) \
	"usage: " cmd " [<options>] <tree-ish> [<path>...]\n" \
	"   or: " cmd " --list\n" \
	"   or: " cmd " --remote <repo> [--exec <cmd>] [<options>]" \
	" <tree-ish> [<path>...]\n" \
	"   or: " cmd " --remote <repo> [--exec <cmd>] --list\n"

#define USAGE_OPTIONS \
	"\n" \
	"    --format <fmt>        archive format\n" \
	"    --prefix <prefix>     prepend prefix to each pathname in the" \
	" archive\n" \
	"    --add-file <file>     add untracked file to archive\n" \
	"    --add-virtual-file <path:content>\n" \
	"                          add untracked file to archive\n" \
	"    -o, --output <file>   write the archive to this file\n" \
	"    --worktree-attributes\n" \
	"                          read .gitattributes in working directory\n" \
	"    -v, --verbose         report archived files on stderr\n" \
	"    -NUM                  set compression level\n" \
	"\n" \
	"    -l, --list            list supported archive formats\n" \
	"\n" \
	"    --remote <repo>       retrieve the archive from remote repository" \
	" <repo>\n" \
	"    --exec <command>      path to the remote git-upload-archive" \
	" command\n" \
	"\n"

static const char git_usage_text[] = USAGE_LINES("git archive") USAGE_OPTIONS;

static const char usage_text[] =
	USAGE_LINES("garchive") USAGE_OPTIONS
	"garchive's own options (-c first, --version and --help alone):\n"
	"    -c <name>=<value>     set a configuration variable for this run\n"
	"    --mtime <time>        modification time of the entries (a tree's:"
	" now)\n"
	"    --threads <n>         threads that read and compress (0: one per"
	" CPU)\n"
	"    --progress            show progress on standard error (a terminal:"
	" on)\n"
	"    --recurse-submodules[=skip-missing]\n"
	"                          archive submodules' trees in place\n"
	"    --version [--build-options]\n"
	"                          show the version, and the libraries'\n"
	"    --help                show the manual page\n"
	"\n"
	"   or: garchive upload-archive <repository>\n"
	"   or: garchive get-tar-commit-id <archive.tar\n"
	"   or: garchive verify [<options>] <file> [<tree-ish> [<path>...]]\n"
	"   or: garchive gzip [<options>] [<file>...]\n"
	"   or: garchive http-backend   (a CGI program, see REMOTE in the "
	"manual)\n"
	"\n";

/*
 * What git's --git-completion-helper prints for each pass.  The second
 * starts with a space because git's table starts with an OPT_GROUP.
 * garchive's extensions are left out, as they are from the usage.
 */
static const char completion_pass1[] =
	"--output= --remote= --exec= --no-output -- --no-remote --no-exec\n";
static const char completion_pass2[] =
	" --format= --prefix= --add-file= --add-virtual-file= --output="
	" --worktree-attributes --verbose --list --remote= --exec="
	" --no-format -- --no-prefix --no-add-file --no-add-virtual-file"
	" --no-output --no-worktree-attributes --no-verbose --no-list"
	" --no-remote --no-exec\n";

enum opt_id {
	OPT_ID_FORMAT,
	OPT_ID_PREFIX,
	OPT_ID_ADD_FILE,
	OPT_ID_ADD_VIRTUAL_FILE,
	OPT_ID_OUTPUT,
	OPT_ID_WORKTREE_ATTRIBUTES,
	OPT_ID_VERBOSE,
	OPT_ID_NUMBER,
	OPT_ID_LIST,
	OPT_ID_REMOTE,
	OPT_ID_EXEC,
	OPT_ID_MTIME,
	OPT_ID_THREADS,
	OPT_ID_DIGEST,
	OPT_ID_PROGRESS,
	OPT_ID_RECURSE_SUBMODULES
};

/* builtin/archive.c's local_opts. */
static const struct optspec pass1_options[] = {
	{ OPT_ID_OUTPUT, 'o', "output", KIND_STRING, 0 },
	{ OPT_ID_REMOTE, 0, "remote", KIND_STRING, 0 },
	{ OPT_ID_EXEC, 0, "exec", KIND_STRING, 0 },
};

/*
 * archive.c's table, in git's order, which decides which two names an
 * "ambiguous option" message shows (the last two candidates).  The
 * extensions come first and cannot be negated, so they never change
 * one of git's messages: no git option shares a prefix with them, and
 * only the empty prefix of `--=x` matches everything.
 */
static const struct optspec pass2_options[] = {
	{ OPT_ID_MTIME, 0, "mtime", KIND_STRING, OPTF_NONEG | OPTF_EXT },
	{ OPT_ID_THREADS, 0, "threads", KIND_INTEGER, OPTF_NONEG | OPTF_EXT },
	{ OPT_ID_PROGRESS, 0, "progress", KIND_BOOL,
	  OPTF_NOARG | OPTF_EXT | OPTF_EXACT | OPTF_LOCAL },
	{ OPT_ID_RECURSE_SUBMODULES, 0, "recurse-submodules", KIND_OPTARG,
	  OPTF_EXT | OPTF_EXACT | OPTF_LOCAL },
	{ OPT_ID_FORMAT, 0, "format", KIND_STRING, 0 },
	{ OPT_ID_PREFIX, 0, "prefix", KIND_STRING, 0 },
	{ OPT_ID_ADD_FILE, 0, "add-file", KIND_CALLBACK, 0 },
	{ OPT_ID_ADD_VIRTUAL_FILE, 0, "add-virtual-file", KIND_CALLBACK, 0 },
	{ OPT_ID_OUTPUT, 'o', "output", KIND_STRING, 0 },
	{ OPT_ID_WORKTREE_ATTRIBUTES, 0, "worktree-attributes", KIND_BOOL,
	  OPTF_NOARG },
	{ OPT_ID_VERBOSE, 'v', "verbose", KIND_COUNTUP, OPTF_NOARG },
	{ OPT_ID_NUMBER, 0, NULL, KIND_NUMBER, OPTF_NOARG | OPTF_NONEG },
	{ OPT_ID_LIST, 'l', "list", KIND_BOOL, OPTF_NOARG },
	{ OPT_ID_REMOTE, 0, "remote", KIND_STRING, 0 },
	{ OPT_ID_EXEC, 0, "exec", KIND_STRING, 0 },
};

/* git's prefix_filename(): `prefix` + `arg` unless `arg` is absolute. */
static char *prefix_filename(const char *prefix, const char *arg)
{
	if (!prefix || !*prefix || *arg == '/')
		return ga_xstrdup(arg);
	return ga_xstrfmt("%s%s", prefix, arg);
}

/* ---- global options ---------------------------------------------- */

static char **copy_argv(int argc, char **argv, const char *argv0)
{
	char **out = ga_xcalloc((size_t)argc + 1, sizeof(*out));
	int i;

	for (i = 0; i < argc; i++)
		out[i] = ga_xstrdup(i ? argv[i] : argv0);
	return out;
}

static void set_attr_source(struct cli_global *out, const char *source)
{
	free(out->attr_source);
	out->attr_source = ga_xstrdup(source);
}

int cli_parse_global(struct cli_global *out, int argc, char **argv)
{
	static const struct {
		const char *name;
		enum cli_command command;
	} commands[] = {
		{ "--version", CLI_VERSION },
		{ "--help", CLI_HELP },
		{ "help", CLI_HELP },
		{ "upload-archive", CLI_UPLOAD_ARCHIVE },
		/* upload-archive runs this to write what it relays. */
		{ "upload-archive--writer", CLI_UPLOAD_ARCHIVE_WRITER },
		{ "get-tar-commit-id", CLI_GET_TAR_COMMIT_ID },
		{ "verify", CLI_VERIFY },
		{ "gzip", CLI_GZIP },
		{ "http-backend", CLI_HTTP_BACKEND },
	};
	const char *argv0 = argc > 0 ? argv[0] : "garchive";
	size_t j;
	int i = 1;

	memset(out, 0, sizeof(*out));
	out->command = CLI_ARCHIVE;
	while (i < argc) {
		const char *source;

		if (!strcmp(argv[i], "-c")) {
			if (i + 1 >= argc)
				return ga_error_usage(GA_USAGE_NONE,
					"-c expects a configuration string");
			GA_ALLOC_GROW(out->config, out->nr_config + 1,
				      out->alloc_config);
			out->config[out->nr_config++] = ga_xstrdup(argv[i + 1]);
			i += 2;
		} else if (!strcmp(argv[i], "--attr-source")) {
			/* git 2.41's global option, as `git --attr-source`. */
			if (i + 1 >= argc)
				return ga_error_usage(GA_USAGE_NONE,
					"no attribute source given for "
					"--attr-source");
			set_attr_source(out, argv[i + 1]);
			i += 2;
		} else if (ga_skip_prefix(argv[i], "--attr-source=", &source)) {
			set_attr_source(out, source);
			i++;
		} else {
			break;
		}
	}
	for (j = 0; i < argc && j < GA_ARRAY_SIZE(commands); j++) {
		if (strcmp(argv[i], commands[j].name))
			continue;
		out->command = commands[j].command;
		out->argc = argc - i;
		out->argv = copy_argv(out->argc, argv + i, argv[i]);
		return 0;
	}
	/* git archive's own argv: the command name, then the rest. */
	out->argc = argc > i ? argc - i + 1 : 1;
	out->argv = copy_argv(out->argc, argv + i - 1, argv0);
	return 0;
}

void cli_global_release(struct cli_global *g)
{
	size_t i;
	int k;

	if (!g)
		return;
	for (i = 0; i < g->nr_config; i++)
		free(g->config[i]);
	free(g->config);
	free(g->attr_source);
	for (k = 0; g->argv && k < g->argc; k++)
		free(g->argv[k]);
	free(g->argv);
	memset(g, 0, sizeof(*g));
}

/* ---- pass 1 -------------------------------------------------------- */

static void set_string(char **field, const char *value)
{
	free(*field);
	*field = value ? ga_xstrdup(value) : NULL;
}

static int apply_pass1(void *payload, const struct optspec *o,
		       const char *arg, int unset)
{
	struct archive_options *opts = payload;
	const char *value = unset ? NULL : arg;

	switch (o->id) {
	case OPT_ID_OUTPUT:
		set_string(&opts->output, value);
		return 0;
	case OPT_ID_REMOTE:
		set_string(&opts->remote, value);
		return 0;
	case OPT_ID_EXEC:
		set_string(&opts->exec, value);
		return 0;
	default:
		GA_BUG("pass 1 option without a handler");
	}
}

int cli_parse_pass1(struct archive_options *opts, int argc, char **argv)
{
	struct parser p = { 0 };
	int error;

	memset(opts, 0, sizeof(*opts));
	opts->level = -1;
	p.opts = pass1_options;
	p.nr_opts = GA_ARRAY_SIZE(pass1_options);
	p.flags = PARSE_PASS1;
	p.completion_text = completion_pass1;
	p.argv = argc > 1 ? argv + 1 : NULL;
	p.argc = argc > 1 ? (size_t)argc - 1 : 0;
	p.apply = apply_pass1;
	p.payload = opts;
	if ((error = parse_options_step(&p)) < 0)
		goto done;
	/* The kept copies become pass1_args, NULL-terminated. */
	opts->completion = p.completion;
	opts->pass1_args = p.out ? p.out : ga_xcalloc(1, sizeof(char *));
	opts->nr_pass1_args = p.nr_out;
	p.out = NULL;
	p.nr_out = 0;
done:
	parse_options_release(&p);
	return error;
}

/* ---- pass 2 -------------------------------------------------------- */

/* parse_archive_args()'s local variables. */
struct pass2 {
	struct archive_options *opts;
	const char *cwd_prefix;	/* NULL on the server */
	const char *format, *base, *output, *remote, *exec, *mtime;
	int level, verbose, list, worktree_attributes, threads, progress;
	int recurse_submodules;
};

static void clear_extras(struct archive_options *opts)
{
	size_t i;

	for (i = 0; i < opts->nr_extras; i++) {
		struct extra_file *e = &opts->extras[i];

		free(e->path);
		free(e->disk_path);
		free(e->display_path);
		free(e->content);
	}
	free(opts->extras);
	opts->extras = NULL;
	opts->nr_extras = opts->alloc_extras = 0;
}

static struct extra_file *new_extra(struct archive_options *opts)
{
	struct extra_file *e;

	GA_ALLOC_GROW(opts->extras, opts->nr_extras + 1, opts->alloc_extras);
	e = &opts->extras[opts->nr_extras++];
	memset(e, 0, sizeof(*e));
	return e;
}

/*
 * --add-file: checked now, read when the archive is written.  git stats
 * the cwd-prefixed name from the top of the worktree; we are still in
 * the cwd, so the name as given is the same file, except that "" in a
 * subdirectory means that directory.
 */
static int add_file(struct pass2 *st, const char *arg)
{
	char *display = prefix_filename(st->cwd_prefix, arg);
	const char *disk = *arg || !*display ? arg : ".";
	const char *slash = strrchr(display, '/');
	struct extra_file *e;
	struct stat sb;

	if (stat(disk, &sb)) {
		ga_error_set("File not found: %s", display);
		free(display);
		return GA_ERROR;
	}
	if (!S_ISREG(sb.st_mode)) {
		ga_error_set("Not a regular file: %s", display);
		free(display);
		return GA_ERROR;
	}
	e = new_extra(st->opts);
	e->path = ga_xstrfmt("%s%s", st->base ? st->base : "",
			     slash ? slash + 1 : display);
	e->disk_path = ga_xstrdup(disk);
	e->display_path = display;
	e->executable = !!(sb.st_mode & S_IXUSR);
	return 0;
}

/*
 * --add-virtual-file=<path>:<content>.  As in git 2.39 the cwd prefix
 * applies to <path> but --prefix does not.  A quoted path that unquotes
 * to nothing keeps its quotes, and one with a NUL ends there, because
 * git tests the unquoted length but then uses the bytes as a C string.
 */
static int add_virtual_file(struct pass2 *st, const char *arg)
{
	struct ga_buf buf = GA_BUF_INIT;
	const char *p = arg;
	struct extra_file *e;
	char *path;

	if (*p != '"')
		p = strchr(p, ':');
	else if (ga_unquote_c(&buf, p, &p) < 0) {
		ga_buf_release(&buf);
		return ga_error_set("unclosed quote: '%s'", arg);
	}
	if (!p || *p != ':') {
		ga_buf_release(&buf);
		return ga_error_set("missing colon: '%s'", arg);
	}
	if (p == arg)
		return ga_error_set("empty file name: '%s'", arg);

	path = buf.len ? ga_xstrdup(buf.ptr) : ga_xstrndup(arg, p - arg);
	ga_buf_release(&buf);
	e = new_extra(st->opts);
	e->path = prefix_filename(st->cwd_prefix, path);
	free(path);
	e->content = ga_xstrdup(p + 1);
	e->content_len = strlen(e->content);
	return 0;
}

/* git's number_callback(): strtol, then narrowed to int. */
static int parse_level(const char *digits)
{
	long v = strtol(digits, NULL, 10);

	/*
	 * git stores the long in an int, so values past INT_MAX wrap
	 * (-99999999999999999999 becomes -1: no level at all).
	 */
	return (int)(unsigned int)(unsigned long)v;
}

static int apply_pass2(void *payload, const struct optspec *o,
		       const char *arg, int unset)
{
	struct pass2 *st = payload;
	long n;

	switch (o->id) {
	case OPT_ID_FORMAT:
		st->format = arg;
		return 0;
	case OPT_ID_PREFIX:
		st->base = arg;
		return 0;
	case OPT_ID_OUTPUT:
		st->output = arg;
		return 0;
	case OPT_ID_REMOTE:
		st->remote = arg;
		return 0;
	case OPT_ID_EXEC:
		st->exec = arg;
		return 0;
	case OPT_ID_MTIME:
		st->mtime = arg;
		return 0;
	case OPT_ID_ADD_FILE:
	case OPT_ID_ADD_VIRTUAL_FILE:
		/* Either negation drops every extra file queued so far. */
		if (unset) {
			clear_extras(st->opts);
			return 0;
		}
		if (o->id == OPT_ID_ADD_FILE)
			return add_file(st, arg);
		return add_virtual_file(st, arg);
	case OPT_ID_WORKTREE_ATTRIBUTES:
		st->worktree_attributes = !unset;
		return 0;
	case OPT_ID_LIST:
		st->list = !unset;
		return 0;
	case OPT_ID_VERBOSE:
		if (st->verbose < 0)
			st->verbose = 0;
		st->verbose = unset ? 0 : st->verbose + 1;
		return 0;
	case OPT_ID_NUMBER:
		st->level = parse_level(arg);
		return 0;
	case OPT_ID_PROGRESS:
		st->progress = !unset;
		return 0;
	case OPT_ID_RECURSE_SUBMODULES:
		if (unset)
			st->recurse_submodules = 0;
		else if (!arg)
			st->recurse_submodules = CLI_SUBMODULES_ON;
		else if (!strcmp(arg, "skip-missing"))
			st->recurse_submodules = CLI_SUBMODULES_SKIP_MISSING;
		else
			return ga_error_usage(GA_USAGE_NONE, "option `%s' "
					      "takes no value but "
					      "skip-missing", o->long_name);
		return 0;
	case OPT_ID_DIGEST:
		GA_BUG("verify option in the archive table");
	case OPT_ID_THREADS:
		errno = 0;
		n = strtol(arg, NULL, 10);
		if (errno == ERANGE || n > INT_MAX)
			return ga_error_usage(GA_USAGE_NONE, "option `%s' "
					      "expects a numerical value",
					      o->long_name);
		if (n < 0)
			return ga_error_usage(GA_USAGE_NONE, "option `%s' "
					      "expects a non-negative integer"
					      " value", o->long_name);
		st->threads = (int)n;
		return 0;
	}
	GA_BUG("pass 2 option without a handler");
}

static void release_pass2_fields(struct archive_options *opts)
{
	size_t i;

	clear_extras(opts);
	free(opts->list_extra);
	opts->list_extra = NULL;
	free(opts->prefix);
	free(opts->mtime);
	free(opts->treeish);
	for (i = 0; i < opts->nr_pathspecs; i++)
		free(opts->pathspecs[i]);
	free(opts->pathspecs);
	opts->format = NULL;
	opts->level = -1;
	opts->prefix = opts->mtime = opts->treeish = NULL;
	opts->pathspecs = NULL;
	opts->nr_pathspecs = 0;
	opts->verbose = opts->list = opts->worktree_attributes = 0;
	opts->threads = -1;
	opts->progress = -1;
	opts->recurse_submodules = 0;
}

/* The name git infers the format from: -o's value as OPT_FILENAME
 * stored it, i.e. prefixed unless absolute or "-". */
static const struct format *infer_format(const struct format_list *formats,
					 const char *output,
					 const char *cwd_prefix)
{
	const struct format *fmt;
	char *name;

	if (!*output || !strcmp(output, "-"))
		name = ga_xstrdup(output);
	else
		name = prefix_filename(cwd_prefix, output);
	fmt = format_infer(formats, name);
	free(name);
	return fmt;
}

/*
 * After "Unknown archive format": how a tar filter makes one, with a
 * compressor guessed from the name's end when it names one.
 */
static void format_hint(const char *name)
{
	static const struct {
		const char *suffix, *command;
	} filters[] = {
		{ "xz", "xz -c" }, { "bz2", "bzip2 -c" }, { "zst", "zstd -c" },
		{ "lz", "lzip -c" }, { "lzma", "lzma -c" }, { "lz4", "lz4 -c" },
	};
	const char *command = "<command that compresses stdin>";
	size_t i, len = strlen(name), n;

	for (i = 0; i < GA_ARRAY_SIZE(filters); i++) {
		n = strlen(filters[i].suffix);
		if (len > n && name[len - n - 1] == '.' &&
		    !strcmp(name + len - n, filters[i].suffix))
			command = filters[i].command;
	}
	ga_error_hint("`garchive --list` shows the formats; a tar filter "
		      "makes '%s' one:\n"
		      "  git config tar.%s.command \"%s\"", name, name,
		      command);
}

/* A format that takes no -NUM at all (plain tar). */
static int takes_levels(const struct format *fmt)
{
	return fmt->writer == FORMAT_ZIP || fmt->sink.kind != SINK_NONE;
}

int cli_parse_archive(struct archive_options *opts,
		      const struct format_list *formats,
		      const char *cwd_prefix, int remote)
{
	struct pass2 st = { 0 };
	struct parser p = { 0 };
	const struct format *fmt = NULL;
	const char *name;
	size_t i;
	int error;

	st.threads = -1;	/* not given: main may use garchive.threads */
	st.progress = -1;	/* not given: main decides */

	release_pass2_fields(opts);
	opts->completion = NULL;
	st.opts = opts;
	st.cwd_prefix = remote ? NULL : cwd_prefix;
	st.level = -1;
	p.opts = pass2_options;
	p.nr_opts = GA_ARRAY_SIZE(pass2_options);
	p.flags = remote ? PARSE_REMOTE : 0;
	p.completion_text = completion_pass2;
	p.argv = opts->pass1_args;
	p.argc = opts->nr_pass1_args;
	p.apply = apply_pass2;
	p.payload = &st;

	/* --add-file errors die here, before any other check. */
	if ((error = parse_options_step(&p)) < 0)
		goto done;
	if (p.completion) {
		opts->completion = p.completion;
		goto done;
	}

	if (st.remote) {
		error = ga_error_set("Unexpected option --remote");
		goto done;
	}
	if (st.exec) {
		error = ga_error_set("the option '%s' requires '%s'",
				     "--exec", "--remote");
		goto done;
	}
	if (st.output) {
		error = ga_error_set("Unexpected option --output");
		goto done;
	}
	if (remote && opts->nr_extras) {
		error = ga_error_set("options '%s' and '%s' cannot be used "
				     "together", "--add-file", "--remote");
		goto done;
	}

	opts->prefix = ga_xstrdup(st.base ? st.base : "");
	/*
	 * git keeps the count in a one-bit field of its archiver_args: an
	 * even number of -v is no -v at all.
	 */
	opts->verbose = st.verbose & 1;
	opts->worktree_attributes = st.worktree_attributes;
	opts->mtime = st.mtime ? ga_xstrdup(st.mtime) : NULL;
	opts->threads = st.threads;
	opts->progress = st.progress;
	opts->recurse_submodules = st.recurse_submodules;
	if (st.list) {
		/*
		 * git 2.39 ignores positional arguments here; 2.43.1 and
		 * later refuse the first one, before --format is looked at.
		 * Which git is followed is the caller's question: asking it
		 * costs a run of git, so it is asked only in this case.
		 */
		opts->list = 1;
		if (p.nr_out)
			opts->list_extra = ga_xstrdup(p.out[0]);
		goto done;
	}

	/* The server gets no file name to infer from (git's name_hint). */
	name = st.format;
	if (!name && !remote && opts->output &&
	    (fmt = infer_format(formats, opts->output, cwd_prefix)))
		name = fmt->name;
	if (!name)
		name = "tar";

	if (!p.nr_out) {
		error = ga_error_usage(GA_USAGE_STDERR, NULL);
		goto done;
	}
	fmt = format_lookup(formats, name);
	if (!fmt || (remote && !fmt->remote)) {
		error = ga_error_set("Unknown archive format '%s'", name);
		if (!remote)
			format_hint(name);
		goto done;
	}

	/*
	 * -1 means "no level" to git too.  Other negative values (a wrapped
	 * -NUM) are refused only by formats that take no level at all.
	 */
	if (st.level < -1 && !takes_levels(fmt)) {
		error = ga_error_set("Argument not supported for format "
				     "'%s': -%d", fmt->name, st.level);
		goto done;
	}
	if (st.level >= 0 && (error = format_check_level(fmt, st.level)) < 0)
		goto done;

	opts->format = fmt;
	opts->level = st.level;
	opts->treeish = ga_xstrdup(p.out[0]);
	opts->nr_pathspecs = p.nr_out - 1;
	opts->pathspecs = ga_xcalloc(p.nr_out, sizeof(char *));
	for (i = 1; i < p.nr_out; i++)
		opts->pathspecs[i - 1] = ga_xstrdup(p.out[i]);
	error = 0;
done:
	parse_options_release(&p);
	return error;
}

void cli_options_release(struct archive_options *opts)
{
	size_t i;

	if (!opts)
		return;
	release_pass2_fields(opts);
	free(opts->output);
	free(opts->remote);
	free(opts->exec);
	for (i = 0; i < opts->nr_pass1_args; i++)
		free(opts->pass1_args[i]);
	free(opts->pass1_args);
	memset(opts, 0, sizeof(*opts));
	opts->level = -1;
}

const char *cli_usage(void)
{
	return usage_text;
}

const char *cli_git_usage(void)
{
	return git_usage_text;
}

/* ---- garchive verify ------------------------------------------------ */

static const char verify_usage_text[] =
	"usage: garchive verify [<options>] <file> [<tree-ish> [<path>...]]\n"
	"\n"
	"    --format <fmt>        the format the file claims to be\n"
	"    --prefix <prefix>     the prefix of the paths in the file\n"
	"    -v, --verbose         list every difference\n"
	"    --digest              print the SHA-256 of the file and of its"
	" tar\n"
	"    --progress            show progress on standard error\n"
	"\n";

static const struct optspec verify_options[] = {
	{ OPT_ID_FORMAT, 0, "format", KIND_STRING, 0 },
	{ OPT_ID_PREFIX, 0, "prefix", KIND_STRING, 0 },
	{ OPT_ID_VERBOSE, 'v', "verbose", KIND_COUNTUP, OPTF_NOARG },
	{ OPT_ID_DIGEST, 0, "digest", KIND_BOOL, OPTF_NOARG },
	{ OPT_ID_PROGRESS, 0, "progress", KIND_BOOL, OPTF_NOARG },
};

static int apply_verify(void *payload, const struct optspec *o,
			const char *arg, int unset)
{
	struct verify_options *v = payload;

	switch (o->id) {
	case OPT_ID_FORMAT:
		set_string(&v->format, unset ? NULL : arg);
		return 0;
	case OPT_ID_PREFIX:
		set_string(&v->prefix, unset ? NULL : arg);
		return 0;
	case OPT_ID_VERBOSE:
		v->verbose = unset ? 0 : v->verbose + 1;
		return 0;
	case OPT_ID_DIGEST:
		v->digest = !unset;
		return 0;
	case OPT_ID_PROGRESS:
		v->progress = !unset;
		return 0;
	default:
		GA_BUG("verify option without a handler");
	}
}

int cli_parse_verify(struct verify_options *out, int argc, char **argv)
{
	struct parser p = { 0 };
	size_t i;
	int error;

	memset(out, 0, sizeof(*out));
	out->progress = -1;
	p.opts = verify_options;
	p.nr_opts = GA_ARRAY_SIZE(verify_options);
	p.argv = argc > 1 ? argv + 1 : NULL;
	p.argc = argc > 1 ? (size_t)argc - 1 : 0;
	p.apply = apply_verify;
	p.payload = out;
	if ((error = parse_options_step(&p)) < 0)
		goto done;
	if (p.completion) {
		error = ga_error_usage(GA_USAGE_STDOUT, NULL);
		goto done;
	}
	if (!p.nr_out) {
		error = ga_error_usage(GA_USAGE_STDERR, NULL);
		goto done;
	}
	out->file = ga_xstrdup(p.out[0]);
	if (p.nr_out > 1)
		out->treeish = ga_xstrdup(p.out[1]);
	if (p.nr_out > 2) {
		out->nr_pathspecs = p.nr_out - 2;
		out->pathspecs = ga_xcalloc(out->nr_pathspecs,
					    sizeof(char *));
		for (i = 2; i < p.nr_out; i++)
			out->pathspecs[i - 2] = ga_xstrdup(p.out[i]);
	}
done:
	parse_options_release(&p);
	return error;
}

const char *cli_verify_usage(void)
{
	return verify_usage_text;
}

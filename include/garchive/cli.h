/*
 * cli.h: the first stage.  Turns argv into struct archive_options exactly
 * as git 2.39's `git archive` parses it: a first pass that only knows
 * -o/--output, --remote and --exec (no abbreviations, no clusters), then
 * git's parse-options rules for everything else (unique prefixes of long
 * options, --no-*, -h, -NUM levels, options after non-options, `--`).
 */
#ifndef GARCHIVE_CLI_H
#define GARCHIVE_CLI_H

#include <stddef.h>

struct format;
struct format_list;
struct verify_options;

/* What garchive was asked to do, decided from the first arguments. */
enum cli_command {
	CLI_ARCHIVE,		/* garchive [options] <tree-ish> [<path>...] */
	CLI_UPLOAD_ARCHIVE,	/* garchive upload-archive <dir> */
	CLI_GET_TAR_COMMIT_ID,	/* garchive get-tar-commit-id */
	CLI_VERIFY,		/* garchive verify <file> [<tree-ish>...] */
	CLI_UPLOAD_ARCHIVE_WRITER,	/* upload-archive--writer <dir> (hidden) */
	CLI_GZIP,		/* garchive gzip [options] [<file>...] */
	CLI_HTTP_BACKEND,	/* garchive http-backend (a CGI program) */
	CLI_VERSION,		/* garchive --version */
	CLI_HELP		/* garchive help / --help */
};

/* Options that come before everything else, as `git -c ...` does. */
struct cli_global {
	enum cli_command command;
	char **config;		/* "name=value" from -c, in order */
	size_t nr_config, alloc_config;
	/*
	 * --attr-source=<tree>, or NULL.  As git does, the caller exports
	 * it as GIT_ATTR_SOURCE, which the walk (and any child) reads.
	 */
	char *attr_source;
	int argc;		/* the rest, argv[0] being the command name */
	char **argv;
};

/*
 * An --add-file or --add-virtual-file, in command-line order.
 * `path` is the archive path; for --add-file it is the --prefix in effect
 * plus the file's basename.  `disk_path` is NULL for virtual files.
 */
struct extra_file {
	char *path;
	char *disk_path;	/* path to open, relative to the cwd */
	char *display_path;	/* cwd-prefixed, for messages */
	char *content;		/* virtual file content */
	size_t content_len;
	int executable;		/* owner-exec bit of the file on disk */
};

/* --recurse-submodules, and with =skip-missing. */
#define CLI_SUBMODULES_ON		1
#define CLI_SUBMODULES_SKIP_MISSING	2

struct archive_options {
	/* pass 1 */
	char *output;		/* -o value, NULL if none */
	char *remote;		/* --remote value */
	char *exec;		/* --exec value (only with --remote) */
	char **pass1_args;	/* everything pass 1 left, for --remote */
	size_t nr_pass1_args;	/* (argv[0] not included) */

	/*
	 * Set (to a static string) when the arguments were only
	 * --git-completion-helper: git's parse-options prints this list
	 * of options to stdout and exits 0.  Pass 1 sets it before -o is
	 * opened; pass 2 after (so git writes it into the -o file).
	 */
	const char *completion;

	/* pass 2 */
	const struct format *format;	/* resolved format */
	int level;		/* -1 when no -NUM was given */
	char *prefix;		/* final --prefix value ("" if none) */
	struct extra_file *extras;
	size_t nr_extras, alloc_extras;
	int verbose;
	int list;		/* --list: main prints the format names */
	char *list_extra;	/* with --list, the first positional argument */
	int worktree_attributes;
	char *mtime;		/* --mtime value, NULL if none */
	int threads;		/* --threads, 0 = one per CPU, -1 not given */
	int progress;		/* --progress 1, --no-progress 0, -1 neither */
	int recurse_submodules;	/* 0, or a CLI_SUBMODULES_* value */
	char *treeish;		/* first positional argument */
	char **pathspecs;	/* the rest */
	size_t nr_pathspecs;
};

/*
 * Split off the global options (-c name=value, --version, --help) and
 * the subcommand.  Returns 0 or GA_EUSAGE.
 */
int cli_parse_global(struct cli_global *out, int argc, char **argv);
void cli_global_release(struct cli_global *g);

/*
 * Pass 1: take -o/--output, --remote and --exec out of argv.  The output
 * file name is returned as given (main decides what it is relative to).
 * `opts` is initialised here (call cli_options_release() afterwards, even
 * on failure); argv[0] is skipped and not copied to pass1_args.
 */
int cli_parse_pass1(struct archive_options *opts, int argc, char **argv);

/*
 * Pass 2 and git's checks, in the order of git's archive.c:
 * --add-file errors, misplaced --remote/--output/--exec, --list, format
 * choice and inference from opts->output, missing tree-ish, unknown
 * format, level.  `cwd_prefix` ("" or "dir/") is the subdirectory the
 * command runs in; `remote` is set when parsing a client's arguments on
 * the server side.  With --list it returns 0 early with opts->list set.
 * The format is inferred from opts->output with `cwd_prefix` prepended
 * (unless absolute or "-"), as git infers it from the prefixed name.
 * A server fills pass1_args itself in a zeroed struct archive_options.
 */
int cli_parse_archive(struct archive_options *opts,
		      const struct format_list *formats,
		      const char *cwd_prefix, int remote);

void cli_options_release(struct archive_options *opts);

/*
 * garchive verify's command line: options (--format, --prefix, -v,
 * --digest) with parse-options' rules, then <file>, the optional
 * <tree-ish> and pathspecs.  `out` is initialised here; release it with
 * verify_options_release(), also on failure.  Returns 0 or GA_EUSAGE
 * (with cli_verify_usage() to show).
 */
int cli_parse_verify(struct verify_options *out, int argc, char **argv);
const char *cli_verify_usage(void);

/*
 * The usage text of a local run: git archive's, named garchive, then
 * garchive's own options and subcommands; it ends with an empty line.
 */
const char *cli_usage(void);

/* git archive's usage text, byte for byte: what a server sends. */
const char *cli_git_usage(void);

#endif

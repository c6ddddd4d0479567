/*
 * parse-options.h: git's parse-options machinery, as git 2.39's
 * parse-options.c runs it, for the option tables of cli.c.
 *
 * A table of struct optspec says how each option takes its value;
 * parse_options_step() walks the arguments with git's rules (unique
 * prefixes of long options, --no-*, clusters of short ones, -NUM, -h,
 * options after non-options, `--`), gives each value to the caller's
 * `apply` and keeps the rest, in order, in `out`.  Every message and
 * exit code is git's: a failure is a GA_EUSAGE in the error slot (with
 * where git prints the usage), or what `apply` returned.
 */
#ifndef GARCHIVE_PARSE_OPTIONS_H
#define GARCHIVE_PARSE_OPTIONS_H

#include <stddef.h>

/* How an option takes its value, after git's OPTION_* types. */
enum opt_kind {
	KIND_STRING,		/* OPT_STRING: needs a value; --no-: NULL */
	KIND_CALLBACK,		/* needs a value; --no- calls back unset */
	KIND_COUNTUP,		/* -v: each use adds one, --no- = 0 */
	KIND_BOOL,		/* OPT_BOOL: 1, --no- = 0 */
	KIND_NUMBER,		/* -NUM */
	KIND_INTEGER,		/* OPT_INTEGER */
	KIND_OPTARG		/* PARSE_OPT_OPTARG: a value only after '=' */
};

#define OPTF_NOARG	0x1	/* PARSE_OPT_NOARG: --opt=x is an error */
#define OPTF_NONEG	0x2	/* PARSE_OPT_NONEG: no --no-opt form */
#define OPTF_EXT	0x4	/* garchive extension: no typo hints */
/*
 * Only the whole name (and --no-<name>) is taken, never an abbreviation:
 * an extension whose name shares a prefix with one of git's options
 * (--progress and --prefix) must not make git's abbreviations ambiguous.
 */
#define OPTF_EXACT	0x8
/* Not for a --remote client: the server refuses it as git would. */
#define OPTF_LOCAL	0x10

struct optspec {
	int id;			/* the caller's name for it */
	char short_name;
	const char *long_name;
	enum opt_kind kind;
	unsigned flags;
};

/* Pass 1 parses with KEEP_DASHDASH | KEEP_ARGV0 | KEEP_UNKNOWN_OPT |
 * NO_INTERNAL_HELP and no usage strings; pass 2 with none of these. */
#define PARSE_PASS1	0x1
/* Parsing a --remote client's arguments on the server. */
#define PARSE_REMOTE	0x2

/*
 * Receives each option's value.  `arg` is NULL for flags and for the
 * --no- forms; it points into the argument vector otherwise.
 */
typedef int (*apply_fn)(void *payload, const struct optspec *o,
			const char *arg, int unset);

struct parser {
	const struct optspec *opts;
	size_t nr_opts;
	unsigned flags;
	char **argv;		/* the arguments, without argv[0] */
	size_t argc, pos;
	const char *opt;	/* rest of a short cluster, or "=value" */
	char *faked;		/* "-<rest>" of a cluster, for messages */
	char **out;		/* copies of what the pass keeps, in order */
	size_t nr_out, alloc_out;
	/*
	 * Set when the only argument asks for completions: to
	 * `completion_text` ("" when that is NULL).
	 */
	const char *completion;
	const char *completion_text;	/* the caller's list of options */
	apply_fn apply;
	void *payload;
};

/*
 * Parse p->argv (without argv[0]) against p->opts; 0 when done (with
 * p->completion set if that was asked), or a negative GA_* code.
 */
int parse_options_step(struct parser *p);
/* Free what the parser kept (p->out) and its own copies. */
void parse_options_release(struct parser *p);

#endif

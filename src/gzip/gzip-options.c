/*
 * gzip-options.c: the one parser of `garchive gzip`'s options.
 *
 * gzip's options for compressing to stdout (-c, -n, -1 to -9, --fast,
 * --best, -f, -q, -k, in clusters such as -cn9, long ones by any unique
 * prefix as gzip's getopt_long takes them) plus --threads=N, with errors
 * worded as gzip words them.  The parser takes one word at a time, so
 * that a command line parsed when the formats load can take the level
 * appended when its sink opens (see gzip-options.h).
 */
#include "gzip-options.h"
#include "garchive/common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY_HELP	"\nTry 'garchive gzip --help' for more information."

/* As many words as a command line may have to name the engine. */
#define MAX_LINE_WORDS	63

enum opt_id {
	OPT_STDOUT, OPT_NO_NAME, OPT_FAST, OPT_BEST, OPT_FORCE, OPT_QUIET,
	OPT_KEEP, OPT_HELP, OPT_THREADS, OPT_STATS, OPT_CHUNK_SIZE
};

static const struct {
	const char *name;
	enum opt_id id;
	int arg;		/* takes a value */
} long_opts[] = {
	{ "stdout", OPT_STDOUT, 0 },
	{ "to-stdout", OPT_STDOUT, 0 },
	{ "no-name", OPT_NO_NAME, 0 },
	{ "fast", OPT_FAST, 0 },
	{ "best", OPT_BEST, 0 },
	{ "force", OPT_FORCE, 0 },
	{ "quiet", OPT_QUIET, 0 },
	{ "keep", OPT_KEEP, 0 },
	{ "help", OPT_HELP, 0 },
	{ "threads", OPT_THREADS, 1 },
	/* For tests and measurements, not in the usage: */
	{ "stats", OPT_STATS, 0 },
	{ "chunk-size", OPT_CHUNK_SIZE, 1 },
};

/* A parse between two words. */
struct arg_parser {
	struct gzip_command cmd;	/* cmd.files NULL: operands counted */
	size_t nfiles;
	int operands_only;		/* after "--" */
	int pending;			/* long_opts index waiting for its
					   value in the next word, or -1 */
};

struct gzip_line {
	struct arg_parser parsed;
	int words;		/* of the line, "garchive" and "gzip" too */
	int error;		/* the first refusal, or 0 */
	char *message;		/* and its message */
};

static void parser_init(struct arg_parser *p)
{
	memset(p, 0, sizeof(*p));
	p->cmd.opts.level = -1;
	p->cmd.opts.threads = -1;
	p->pending = -1;
}

static int parse_threads(struct gzip_command *cmd, const char *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < 0 || n > 1024)
		return ga_error_usage(GA_USAGE_NONE, "invalid number of "
				      "threads: '%s'" TRY_HELP, v);
	cmd->opts.threads = (int)n;
	return 0;
}

/* The unit of parallel work, in bytes: a multiple of 32 KiB. */
static int parse_chunk_size(struct gzip_command *cmd, const char *v)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (!*v || *end || errno || !n || n % 32768 || n > (1ull << 30))
		return ga_error_usage(GA_USAGE_NONE,
				      "invalid chunk size: '%s'" TRY_HELP, v);
	cmd->opts.chunk_size = (size_t)n;
	return 0;
}

static int apply(struct gzip_command *cmd, enum opt_id id, const char *v)
{
	switch (id) {
	case OPT_FAST:
		cmd->opts.level = 1;
		break;
	case OPT_BEST:
		cmd->opts.level = 9;
		break;
	case OPT_FORCE:
		cmd->force = 1;
		break;
	case OPT_QUIET:
		cmd->quiet = 1;
		break;
	case OPT_HELP:
		cmd->help = 1;
		break;
	case OPT_THREADS:
		return parse_threads(cmd, v);
	case OPT_STATS:
		cmd->stats = 1;
		break;
	case OPT_CHUNK_SIZE:
		return parse_chunk_size(cmd, v);
	case OPT_STDOUT:
	case OPT_NO_NAME:
	case OPT_KEEP:
		break;	/* what garchive gzip always does, or nothing */
	}
	return 0;
}

/* The long option `word` names, by gzip's unique prefixes. */
static int find_long(int *found, const char *word, size_t len)
{
	const char *arg = word + 2;
	size_t k;

	*found = -1;
	for (k = 0; k < GA_ARRAY_SIZE(long_opts); k++) {
		if (strncmp(long_opts[k].name, arg, len))
			continue;
		if (!long_opts[k].name[len]) {
			*found = (int)k;
			return 0;
		}
		if (*found >= 0 && long_opts[*found].id != long_opts[k].id)
			return ga_error_usage(GA_USAGE_NONE, "option '%s' "
					      "is ambiguous" TRY_HELP, word);
		*found = (int)k;
	}
	if (*found < 0)
		return ga_error_usage(GA_USAGE_NONE,
				      "unrecognized option '%s'" TRY_HELP,
				      word);
	return 0;
}

/* --name[=value]; without "=", a value is the next word. */
static int parse_long(struct arg_parser *p, const char *word)
{
	const char *eq = strchr(word + 2, '=');
	size_t len = eq ? (size_t)(eq - word - 2) : strlen(word + 2);
	int found, error;

	if ((error = find_long(&found, word, len)) < 0)
		return error;
	if (!long_opts[found].arg) {
		if (eq)
			return ga_error_usage(GA_USAGE_NONE,
				"option '--%s' doesn't allow an argument"
				TRY_HELP, long_opts[found].name);
		return apply(&p->cmd, long_opts[found].id, NULL);
	}
	if (eq)
		return apply(&p->cmd, long_opts[found].id, eq + 1);
	p->pending = found;
	return 0;
}

/* A cluster of short options such as -cn9. */
static int parse_short(struct gzip_command *cmd, const char *arg)
{
	const char *p;

	for (p = arg + 1; *p; p++) {
		if (*p >= '1' && *p <= '9') {
			cmd->opts.level = *p - '0';
			continue;
		}
		switch (*p) {
		case 'c':
		case 'n':
		case 'k':
			break;
		case 'q':
			cmd->quiet = 1;
			break;
		case 'f':
			cmd->force = 1;
			break;
		case 'h':
			cmd->help = 1;
			break;
		default:
			return ga_error_usage(GA_USAGE_NONE, "invalid "
					      "option -- '%c'" TRY_HELP, *p);
		}
	}
	return 0;
}

static int parse_word(struct arg_parser *p, const char *word)
{
	if (p->pending >= 0) {
		enum opt_id id = long_opts[p->pending].id;

		p->pending = -1;
		return apply(&p->cmd, id, word);
	}
	if (!p->operands_only && !strcmp(word, "--"))
		p->operands_only = 1;
	else if (!p->operands_only && !strncmp(word, "--", 2))
		return parse_long(p, word);
	else if (!p->operands_only && word[0] == '-' && word[1])
		return parse_short(&p->cmd, word);
	else if (p->cmd.files)
		p->cmd.files[p->nfiles++] = ga_xstrdup(word);
	else
		p->nfiles++;
	return 0;
}

/* After the last word: an option still waiting for its value. */
static int parse_end(const struct arg_parser *p)
{
	if (p->pending < 0)
		return 0;
	return ga_error_usage(GA_USAGE_NONE,
			      "option '--%s' requires an argument" TRY_HELP,
			      long_opts[p->pending].name);
}

int gzip_command_parse(struct gzip_command *out, int argc, char **argv)
{
	struct arg_parser p;
	int i, error = 0;

	parser_init(&p);
	p.cmd.files = ga_xcalloc((size_t)(argc > 0 ? argc : 1),
				 sizeof(*p.cmd.files));
	for (i = 1; i < argc && !error; i++)
		error = parse_word(&p, argv[i]);
	if (!error)
		error = parse_end(&p);
	*out = p.cmd;
	return error;
}

void gzip_command_release(struct gzip_command *cmd)
{
	size_t i;

	if (!cmd || !cmd->files)
		return;
	for (i = 0; cmd->files[i]; i++)
		free(cmd->files[i]);
	free(cmd->files);
	cmd->files = NULL;
}

/*
 * Shell syntax (quotes, expansions, redirections, several commands)
 * makes a command one for the shell; plain words separated by blanks do
 * not.  An '=' can only be in --threads=N: an assignment before the
 * program name leaves argv[0] something else than garchive.
 */
static int plain_words(const char *s)
{
	return !strpbrk(s, "|&;<>()$`\\\"'*?[#~%\n");
}

/* argv[0] and argv[1] of a line that names the engine. */
static int names_garchive_gzip(char **argv, int argc)
{
	const char *base;

	if (argc < 2)
		return 0;
	base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	return !strcmp(base, "garchive") && !strcmp(argv[1], "gzip");
}

/* The words of `line` after "garchive gzip", up to the first refusal. */
static void parse_line_words(struct gzip_line *line, char **argv, int argc)
{
	int i;

	for (i = 2; i < argc; i++) {
		int error = parse_word(&line->parsed, argv[i]);

		if (error < 0) {
			line->error = error;
			line->message = ga_error_detach();
			return;
		}
	}
}

struct gzip_line *gzip_line_parse(const char *command)
{
	char *copy, *save = NULL, *w;
	char *argv[MAX_LINE_WORDS + 1];
	struct gzip_line *line = NULL;
	int argc = 0;

	if (!plain_words(command))
		return NULL;
	copy = ga_xstrdup(command);
	for (w = strtok_r(copy, " \t", &save); w && argc < MAX_LINE_WORDS;
	     w = strtok_r(NULL, " \t", &save))
		argv[argc++] = w;
	if (!w && names_garchive_gzip(argv, argc)) {
		line = ga_xcalloc(1, sizeof(*line));
		parser_init(&line->parsed);
		line->words = argc;
		parse_line_words(line, argv, argc);
	}
	free(copy);
	return line;
}

void gzip_line_free(struct gzip_line *line)
{
	if (!line)
		return;
	free(line->message);
	free(line);
}

int gzip_line_options(struct gzip_options *out, const struct gzip_line *line,
		      int level)
{
	struct arg_parser p;
	char word[16];
	int error;

	/* With the level, one word too many names no engine. */
	if (level >= 0 && line->words >= MAX_LINE_WORDS)
		return 0;
	if (line->error)
		return ga_error_restore(line->error, line->message);
	p = line->parsed;
	if (level >= 0) {
		snprintf(word, sizeof(word), "-%d", level);
		if ((error = parse_word(&p, word)) < 0)
			return error;
	}
	if ((error = parse_end(&p)) < 0)
		return error;
	if (p.nfiles || p.cmd.help || p.cmd.stats)
		return 0;
	*out = p.cmd.opts;
	return 1;
}

/*
 * gzip-options.h: `garchive gzip`'s options, parsed in one place.
 *
 * Two callers read them: the `garchive gzip` command (its argv), and the
 * archive pipeline for a tar.<format>.command that names `garchive gzip`,
 * which runs the engine in process instead of starting a child.  The
 * second kind is parsed when the formats are loaded (that decides
 * whether the engine runs at all) and continued when the sink opens,
 * where " -<level>" is appended as it is to any command: the level is
 * one more word for the same parse, so it reads exactly as the child
 * would read it (a "-0" refused, a value for a pending --threads...).
 */
#ifndef GARCHIVE_GZIP_OPTIONS_H
#define GARCHIVE_GZIP_OPTIONS_H

#include "garchive/gzip.h"

/* `garchive gzip [options] [FILE...]` as gzip_command_parse() reads it. */
struct gzip_command {
	struct gzip_options opts;
	int help;		/* -h, --help: print the usage */
	int force;		/* -f: write to a terminal too */
	int quiet;		/* -q: no warnings */
	int stats;		/* --stats: report struct gzip_stats */
	char **files;		/* NULL-terminated; empty: stdin */
};

/*
 * Parse the arguments after "gzip" (argv[0] is "gzip"); opts.threads is
 * -1 when --threads is not given.  Returns 0, or GA_EUSAGE with gzip's
 * kind of message ("invalid option -- 'x'").  Free with
 * gzip_command_release(), also after a failure.
 */
int gzip_command_parse(struct gzip_command *out, int argc, char **argv);
void gzip_command_release(struct gzip_command *cmd);

/* A command line that names `garchive gzip`, parsed by gzip_line_parse(). */
struct gzip_line;

/*
 * `command` when it is "[path/]garchive gzip" followed by plain words
 * (no shell syntax), parsed as far as its first refused option; NULL
 * when it is anything else, which is then run as a command.
 */
struct gzip_line *gzip_line_parse(const char *command);
void gzip_line_free(struct gzip_line *line);

/*
 * The options of `line` with " -<level>" appended (`level` -1: none).
 * Returns 1 and fills `out` (threads -1 when not given) when the line
 * is a filter of stdin to stdout; GA_EUSAGE, with the message `garchive
 * gzip` would print, when an option is refused; 0 when the line has a
 * file operand, --help or --stats (or too many words), as a child would
 * not filter then.
 */
int gzip_line_options(struct gzip_options *out, const struct gzip_line *line,
		      int level);

#endif

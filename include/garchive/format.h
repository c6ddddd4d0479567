/*
 * format.h: the table of archive formats (git's "archivers").
 *
 * Registration order is git's: tar, the tar filter formats (tgz, tar.gz,
 * then every tar.<name>.command format in the order its first tar.<name>.*
 * key appears in the configuration), zip.  The table is built from the
 * configuration once; `tar.umask` is read at the same moment, so a bad
 * value breaks every invocation, as in git.
 */
#ifndef GARCHIVE_FORMAT_H
#define GARCHIVE_FORMAT_H

#include <stddef.h>

#include "garchive/sink.h"

struct ga_config;

enum format_writer { FORMAT_TAR, FORMAT_ZIP };

struct format {
	char *name;
	enum format_writer writer;
	struct sink_spec sink;	/* SINK_NONE for tar and zip */
	int remote;			/* allowed for --remote clients */
};

struct format_list {
	struct format *items;
	size_t nr, alloc;
	unsigned int tar_umask;		/* from tar.umask, default 002 */
};

/*
 * Build the table from `cfg`.  `process_umask` is what tar.umask=user
 * means.  Returns 0, or GA_ERROR for a bad tar.umask ("bad numeric config
 * value ...") or a bad tar.<fmt>.remote boolean.
 */
int format_list_load(struct format_list *out, const struct ga_config *cfg,
		     unsigned int process_umask);
void format_list_release(struct format_list *list);

/* The format called `name`, or NULL. */
const struct format *format_lookup(const struct format_list *list,
				   const char *name);

/*
 * The format an output file name asks for: the first in table order whose
 * name F ends `filename` as ".F" with at least one character before the
 * dot.  NULL when none does.
 */
const struct format *format_infer(const struct format_list *list,
				  const char *filename);

/*
 * Whether `level` (-1: none given) is allowed for `fmt`.  Returns 0, or
 * GA_ERROR with "Argument not supported for format '<name>': -<level>".
 */
int format_check_level(const struct format *fmt, int level);

#endif

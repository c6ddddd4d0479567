/*
 * trailer.h: git's trailer.c as %(trailers[:options]) uses it: finding
 * the trailer block of a commit message, with the trailer.* settings,
 * and writing its trailers in the forms the options ask for.
 */
#ifndef GARCHIVE_TRAILER_H
#define GARCHIVE_TRAILER_H

#include <stddef.h>

#include "garchive/common.h"

struct ga_config;

/* One trailer.<token>.* section. */
struct trailer_conf {
	char *name;		/* <token> */
	char *key, *command, *cmd;
};

/* What of the configuration decides where trailers are. */
struct trailer_config {
	int loaded;
	char *separators;	/* trailer.separators, default ":" */
	struct trailer_conf *items;
	size_t nr, alloc;
	char comment_char;	/* core.commentChar, default '#' */
};

/*
 * Read trailer.* and core.commentChar once (later calls do nothing),
 * with git's warnings for unknown where/ifExists/ifMissing values and
 * repeated keys.  trailer_config_release() frees it.
 */
void trailer_config_load(struct trailer_config *tc,
			 const struct ga_config *cfg);
void trailer_config_release(struct trailer_config *tc);

/* A key=<k> option; `key` points into the format. */
struct trailer_key {
	const char *key;
	size_t len;
};

/* git's struct process_trailer_options, for formatting only. */
struct trailer_opts {
	int only, unfold, key_only, value_only;
	int filter;		/* only the `keys` */
	struct trailer_key *keys;
	size_t nr_keys, alloc_keys;
	int have_sep, have_kvsep;
	struct ga_buf sep, kvsep;
};

/*
 * git's format_trailers_from_commit(): append the trailers of `msg` (a
 * message from its subject on) to `sb`, whose text starts at `base`.
 */
void trailer_format(struct ga_buf *sb, size_t base, const char *msg,
		    const struct trailer_opts *o,
		    const struct trailer_config *tc);

#endif

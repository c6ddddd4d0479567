/*
 * ident.h: git's ident.c split_ident_line(), the parser of the author
 * and committer lines of a commit: "Name <email> 1234567890 +0100".
 */
#ifndef GARCHIVE_IDENT_H
#define GARCHIVE_IDENT_H

#include <stddef.h>

/* Pointers into the parsed line; date and zone are NULL when absent. */
struct ident {
	const char *name_begin, *name_end;
	const char *mail_begin, *mail_end;
	const char *date_begin, *date_end;
	const char *tz_begin, *tz_end;
};

/*
 * Split `line[0..len)`.  Returns 0, or -1 when there is no "<email>".
 * A malformed date or zone leaves both NULL (the person still counts),
 * as in git.
 */
int ident_split(struct ident *id, const char *line, size_t len);

#endif

/*
 * ident.c: git's split_ident_line() (ident.c), which pretty formats use
 * for %an, %ae, %ad and the others.
 */
#include "ident.h"

#include "sane-ctype.h"

#include <string.h>

int ident_split(struct ident *id, const char *line, size_t len)
{
	const char *cp;
	size_t span;

	memset(id, 0, sizeof(*id));
	id->name_begin = line;
	for (cp = line; *cp && cp < line + len; cp++) {
		if (*cp == '<') {
			id->mail_begin = cp + 1;
			break;
		}
	}
	if (!id->mail_begin)
		return -1;
	for (cp = id->mail_begin - 2; line <= cp; cp--) {
		if (!ga_isspace((unsigned char)*cp)) {
			id->name_end = cp + 1;
			break;
		}
	}
	if (!id->name_end)
		id->name_end = id->name_begin;
	for (cp = id->mail_begin; cp < line + len; cp++) {
		if (*cp == '>') {
			id->mail_end = cp;
			break;
		}
	}
	if (!id->mail_end)
		return -1;
	/* The date follows the last '>', which the email closer bounds. */
	for (cp = line + len - 1; *cp != '>'; cp--)
		;
	for (cp = cp + 1; cp < line + len && ga_isspace((unsigned char)*cp);
	     cp++)
		;
	if (line + len <= cp)
		goto person_only;
	id->date_begin = cp;
	span = strspn(cp, "0123456789");
	if (!span)
		goto person_only;
	id->date_end = id->date_begin + span;
	for (cp = id->date_end;
	     cp < line + len && ga_isspace((unsigned char)*cp); cp++)
		;
	if (line + len <= cp || (*cp != '+' && *cp != '-'))
		goto person_only;
	id->tz_begin = cp;
	span = strspn(cp + 1, "0123456789");
	if (!span)
		goto person_only;
	id->tz_end = id->tz_begin + 1 + span;
	return 0;
person_only:
	id->date_begin = id->date_end = NULL;
	id->tz_begin = id->tz_end = NULL;
	return 0;
}

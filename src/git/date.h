/*
 * date.h: git's date.c show_date() for the date formats pretty formats
 * use (%ad, %ar, %ai... and their committer forms).
 */
#ifndef GARCHIVE_DATE_H
#define GARCHIVE_DATE_H

#include <stdint.h>

struct ga_buf;

enum date_mode {
	DATE_NORMAL,
	DATE_RELATIVE,
	DATE_SHORT,
	DATE_ISO8601,
	DATE_ISO8601_STRICT,
	DATE_RFC2822,
	DATE_HUMAN
};

/*
 * Append `time` (seconds since the epoch) in zone `tz` (e.g. -800) as
 * git's show_date() writes it in `mode`.  "Now", for relative and human
 * dates, is the clock or GIT_TEST_DATE_NOW as in git's tests.  Returns 0,
 * or GA_ERROR with git's message where git dies ("Timestamp too large
 * for this system: <n>"...).
 */
int date_show(struct ga_buf *out, uintmax_t time, int tz,
	      enum date_mode mode);

/* git's date_overflows(): whether `t` does not fit a time_t. */
int date_overflows(uintmax_t t);

#endif

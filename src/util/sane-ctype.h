/*
 * sane-ctype.h: git's own character classes (git-compat-util.h's
 * sane_ctype), for every module that reproduces git's parsing.
 *
 * git never asks the C library: its classes are ASCII only, whatever
 * the locale, and its "space" is " \t\n\r" (no vertical tab, no form
 * feed).  Configuration keys, mailmap lines, trailers, pathspec magic,
 * wildmatch's bracket classes and remote side-band keywords must split
 * exactly where git splits them, so garchive uses these everywhere and
 * <ctype.h> nowhere it imitates git.  Bytes above 0x7f belong to no
 * class.
 */
#ifndef GARCHIVE_SANE_CTYPE_H
#define GARCHIVE_SANE_CTYPE_H

static inline int ga_isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static inline int ga_isdigit(int c)
{
	return c >= '0' && c <= '9';
}

static inline int ga_isupper(int c)
{
	return c >= 'A' && c <= 'Z';
}

static inline int ga_islower(int c)
{
	return c >= 'a' && c <= 'z';
}

static inline int ga_isalpha(int c)
{
	return ga_isupper(c) || ga_islower(c);
}

static inline int ga_isalnum(int c)
{
	return ga_isalpha(c) || ga_isdigit(c);
}

static inline int ga_isxdigit(int c)
{
	return ga_isdigit(c) || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static inline int ga_isprint(int c)
{
	return c >= 0x20 && c <= 0x7e;
}

/* Printable, not a space, not a letter or digit. */
static inline int ga_ispunct(int c)
{
	return c > 0x20 && c < 0x7f && !ga_isalnum(c);
}

/* git's is_glob_special(): the characters wildmatch() treats specially. */
static inline int ga_is_glob_special(int c)
{
	return c == '*' || c == '?' || c == '[' || c == '\\';
}

static inline int ga_tolower(int c)
{
	return ga_isupper(c) ? c - 'A' + 'a' : c;
}

#endif

/*
 * wildmatch.h: git's wildmatch(), the glob matcher behind gitattributes
 * patterns and :(glob) pathspecs.  With WM_PATHNAME, '*' and '?' do not
 * match '/' and "**" matches across directories; without it they do.
 */
#ifndef GARCHIVE_WILDMATCH_H
#define GARCHIVE_WILDMATCH_H

#define WM_CASEFOLD	1
#define WM_PATHNAME	2

#define WM_MATCH	0
#define WM_NOMATCH	1

/* Match `text` (NUL-terminated) against `pattern`.  Returns WM_MATCH or WM_NOMATCH. */
int wildmatch(const char *pattern, const char *text, unsigned int flags);

#endif

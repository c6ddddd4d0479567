/*
 * Fuzz git's wildmatch(): pattern and text split at the first NUL, the
 * flags from the first byte.  Besides crashes and runaway recursion it
 * checks two properties git's matcher has: a pattern with no special
 * characters matches exactly itself, and "*" without WM_PATHNAME
 * matches anything.  Inputs with many stars are skipped: see
 * fuzz_too_many_stars().
 */
#include "fuzz.h"

#include "wildmatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char **parts, *block;
	const char *pattern, *text;
	unsigned int flags;
	size_t n;
	int r;

	if (!size || fuzz_too_many_stars(data, size))
		return 0;
	flags = data[0] & (WM_CASEFOLD | WM_PATHNAME);
	n = fuzz_split(&parts, &block, data + 1, size - 1, '\0', 2);
	pattern = parts[0];
	text = n > 1 ? parts[1] : pattern;

	r = wildmatch(pattern, text, flags);
	FUZZ_CHECK(r == WM_MATCH || r == WM_NOMATCH);
	if (!strpbrk(pattern, "*?[\\"))
		FUZZ_CHECK(wildmatch(pattern, pattern, flags) == WM_MATCH);
	FUZZ_CHECK(wildmatch("*", text, flags & WM_CASEFOLD) == WM_MATCH);
	free(parts);
	free(block);
	return 0;
}

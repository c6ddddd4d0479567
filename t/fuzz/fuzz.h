/*
 * fuzz.h: helpers shared by the libFuzzer targets in t/fuzz/.
 *
 * Each target is t/fuzz/NAME.c with LLVMFuzzerTestOneInput(), built by
 * `make fuzz` with clang -fsanitize=fuzzer,address,undefined against the
 * library objects, and seeded from t/fuzz/NAME/.  A target drives a
 * parser only through its public functions, checks what it can of the
 * result, and aborts (FUZZ_CHECK) when an invariant breaks, so that
 * libFuzzer records the input.
 */
#ifndef GARCHIVE_FUZZ_H
#define GARCHIVE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "garchive/common.h"

#define FUZZ_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", \
			__FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Split `data` at `sep` into at most `max` NUL-terminated strings in one
 * heap block (*block, freed by the caller); the last piece takes the
 * rest, separators included.  Returns the number of pieces (at least 1).
 */
static inline size_t fuzz_split(char ***out, char **block,
				const uint8_t *data, size_t size, char sep,
				size_t max)
{
	char *copy = ga_xmalloc(size + 1);
	char **v = ga_xcalloc(max ? max : 1, sizeof(*v));
	size_t n = 0, i, start = 0;

	memcpy(copy, data, size);
	copy[size] = '\0';
	for (i = 0; i < size && n + 1 < max; i++) {
		if (copy[i] == sep) {
			copy[i] = '\0';
			v[n++] = copy + start;
			start = i + 1;
		}
	}
	v[n++] = copy + start;
	*out = v;
	*block = copy;
	return n;
}

/* A copy of data[0..size) as a C string, cut at its first NUL. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	return ga_xstrndup((const char *)data, size);
}

/*
 * Whether an input has more '*' than FUZZ_MAX_STARS.  wildmatch()
 * backtracks as git's does: "*a*a*a*a*a*a*b" against a long text of
 * a's takes time polynomial in the text with the number of stars as
 * exponent (git's ABORT_ALL only cuts the case where the text runs
 * out).  That is a known cost of git's algorithm, not a crash, so the
 * targets that reach wildmatch() leave such inputs out instead of
 * reporting timeouts.
 */
#define FUZZ_MAX_STARS 3

static inline int fuzz_too_many_stars(const uint8_t *data, size_t size)
{
	size_t i, stars = 0;

	for (i = 0; i < size; i++)
		stars += data[i] == '*';
	return stars > FUZZ_MAX_STARS;
}

#endif

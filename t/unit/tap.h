/*
 * tap.h: a minimal TAP producer for the C unit tests.
 *
 *	ok(cond, "name %d", i);
 *	is_mem(got, got_len, want, want_len, "name");
 *	return tap_done();
 *
 * The plan is printed at the end ("1..N"), so tests need not count.
 */
#ifndef GARCHIVE_TAP_H
#define GARCHIVE_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count;
static int tap_failed;

__attribute__((format(printf, 2, 3), unused))
static int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

__attribute__((format(printf, 1, 2), unused))
static void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Compare byte strings; on mismatch show the first differing offset. */
__attribute__((unused))
static int is_mem(const void *got, size_t got_len, const void *want,
		  size_t want_len, const char *name)
{
	const unsigned char *g = got, *w = want;
	size_t i;

	if (got_len == want_len && !memcmp(got, want, got_len))
		return ok(1, "%s", name);
	ok(0, "%s", name);
	for (i = 0; i < got_len && i < want_len && g[i] == w[i]; i++)
		;
	diag("lengths %zu (got) vs %zu (want); first difference at %zu",
	     got_len, want_len, i);
	if (i < got_len && i < want_len)
		diag("got 0x%02x, want 0x%02x", g[i], w[i]);
	return 0;
}

__attribute__((unused))
static int is_str(const char *got, const char *want, const char *name)
{
	if (got && want && !strcmp(got, want))
		return ok(1, "%s", name);
	ok(0, "%s", name);
	diag("got:  '%s'", got ? got : "(null)");
	diag("want: '%s'", want ? want : "(null)");
	return 0;
}

__attribute__((unused))
static int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

/*
 * Whether the system git is 2.39, the reference (Debian 12's).  With a
 * later git, a test compares with what 2.39 says: it rewords git's
 * output as 2.39 words it, where only the wording moved.
 */
__attribute__((unused))
static int tap_git_is_2_39(void)
{
	static int known = -1;
	char version[128] = "";
	FILE *p;

	if (known >= 0)
		return known;
	p = popen("git --version 2>/dev/null", "r");
	if (p) {
		if (!fgets(version, sizeof(version), p))
			version[0] = '\0';
		pclose(p);
	}
	known = !strncmp(version, "git version 2.39.", 17);
	return known;
}

/*
 * For a test that compares with the system git's messages and behaviour:
 * the reference is git 2.39 (Debian 12's), whose behaviour garchive
 * reproduces, and a later git words and decides some things otherwise.
 * With another git, skip the whole test (TAP "1..0 # SKIP"), unless
 * GARCHIVE_TEST_ANY_GIT is set.  As t/lib.sh's test_requires_git_2_39.
 */
__attribute__((unused))
static void tap_require_git_2_39(void)
{
	char version[128] = "";
	FILE *p;

	if (getenv("GARCHIVE_TEST_ANY_GIT"))
		return;
	p = popen("git --version 2>/dev/null", "r");
	if (p) {
		if (!fgets(version, sizeof(version), p))
			version[0] = '\0';
		pclose(p);
	}
	version[strcspn(version, "\n")] = '\0';
	if (!strncmp(version, "git version 2.39.", 17))
		return;
	printf("1..0 # SKIP compares with git 2.39 (the reference), not "
	       "'%s'; GARCHIVE_TEST_ANY_GIT=1 runs it anyway\n", version);
	exit(0);
}

#endif

/*
 * Unit tests for git-version.c: parsing what GARCHIVE_GIT_VERSION,
 * garchive.gitVersion and `git version` give, comparing versions, and
 * the environment variable winning over everything else.
 */
#include "git-version.h"
#include "garchive/common.h"

#include "tap.h"

#include <stdlib.h>

struct vector {
	const char *text;
	int ok;			/* 1: parses, 0: refused */
	int major, minor, patch;
};

static const struct vector versions[] = {
	{ "2.39.5", 1, 2, 39, 5 },
	{ "2.47.3", 1, 2, 47, 3 },
	{ "2.55.0.123.gabc", 1, 2, 55, 0 },
	{ "2.43.1.windows.1", 1, 2, 43, 1 },
	{ "2.39.5 (Apple Git-154)", 1, 2, 39, 5 },
	{ "2.41", 1, 2, 41, 0 },
	{ "2.41.rc0", 1, 2, 41, 0 },
	{ "2.45.0-rc1", 1, 2, 45, 0 },
	{ "2.39.5\n", 1, 2, 39, 5 },
	{ "3.0.0", 1, 3, 0, 0 },
	{ "10.200.3000", 1, 10, 200, 3000 },
	{ "", 0, 0, 0, 0 },
	{ "2", 0, 0, 0, 0 },
	{ "2.", 0, 0, 0, 0 },
	{ ".39.5", 0, 0, 0, 0 },
	{ "v2.39.5", 0, 0, 0, 0 },
	{ "2.x", 0, 0, 0, 0 },
	{ "2.39x", 0, 0, 0, 0 },
	{ "2.39.5x", 0, 0, 0, 0 },
	{ " 2.39.5", 0, 0, 0, 0 },
	{ "-2.39.5", 0, 0, 0, 0 },
	{ "2.1234567890", 0, 0, 0, 0 },
	{ "git version 2.39.5", 0, 0, 0, 0 },
};

static void check_parse(void)
{
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(versions); i++) {
		const struct vector *v = &versions[i];
		struct git_version got = { -1, -1, -1 };
		int error = git_version_parse(&got, v->text);

		if (v->ok)
			ok(!error && got.major == v->major &&
			   got.minor == v->minor && got.patch == v->patch,
			   "'%s' is %d.%d.%d (got %d: %d.%d.%d)", v->text,
			   v->major, v->minor, v->patch, error, got.major,
			   got.minor, got.patch);
		else
			ok(error == GA_ENOTFOUND && got.major == -1,
			   "'%s' is refused and leaves *out alone", v->text);
	}
}

static void check_output(void)
{
	struct git_version got = { 0, 0, 0 };

	ok(!git_version_parse_output(&got, "git version 2.39.5\n") &&
	   !git_version_cmp(&got, 2, 39, 5), "git version 2.39.5");
	ok(!git_version_parse_output(&got, "git version 2.43.1.windows.1\n") &&
	   !git_version_cmp(&got, 2, 43, 1), "git version 2.43.1.windows.1");
	ok(!git_version_parse_output(&got,
				     "git version 2.55.0.123.gabc\n") &&
	   !git_version_cmp(&got, 2, 55, 0), "git version 2.55.0.123.gabc");
	ok(git_version_parse_output(&got, "2.39.5\n") == GA_ENOTFOUND,
	   "a bare version is not what git version prints");
	ok(git_version_parse_output(&got, "hub version 2.14.2\n") ==
	   GA_ENOTFOUND, "another program's version line is refused");
	ok(git_version_parse_output(&got, "git version \n") == GA_ENOTFOUND,
	   "an empty version is refused");
}

static void check_cmp(void)
{
	struct git_version v = { 2, 41, 0 };
	struct git_version newest = GIT_VERSION_NEWEST;

	ok(git_version_cmp(&v, 2, 41, 0) == 0, "2.41.0 = 2.41.0");
	ok(git_version_cmp(&v, 2, 40, 9) > 0, "2.41.0 > 2.40.9");
	ok(git_version_cmp(&v, 2, 41, 1) < 0, "2.41.0 < 2.41.1");
	ok(git_version_cmp(&v, 2, 100, 0) < 0, "2.41.0 < 2.100.0 (numbers, "
	   "not strings)");
	ok(git_version_cmp(&v, 1, 99, 99) > 0, "2.41.0 > 1.99.99");
	ok(git_version_cmp(&v, 3, 0, 0) < 0, "2.41.0 < 3.0.0");
	ok(git_version_cmp(&newest, 99, 99, 99) > 0,
	   "the newest behaviour is newer than any version");
}

/* The environment decides before config and PATH are looked at. */
static void check_followed(void)
{
	struct git_version v = { 0, 0, 0 };

	setenv("GARCHIVE_GIT_VERSION", "2.43.0", 1);
	setenv("PATH", "/nonexistent", 1);
	ok(!git_version_followed(&v, NULL) && !git_version_cmp(&v, 2, 43, 0),
	   "GARCHIVE_GIT_VERSION=2.43.0 is followed");
	ok(git_version_at_least(NULL, 2, 41, 0) == 1, "2.43.0 >= 2.41.0");
	ok(git_version_at_least(NULL, 2, 43, 1) == 0, "2.43.0 < 2.43.1");
	/* Worked out once: a later change of the variable is not seen. */
	setenv("GARCHIVE_GIT_VERSION", "bogus", 1);
	ok(git_version_at_least(NULL, 2, 43, 0) == 1,
	   "the answer is remembered");
}

int main(void)
{
	check_parse();
	check_output();
	check_cmp();
	check_followed();
	return tap_done();
}

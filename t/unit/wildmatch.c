/*
 * Unit tests for wildmatch(): git's t3070 vectors for the four flag
 * combinations, plus a comparison with git's own matcher through
 * `git ls-files` pathspecs.
 */
#include "wildmatch.h"
#include "garchive/common.h"

#include "tap.h"
#include "gitscratch.h"

struct vector {
	int glob, iglob, path, ipath;	/* expected: 1 match, 0 no match */
	const char *text, *pattern;
};

/*
 * From git's t/t3070-wildmatch.sh (the test-tool columns): glob is
 * WM_PATHNAME, iglob WM_PATHNAME|WM_CASEFOLD, path no flags, ipath
 * WM_CASEFOLD.
 */
static const struct vector vectors[] = {
	{ 1, 1, 1, 1, "foo", "foo" },
	{ 0, 0, 0, 0, "foo", "bar" },
	{ 1, 1, 1, 1, "", "" },
	{ 1, 1, 1, 1, "foo", "???" },
	{ 0, 0, 0, 0, "foo", "??" },
	{ 1, 1, 1, 1, "foo", "*" },
	{ 1, 1, 1, 1, "foo", "f*" },
	{ 0, 0, 0, 0, "foo", "*f" },
	{ 1, 1, 1, 1, "foo", "*foo*" },
	{ 1, 1, 1, 1, "foobar", "*ob*a*r*" },
	{ 1, 1, 1, 1, "aaaaaaabababab", "*ab" },
	{ 1, 1, 1, 1, "foo*", "foo\\*" },
	{ 0, 0, 0, 0, "foobar", "foo\\*bar" },
	{ 1, 1, 1, 1, "f\\oo", "f\\\\oo" },
	{ 1, 1, 1, 1, "ball", "*[al]?" },
	{ 0, 0, 0, 0, "ten", "[ten]" },
	{ 1, 1, 1, 1, "ten", "**[!te]" },
	{ 0, 0, 0, 0, "ten", "**[!ten]" },
	{ 1, 1, 1, 1, "ten", "t[a-g]n" },
	{ 0, 0, 0, 0, "ten", "t[!a-g]n" },
	{ 1, 1, 1, 1, "ton", "t[!a-g]n" },
	{ 1, 1, 1, 1, "ton", "t[^a-g]n" },
	{ 1, 1, 1, 1, "a]b", "a[]]b" },
	{ 1, 1, 1, 1, "a-b", "a[]-]b" },
	{ 1, 1, 1, 1, "a]b", "a[]-]b" },
	{ 0, 0, 0, 0, "aab", "a[]-]b" },
	{ 1, 1, 1, 1, "aab", "a[]a-]b" },
	{ 1, 1, 1, 1, "]", "]" },
	{ 0, 0, 1, 1, "foo/baz/bar", "foo*bar" },
	{ 0, 0, 1, 1, "foo/baz/bar", "foo**bar" },
	{ 1, 1, 1, 1, "foobazbar", "foo**bar" },
	{ 1, 1, 1, 1, "foo/baz/bar", "foo/**/bar" },
	{ 1, 1, 0, 0, "foo/baz/bar", "foo/**/**/bar" },
	{ 1, 1, 1, 1, "foo/b/a/z/bar", "foo/**/bar" },
	{ 1, 1, 1, 1, "foo/b/a/z/bar", "foo/**/**/bar" },
	{ 1, 1, 0, 0, "foo/bar", "foo/**/bar" },
	{ 1, 1, 0, 0, "foo/bar", "foo/**/**/bar" },
	{ 0, 0, 1, 1, "foo/bar", "foo?bar" },
	{ 0, 0, 1, 1, "foo/bar", "foo[/]bar" },
	{ 0, 0, 1, 1, "foo/bar", "foo[^a-z]bar" },
	{ 0, 0, 1, 1, "foo/bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r" },
	{ 1, 1, 1, 1, "foo-bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r" },
	{ 1, 1, 0, 0, "foo", "**/foo" },
	{ 1, 1, 1, 1, "XXX/foo", "**/foo" },
	{ 1, 1, 1, 1, "bar/baz/foo", "**/foo" },
	{ 0, 0, 1, 1, "bar/baz/foo", "*/foo" },
	{ 0, 0, 1, 1, "foo/bar/baz", "**/bar*" },
	{ 1, 1, 1, 1, "deep/foo/bar/baz", "**/bar/*" },
	{ 0, 0, 1, 1, "deep/foo/bar/baz/", "**/bar/*" },
	{ 1, 1, 1, 1, "deep/foo/bar/baz/", "**/bar/**" },
	{ 0, 0, 0, 0, "deep/foo/bar", "**/bar/*" },
	{ 1, 1, 1, 1, "deep/foo/bar/", "**/bar/**" },
	{ 0, 0, 1, 1, "foo/bar/baz", "**/bar**" },
	{ 1, 1, 1, 1, "foo/bar/baz/x", "*/bar/**" },
	{ 0, 0, 1, 1, "deep/foo/bar/baz/x", "*/bar/**" },
	{ 1, 1, 1, 1, "deep/foo/bar/baz/x", "**/bar/*/*" },
	{ 0, 0, 0, 0, "acrt", "a[c-c]st" },
	{ 1, 1, 1, 1, "acrt", "a[c-c]rt" },
	{ 0, 0, 0, 0, "]", "[!]-]" },
	{ 1, 1, 1, 1, "a", "[!]-]" },
	{ 0, 0, 0, 0, "", "\\" },
	{ 0, 0, 0, 0, "\\", "\\" },
	{ 0, 0, 0, 0, "XXX/\\", "*/\\" },
	{ 1, 1, 1, 1, "XXX/\\", "*/\\\\" },
	{ 1, 1, 1, 1, "foo", "foo" },
	{ 1, 1, 1, 1, "@foo", "@foo" },
	{ 0, 0, 0, 0, "foo", "@foo" },
	{ 1, 1, 1, 1, "[ab]", "\\[ab]" },
	{ 1, 1, 1, 1, "[ab]", "[[]ab]" },
	{ 1, 1, 1, 1, "[ab]", "[[:]ab]" },
	{ 0, 0, 0, 0, "[ab]", "[[::]ab]" },
	{ 1, 1, 1, 1, "[ab]", "[[:digit]ab]" },
	{ 1, 1, 1, 1, "[ab]", "[\\[:]ab]" },
	{ 1, 1, 1, 1, "?a?b", "\\??\\?b" },
	{ 1, 1, 1, 1, "abc", "\\a\\b\\c" },
	{ 0, 0, 0, 0, "foo", "" },
	{ 1, 1, 1, 1, "foo/bar/baz/to", "**/t[o]" },
	{ 1, 1, 1, 1, "a1B", "[[:alpha:]][[:digit:]][[:upper:]]" },
	{ 0, 1, 0, 1, "a", "[[:digit:][:upper:][:space:]]" },
	{ 1, 1, 1, 1, "A", "[[:digit:][:upper:][:space:]]" },
	{ 1, 1, 1, 1, "1", "[[:digit:][:upper:][:space:]]" },
	{ 0, 0, 0, 0, "1", "[[:digit:][:upper:][:spaci:]]" },
	{ 1, 1, 1, 1, " ", "[[:digit:][:upper:][:space:]]" },
	{ 0, 0, 0, 0, ".", "[[:digit:][:upper:][:space:]]" },
	{ 1, 1, 1, 1, ".", "[[:digit:][:punct:][:space:]]" },
	{ 1, 1, 1, 1, "5", "[[:xdigit:]]" },
	{ 1, 1, 1, 1, "f", "[[:xdigit:]]" },
	{ 1, 1, 1, 1, "D", "[[:xdigit:]]" },
	{ 1, 1, 1, 1, "_",
	  "[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:low"
	  "er:][:print:][:punct:][:space:][:upper:][:xdigit:]]" },
	{ 1, 1, 1, 1, ".",
	  "[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:sp"
	  "ace:][:upper:][:xdigit:]]" },
	{ 1, 1, 1, 1, "5", "[a-c[:digit:]x-z]" },
	{ 1, 1, 1, 1, "b", "[a-c[:digit:]x-z]" },
	{ 1, 1, 1, 1, "y", "[a-c[:digit:]x-z]" },
	{ 0, 0, 0, 0, "q", "[a-c[:digit:]x-z]" },
	{ 1, 1, 1, 1, "]", "[\\\\-^]" },
	{ 0, 0, 0, 0, "[", "[\\\\-^]" },
	{ 1, 1, 1, 1, "-", "[\\-_]" },
	{ 1, 1, 1, 1, "]", "[\\]]" },
	{ 0, 0, 0, 0, "\\]", "[\\]]" },
	{ 0, 0, 0, 0, "\\", "[\\]]" },
	{ 0, 0, 0, 0, "ab", "a[]b" },
	{ 0, 0, 0, 0, "a[]b", "a[]b" },
	{ 0, 0, 0, 0, "ab[", "ab[" },
	{ 0, 0, 0, 0, "ab", "[!" },
	{ 0, 0, 0, 0, "ab", "[-" },
	{ 1, 1, 1, 1, "-", "[-]" },
	{ 0, 0, 0, 0, "-", "[a-" },
	{ 0, 0, 0, 0, "-", "[!a-" },
	{ 1, 1, 1, 1, "-", "[--A]" },
	{ 1, 1, 1, 1, "5", "[--A]" },
	{ 1, 1, 1, 1, " ", "[ --]" },
	{ 1, 1, 1, 1, "$", "[ --]" },
	{ 1, 1, 1, 1, "-", "[ --]" },
	{ 0, 0, 0, 0, "0", "[ --]" },
	{ 1, 1, 1, 1, "-", "[---]" },
	{ 1, 1, 1, 1, "-", "[------]" },
	{ 0, 0, 0, 0, "j", "[a-e-n]" },
	{ 1, 1, 1, 1, "-", "[a-e-n]" },
	{ 1, 1, 1, 1, "a", "[!------]" },
	{ 0, 0, 0, 0, "[", "[]-a]" },
	{ 1, 1, 1, 1, "^", "[]-a]" },
	{ 0, 0, 0, 0, "^", "[!]-a]" },
	{ 1, 1, 1, 1, "[", "[!]-a]" },
	{ 1, 1, 1, 1, "^", "[a^bc]" },
	{ 1, 1, 1, 1, "-b]", "[a-]b]" },
	{ 0, 0, 0, 0, "\\", "[\\]" },
	{ 1, 1, 1, 1, "\\", "[\\\\]" },
	{ 0, 0, 0, 0, "\\", "[!\\\\]" },
	{ 1, 1, 1, 1, "G", "[A-\\\\]" },
	{ 0, 0, 0, 0, "aaabbb", "b*a" },
	{ 0, 0, 0, 0, "aabcaa", "*ba*" },
	{ 1, 1, 1, 1, ",", "[,]" },
	{ 1, 1, 1, 1, ",", "[\\\\,]" },
	{ 1, 1, 1, 1, "\\", "[\\\\,]" },
	{ 1, 1, 1, 1, "-", "[,-.]" },
	{ 0, 0, 0, 0, "+", "[,-.]" },
	{ 0, 0, 0, 0, "-.]", "[,-.]" },
	{ 1, 1, 1, 1, "2", "[\\1-\\3]" },
	{ 1, 1, 1, 1, "3", "[\\1-\\3]" },
	{ 0, 0, 0, 0, "4", "[\\1-\\3]" },
	{ 1, 1, 1, 1, "\\", "[[-\\]]" },
	{ 1, 1, 1, 1, "[", "[[-\\]]" },
	{ 1, 1, 1, 1, "]", "[[-\\]]" },
	{ 0, 0, 0, 0, "-", "[[-\\]]" },
	{ 1, 1, 1, 1,
	  "-adobe-courier-bold-o-normal"
	  "--12-120-75-75-m-70-iso8859-1",
	  "-*-*-*-*-*-*-12-*-*-*-m-*-*-*" },
	{ 0, 0, 0, 0,
	  "-adobe-courier-bold-o-normal"
	  "--12-120-75-75-X-70-iso8859-1",
	  "-*-*-*-*-*-*-12-*-*-*-m-*-*-*" },
	{ 0, 0, 0, 0,
	  "-adobe-courier-bold-o-normal"
	  "--12-120-75-75-/-70-iso8859-1",
	  "-*-*-*-*-*-*-12-*-*-*-m-*-*-*" },
	{ 1, 1, 1, 1,
	  "XXX/adobe/courier/bold/o/norma"
	  "l//12/120/75/75/m/70/iso8859/1",
	  "XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*" },
	{ 0, 0, 0, 0,
	  "XXX/adobe/courier/bold/o/norma"
	  "l//12/120/75/75/X/70/iso8859/1",
	  "XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*" },
	{ 1, 1, 1, 1, "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt",
	  "**/*a*b*g*n*t" },
	{ 0, 0, 0, 0, "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz",
	  "**/*a*b*g*n*t" },
	{ 0, 0, 0, 0, "foo", "*/*/*" },
	{ 0, 0, 0, 0, "foo/bar", "*/*/*" },
	{ 1, 1, 1, 1, "foo/bba/arr", "*/*/*" },
	{ 0, 0, 1, 1, "foo/bb/aa/rr", "*/*/*" },
	{ 1, 1, 1, 1, "foo/bb/aa/rr", "**/**/**" },
	{ 1, 1, 1, 1, "abcXdefXghi", "*X*i" },
	{ 0, 0, 1, 1, "ab/cXd/efXg/hi", "*X*i" },
	{ 1, 1, 1, 1, "ab/cXd/efXg/hi", "*/*X*/*/*i" },
	{ 1, 1, 1, 1, "ab/cXd/efXg/hi", "**/*X*/**/*i" },
	{ 0, 0, 0, 0, "foo", "fo" },
	{ 1, 1, 1, 1, "foo/bar", "foo/bar" },
	{ 1, 1, 1, 1, "foo/bar", "foo/*" },
	{ 0, 0, 1, 1, "foo/bba/arr", "foo/*" },
	{ 1, 1, 1, 1, "foo/bba/arr", "foo/**" },
	{ 0, 0, 1, 1, "foo/bba/arr", "foo*" },
	{ 0, 0, 1, 1, "foo/bba/arr", "foo**" },
	{ 0, 0, 1, 1, "foo/bba/arr", "foo/*arr" },
	{ 0, 0, 1, 1, "foo/bba/arr", "foo/**arr" },
	{ 0, 0, 0, 0, "foo/bba/arr", "foo/*z" },
	{ 0, 0, 0, 0, "foo/bba/arr", "foo/**z" },
	{ 0, 0, 1, 1, "foo/bar", "foo?bar" },
	{ 0, 0, 1, 1, "foo/bar", "foo[/]bar" },
	{ 0, 0, 1, 1, "foo/bar", "foo[^a-z]bar" },
	{ 0, 0, 1, 1, "ab/cXd/efXg/hi", "*Xg*i" },
	{ 0, 1, 0, 1, "a", "[A-Z]" },
	{ 1, 1, 1, 1, "A", "[A-Z]" },
	{ 0, 1, 0, 1, "A", "[a-z]" },
	{ 1, 1, 1, 1, "a", "[a-z]" },
	{ 0, 1, 0, 1, "a", "[[:upper:]]" },
	{ 1, 1, 1, 1, "A", "[[:upper:]]" },
	{ 0, 1, 0, 1, "A", "[[:lower:]]" },
	{ 1, 1, 1, 1, "a", "[[:lower:]]" },
	{ 0, 1, 0, 1, "A", "[B-Za]" },
	{ 1, 1, 1, 1, "a", "[B-Za]" },
	{ 0, 1, 0, 1, "A", "[B-a]" },
	{ 1, 1, 1, 1, "a", "[B-a]" },
	{ 0, 1, 0, 1, "z", "[Z-y]" },
	{ 1, 1, 1, 1, "Z", "[Z-y]" },
};

static void check_vectors(void)
{
	static const struct {
		const char *name;
		unsigned int flags;
	} modes[] = {
		{ "glob", WM_PATHNAME },
		{ "iglob", WM_PATHNAME | WM_CASEFOLD },
		{ "path", 0 },
		{ "ipath", WM_CASEFOLD },
	};
	size_t i, m;

	for (i = 0; i < GA_ARRAY_SIZE(vectors); i++) {
		const struct vector *v = &vectors[i];
		int want[4] = { v->glob, v->iglob, v->path, v->ipath };

		for (m = 0; m < 4; m++) {
			int got = wildmatch(v->pattern, v->text,
					    modes[m].flags) == WM_MATCH;

			ok(got == want[m], "%s: '%s' %s '%s'", modes[m].name,
			   v->text, want[m] ? "matches" : "does not match",
			   v->pattern);
		}
	}
}

/*
 * Files and patterns for the comparison with git.  Every pattern starts
 * with a glob character and is not "*<literal>", so git's pathspec code
 * has no literal prefix to compare first and ends up in wildmatch();
 * then a file matches when it equals the pattern or wildmatch() says so.
 */
static const char *const files[] = {
	"A", "a", "B", "b", "abc", "ABC", "aBc", "x.c", "X.C", "dir/x.c",
	"dir/sub/x.c", "dir/sub/y.h", "foo/bar", "foo/baz/bar", "foo-bar",
	"foobar", "a b", "[ab]", "a]b", "a-b", "-x", "_u", "z9", "Z9",
	"deep/foo/bar/baz", "q?", "star*", "back\\slash", "dir/A", "dir/Ab",
	"1", "9", ".hidden", "dir/.hidden", "caf\xc3\xa9", "\xc3\x89t\xc3\xa9",
};

static const char *const patterns[] = {
	"[A]", "[a]", "\\A", "\\a", "[A-Z]", "[a-z]", "[[:upper:]]",
	"[[:lower:]]", "[[:alpha:]]*", "?", "??", "???", "*/x.c", "**/x.c",
	"*/*/x.c", "**", "*", "*b*", "[!a]*", "[^a]*", "[]]*", "*[]]*",
	"[a-]*", "[[:digit:]]*", "[[:alnum:]][[:digit:]]", "[[:punct:]]*",
	"[[:space:]]*", "*[[:space:]]*", "[[:xdigit:]]", "[A-\\\\]*",
	"*\\?", "*\\**", "**/bar", "**/bar/*", "*/bar", "**/b*", "?oo/**",
	"[fd]*/**", "**/[.]*", "[.]*", "?[.]c", "[[:print:]]*", "[[:graph:]]",
	"*[[:cntrl:]]*", "[\\[]ab]", "[[:spaci:]]", "[ab", "*[Bb]*",
	"[[:upper:]][[:digit:]]", "[!]-]*", "?*?", "*/*", "**/*", "*\\\\*",
	"[\xc3]*", "*\xa9", "[\x80-\xff]*", "**/[A-Z]*", "*[A]*", "[aA]*",
};

static void check_against_git(void)
{
	static const struct {
		const char *opts;
		unsigned int flags;
	} modes[] = {
		{ "--glob-pathspecs", WM_PATHNAME },
		{ "--glob-pathspecs --icase-pathspecs",
		  WM_PATHNAME | WM_CASEFOLD },
		{ "", 0 },
		{ "--icase-pathspecs", WM_CASEFOLD },
	};
	char *dir = scratch_init("wildmatch");
	size_t f, p, m;

	if (!dir) {
		ok(1, "# SKIP git is not available");
		return;
	}
	if (scratch_sh("cd %s && git init -q r", dir)) {
		ok(0, "git init");
		scratch_done(dir);
		return;
	}
	for (f = 0; f < GA_ARRAY_SIZE(files); f++) {
		char *path = scratch_fmt("%s/r/%s", dir, files[f]);
		char *slash = strrchr(path, '/');

		*slash = '\0';
		scratch_sh("mkdir -p '%s'", path);
		*slash = '/';
		scratch_write(path, "x", 1);
		free(path);
	}
	ok(!scratch_sh("cd %s/r && git add -A", dir), "git add the files");

	for (p = 0; p < GA_ARRAY_SIZE(patterns); p++) {
		char *q = scratch_quote(patterns[p]);

		for (m = 0; m < GA_ARRAY_SIZE(modes); m++) {
			struct ga_buf want = GA_BUF_INIT;
			size_t len;
			int st;
			char *got = scratch_out(&len, &st,
				"cd %s/r && git %s ls-files -z -- %s "
				"2>/dev/null",
				dir, modes[m].opts, q);

			for (f = 0; f < GA_ARRAY_SIZE(files); f++) {
				if (strcmp(files[f], patterns[p]) &&
				    wildmatch(patterns[p], files[f],
					      modes[m].flags) != WM_MATCH)
					continue;
				ga_buf_put(&want, files[f],
					   strlen(files[f]) + 1);
			}
			if (st)
				diag("git exited with %d", st);
			ok(!st && scratch_same_set(got, len, want.ptr,
						   want.len),
			   "git %s ls-files '%s' agrees", modes[m].opts,
			   patterns[p]);
			ga_buf_release(&want);
			free(got);
		}
		free(q);
	}
	scratch_done(dir);
}

int main(void)
{
	check_vectors();
	check_against_git();
	return tap_done();
}

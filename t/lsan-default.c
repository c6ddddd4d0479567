/*
 * lsan-default.c: LeakSanitizer's built-in suppressions, linked into
 * the binaries of `make check-asan` only.
 *
 * The same as t/lsan.supp, for the garchive processes that reach no
 * LSAN_OPTIONS: those a web server starts as CGI (t9400's lighttpd) or
 * a replay script starts with an environment of its own.  libgit2 1.5
 * leaks pcre2 match data whenever a pattern does not match (see
 * t/lsan.supp); in a SHA-256 repository it runs one while it opens the
 * repository, so every such process would report it.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_options(void);

const char *__lsan_default_suppressions(void)
{
	return "leak:libpcre2-8.so\n";
}

/* Not the "Suppressions used" table: it would land in a test's stderr. */
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

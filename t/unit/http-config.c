/*
 * Unit tests for src/remote/http-config.c: which http.<url>.* entries
 * apply to a URL, compared with what `git config --get-urlmatch` says
 * of the same entries, and the settings taken from them and from the
 * environment.
 */
#include "tap.h"

#include "garchive/common.h"
#include "garchive/config.h"
#include "remote/http-config.h"

#include <stdlib.h>
#include <unistd.h>

#include <git2.h>

static char trash[] = "/tmp/garchive-http-config.XXXXXX";

/* `git config --get-urlmatch http.<key> URL` with one -c entry. */
static int git_says_match(const char *pattern, const char *url)
{
	char *cmd = ga_xstrfmt("git -c 'http.%s.extraheader=X' config "
			       "--get-urlmatch http.extraheader '%s' "
			       ">/dev/null 2>&1", pattern, url);
	int st = system(cmd);

	free(cmd);
	return st == 0;
}

static void check_match(const char *pattern, const char *url)
{
	size_t host = 0, path = 0;
	int user = 0;
	int got = http_url_matches(pattern, url, &host, &path, &user);
	int want = git_says_match(pattern, url);

	ok(got == want, "%s %s %s (git: %s)", pattern,
	   got ? "matches" : "does not match", url, want ? "yes" : "no");
}

/* The settings for `url` under these -c entries. */
static int load(struct http_settings *s, const char *url,
		const char *const *entries, size_t nr)
{
	struct ga_config *cfg = NULL;
	int error = config_load(&cfg, NULL, entries, nr);

	if (!error)
		error = http_settings_load(s, cfg, url, "origin");
	config_free(cfg);
	return error;
}

static void test_settings(void)
{
	static const char *const entries[] = {
		"http.extraHeader=A: 1",
		"http.https://example.org/.extraHeader=B: 2",
		"http.https://example.org/repo.git.extraHeader=C: 3",
		"http.https://other.org/.extraHeader=D: 4",
		"http.sslVerify=false",
		"http.https://example.org.sslVerify=true",
		"http.proxy=http://proxy:3128",
		"remote.origin.proxy=http://remote-proxy:8080",
		"http.followRedirects=initial",
		"http.https://*.example.org.userAgent=agent/1",
	};
	static const char *const cleared[] = {
		"http.extraHeader=A: 1", "http.extraHeader=",
		"http.extraHeader=B: 2", "http.sslVerify",
		"http.followRedirects=false",
	};
	struct http_settings s;
	int error;

	error = load(&s, "https://example.org/repo.git", entries,
		     GA_ARRAY_SIZE(entries));
	ok(!error, "settings load");
	ok(s.nr_extra_headers == 3 && !strcmp(s.extra_headers[0], "A: 1") &&
	   !strcmp(s.extra_headers[1], "B: 2") &&
	   !strcmp(s.extra_headers[2], "C: 3"),
	   "extraHeader: every matching entry, in order, none for others");
	ok(s.ssl_verify == 1, "a more specific sslVerify wins");
	ok(s.proxy && !strcmp(s.proxy, "http://remote-proxy:8080"),
	   "remote.<name>.proxy wins over http.proxy");
	ok(s.follow == HTTP_FOLLOW_INITIAL, "followRedirects=initial");
	ok(!s.user_agent, "a wildcard host needs a label to match");
	http_settings_release(&s);

	error = load(&s, "https://git.example.org/x", entries,
		     GA_ARRAY_SIZE(entries));
	ok(!error && s.user_agent && !strcmp(s.user_agent, "agent/1"),
	   "*.example.org matches git.example.org");
	ok(s.ssl_verify == 0, "http.sslVerify=false applies elsewhere");
	http_settings_release(&s);

	error = load(&s, "http://example.org/x", cleared,
		     GA_ARRAY_SIZE(cleared));
	ok(!error && s.nr_extra_headers == 1 &&
	   !strcmp(s.extra_headers[0], "B: 2"),
	   "an empty extraHeader clears the list");
	ok(s.ssl_verify == 1, "a valueless sslVerify is true");
	ok(s.follow == HTTP_FOLLOW_NONE, "followRedirects=false");
	http_settings_release(&s);

	setenv("GIT_SSL_NO_VERIFY", "1", 1);
	setenv("https_proxy", "http://env-proxy:1", 1);
	setenv("no_proxy", "localhost", 1);
	error = load(&s, "https://x.org/", NULL, 0);
	ok(!error && s.ssl_verify == 0, "GIT_SSL_NO_VERIFY");
	ok(s.proxy && !strcmp(s.proxy, "http://env-proxy:1") &&
	   s.no_proxy && !strcmp(s.no_proxy, "localhost"),
	   "https_proxy and no_proxy for an https URL");
	http_settings_release(&s);
	error = load(&s, "http://x.org/", NULL, 0);
	ok(!error && !s.proxy, "https_proxy is not for http URLs");
	http_settings_release(&s);
	unsetenv("GIT_SSL_NO_VERIFY");
	unsetenv("https_proxy");
	unsetenv("no_proxy");

	{
		static const char *const bad[] = { "http.sslVerify=maybe" };

		error = load(&s, "https://x.org/", bad, 1);
		ok(error < 0 && strstr(ga_error_message(), "bad boolean"),
		   "a bad boolean: %s", ga_error_message());
		http_settings_release(&s);
	}
}

int main(void)
{
	static const char *const cases[][2] = {
		{ "https://example.org", "https://example.org/repo.git" },
		{ "https://example.org/", "https://example.org/repo.git" },
		{ "https://example.org/repo.git", "https://example.org/repo.git" },
		{ "https://example.org/repo", "https://example.org/repo.git" },
		{ "https://example.org/re", "https://example.org/repo/x" },
		{ "https://example.org/repo", "https://example.org/repo/x" },
		{ "http://example.org", "https://example.org/x" },
		{ "https://example.org:443", "https://example.org/x" },
		{ "https://example.org:8443", "https://example.org/x" },
		{ "https://example.org:8443", "https://example.org:8443/x" },
		{ "https://*.example.org", "https://git.example.org/x" },
		{ "https://*.example.org", "https://example.org/x" },
		{ "https://*.example.org", "https://a.b.example.org/x" },
		{ "https://*.*.example.org", "https://a.b.example.org/x" },
		{ "https://user@example.org", "https://example.org/x" },
		{ "https://user@example.org", "https://user@example.org/x" },
		{ "https://example.org", "https://user:pw@example.org/x" },
		{ "https://EXAMPLE.org", "https://example.ORG/x" },
		{ "http://127.0.0.1:8080/ga", "http://127.0.0.1:8080/ga/r.git" },
	};
	size_t i;

	if (!mkdtemp(trash))
		return 1;
	setenv("HOME", trash, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("GIT_CONFIG_PARAMETERS");
	unsetenv("GIT_CONFIG_COUNT");
	unsetenv("http_proxy");
	unsetenv("https_proxy");
	unsetenv("HTTPS_PROXY");
	unsetenv("all_proxy");
	unsetenv("ALL_PROXY");
	unsetenv("GIT_SSL_NO_VERIFY");
	git_libgit2_init();
	for (i = 0; i < GA_ARRAY_SIZE(cases); i++)
		check_match(cases[i][0], cases[i][1]);
	test_settings();
	git_libgit2_shutdown();
	rmdir(trash);
	return tap_done();
}

/*
 * Unit tests for src/git/config.c.  Every case builds a scratch setup (HOME,
 * XDG, GIT_CONFIG_* variables, repositories), loads garchive's view and
 * compares it with what the system git says about the same setup:
 * `git config --list --show-origin --show-scope` for the entries and
 * their order, `git archive --list` for the diagnostics.
 */
#include "tap.h"

#include "garchive/common.h"
#include "garchive/config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <git2.h>
#include <git2/sys/repository.h>

static char trash[256];
static struct ga_buf reports = GA_BUF_INIT;

static void report(enum ga_report_kind kind, const char *msg, void *payload)
{
	(void)payload;
	ga_buf_printf(&reports, "%s: %s\n",
		      kind == GA_REPORT_WARNING ? "warning" : "error", msg);
}

/* Run a shell command in the current directory; its exit status. */
__attribute__((format(printf, 1, 2)))
static int sh(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int st;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	st = system(s);
	free(s);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void slurp(struct ga_buf *out, const char *path)
{
	ga_buf_setlen(out, 0);
	ga_buf_puts(out, "");
	(void)ga_buf_read_file(out, path);
}

static void cd(const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", trash, dir);
	if (chdir(path))
		perror(path);
}

/* Only git's fatal:, error: and warning: lines, as the harness does. */
static void diag_lines(struct ga_buf *out, const char *text, int dedup)
{
	const char *line = text, *end;
	struct ga_buf last = GA_BUF_INIT;

	ga_buf_setlen(out, 0);
	ga_buf_puts(out, "");
	while (*line) {
		end = strchrnul(line, '\n');
		if ((!strncmp(line, "fatal:", 6) ||
		     !strncmp(line, "error:", 6) ||
		     !strncmp(line, "warning:", 8) ||
		     (*line == '\t' || !strncmp(line, "from", 4) ||
		      !strncmp(line, "This might", 10))) &&
		    !(dedup && last.ptr && (size_t)(end - line) == last.len &&
		      !strncmp(line, last.ptr, last.len))) {
			ga_buf_put(out, line, (size_t)(end - line));
			ga_buf_putc(out, '\n');
			ga_buf_setlen(&last, 0);
			ga_buf_put(&last, line, (size_t)(end - line));
		}
		line = *end ? end + 1 : end;
	}
	ga_buf_release(&last);
}

static const char *scope_name(enum config_scope s)
{
	switch (s) {
	case CONFIG_SCOPE_SYSTEM:
		return "system";
	case CONFIG_SCOPE_XDG:
	case CONFIG_SCOPE_GLOBAL:
		return "global";
	case CONFIG_SCOPE_LOCAL:
		return "local";
	case CONFIG_SCOPE_WORKTREE:
		return "worktree";
	case CONFIG_SCOPE_COMMAND:
		break;
	}
	return "command";
}

/* `git config --list --show-scope --show-origin` format. */
static int list_entry(const struct config_entry *e, void *payload)
{
	struct ga_buf *out = payload;

	ga_buf_printf(out, "%s\t", scope_name(e->scope));
	if (e->file)
		ga_buf_printf(out, "file:%s\t", e->file);
	else
		ga_buf_puts(out, "command line:\t");
	ga_buf_puts(out, e->name);
	if (e->value)
		ga_buf_printf(out, "=%s", e->value);
	ga_buf_putc(out, '\n');
	return 0;
}

static git_repository *open_repo(void)
{
	git_repository *repo = NULL;

	if (git_repository_open_ext(&repo, ".", GIT_REPOSITORY_OPEN_FROM_ENV,
				    NULL) < 0)
		return NULL;
	return repo;
}

/*
 * Load garchive's config here (in a repository when `in_repo`) and
 * compare it with git's listing.  `overrides`/`git_c` are the same -c
 * options for both.
 */
static void same_list(const char *title, int in_repo,
		      const char *const *overrides, size_t nr,
		      const char *git_c)
{
	struct ga_buf got = GA_BUF_INIT, want = GA_BUF_INIT;
	git_repository *repo = in_repo ? open_repo() : NULL;
	struct ga_config *cfg = NULL;
	int error, st;

	ga_buf_setlen(&reports, 0);
	ga_buf_puts(&got, "");
	if (in_repo && !repo) {
		ok(0, "%s: open the repository", title);
		return;
	}
	error = config_load(&cfg, repo, overrides, nr);
	if (!error)
		config_foreach_entry(cfg, list_entry, &got);
	else
		ga_buf_printf(&got, "fatal: %s\n", ga_error_message());

	st = sh("git %s config --list --show-scope --show-origin "
		">%s/git.out 2>%s/git.err", git_c ? git_c : "", trash, trash);
	slurp(&want, "/dev/null");
	{
		char path[300];

		snprintf(path, sizeof(path), "%s/git.out", trash);
		slurp(&want, path);
	}
	if (st)
		diag("git config --list failed (%d)", st);
	is_str(got.ptr, want.ptr, title);
	if (getenv("GA_TEST_VERBOSE"))
		diag("%s", got.ptr);
	config_free(cfg);
	git_repository_free(repo);
	ga_buf_release(&got);
	ga_buf_release(&want);
}

/*
 * Load the config and compare the diagnostics with those of
 * `git archive --list` (which reads the same stack).
 */
static void same_failure(const char *title, int in_repo, const char *git_c)
{
	struct ga_buf got = GA_BUF_INIT, want = GA_BUF_INIT, err = GA_BUF_INIT;
	git_repository *repo = in_repo ? open_repo() : NULL;
	struct ga_config *cfg = NULL;
	char path[300];
	int error, st;

	ga_buf_setlen(&reports, 0);
	error = config_load(&cfg, repo, NULL, 0);
	ga_buf_puts(&err, reports.ptr ? reports.ptr : "");
	if (error)
		ga_buf_printf(&err, "fatal: %s\n", ga_error_message());
	diag_lines(&got, err.ptr, 0);
	/*
	 * git 2.43 words a bad boolean from the environment "bad boolean
	 * environment value"; 2.39, which garchive follows, "config value".
	 */
	st = sh("git %s archive --list >/dev/null 2>%s/git.err",
		git_c ? git_c : "", trash);
	if (!tap_git_is_2_39())
		sh("sed -i 's/^fatal: bad boolean environment value /"
		   "fatal: bad boolean config value /' '%s/git.err'", trash);
	snprintf(path, sizeof(path), "%s/git.err", trash);
	slurp(&err, path);
	/* git reads its config three times and warns each time. */
	diag_lines(&want, err.ptr, 1);
	ok(error == GA_ERROR && st == 128, "%s: both fail (git %d)", title,
	   st);
	is_str(got.ptr, want.ptr, title);
	config_free(cfg);
	git_repository_free(repo);
	ga_buf_release(&got);
	ga_buf_release(&want);
	ga_buf_release(&err);
}

/* `path` is relative to the trash directory unless absolute. */
static void write_file(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	if (name[0] == '/')
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", trash, name);
	f = fopen(path, "w");

	if (!f) {
		perror(path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

static void reset_env(void)
{
	char path[300];

	unsetenv("GIT_CONFIG_PARAMETERS");
	unsetenv("GIT_CONFIG_COUNT");
	unsetenv("GIT_CONFIG_GLOBAL");
	unsetenv("GIT_CONFIG_SYSTEM");
	unsetenv("GIT_DIR");
	unsetenv("XDG_CONFIG_HOME");
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	snprintf(path, sizeof(path), "%s/home", trash);
	setenv("HOME", path, 1);
}

static void test_levels(void)
{
	reset_env();
	cd("");
	sh("mkdir -p home/.config/git xdg/git sys && git init -q repo && "
	   "cd repo && git commit -q --allow-empty -m root");
	write_file("home/.gitconfig", "[user]\n\tname = Global\n"
		   "[tar \"Bar\"]\n\tcommand = cat\n[core]\n\tabbrev = 9\n");
	write_file("home/.config/git/config", "[user]\n\temail = x@xdg\n"
		   "[tar \"xdg\"]\n\tcommand = xz\n");
	write_file("xdg/git/config", "[from]\n\txdghome = yes\n");
	write_file("sys/gitconfig", "[sys]\n\tkey = 1\n[core]\n\tabbrev=7\n");

	cd("repo");
	sh("git config tar.tar.xz.command 'xz -c' && "
	   "git config Core.Abbrev 12");
	same_list("global, XDG and local, in git's order", 1, NULL, 0, NULL);

	setenv("XDG_CONFIG_HOME", "", 1);
	same_list("empty XDG_CONFIG_HOME: ~/.config/git/config", 1, NULL, 0,
		  NULL);
	{
		char path[300];

		snprintf(path, sizeof(path), "%s/xdg", trash);
		setenv("XDG_CONFIG_HOME", path, 1);
		same_list("XDG_CONFIG_HOME", 1, NULL, 0, NULL);
		unsetenv("XDG_CONFIG_HOME");

		snprintf(path, sizeof(path), "%s/sys/gitconfig", trash);
		setenv("GIT_CONFIG_GLOBAL", path, 1);
		same_list("GIT_CONFIG_GLOBAL replaces global and XDG", 1,
			  NULL, 0, NULL);
		setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
		same_list("GIT_CONFIG_GLOBAL=/dev/null", 1, NULL, 0, NULL);
		unsetenv("GIT_CONFIG_GLOBAL");

		snprintf(path, sizeof(path), "%s/sys/../sys//gitconfig",
			 trash);
		setenv("GIT_CONFIG_SYSTEM", path, 1);
		same_list("GIT_CONFIG_NOSYSTEM=1 ignores GIT_CONFIG_SYSTEM", 1,
			  NULL, 0, NULL);
		setenv("GIT_CONFIG_NOSYSTEM", "0", 1);
		same_list("GIT_CONFIG_SYSTEM (normalized name)", 1, NULL, 0,
			  NULL);
		setenv("GIT_CONFIG_NOSYSTEM", "", 1);
		same_list("empty GIT_CONFIG_NOSYSTEM is false", 1, NULL, 0,
			  NULL);
		setenv("GIT_CONFIG_NOSYSTEM", "maybe", 1);
		same_failure("GIT_CONFIG_NOSYSTEM=maybe", 1, NULL);
		setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
		unsetenv("GIT_CONFIG_SYSTEM");
	}

	unsetenv("HOME");
	same_list("no HOME: no global files", 1, NULL, 0, NULL);
	reset_env();

	/* Outside any repository: no local level. */
	cd("sys");
	same_list("outside a repository", 0, NULL, 0, NULL);

	/* Named as git names them, wherever garchive runs. */
	cd("repo");
	sh("mkdir -p sub/deep");
	cd("repo/sub/deep");
	same_list("from a subdirectory: .git/config", 1, NULL, 0, NULL);
	cd("repo/.git");
	same_list("inside .git: config", 1, NULL, 0, NULL);
	cd("repo/.git/refs");
	same_list("below .git: absolute", 1, NULL, 0, NULL);
	cd("repo/sub");
	setenv("GIT_DIR", "../.git", 1);
	same_list("GIT_DIR as given", 1, NULL, 0, NULL);
	unsetenv("GIT_DIR");
	cd("");
	sh("git clone -q --bare repo bare.git");
	cd("bare.git");
	same_list("bare repository", 1, NULL, 0, NULL);

	/* config.worktree, main and linked worktrees. */
	cd("repo");
	sh("git config extensions.worktreeConfig true && "
	   "git config --worktree wt.key main && "
	   "git worktree add -q ../linked 2>/dev/null && "
	   "cd ../linked && git config --worktree wt.key linked");
	same_list("config.worktree of the main worktree", 1, NULL, 0, NULL);
	cd("linked");
	same_list("linked worktree: common config and its config.worktree",
		  1, NULL, 0, NULL);
	cd("repo");
	sh("git config extensions.worktreeConfig false");
	same_list("extensions.worktreeConfig=false: no config.worktree", 1,
		  NULL, 0, NULL);
	sh("git config --unset extensions.worktreeConfig");
}

static void test_syntax(void)
{
	static const char *cases[] = {
		"[a]\n\tb =\fx\n[a]\n\tc = x\vy\n",
		"[a]\n\tb = \"\" x  ; c\n\td = x \\\n y\n",
		"[a \"x\\\"y\\z\"]\n\tb\n[A.B]\nc=1\n",
		"[a]b=1\n[a] b=2\n[a]\n c\n",
		"[a]\n\tb = \\t\"  q  \"  z\n\tc = \"a;b#c\" ; comment\n",
		"[a]\nb-1 = 2\r\nc=\r\n\r\n#x\n;y\n",
		"[.x]\nb=1\n[x \"\"]\nc=2\n",
		"\xef\xbb\xbf[bom]\n\tok = yes\n",
		("[Sec \"MiXed Case\"]\n\tKeY = Val\n"
		 "[sec \"mixed case\"]\nkey=2\n"),
		"[a]\n\tb = tab\\tnl\\nbs\\\\q\\\"\n\tc\n\td =\n",
		"[a]\n\tb = one \\\n two \\\n three\n[z]x=y",
		"[a] ; comment\n\tb = 1 # comment\n\t# c = 2\n",
		"[a]\n\tb = \"multi\\\nline\"\n",
		"[a]\n\tb = one \\\n two \\",
		"[a]\n\tb",
		"",
	};
	char title[64];
	size_t i;

	reset_env();
	cd("repo");
	for (i = 0; i < GA_ARRAY_SIZE(cases); i++) {
		char path[300];

		snprintf(path, sizeof(path), "%s/home/.gitconfig", trash);
		write_file(path, cases[i]);
		snprintf(title, sizeof(title), "file syntax, case %zu", i + 1);
		same_list(title, 1, NULL, 0, NULL);
	}

	/* Malformed files: git's "bad config line N in file X". */
	{
		static const char *bad[] = {
			"[a]\n\tb = \"x\n",
			"[a]\n\tb = \\q\n",
			"\xef\xbb[a]\n\tb = 1\n",
			"[a]\n\tb = 1\n[",
			"[a]\n1b = 2\n",
			"[a  \"x\"  ]\nb=1\n",
			"[a \"x\nb=1\n",
			"[]\nb=1\n",
			"[a]\n\tb = 1\n\tc = 2 \\\n\td = \"3\n",
			"[a]\nb c = 1\n",
			"[a]\nb = \"unterminated\\\n",
		};

		for (i = 0; i < GA_ARRAY_SIZE(bad); i++) {
			char path[300];

			snprintf(path, sizeof(path), "%s/home/.gitconfig",
				 trash);
			write_file(path, bad[i]);
			snprintf(title, sizeof(title),
				 "bad config line, case %zu", i + 1);
			same_failure(title, 1, NULL);
		}
	}
	sh("rm -f \"$HOME/.gitconfig\"");
}

static void test_includes(void)
{
	char path[400], text[1200];

	reset_env();
	cd("");
	sh("mkdir -p home/inc home/work && git init -q home/work/proj && "
	   "git init -q -b topic/x home/work/Other");
	write_file("home/inc/one", "[one]\n\tkey = 1\n"
		   "[include]\n\tpath = two\n[one]\n\tafter = yes\n");
	write_file("home/inc/two", "[two]\n\tkey = 2\n");
	write_file("home/inc/work", "[work]\n\tkey = w\n");
	write_file("home/inc/branch", "[branch]\n\tkey = b\n");
	write_file("home/inc/rel", "[rel]\n\tkey = r\n");
	write_file("home/inc/url", "[url]\n\tkey = u\n");
	snprintf(text, sizeof(text),
		 "[before]\n\tkey = 0\n"
		 "[include]\n\tpath = inc/one\n"
		 "[include]\n\tpath = ~/inc/two\n"
		 "[include]\n\tpath = %s/home/inc/two\n"
		 "[include]\n\tpath = inc/missing\n"
		 "[includeIf \"gitdir:~/work/\"]\n\tpath = inc/work\n"
		 "[includeIf \"gitdir:proj/\"]\n\tpath = inc/work\n"
		 "[includeIf \"gitdir/i:~/WORK/other/\"]\n\tpath = inc/work\n"
		 "[includeIf \"gitdir:~/work/Other\"]\n\tpath = inc/rel\n"
		 "[includeIf \"gitdir:~/work/*/.git\"]\n\tpath = inc/rel\n"
		 "[includeIf \"gitdir:./work/proj/\"]\n\tpath = inc/rel\n"
		 "[includeIf \"gitdir:~/nomatch/\"]\n\tpath = inc/work\n"
		 "[includeIf \"onbranch:topic/\"]\n\tpath = inc/branch\n"
		 "[includeIf \"onbranch:t*c/x\"]\n\tpath = inc/branch\n"
		 "[includeIf \"onbranch:main\"]\n\tpath = inc/branch\n"
		 "[includeIf \"onbranch:master\"]\n\tpath = inc/branch\n"
		 "[includeIf \"unknown:x\"]\n\tpath = inc/work\n"
		 "[includeIf \"hasconfig:remote.*.url:"
		 "https://example.com/**\"]\n\tpath = inc/url\n"
		 "[after]\n\tkey = z\n", trash);
	write_file("home/.gitconfig", text);

	cd("home/work/proj");
	same_list("includes and includeIf in the proj repository", 1, NULL, 0,
		  NULL);
	sh("git remote add origin https://example.com/x.git");
	same_list("includeIf hasconfig:remote.*.url", 1, NULL, 0, NULL);
	cd("home/work/Other");
	same_list("includeIf gitdir/i and onbranch globs", 1, NULL, 0, NULL);
	cd("");
	same_list("includeIf outside a repository", 0, NULL, 0, NULL);

	/* Includes from the repository's config are named relatively. */
	cd("home/work/proj");
	write_file("home/work/proj/.git/local-inc", "[local]\n\tinc = yes\n");
	sh("git config include.path local-inc");
	cd("home/work/proj/.git/refs");
	same_list("relative include from the repository config", 1, NULL, 0,
		  NULL);
	cd("home/work/proj");
	same_list("same, from the work tree", 1, NULL, 0, NULL);

	/* A hasconfig include may not define remotes. */
	write_file("home/inc/url", "[remote \"evil\"]\n\turl = x\n");
	same_failure("remote URL inside a hasconfig include", 1, NULL);
	write_file("home/inc/url", "[url]\n\tkey = u\n");

	/* Errors inside includes. */
	snprintf(path, sizeof(path), "%s/home/.gitconfig", trash);
	write_file(path, "[include]\n\tpath\n");
	same_failure("include.path without a value", 1, NULL);
	write_file(path, "[a]\n\tb = 1\n[include]\n\tpath = ~nosuchuser/x\n");
	same_failure("include path that cannot be expanded", 1, NULL);
	write_file(path, "[include]\n\tpath = .gitconfig\n");
	same_failure("circular include", 1, NULL);
	sh("mkdir -p \"$HOME/incdir\"");
	write_file(path, "[include]\n\tpath = incdir\n");
	same_failure("include of a directory", 1, NULL);
	write_file(path, "[ok]\n\tkey = 1\n");
	write_file("home/inc/bad", "[x]\n\ty = \"\n");
	write_file(path, "[include]\n\tpath = inc/bad\n");
	same_failure("bad line in an included file", 1, NULL);

	/* Command-line includes: absolute ones only. */
	write_file(path, "");
	snprintf(text, sizeof(text), "-c include.path=%s/home/inc/one", trash);
	snprintf(path, sizeof(path), "include.path=%s/home/inc/one", trash);
	{
		const char *ov[] = { path };

		same_list("include from a -c option", 1, ov, 1, text);
	}
	setenv("GIT_CONFIG_PARAMETERS", "'include.path'='inc/one'", 1);
	same_failure("relative include from the command line", 1, NULL);
	unsetenv("GIT_CONFIG_PARAMETERS");

	/* An unreadable top-level file. */
	sh("rm -f \"$HOME/.gitconfig\" && mkdir \"$HOME/.gitconfig\"");
	same_failure("a directory as ~/.gitconfig", 1, NULL);
	sh("rmdir \"$HOME/.gitconfig\"");
}

static void test_command_line(void)
{
	struct ga_buf params = GA_BUF_INIT;
	char path[300];

	reset_env();
	cd("repo");

	/* The encoding git itself exports to its children. */
	sh("git -c a.b=c -c 'x.y.z=has space' -c bare.key -c \"q.k=it's\" "
	   "-c 'Sec.Sub.Key=v=w' -c 'e.k=' -c 'u.v=a!b' "
	   "-c \"alias.pp=!printf %%s \\\"\\$GIT_CONFIG_PARAMETERS\\\" "
	   ">'%s/params'\" pp", trash);
	snprintf(path, sizeof(path), "%s/params", trash);
	slurp(&params, path);
	diag("GIT_CONFIG_PARAMETERS from git: %s", params.ptr);
	ok(params.len > 0, "captured git's GIT_CONFIG_PARAMETERS");
	setenv("GIT_CONFIG_PARAMETERS", params.ptr, 1);
	same_list("GIT_CONFIG_PARAMETERS as git exports it", 1, NULL, 0, NULL);

	setenv("GIT_CONFIG_PARAMETERS",
	       "'a.b=old' 'c.D'='x' 'e.f'= 'g.h'  'i.j = k '", 1);
	same_list("old and new GIT_CONFIG_PARAMETERS forms", 1, NULL, 0, NULL);
	setenv("GIT_CONFIG_PARAMETERS", "'a.b=it'\\''s' 'c.d'='x'\\!'y'", 1);
	same_list("quoted quotes and bangs", 1, NULL, 0, NULL);

	setenv("GIT_CONFIG_COUNT", "2", 1);
	setenv("GIT_CONFIG_KEY_0", "a.b", 1);
	setenv("GIT_CONFIG_VALUE_0", "count0", 1);
	setenv("GIT_CONFIG_KEY_1", "Z.Sub.K", 1);
	setenv("GIT_CONFIG_VALUE_1", "", 1);
	same_list("GIT_CONFIG_COUNT comes before GIT_CONFIG_PARAMETERS", 1,
		  NULL, 0, NULL);
	{
		const char *ov[] = { "a.b=override", "flag.only", "s.t=u=v" };

		same_list("config_load overrides come last", 1, ov, 3,
			  "-c a.b=override -c flag.only -c s.t=u=v");
	}
	unsetenv("GIT_CONFIG_PARAMETERS");

	/* Malformed input: git's error line, then its fatal line. */
	setenv("GIT_CONFIG_COUNT", "3", 1);
	same_failure("missing GIT_CONFIG_KEY_2", 1, NULL);
	setenv("GIT_CONFIG_KEY_2", "a.c", 1);
	same_failure("missing GIT_CONFIG_VALUE_2", 1, NULL);
	setenv("GIT_CONFIG_COUNT", "x", 1);
	same_failure("bogus GIT_CONFIG_COUNT", 1, NULL);
	setenv("GIT_CONFIG_COUNT", "9999999999", 1);
	same_failure("too many in GIT_CONFIG_COUNT", 1, NULL);
	setenv("GIT_CONFIG_COUNT", "1", 1);
	setenv("GIT_CONFIG_KEY_0", "nodot", 1);
	same_failure("key without a section", 1, NULL);
	setenv("GIT_CONFIG_KEY_0", "a.", 1);
	same_failure("key without a variable name", 1, NULL);
	setenv("GIT_CONFIG_KEY_0", "a.1b", 1);
	same_failure("invalid key", 1, NULL);
	setenv("GIT_CONFIG_KEY_0", "a.b\nc.d", 1);
	same_failure("key with a newline in the subsection", 1, NULL);
	setenv("GIT_CONFIG_KEY_0", "", 1);
	same_failure("empty key", 1, NULL);
	setenv("GIT_CONFIG_COUNT", "", 1);
	same_list("empty GIT_CONFIG_COUNT is zero", 1, NULL, 0, NULL);
	unsetenv("GIT_CONFIG_COUNT");

	setenv("GIT_CONFIG_PARAMETERS", "'a.b=old", 1);
	same_failure("unterminated quote in GIT_CONFIG_PARAMETERS", 1, NULL);
	setenv("GIT_CONFIG_PARAMETERS", "a.b=c", 1);
	same_failure("unquoted GIT_CONFIG_PARAMETERS", 1, NULL);
	setenv("GIT_CONFIG_PARAMETERS", "'a.b'='c'x", 1);
	same_failure("junk after a quoted value", 1, NULL);
	setenv("GIT_CONFIG_PARAMETERS", "'a.b'=c", 1);
	same_failure("unquoted value", 1, NULL);
	setenv("GIT_CONFIG_PARAMETERS", "'a.b'x", 1);
	same_failure("junk after a key", 1, NULL);
	setenv("GIT_CONFIG_PARAMETERS", "'=x'", 1);
	same_failure("empty key, old form", 1, NULL);
	setenv("GIT_CONFIG_PARAMETERS", "' '", 1);
	same_failure("blank parameter", 1, NULL);
	unsetenv("GIT_CONFIG_PARAMETERS");
	{
		const char *ov[] = { "nodot=1" };
		struct ga_config *cfg = NULL;

		ga_buf_setlen(&reports, 0);
		ok(config_load(&cfg, NULL, ov, 1) == GA_ERROR &&
		   !strcmp(ga_error_message(),
			   "unable to parse command-line config") &&
		   !strcmp(reports.ptr ? reports.ptr : "", "error: key does "
			   "not contain a section: nodot\n"),
		   "bad -c override: git's two lines");
		config_free(cfg);
	}
	ga_buf_release(&params);
}

/* Parse `value` as git's tar.umask (an int) and tar.<x>.remote (bool). */
static void test_values(void)
{
	static const struct {
		const char *value;
		int ok;
		int64_t want;
	} ints[] = {
		{ "022", 1, 18 }, { "0x1F", 1, 31 }, { "18", 1, 18 },
		{ "1k", 1, 1024 }, { "1M", 1, 1048576 }, { "-2k", 1, -2048 },
		{ "1g", 1, 1073741824 }, { " 12", 1, 12 }, { "+7", 1, 7 },
		{ "2g", 0, 0 }, { "abc", 0, 0 }, { "", 0, 0 }, { "1q", 0, 0 },
		{ "12 ", 0, 0 }, { "0x", 0, 0 },
		{ "99999999999999999999", 0, 0 },
		{ "2147483648", 0, 0 }, { "-2147483648", 0, 0 },
		{ "2147483647", 1, 2147483647 }, { "1kb", 0, 0 },
		{ "08", 0, 0 }, { "k", 0, 0 }, { "-m", 0, 0 },
	};
	static const char *bools[] = {
		"true", "yes", "ON", "1", "false", "No", "off", "0", "",
		"2", "-1", "1k", "maybe", "truee", "0x0", "k", "-2147483648",
	};
	struct ga_buf got = GA_BUF_INIT, want = GA_BUF_INIT, err = GA_BUF_INIT;
	char path[300];
	size_t i;

	reset_env();
	cd("repo");
	snprintf(path, sizeof(path), "%s/git.err", trash);
	for (i = 0; i < GA_ARRAY_SIZE(ints); i++) {
		int v = 0, error;
		int st;

		setenv("GA_V", ints[i].value, 1);
		st = sh("git -c tar.umask=\"$GA_V\" archive --list >/dev/null "
			"2>%s/git.err", trash);
		slurp(&err, path);
		diag_lines(&want, err.ptr, 0);
		error = config_parse_int(&v, "tar.umask", ints[i].value);
		ga_buf_setlen(&got, 0);
		ga_buf_puts(&got, "");
		if (error)
			ga_buf_printf(&got, "fatal: %s\n", ga_error_message());
		ok((!error) == ints[i].ok && (!error || st) &&
		   (error || v == ints[i].want),
		   "int '%s' (git %d)", ints[i].value, st);
		is_str(got.ptr, want.ptr, "  same message as git");
	}
	for (i = 0; i < GA_ARRAY_SIZE(bools); i++) {
		int v = -1, error, st;

		setenv("GA_V", bools[i], 1);
		st = sh("git -c tar.tgz.remote=\"$GA_V\" config --type=bool "
			"tar.tgz.remote >%s/git.out 2>/dev/null; "
			"git -c tar.tgz.remote=\"$GA_V\" archive --list "
			">/dev/null 2>%s/git.err", trash, trash);
		slurp(&err, path);
		diag_lines(&want, err.ptr, 0);
		error = config_parse_bool(&v, "tar.tgz.remote", bools[i]);
		ga_buf_setlen(&got, 0);
		ga_buf_puts(&got, "");
		if (error)
			ga_buf_printf(&got, "fatal: %s\n", ga_error_message());
		is_str(got.ptr, want.ptr, bools[i]);
		if (!error) {
			char out[300];
			struct ga_buf o = GA_BUF_INIT;

			snprintf(out, sizeof(out), "%s/git.out", trash);
			slurp(&o, out);
			is_str(v ? "true\n" : "false\n", o.ptr,
			       "  same truth value as git");
			ga_buf_release(&o);
		}
		(void)st;
	}
	{
		int64_t v = 0;

		ok(!config_parse_int64(&v, "a.b", "8g") &&
		   v == 8589934592LL, "int64 takes 8g");
		ok(config_parse_int64(&v, "a.b", "9223372036854775807k") ==
		   GA_ERROR && strstr(ga_error_message(), "out of range"),
		   "int64 overflow by unit");
	}
	unsetenv("GA_V");
	ga_buf_release(&got);
	ga_buf_release(&want);
	ga_buf_release(&err);
}

/* Lookups, origins and line numbers. */
struct walk_state {
	const char *name;
	const struct config_entry *hit;
	struct config_entry copy;
};

static int find_entry(const struct config_entry *e, void *payload)
{
	struct walk_state *w = payload;

	if (!strcmp(e->name, w->name)) {
		w->copy = *e;
		w->hit = &w->copy;
	}
	return 0;
}

struct thread_arg {
	const struct ga_config *cfg;
	int bad;
};

static void *reader(void *p)
{
	struct thread_arg *a = p;
	int i;

	for (i = 0; i < 20000; i++) {
		const char *v = NULL;
		int64_t n;

		if (config_get_string(&v, a->cfg, "TAR.Sub.Command") ||
		    strcmp(v, "second") ||
		    config_get_int64(&n, a->cfg, "lookup.number") || n != 11)
			a->bad++;
	}
	return NULL;
}

static void test_lookups(void)
{
	struct ga_config *cfg = NULL;
	git_repository *repo;
	struct walk_state w = { 0 };
	const char *v;
	int64_t n;
	int b, error;
	char path[300];

	reset_env();
	cd("repo");
	snprintf(path, sizeof(path), "%s/home/.gitconfig", trash);
	write_file(path, "[tar \"Sub\"]\n\tcommand = first\n"
		   "[tar \"x\"]\n\tcommand\n"
		   "[tar \"y\"]\n\tcommand = a \\\n  b \\\n  c\n"
		   "\tremote\n[tar \"z\"]\n\tremote = \"yes\"\n"
		   "[lookup]\n\tnumber = 11\n");
	sh("git config tar.Sub.command second");
	repo = open_repo();
	error = config_load(&cfg, repo, NULL, 0);
	ok(!error, "load for lookups");
	if (error)
		return;

	ok(!config_get_string(&v, cfg, "TAR.Sub.Command") &&
	   !strcmp(v, "second"), "section and key fold case, last wins");
	ok(config_get_string(&v, cfg, "tar.sub.command") == GA_ENOTFOUND,
	   "subsections do not fold case");
	ok(!config_get_string(&v, cfg, "tar.x.command") && !v,
	   "a valueless key is NULL");
	ok(config_get_string(&v, cfg, "nodot") == GA_ENOTFOUND,
	   "a name without a dot is never found");
	ok(!config_get_bool(&b, cfg, "tar.y.remote") && b == 1,
	   "valueless key is true");
	ok(!config_get_bool(&b, cfg, "tar.z.remote") && b == 1,
	   "quoted yes is true");
	ok(!config_get_int64(&n, cfg, "Lookup.Number") && n == 11, "int64");
	ok(config_get_bool(&b, cfg, "no.such") == GA_ENOTFOUND, "unset bool");
	{
		char *want = ga_xstrfmt(" in file %s/home/.gitconfig", trash);

		is_str(config_origin(cfg, "tar.y.command"), want,
		       "config_origin names the file");
		free(want);
	}
	is_str(config_origin(cfg, "tar.Sub.command"), " in file .git/config",
	       "config_origin: the repository config as git names it");

	/* Line numbers and messages, as git's configset_iter() dies. */
	{
		struct ga_buf err = GA_BUF_INIT, want = GA_BUF_INIT;
		char epath[300];

		w.name = "tar.x.command";
		config_foreach_entry(cfg, find_entry, &w);
		ga_buf_setlen(&reports, 0);
		error = w.hit ? config_error_nonbool(w.hit) : 0;
		ga_buf_printf(&reports, "fatal: %s\n", ga_error_message());
		sh("git archive --list >/dev/null 2>%s/git.err", trash);
		snprintf(epath, sizeof(epath), "%s/git.err", trash);
		slurp(&err, epath);
		diag_lines(&want, err.ptr, 0);
		is_str(reports.ptr, want.ptr,
		       "missing command: git's error and line number");

		/* A continued value: the line it ends on. */
		sh("git config --global --unset tar.x.command");
		w.name = "tar.y.remote";
		w.hit = NULL;
		config_foreach_entry(cfg, find_entry, &w);
		ok(w.hit && w.hit->line == 9, "line of an entry after a "
		   "continued value (%d)", w.hit ? w.hit->line : 0);
		w.name = "tar.y.command";
		w.hit = NULL;
		config_foreach_entry(cfg, find_entry, &w);
		ok(w.hit && w.hit->line == 8, "a continued value reports its "
		   "last line, as git (%d)", w.hit ? w.hit->line : 0);
		{
			struct config_entry ce = { "tar.q.command", NULL, NULL,
						   -1, CONFIG_SCOPE_COMMAND };

			config_error_entry(&ce);
			is_str(ga_error_message(), "unable to parse "
			       "'tar.q.command' from command-line config",
			       "command-line entries: git's wording");
		}
		ga_buf_release(&err);
		ga_buf_release(&want);
	}

	config_free(cfg);

	/* Concurrent readers. */
	error = config_load(&cfg, repo, NULL, 0);
	{
		pthread_t t[4];
		struct thread_arg a[4];
		int i, bad = 0;

		sh("git config --global tar.x.command x");
		for (i = 0; i < 4; i++) {
			a[i].cfg = cfg;
			a[i].bad = 0;
			pthread_create(&t[i], NULL, reader, &a[i]);
		}
		for (i = 0; i < 4; i++) {
			pthread_join(t[i], NULL);
			bad += a[i].bad;
		}
		ok(!error && !bad, "four threads read concurrently");
	}
	config_free(cfg);
	git_repository_free(repo);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	ga_set_report_handler(report, NULL);
	snprintf(trash, sizeof(trash), "%s/ga-config-XXXXXX",
		 tmp ? tmp : "/tmp");
	if (!mkdtemp(trash)) {
		perror("mkdtemp");
		return 1;
	}
	{
		/* libgit2 and git both see real paths; /tmp may be a link. */
		char *real = realpath(trash, NULL);

		snprintf(trash, sizeof(trash), "%s", real);
		free(real);
	}
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_COMMON_DIR");
	unsetenv("GIT_CEILING_DIRECTORIES");
	setenv("GIT_CEILING_DIRECTORIES", trash, 1);
	setenv("GIT_AUTHOR_NAME", "A U Thor", 1);
	setenv("GIT_AUTHOR_EMAIL", "author@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "C O Mitter", 1);
	setenv("GIT_COMMITTER_EMAIL", "committer@example.com", 1);
	setenv("LC_ALL", "C", 1);
	reset_env();
	git_libgit2_init();

	test_levels();
	test_syntax();
	test_includes();
	test_command_line();
	test_values();
	test_lookups();

	git_libgit2_shutdown();
	ga_buf_release(&reports);
	if (chdir("/") == 0 && !getenv("GA_TEST_KEEP"))
		sh("rm -rf '%s'", trash);
	return tap_done();
}

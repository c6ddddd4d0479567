/*
 * gitscratch.h: scratch repositories and shell helpers for the C unit
 * tests that compare garchive's modules with the real git.
 *
 *	char *dir = scratch_init("attr");	// sealed env, temp dir
 *	scratch_sh("cd %s && git init -q r", dir);
 *	char *out = scratch_out(&len, "cd %s/r && git check-attr -a x", dir);
 *	scratch_done(dir);
 *
 * The environment is sealed the way t/lib.sh seals shell tests: HOME is
 * the scratch directory, no system config or attributes, C locale, fixed
 * identities and dates.
 */
#ifndef GARCHIVE_GITSCRATCH_H
#define GARCHIVE_GITSCRATCH_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

__attribute__((format(printf, 1, 0), unused))
static char *scratch_vfmt(const char *fmt, va_list ap)
{
	va_list cp;
	char *s;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	s = malloc((size_t)n + 1);
	if (!s)
		abort();
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

__attribute__((format(printf, 1, 2), unused))
static char *scratch_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = scratch_vfmt(fmt, ap);
	va_end(ap);
	return s;
}

/* Quote `s` for sh: the result is one word.  Caller frees. */
__attribute__((unused))
static char *scratch_quote(const char *s)
{
	size_t n = 3, i, j = 0;
	char *q;

	for (i = 0; s[i]; i++)
		n += s[i] == '\'' ? 4 : 1;
	q = malloc(n);
	if (!q)
		abort();
	q[j++] = '\'';
	for (i = 0; s[i]; i++) {
		if (s[i] == '\'') {
			memcpy(q + j, "'\\''", 4);
			j += 4;
		} else {
			q[j++] = s[i];
		}
	}
	q[j++] = '\'';
	q[j] = '\0';
	return q;
}

/* Run a shell command; returns its exit status (or -1). */
__attribute__((format(printf, 1, 2), unused))
static int scratch_sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int st;

	va_start(ap, fmt);
	cmd = scratch_vfmt(fmt, ap);
	va_end(ap);
	fflush(stdout);
	st = system(cmd);
	free(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/*
 * Run a shell command and return its standard output (NUL-terminated,
 * length in *len when len is not NULL); *status gets the exit status
 * when status is not NULL.  Caller frees.
 */
__attribute__((format(printf, 3, 4), unused))
static char *scratch_out(size_t *len, int *status, const char *fmt, ...)
{
	va_list ap;
	char *cmd, *buf = NULL;
	size_t n = 0, alloc = 0;
	FILE *fp;
	int st;

	va_start(ap, fmt);
	cmd = scratch_vfmt(fmt, ap);
	va_end(ap);
	fflush(stdout);
	fp = popen(cmd, "r");
	free(cmd);
	if (!fp)
		abort();
	for (;;) {
		size_t got;

		if (alloc - n < 4096) {
			alloc = alloc ? alloc * 2 : 8192;
			buf = realloc(buf, alloc);
			if (!buf)
				abort();
		}
		got = fread(buf + n, 1, alloc - n - 1, fp);
		if (!got)
			break;
		n += got;
	}
	buf[n] = '\0';
	st = pclose(fp);
	if (status)
		*status = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
	if (len)
		*len = n;
	return buf;
}

/* Write `data` to `path` (relative paths are relative to the cwd). */
__attribute__((unused))
static int scratch_write(const char *path, const char *data, size_t len)
{
	FILE *fp = fopen(path, "wb");
	int ret = 0;

	if (!fp)
		return -1;
	if (len && fwrite(data, 1, len, fp) != len)
		ret = -1;
	if (fclose(fp))
		ret = -1;
	return ret;
}

/*
 * Seal the environment the way t/lib.sh seals shell tests, with `home`
 * as HOME: no GIT_* variable but GIT_EXEC_PATH, no XDG config, no
 * system config or attributes, C locale, UTC, fixed identities and
 * dates (callers may set other dates afterwards).
 */
__attribute__((unused))
static void scratch_seal_env(const char *home)
{
	char **e;

	/* Drop every GIT_* variable but GIT_EXEC_PATH. */
	for (;;) {
		int removed = 0;

		for (e = environ; *e; e++) {
			char *eq;

			if (strncmp(*e, "GIT_", 4) ||
			    !strncmp(*e, "GIT_EXEC_PATH=", 14))
				continue;
			eq = strchr(*e, '=');
			if (!eq)
				continue;
			{
				char *var = strndup(*e, (size_t)(eq - *e));

				unsetenv(var);
				free(var);
			}
			removed = 1;
			break;
		}
		if (!removed)
			break;
	}
	unsetenv("XDG_CONFIG_HOME");
	setenv("HOME", home, 1);
	setenv("LC_ALL", "C", 1);
	setenv("LANG", "C", 1);
	setenv("TZ", "UTC", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_ATTR_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "A U Thor", 1);
	setenv("GIT_AUTHOR_EMAIL", "author@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "C O Mitter", 1);
	setenv("GIT_COMMITTER_EMAIL", "committer@example.com", 1);
	setenv("GIT_AUTHOR_DATE", "1112911993 -0700", 1);
	setenv("GIT_COMMITTER_DATE", "1112911993 -0700", 1);
}

/*
 * t/lib.sh's ~/.gitconfig in `home`: branch "main" for new repositories,
 * and every directory safe.  Returns 0 or -1.
 */
__attribute__((unused))
static int scratch_write_gitconfig(const char *home)
{
	static const char conf[] =
		"[init]\n\tdefaultBranch = main\n"
		"[safe]\n\tdirectory = *\n";
	char *cfg = scratch_fmt("%s/.gitconfig", home);
	int ret = scratch_write(cfg, conf, sizeof(conf) - 1);

	free(cfg);
	return ret;
}

/*
 * Seal the environment and create a scratch directory, its HOME.
 * Returns its absolute path (caller frees, after scratch_done()), or
 * NULL when git is missing.
 */
__attribute__((unused))
static char *scratch_init(const char *name)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl, *dir;

	tmpl = scratch_fmt("%s/garchive-%s-XXXXXX",
			   tmp && *tmp ? tmp : "/tmp", name);
	dir = mkdtemp(tmpl);
	if (!dir) {
		free(tmpl);
		return NULL;
	}
	scratch_seal_env(dir);
	scratch_write_gitconfig(dir);
	if (scratch_sh("git --version >/dev/null 2>&1")) {
		scratch_sh("rm -rf '%s'", dir);
		free(dir);
		return NULL;
	}
	return dir;
}

static int scratch_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Split a list of NUL-terminated strings into a sorted array. */
static const char **scratch_split(const char *buf, size_t len, size_t *nr)
{
	const char **v = malloc((len + 1) * sizeof(*v));
	size_t i = 0, n = 0;

	if (!v)
		abort();
	while (i < len) {
		v[n++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	qsort(v, n, sizeof(*v), scratch_cmp_str);
	*nr = n;
	return v;
}

/*
 * Compare two lists of NUL-terminated strings as sets (order does not
 * matter).  On a difference, print the strings only one side has.
 */
__attribute__((unused))
static int scratch_same_set(const char *got, size_t got_len,
			    const char *want, size_t want_len)
{
	size_t ng, nw, i = 0, j = 0;
	const char **g = scratch_split(got, got_len, &ng);
	const char **w = scratch_split(want ? want : "", want_len, &nw);
	int same = 1;

	while (i < ng || j < nw) {
		int c = i == ng ? 1 : j == nw ? -1 : strcmp(g[i], w[j]);

		if (!c) {
			i++;
			j++;
			continue;
		}
		same = 0;
		if (c < 0)
			printf("# only in got:  '%s'\n", g[i++]);
		else
			printf("# only in want: '%s'\n", w[j++]);
	}
	free(g);
	free(w);
	return same;
}

/* Remove the scratch directory unless GARCHIVE_TEST_KEEP is set. */
__attribute__((unused))
static void scratch_done(char *dir)
{
	if (!dir)
		return;
	if (!getenv("GARCHIVE_TEST_KEEP"))
		scratch_sh("rm -rf '%s'", dir);
	else
		printf("# kept %s\n", dir);
	free(dir);
}

#endif

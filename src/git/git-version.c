/*
 * git-version.c: the git version garchive follows (see git-version.h).
 */
#include "git-version.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "run-command.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A decimal number of at most 9 digits at *s; advances *s. */
static int parse_number(int *out, const char **s)
{
	const char *p = *s;
	int v = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (p - *s >= 9)
			return -1;
		v = v * 10 + (*p - '0');
	}
	*out = v;
	*s = p;
	return 0;
}

int git_version_parse(struct git_version *out, const char *s)
{
	struct git_version v = { 0, 0, 0 };

	if (parse_number(&v.major, &s) < 0 || *s++ != '.' ||
	    parse_number(&v.minor, &s) < 0)
		return GA_ENOTFOUND;
	/* "2.55.0.123.gabc": a third number is the patch level. */
	if (s[0] == '.' && s[1] >= '0' && s[1] <= '9') {
		s++;
		if (parse_number(&v.patch, &s) < 0)
			return GA_ENOTFOUND;
	}
	/* What builds and vendors append, but not "2.39x" or "2.39.5x". */
	if (*s && *s != '.' && *s != '-' && *s != '+' && *s != ' ' &&
	    *s != '\n' && *s != '\r')
		return GA_ENOTFOUND;
	*out = v;
	return 0;
}

int git_version_parse_output(struct git_version *out, const char *s)
{
	static const char intro[] = "git version ";

	if (strncmp(s, intro, sizeof(intro) - 1))
		return GA_ENOTFOUND;
	return git_version_parse(out, s + sizeof(intro) - 1);
}

int git_version_cmp(const struct git_version *v, int major, int minor,
		    int patch)
{
	if (v->major != major)
		return v->major < major ? -1 : 1;
	if (v->minor != minor)
		return v->minor < minor ? -1 : 1;
	if (v->patch != patch)
		return v->patch < patch ? -1 : 1;
	return 0;
}

/*
 * `git version` of the git on PATH, run directly (no shell), with
 * nothing to read and its complaints discarded.  GA_ENOTFOUND when
 * there is no such git or its answer does not parse.
 */
static int ask_installed_git(struct git_version *out)
{
	static const char *const argv[] = { "git", "version", NULL };
	struct child c = CHILD_INIT;
	struct ga_buf buf = GA_BUF_INIT;
	int code = 0, error;

	c.argv = argv;
	c.null_in = 1;
	c.pipe_out = 1;
	c.null_err = 1;
	c.no_shell_retry = 1;
	c.close_fds = 1;
	if (child_start(&c) < 0) {
		ga_error_clear();
		return GA_ENOTFOUND;
	}
	if (ga_buf_read_fd(&buf, c.out) < 0)
		code = -1;
	if (child_finish(&c, &code, NULL) < 0)
		code = -1;
	ga_error_clear();
	error = code == 0 && buf.len ?
		git_version_parse_output(out, buf.ptr) : GA_ENOTFOUND;
	ga_buf_release(&buf);
	return error;
}

/* garchive.gitVersion's last entry, for its value and its place. */
struct config_find {
	const struct config_entry *found;
	struct config_entry copy;
};

static int find_entry(const struct config_entry *e, void *payload)
{
	struct config_find *f = payload;

	if (!strcmp(e->name, "garchive.gitversion")) {
		f->copy = *e;
		f->found = &f->copy;
	}
	return 0;
}

static int from_config(struct git_version *out, const struct ga_config *cfg)
{
	struct config_find f = { NULL };
	int error;

	if (!cfg)
		return GA_ENOTFOUND;
	if ((error = config_foreach_entry(cfg, find_entry, &f)) < 0)
		return error;
	if (!f.found)
		return GA_ENOTFOUND;
	if (!f.found->value)
		return config_error_nonbool(f.found);
	if (git_version_parse(out, f.found->value) < 0) {
		ga_report(GA_REPORT_ERROR, "invalid git version '%s' for "
			  "'garchive.gitVersion'", f.found->value);
		return config_error_entry(f.found);
	}
	return 0;
}

static int find_followed(struct git_version *out, const struct ga_config *cfg)
{
	static const struct git_version newest = GIT_VERSION_NEWEST;
	const char *env = getenv("GARCHIVE_GIT_VERSION");
	int error;

	if (env && *env) {
		if (git_version_parse(out, env) < 0)
			return ga_error_set("invalid git version '%s' in "
					    "GARCHIVE_GIT_VERSION", env);
		return 0;
	}
	if ((error = from_config(out, cfg)) != GA_ENOTFOUND)
		return error;
	if (ask_installed_git(out) == 0)
		return 0;
	*out = newest;
	return 0;
}

int git_version_followed(struct git_version *out, const struct ga_config *cfg)
{
	static struct git_version known;
	static int have_known;
	int error;

	if (!have_known) {
		if ((error = find_followed(&known, cfg)) < 0)
			return error;
		have_known = 1;
	}
	*out = known;
	return 0;
}

int git_version_at_least(const struct ga_config *cfg, int major, int minor,
			 int patch)
{
	struct git_version v;
	int error;

	if ((error = git_version_followed(&v, cfg)) < 0)
		return error;
	return git_version_cmp(&v, major, minor, patch) >= 0;
}

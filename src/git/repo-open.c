/*
 * repo-open.c: opening a repository with libgit2, SHA-256 ones included
 * (see repo-open.h).
 *
 * libgit2 1.7 and later check extensions.objectFormat while they open a
 * repository and know only "sha1" unless built with experimental
 * SHA-256 support.  Nothing else in the open depends on the object
 * format, and garchive installs its own object and ref stores for a
 * SHA-256 repository, so it opens such a repository with a stand-in
 * common directory, which is where libgit2 reads the config from:
 *
 *   1. a stand-in whose config is empty, to let libgit2 find the git
 *      directory as it would (discovery, .git files, worktrees);
 *   2. if the format read from that git directory (repofmt.h) is
 *      SHA-256, a stand-in whose config includes the real one and then
 *      says objectFormat = sha1, so that libgit2 reads core.bare and
 *      core.worktree from the real file and accepts the format;
 *   3. the repository then gets the real config files instead, and the
 *      stand-in is removed before repo_open() returns.
 *
 * libgit2 takes the stand-in from GIT_COMMON_DIR, which it reads when
 * opened with GIT_REPOSITORY_OPEN_FROM_ENV; the variable is set for the
 * call only.  The handle's git_repository_commondir() is the stand-in's
 * path afterwards, hence repo_commondir().
 */
#include "repo-open.h"
#include "garchive/common.h"
#include "repofmt.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"
#include <git2/sys/repository.h>

/* The stand-in common directory: objects/, refs/ and config. */
struct stand_in {
	char *dir;
	char *config;
};

static void stand_in_remove(struct stand_in *s)
{
	char *path;

	if (!s->dir)
		return;
	unlink(s->config);
	path = ga_path_join(s->dir, "objects");
	rmdir(path);
	free(path);
	path = ga_path_join(s->dir, "refs");
	rmdir(path);
	free(path);
	rmdir(s->dir);
	free(s->config);
	free(s->dir);
	s->dir = s->config = NULL;
}

static int write_config(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return ga_error_errno(errno, "could not create '%s'", path);
	ok = fputs(text, f) >= 0;
	if (fclose(f) || !ok)
		return ga_error_errno(errno, "could not write '%s'", path);
	return 0;
}

static int stand_in_create(struct stand_in *s)
{
	const char *tmp = getenv("TMPDIR");
	char *path;
	int error = 0;

	s->dir = ga_xstrfmt("%s/garchive-common-XXXXXX",
			    tmp && *tmp ? tmp : "/tmp");
	s->config = NULL;
	if (!mkdtemp(s->dir)) {
		error = ga_error_errno(errno, "could not create '%s'", s->dir);
		free(s->dir);
		s->dir = NULL;
		return error;
	}
	s->config = ga_path_join(s->dir, "config");
	path = ga_path_join(s->dir, "objects");
	if (mkdir(path, 0700) < 0)
		error = ga_error_errno(errno, "could not create '%s'", path);
	free(path);
	path = ga_path_join(s->dir, "refs");
	if (!error && mkdir(path, 0700) < 0)
		error = ga_error_errno(errno, "could not create '%s'", path);
	free(path);
	if (!error)
		error = write_config(s->config, "");
	if (error)
		stand_in_remove(s);
	return error;
}

/* An environment variable set (or unset: NULL) for a while. */
struct env_change {
	const char *name;
	char *saved;
};

static void env_change(struct env_change *c, const char *name,
		       const char *value)
{
	const char *old = getenv(name);

	c->name = name;
	c->saved = old ? ga_xstrdup(old) : NULL;
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

static void env_restore(struct env_change *c)
{
	if (c->saved)
		setenv(c->name, c->saved, 1);
	else
		unsetenv(c->name);
	free(c->saved);
}

/*
 * git_repository_open_ext() with the stand-in as the common dir.  Of
 * what else libgit2 reads from the environment then, GIT_WORK_TREE
 * would be taken relative to the git dir, where git takes it relative
 * to the current directory: setup.c applies it afterwards, as for any
 * repository, so libgit2 does not see it here.
 */
static int open_with_stand_in(git_repository **out, const struct stand_in *s,
			      const char *path, unsigned int flags,
			      const char *ceiling_dirs)
{
	struct env_change common, worktree;
	char *dir = ga_xstrfmt("%s/", s->dir);
	int error;

	env_change(&common, "GIT_COMMON_DIR", dir);
	env_change(&worktree, "GIT_WORK_TREE", NULL);
	error = git_repository_open_ext(out, path,
					flags | GIT_REPOSITORY_OPEN_FROM_ENV,
					ceiling_dirs);
	env_restore(&worktree);
	env_restore(&common);
	free(dir);
	return error;
}

/* repo_commondir() of the repository whose git dir is `git_dir`. */
static char *commondir_of(const char *git_dir)
{
	char *common = repofmt_common_dir(git_dir), *real, *out;
	size_t len;

	real = realpath(common, NULL);
	if (real) {
		free(common);
		common = real;
	}
	len = strlen(common);
	out = len && common[len - 1] == '/' ? ga_xstrdup(common)
					    : ga_xstrfmt("%s/", common);
	free(common);
	return out;
}

/* A config value as git quotes it: "..." with \" and \\ escaped. */
static char *quoted(const char *value)
{
	struct ga_buf buf = GA_BUF_INIT;

	ga_buf_addchars(&buf, '"', 1);
	for (; *value; value++) {
		if (*value == '"' || *value == '\\')
			ga_buf_addchars(&buf, '\\', 1);
		ga_buf_addchars(&buf, *value, 1);
	}
	ga_buf_addchars(&buf, '"', 1);
	return ga_buf_detach(&buf, NULL);
}

/*
 * Steps 1 and 2: the git directory that `path` leads to, when its object
 * format is SHA-256; 0 and *git_dir NULL otherwise.
 */
static int find_sha256_git_dir(char **git_dir, struct stand_in *s,
			       const char *path, unsigned int flags,
			       const char *ceiling_dirs)
{
	git_repository *probe = NULL;

	*git_dir = NULL;
	if (open_with_stand_in(&probe, s, path, flags, ceiling_dirs) < 0)
		return 0;
	if (repofmt_hash(git_repository_path(probe)) == GA_HASH_SHA256)
		*git_dir = ga_xstrdup(git_repository_path(probe));
	git_repository_free(probe);
	return 0;
}

/* Step 3: the real config files, as libgit2 would have loaded them. */
static int use_real_config(git_repository *repo, const char *local)
{
	git_config *cfg = NULL;
	int error = 0;

	if (git_config_open_default(&cfg) < 0 ||
	    git_config_add_file_ondisk(cfg, local, GIT_CONFIG_LEVEL_LOCAL,
				       repo, 0) < 0 ||
	    git_repository_set_config(repo, cfg) < 0)
		error = ga_error_from_git("cannot read the repository's config");
	git_config_free(cfg);
	return error;
}

static int open_sha256(git_repository **out, const char *path,
		       unsigned int flags, const char *ceiling_dirs)
{
	struct stand_in s;
	char *git_dir = NULL, *common = NULL, *local = NULL, *text = NULL;
	char *include;
	int error;

	*out = NULL;
	if (stand_in_create(&s) < 0)
		return GA_ERROR;
	error = find_sha256_git_dir(&git_dir, &s, path, flags, ceiling_dirs);
	if (error || !git_dir) {
		error = error ? error : GA_ERROR;
		goto done;
	}
	common = commondir_of(git_dir);
	local = ga_xstrfmt("%sconfig", common);
	include = quoted(local);
	text = ga_xstrfmt("[include]\n\tpath = %s\n"
			  "[extensions]\n\tobjectformat = sha1\n", include);
	free(include);
	if ((error = write_config(s.config, text)) < 0)
		goto done;
	if (open_with_stand_in(out, &s, path, flags, ceiling_dirs) < 0) {
		error = ga_error_from_git(NULL);
		goto done;
	}
	if ((error = use_real_config(*out, local)) < 0) {
		git_repository_free(*out);
		*out = NULL;
	}
done:
	stand_in_remove(&s);
	free(text);
	free(local);
	free(common);
	free(git_dir);
	return error;
}

int repo_open(git_repository **out, const char *path, unsigned int flags,
	      const char *ceiling_dirs)
{
	const git_error *e;
	char *message;
	int klass, error;

	error = git_repository_open_ext(out, path, flags, ceiling_dirs);
	if (error >= 0 || error == GIT_ENOTFOUND || !out)
		return error;
	e = git_error_last();
	message = ga_xstrdup(e && e->message ? e->message : "");
	klass = e ? e->klass : GIT_ERROR_REPOSITORY;
	if (open_sha256(out, path, flags, ceiling_dirs) == 0) {
		free(message);
		return 0;
	}
	/* Not a SHA-256 repository after all: libgit2's first reason. */
	ga_error_clear();
	git_error_set_str(klass, message);
	free(message);
	return error;
}

char *repo_commondir(git_repository *repo)
{
	return commondir_of(git_repository_path(repo));
}

/*
 * setup.c: finding the repository and where in it we run, as git's
 * setup.c does: GIT_DIR, GIT_WORK_TREE, core.worktree,
 * GIT_CEILING_DIRECTORIES, the ownership check (safe.directory) and the
 * subdirectory prefix.
 */
#include "setup.h"
#include "garchive/common.h"
#include "odb.h"
#include "refdb.h"
#include "repo-open.h"
#include "repofmt.h"
#include "safedir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"

/*
 * The subdirectory of the work tree we run in, as git's "prefix": ""
 * at the top or outside the work tree, else "dir/sub/".
 */
static char *compute_cwd_prefix(git_repository *repo)
{
	const char *workdir = repo ? git_repository_workdir(repo) : NULL;
	char cwd[PATH_MAX], top[PATH_MAX];
	size_t len;

	if (!workdir || !getcwd(cwd, sizeof(cwd)) || !realpath(workdir, top))
		return ga_xstrdup("");
	len = strlen(top);
	while (len > 1 && top[len - 1] == '/')
		top[--len] = '\0';
	if (strncmp(cwd, top, len) || (cwd[len] && cwd[len] != '/'))
		return ga_xstrdup("");
	if (!cwd[len] || !cwd[len + 1])
		return ga_xstrdup("");
	return ga_xstrfmt("%s/", cwd + len + 1);
}

static int set_workdir(git_repository *repo, const char *dir)
{
	char real[PATH_MAX];

	const char *current = git_repository_workdir(repo);
	size_t len;

	if (!realpath(dir, real))
		return ga_error_errno(errno, "cannot chdir to '%s'", dir);
	/*
	 * libgit2 1.5 leaks when asked for the work tree it already has,
	 * so only ask for a different one.
	 */
	len = strlen(real);
	if (current && !strncmp(current, real, len) &&
	    (!strcmp(current + len, "/") || !current[len]))
		return 0;
	if (git_repository_set_workdir(repo, real, 0) < 0)
		return ga_error_from_git(NULL);
	return 0;
}

static int has_core_worktree(git_repository *repo)
{
	git_config *cfg = NULL;
	git_buf value = { 0 };
	int found = 0;

	if (git_repository_config_snapshot(&cfg, repo) == 0 &&
	    git_config_get_string_buf(&value, cfg, "core.worktree") == 0)
		found = 1;
	git_buf_dispose(&value);
	git_config_free(cfg);
	git_error_clear();
	return found;
}

/*
 * libgit2 parses the repository's config to open it, so a malformed
 * file fails there, with libgit2's words ("... (in /path/config:6)").
 * Say it as git does: "bad config line 6 in file .git/config", naming
 * the file relative to the top of the work tree when we run inside it.
 */
static int open_failed(void)
{
	const git_error *e = git_error_last();
	const char *in, *colon;
	char cwd[PATH_MAX], *path, *shown;
	int line;
	size_t len;

	if (!e || e->klass != GIT_ERROR_CONFIG || !e->message ||
	    !(in = strstr(e->message, "(in ")) ||
	    !(colon = strrchr(in, ':')) || sscanf(colon + 1, "%d", &line) != 1)
		return ga_error_from_git(NULL);
	path = ga_xstrndup(in + 4, (size_t)(colon - in - 4));
	len = strlen(path);
	shown = path;
	if (getcwd(cwd, sizeof(cwd)) && len > 12 &&
	    !strcmp(path + len - 12, "/.git/config") &&
	    !strncmp(cwd, path, len - 12) &&
	    (cwd[len - 12] == '\0' || cwd[len - 12] == '/'))
		shown = path + len - 11;
	ga_error_set("bad config line %d in file %s", line, shown);
	free(path);
	return GA_ERROR;
}

/*
 * The directory above `cwd` (or `cwd` itself) that holds ".git", as
 * git's discovery stops at it, or NULL.
 */
static char *dotgit_parent(const char *cwd)
{
	char *dir = ga_xstrdup(cwd), *dotgit, *slash;
	struct stat st;

	for (;;) {
		dotgit = ga_xstrfmt("%s/.git", *dir ? dir : "");
		if (!lstat(dotgit, &st)) {
			free(dotgit);
			return dir;
		}
		free(dotgit);
		if (!*dir || !(slash = strrchr(dir, '/'))) {
			free(dir);
			return NULL;
		}
		*slash = '\0';
	}
}

/*
 * A discovered repository that belongs to someone else is refused as
 * git 2.39 refuses it: git then goes on as outside any repository, and
 * names it when one is needed.  Checked are the directory where the
 * search stopped - the git directory itself when we run inside one (or
 * in a bare repository), else the directory holding ".git", that
 * ".git" and, for a ".git" file, the directory it points to.
 */
static int check_owner(git_repository *repo, char **dubious,
		       const char *const *overrides, size_t nr_overrides,
		       int *refused)
{
	char cwd[PATH_MAX], gitdir[PATH_MAX], *top = NULL, *dotgit = NULL;
	const char *gitfile = NULL;
	size_t len;
	struct stat st;
	int ok, error;

	*refused = 0;
	if (!getcwd(cwd, sizeof(cwd)) ||
	    !realpath(git_repository_path(repo), gitdir))
		return 0;
	len = strlen(gitdir);
	if (!strncmp(cwd, gitdir, len) && (!cwd[len] || cwd[len] == '/')) {
		error = safedir_check(&ok, overrides, nr_overrides,
				      NULL, NULL, gitdir);
	} else {
		if (!(top = dotgit_parent(cwd)))
			return 0;
		dotgit = ga_xstrfmt("%s/.git", top);
		if (!lstat(dotgit, &st) && S_ISREG(st.st_mode))
			gitfile = dotgit;
		error = safedir_check(&ok, overrides, nr_overrides,
				      gitfile, top, gitfile ? gitdir : dotgit);
	}
	if (!error && !ok) {
		*refused = 1;
		*dubious = ga_xstrdup(top ? top : gitdir);
	}
	free(top);
	free(dotgit);
	return error;
}

/* Whether the current directory is `gitdir` or below it. */
static int cwd_inside(const char *gitdir)
{
	char cwd[PATH_MAX], real[PATH_MAX];
	size_t len;

	if (!getcwd(cwd, sizeof(cwd)) || !realpath(gitdir, real))
		return 0;
	len = strlen(real);
	while (len > 1 && real[len - 1] == '/')
		real[--len] = '\0';
	return !strncmp(cwd, real, len) && (!cwd[len] || cwd[len] == '/');
}

/*
 * git's discovery takes a directory that is itself a git directory as
 * a bare repository (its setup_bare_git_dir()): run inside ".git", its
 * refs/ or objects/, or in a mirror copy whose config says nothing of
 * core.bare, there is no work tree unless GIT_WORK_TREE or
 * core.worktree names one.  libgit2 goes by core.bare alone and takes
 * the parent directory as the work tree, so reopen such a repository
 * as bare.
 */
static int reopen_if_found_bare(git_repository **repo)
{
	git_repository *bare = NULL;
	const char *worktree = getenv("GIT_WORK_TREE");
	char *gitdir;
	int error;

	if (!git_repository_workdir(*repo) ||
	    !cwd_inside(git_repository_path(*repo)) ||
	    (worktree && *worktree) || has_core_worktree(*repo))
		return 0;
	gitdir = ga_xstrdup(git_repository_path(*repo));
	error = repo_open(&bare, gitdir,
					GIT_REPOSITORY_OPEN_NO_SEARCH |
					GIT_REPOSITORY_OPEN_BARE, NULL);
	free(gitdir);
	if (error < 0)
		return open_failed();
	git_repository_free(*repo);
	*repo = bare;
	return 0;
}

/*
 * How git names a git dir it found by discovery: ".git" beside the work
 * tree, else "." (git has moved into a bare repository it found).
 */
static char *discovered_name(const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len >= 5 && !strncmp(path + len - 5, "/.git", 5))
		return ga_xstrdup(".git");
	return ga_xstrdup(".");
}

/*
 * The repository format, checked as git's setup checks it, and the ref
 * database it asks for (refdb.h).  `repo` is NULL when libgit2 could not
 * open the repository: git's reason is then looked for in its format,
 * and 0 means there is none.
 */
static int check_format(git_repository *repo, const char *gitdir)
{
	git_buf found = { 0 };
	struct repofmt fmt;
	char *shown;
	int error;

	if (repo) {
		shown = gitdir ? ga_xstrdup(gitdir)
			       : discovered_name(git_repository_path(repo));
		error = refdb_setup(repo, shown, !gitdir);
		free(shown);
		return error;
	}
	if (!gitdir && git_repository_discover(&found, ".", 0,
				getenv("GIT_CEILING_DIRECTORIES")) < 0) {
		git_error_clear();
		return 0;
	}
	shown = gitdir ? ga_xstrdup(gitdir) : discovered_name(found.ptr);
	error = repofmt_check(&fmt, gitdir ? gitdir : found.ptr, shown,
			      !gitdir);
	repofmt_release(&fmt);
	free(shown);
	git_buf_dispose(&found);
	return error;
}

/* The object database, with the hash the repository's format names. */
static int install_odb(git_repository *repo, const char *gitdir)
{
	return odb_install(repo, gitdir && *gitdir ? gitdir : NULL, 1);
}

/*
 * Find the repository as git's setup does.  libgit2's own handling of
 * the environment differs from git's, so it is done here: GIT_DIR names
 * the repository (no discovery), and then the work tree is GIT_WORK_TREE,
 * core.worktree, or the current directory unless the repository is bare.
 */
int setup_repository(git_repository **out, char **cwd_prefix,
		     char **dubious, const char *const *overrides,
		     size_t nr_overrides)
{
	const char *gitdir = getenv("GIT_DIR");
	const char *worktree = getenv("GIT_WORK_TREE");
	int error, refused;

	if (gitdir && *gitdir) {
		error = repo_open(out, gitdir,
						GIT_REPOSITORY_OPEN_NO_SEARCH,
						NULL);
		if (error < 0 && check_format(NULL, gitdir) < 0)
			return GA_ERROR;
		if (error < 0 && git_error_last() &&
		    git_error_last()->klass == GIT_ERROR_CONFIG)
			return open_failed();
		if (error < 0)
			return ga_error_set("not a git repository: '%s'",
					    gitdir);
		if (worktree && *worktree)
			error = set_workdir(*out, worktree);
		else if (!git_repository_is_bare(*out) &&
			 !has_core_worktree(*out))
			error = set_workdir(*out, ".");
		else
			error = 0;
		if (error < 0)
			return error;
	} else {
		error = repo_open(out, ".", 0,
				getenv("GIT_CEILING_DIRECTORIES"));
		if (error == GIT_ENOTFOUND) {
			/* Not in a repository: fine until one is needed. */
			*out = NULL;
			git_error_clear();
		} else if (error < 0) {
			return check_format(NULL, NULL) < 0 ? GA_ERROR
							    : open_failed();
		} else if ((error = check_owner(*out, dubious, overrides,
						nr_overrides, &refused)) < 0) {
			return error;
		} else if (refused) {
			/* As outside one, its configuration unread. */
			git_repository_free(*out);
			*out = NULL;
		} else if ((error = reopen_if_found_bare(out)) < 0) {
			return error;
		} else if (worktree && *worktree &&
			   (error = set_workdir(*out, worktree)) < 0) {
			return error;
		}
	}
	if (*out && (error = check_format(*out, gitdir && *gitdir ? gitdir
								  : NULL)) < 0)
		return error;
	/* Every read goes through garchive's object database: see odb.h. */
	if (*out && (error = install_odb(*out, gitdir)) < 0)
		return error;
	*cwd_prefix = compute_cwd_prefix(*out);
	return 0;
}

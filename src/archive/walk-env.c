/*
 * walk-env.c: what the environment, the configuration and the
 * repository's layout decide for a walk, as git decides it: the top of
 * the work tree (pathspecs are taken from there), the attribute files
 * (system, global, $GIT_DIR/info/attributes and the name git gives it
 * in warnings), the tree attributes may come from instead of the work
 * tree, and the GIT_*_PATHSPECS switches.
 */
#include "garchive/walk.h"
#include "repo-open.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "pathspec.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libgit2.h"

/* git's system attributes file on Debian (prefix /usr, sysconfdir /etc). */
#define SYSTEM_ATTRIBUTES "/etc/gitattributes"

struct walk_env {
	char *toplevel;
	char *attr_global;
	char *attr_info;
	char *attr_info_shown;	/* its name in messages, or NULL */
	struct pathspec_env pathspec;
};

/*
 * info/attributes as git names it in warnings: after its own $GIT_DIR,
 * which is GIT_DIR as given, ".git" from a work tree, nothing when run
 * in a bare repository's directory, else an absolute path.
 */
static char *info_attributes_name(git_repository *repo)
{
	const char *env = getenv("GIT_DIR");
	const char *workdir = git_repository_workdir(repo);
	char cwd[PATH_MAX], real[PATH_MAX], *common;
	size_t len;
	int found;

	if (env && *env)
		return ga_xstrfmt("%s/info/attributes", env);
	common = repo_commondir(repo);
	found = realpath(common, real) != NULL;
	free(common);
	if (git_repository_is_worktree(repo) ||
	    !getcwd(cwd, sizeof(cwd)) || !found)
		return NULL;
	if (!workdir)
		return !strcmp(cwd, real) ? ga_xstrdup("info/attributes")
					  : NULL;
	len = strlen(real);
	if (len > 5 && !strcmp(real + len - 5, "/.git") &&
	    !strncmp(cwd, real, len - 5) &&
	    (!cwd[len - 5] || cwd[len - 5] == '/'))
		return ga_xstrdup(".git/info/attributes");
	return NULL;
}

/*
 * Where attributes come from instead of the work tree: GIT_ATTR_SOURCE
 * (which --attr-source sets), even empty, else attr.tree (git 2.43).
 * git 2.43 to 2.45 also took HEAD in a bare repository; 2.46 went back
 * to no source at all, as here.
 */
static void attr_source_load(struct walk_options *wo,
			     const struct ga_config *cfg)
{
	const char *name = getenv("GIT_ATTR_SOURCE");

	wo->attr_source_lenient = !name;
	if (!name && config_get_string(&name, cfg, "attr.tree") < 0)
		name = NULL;
	wo->attr_source = name;
}

int walk_env_load(struct walk_env **out, struct walk_options *wo,
		  git_repository *repo, const struct ga_config *cfg)
{
	struct walk_env *env = ga_xcalloc(1, sizeof(*env));
	const char *attrfile = NULL;
	const char *workdir = git_repository_workdir(repo);
	char top[PATH_MAX], *common;
	int nosystem, error;

	*out = env;
	/* Pathspecs want the top without a trailing slash, links resolved. */
	if (!realpath(workdir ? workdir : git_repository_path(repo), top))
		return ga_error_errno(errno, "unable to get the top directory");
	env->toplevel = ga_xstrdup(top);
	wo->toplevel = env->toplevel;
	env->pathspec.bare = !workdir;
	wo->pathspec_env = &env->pathspec;

	if ((error = config_env_bool(&nosystem, "GIT_ATTR_NOSYSTEM", 0)) < 0)
		return error;
	if (!nosystem)
		wo->attr_system_file = SYSTEM_ATTRIBUTES;
	if (config_get_string(&attrfile, cfg,
			      "core.attributesfile") == 0 && attrfile) {
		/*
		 * git dies when "~" cannot be expanded (no HOME, no such
		 * user); garchive looks for the name as it is.
		 */
		if (!(env->attr_global = ga_interpolate_path(attrfile, 0)))
			env->attr_global = ga_xstrdup(attrfile);
		/*
		 * git has changed to the top of the work tree and opens
		 * a relative name there; in a bare repository it stays
		 * where it was started.
		 */
		if (workdir && env->attr_global[0] != '/') {
			char *abs = ga_xstrfmt("%s/%s", top, env->attr_global);

			free(env->attr_global);
			env->attr_global = abs;
		}
	} else {
		env->attr_global = ga_xdg_config_home("attributes");
	}
	wo->attr_global_file = env->attr_global;
	common = repo_commondir(repo);
	env->attr_info = ga_xstrfmt("%sinfo/attributes", common);
	free(common);
	wo->attr_info_file = env->attr_info;
	env->attr_info_shown = info_attributes_name(repo);
	wo->attr_info_file_shown = env->attr_info_shown;
	attr_source_load(wo, cfg);

	if ((error = config_env_bool(&env->pathspec.literal,
				     "GIT_LITERAL_PATHSPECS", 0)) < 0 ||
	    (error = config_env_bool(&env->pathspec.glob,
				     "GIT_GLOB_PATHSPECS", 0)) < 0 ||
	    (error = config_env_bool(&env->pathspec.noglob,
				     "GIT_NOGLOB_PATHSPECS", 0)) < 0 ||
	    (error = config_env_bool(&env->pathspec.icase,
				     "GIT_ICASE_PATHSPECS", 0)) < 0)
		return error;
	return 0;
}

void walk_env_free(struct walk_env *env)
{
	if (!env)
		return;
	free(env->toplevel);
	free(env->attr_global);
	free(env->attr_info);
	free(env->attr_info_shown);
	free(env);
}

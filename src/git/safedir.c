/*
 * safedir.c: git 2.39.5's rule for repositories owned by someone else.
 * See safedir.h; the experiments it follows are in t/t1100-safe-dir.sh.
 */
#include "safedir.h"

#include "garchive/common.h"
#include "garchive/config.h"
#include "quote.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Run by root through sudo, git trusts what the invoking user owns:
 * SUDO_UID read as strtoul() reads it, in full, without overflow.
 */
static uid_t sudo_uid(uid_t euid)
{
	const char *env = getenv("SUDO_UID");
	unsigned long v;
	char *end;

	if (!env)
		return euid;
	errno = 0;
	v = strtoul(env, &end, 10);
	if (*end || errno || v > (uid_t)-1)
		return euid;
	return (uid_t)v;
}

static int owned_by_user(const char *path)
{
	struct stat st;
	uid_t euid = geteuid();

	if (!path)
		return 1;
	if (lstat(path, &st) < 0)
		return 0;
	if (euid == 0) {
		if (st.st_uid == 0)
			return 1;
		euid = sudo_uid(euid);
	}
	return st.st_uid == euid;
}

int safedir_check(int *ok, const char *const *overrides, size_t nr_overrides,
		  const char *gitfile, const char *worktree,
		  const char *gitdir)
{
	const char *env = getenv("GIT_TEST_ASSUME_DIFFERENT_OWNER");
	struct ga_config *early = NULL;
	int different = 0, error;

	*ok = 0;
	if (env && (error = config_parse_bool(&different,
			"GIT_TEST_ASSUME_DIFFERENT_OWNER", env)) < 0)
		return error;
	if (!different && owned_by_user(gitfile) &&
	    owned_by_user(worktree) && owned_by_user(gitdir)) {
		*ok = 1;
		return 0;
	}
	/*
	 * git 2.39 compares the path as it found it: from the physical
	 * current directory when it discovers the repository, as given to
	 * upload-archive (relative, say) when it serves one.
	 */
	if ((error = config_load(&early, NULL, overrides, nr_overrides)) < 0)
		return error;
	error = config_safe_directory(ok, early, worktree ? worktree : gitdir);
	config_free(early);
	return error;
}

int safedir_refuse(const char *shown)
{
	struct ga_buf quoted = GA_BUF_INIT;
	const char *p;

	/* git's sq_quote_buf_pretty(): quoted unless only safe bytes. */
	for (p = shown; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && !strchr("+,-./:=@_^", *p))
			break;
	if (*p || !*shown)
		ga_sq_quote(&quoted, shown);
	else
		ga_buf_puts(&quoted, shown);
	ga_error_set("detected dubious ownership in repository at '%s'\n"
		     "To add an exception for this directory, call:\n\n"
		     "\tgit config --global --add safe.directory %s",
		     shown, quoted.ptr);
	ga_buf_release(&quoted);
	return GA_ERROR;
}

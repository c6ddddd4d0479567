/*
 * help.c: `garchive help` and `--help`, the manual shown as git's
 * builtin/help.c shows its pages.
 */
#include "help.h"
#include "garchive/common.h"
#include "run-command.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * `garchive help` and `--help` show the manual with man(1), as `git help`
 * does.  Run from its build tree, garchive shows the page beside it
 * (man -l), the one that matches the binary.  Installed, it puts its own
 * <prefix>/share/man in front of MANPATH, as git does with its mandir,
 * so `man garchive` finds the page whatever the prefix; the trailing
 * colon keeps man's usual search path after it.  Returns only on failure,
 * with git's messages.
 */
int help_show_manual(const char *argv0)
{
	const char *old_manpath = getenv("MANPATH");
	char exe[PATH_MAX], mandir[PATH_MAX], *slash, *path = NULL;
	char *manpath = NULL;
	static const char *const man_page[] = { "man", "garchive", NULL };
	int err;

	if (!realpath("/proc/self/exe", exe) &&
	    !(argv0 && strchr(argv0, '/') && realpath(argv0, exe)))
		exe[0] = '\0';
	slash = strrchr(exe, '/');
	if (slash) {
		*slash = '\0';
		path = ga_xstrfmt("%s/Documentation/garchive.1", exe);
		if (access(path, R_OK) == 0) {
			const char *argv[] = { "man", "-l", path, NULL };

			child_exec_instead(argv);
			goto failed;
		}
		free(path);
		path = ga_xstrfmt("%s/../share/man", exe);
		if (realpath(path, mandir)) {
			free(path);
			path = ga_xstrfmt("%s/man1/garchive.1", mandir);
			if (access(path, R_OK) == 0) {
				manpath = ga_xstrfmt("%s:%s", mandir,
					old_manpath ? old_manpath : "");
				setenv("MANPATH", manpath, 1);
			}
		}
	}
	child_exec_instead(man_page);
failed:
	err = errno;
	free(path);
	free(manpath);
	ga_warning("failed to exec 'man': %s", strerror(err));
	return ga_error_set("no man viewer handled the request");
}

/*
 * ask-git.c: %(describe) and %G* answered by git itself.
 *
 * git computes them in-process (describe) or by running gpg/ssh-keygen
 * (gpg-interface.c), with code and configuration garchive does not
 * reproduce, so garchive asks the installed git for the same answer.
 * An unsigned commit needs no git: its answers are git's defaults.
 */
#include "ask-git.h"

#include "garchive/common.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libgit2.h"

extern char **environ;

/* Where git would be running: the work tree, or the git directory. */
static const char *run_dir(git_repository *repo)
{
	const char *wd = git_repository_workdir(repo);

	return wd ? wd : git_repository_path(repo);
}

void ask_git(struct ga_buf *out, git_repository *repo,
	     const char *const *args, size_t nr)
{
	posix_spawn_file_actions_t fa;
	char **argv = NULL, **env = NULL, *gitdir_env;
	size_t nenv = 0, i, j;
	int fds[2];
	pid_t pid;

	for (i = 0; environ[i]; i++)
		nenv++;
	env = ga_xcalloc(nenv + 2, sizeof(*env));
	for (i = j = 0; i < nenv; i++)
		if (strncmp(environ[i], "GIT_DIR=", 8))
			env[j++] = environ[i];
	gitdir_env = ga_xstrfmt("GIT_DIR=%s", git_repository_path(repo));
	env[j] = gitdir_env;
	argv = ga_xcalloc(nr + 2, sizeof(*argv));
	argv[0] = (char *)"git";
	for (i = 0; i < nr; i++)
		argv[i + 1] = (char *)args[i];

	if (pipe2(fds, O_CLOEXEC) < 0)
		goto done;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addchdir_np(&fa, run_dir(repo));
	if (posix_spawnp(&pid, "git", &fa, NULL, argv, env) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (pid > 0) {
		int status;

		(void)ga_buf_read_fd(out, fds[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(fds[0]);
done:
	free(argv);
	free(env);
	free(gitdir_env);
}

/* ------------------------------------------------------------------ */
/* Signatures (%G*).                                                  */

static int commit_is_signed(const char *raw)
{
	const char *line = raw;

	while (*line && *line != '\n') {
		if (ga_starts_with(line, "gpgsig "))
			return 1;
		line = strchrnul(line, '\n');
		line += !!*line;
	}
	return 0;
}

/* One `git show -s --format=<fmt>` answer for this commit. */
static void git_show_format(struct ga_buf *out, git_repository *repo,
			    const char *hex, const char *fmt)
{
	const char *args[5];

	args[0] = "show";
	args[1] = "-s";
	args[2] = "--no-show-signature";
	args[3] = fmt;
	args[4] = hex;
	ask_git(out, repo, args, GA_ARRAY_SIZE(args));
}

void signature_load(struct signature *sig, git_repository *repo,
		    const char *raw, const char *hex, int want_trust)
{
	struct ga_buf out = GA_BUF_INIT;
	size_t i, pos = 0;

	if (!sig->loaded) {
		sig->loaded = 1;
		if (!commit_is_signed(raw)) {
			sig->field[0] = ga_xstrdup("N");
			for (i = 1; i < 6; i++)
				sig->field[i] = ga_xstrdup("");
			sig->field[6] = ga_xstrdup("undefined");
			return;
		}
		git_show_format(&out, repo, hex,
				"--pretty=format:%G?%x00%GG%x00%GS%x00%GK%x00"
				"%GF%x00%GP");
		for (i = 0; i < 6; i++) {
			const char *f = pos < out.len ? out.ptr + pos : "";
			size_t n = pos < out.len ? strnlen(f, out.len - pos) : 0;

			sig->field[i] = ga_xstrndup(f, n);
			pos += n + 1;
		}
		ga_buf_release(&out);
	}
	if (want_trust && !sig->field[6]) {
		git_show_format(&out, repo, hex, "--pretty=format:%GT");
		sig->field[6] = ga_xstrndup(ga_buf_str(&out, 0), out.len);
		ga_buf_release(&out);
	}
}

void signature_release(struct signature *sig)
{
	size_t i;

	for (i = 0; i < SIGNATURE_FIELDS; i++)
		free(sig->field[i]);
	memset(sig, 0, sizeof(*sig));
}

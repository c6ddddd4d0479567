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
#include "run-command.h"

#include <stdlib.h>
#include <string.h>

#include "libgit2.h"

/* Where git would be running: the work tree, or the git directory. */
static const char *run_dir(git_repository *repo)
{
	const char *wd = git_repository_workdir(repo);

	return wd ? wd : git_repository_path(repo);
}

int ask_git_status(struct ga_buf *out, git_repository *repo,
		   const char *const *args, size_t nr)
{
	struct child c = CHILD_INIT;
	const char **argv = ga_xcalloc(nr + 2, sizeof(*argv));
	const char *env[2] = { NULL, NULL };
	char *gitdir_env;
	int code = -1;

	argv[0] = "git";
	memcpy(argv + 1, args, nr * sizeof(*args));
	gitdir_env = ga_xstrfmt("GIT_DIR=%s", git_repository_path(repo));
	env[0] = gitdir_env;
	c.argv = argv;
	c.env = env;
	c.dir = run_dir(repo);
	c.null_in = c.null_err = c.pipe_out = 1;
	/* A git that cannot run, or fails, gives nothing, as in git. */
	if (child_start(&c) < 0) {
		ga_error_clear();
	} else {
		(void)ga_buf_read_fd(out, c.out);
		if (child_finish(&c, &code, NULL) < 0) {
			ga_error_clear();
			code = -1;
		}
	}
	free(argv);
	free(gitdir_env);
	return code;
}

void ask_git(struct ga_buf *out, git_repository *repo,
	     const char *const *args, size_t nr)
{
	(void)ask_git_status(out, repo, args, nr);
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

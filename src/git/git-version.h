/*
 * git-version.h: which git garchive follows where git changed what an
 * existing command line does after 2.39 (running from a subdirectory in
 * 2.41, --list with extra parameters in 2.43.1).  garchive is a drop-in
 * for the git its user has, so it behaves as that git: the version named
 * by $GARCHIVE_GIT_VERSION, else by garchive.gitVersion, else the one
 * `git version` prints for the git on PATH, else (no git, or an answer
 * that does not parse) the newest behaviour.
 *
 * git is asked only when a behaviour that depends on it is reached,
 * never for the common case.
 */
#ifndef GARCHIVE_GIT_VERSION_H
#define GARCHIVE_GIT_VERSION_H

struct ga_config;

struct git_version {
	int major, minor, patch;
};

/* The version that stands for "the newest behaviour". */
#define GIT_VERSION_NEWEST { 1 << 30, 0, 0 }

/*
 * Parse "X.Y" or "X.Y.Z", optionally followed by anything that starts
 * with '.', '-', '+' or a space ("2.55.0.123.gabc", "2.43.1.windows.1",
 * "2.39.5 (Apple Git-154)").  Returns 0, or GA_ENOTFOUND (no message)
 * when `s` does not start with such a version.
 */
int git_version_parse(struct git_version *out, const char *s);

/* The same for what `git version` prints: "git version X.Y.Z...\n". */
int git_version_parse_output(struct git_version *out, const char *s);

/* <0, 0, >0 as `v` is older than, equal to, newer than major.minor.patch. */
int git_version_cmp(const struct git_version *v, int major, int minor,
		    int patch);

/*
 * The version garchive follows (see above), worked out at the first call
 * and remembered.  Returns 0, or GA_ERROR for a value of
 * GARCHIVE_GIT_VERSION or garchive.gitVersion that is not a version.
 */
int git_version_followed(struct git_version *out, const struct ga_config *cfg);

/* 1 if the git followed is at least major.minor.patch, 0 if not, or an error. */
int git_version_at_least(const struct ga_config *cfg, int major, int minor,
			 int patch);

#endif

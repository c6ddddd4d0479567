/*
 * config.h: git configuration as git reads it for `git archive`.
 *
 * The stack, lowest priority first: system (unless GIT_CONFIG_NOSYSTEM;
 * GIT_CONFIG_SYSTEM names the file), XDG and global (GIT_CONFIG_GLOBAL
 * replaces both), the repository's config and config.worktree, then the
 * command-line overrides (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT/KEY_n/
 * VALUE_n, and garchive's own -c options, in that order).
 *
 * A struct ga_config is built once by main and then only read: every
 * lookup is const and safe from any thread.
 */
#ifndef GARCHIVE_CONFIG_H
#define GARCHIVE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

struct ga_config;
typedef struct git_repository git_repository;
typedef struct git_config git_config;

/*
 * Load the configuration for `repo` (NULL outside a repository: no
 * repository levels).  `overrides` are "name=value" or "name" strings
 * from -c options, applied after the environment's.  Returns 0 or
 * GA_ERROR (a malformed file or GIT_CONFIG_PARAMETERS).
 */
int config_load(struct ga_config **out, git_repository *repo,
		const char *const *overrides, size_t nr_overrides);
void config_free(struct ga_config *cfg);

/*
 * The last value of `name` ("section.sub.key", any case in section and
 * key).  Returns 0 and sets *out (NULL for a valueless "implicit true"
 * key), or GA_ENOTFOUND.
 */
int config_get_string(const char **out, const struct ga_config *cfg,
		      const char *name);

/*
 * Booleans and integers parsed as git parses them (true/yes/on/1, base
 * auto-detected integers with k/m/g units).  GA_ENOTFOUND when unset;
 * GA_ERROR with git's "bad boolean/numeric config value" message when
 * malformed.
 */
int config_get_bool(int *out, const struct ga_config *cfg, const char *name);
int config_get_int64(int64_t *out, const struct ga_config *cfg,
		     const char *name);

/*
 * Parse one value of key `name` as git does (for callers that see every
 * occurrence through config_foreach).  Messages are git 2.39's: "bad
 * numeric config value '<v>' for '<name>': invalid unit|out of range",
 * "bad boolean config value '<v>' for '<name>'".  A NULL value is ""
 * for numbers and true for booleans.
 */
int config_parse_bool(int *out, const char *name, const char *value);
int config_parse_int64(int64_t *out, const char *name, const char *value);

/* Where a value came from, for messages: " in file <path>" or "". */
const char *config_origin(const struct ga_config *cfg, const char *name);

/*
 * Call `fn` for every entry, in the order git would see them (lowest
 * priority level first, file order within a file).  `value` may be NULL.
 * A non-zero return from `fn` stops the walk and is returned.
 */
typedef int (*config_foreach_fn)(const char *name, const char *value,
				 const char *origin, void *payload);
int config_foreach(const struct ga_config *cfg, config_foreach_fn fn,
		   void *payload);

/* The libgit2 view of the same stack, for libgit2 APIs that need one. */
git_config *config_libgit2(const struct ga_config *cfg);

#endif

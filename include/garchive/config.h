/*
 * config.h: git configuration as git reads it for `git archive`.
 *
 * The stack, lowest priority first: system (unless GIT_CONFIG_NOSYSTEM;
 * GIT_CONFIG_SYSTEM names the file), XDG and global (GIT_CONFIG_GLOBAL
 * replaces both), the repository's config and config.worktree, then the
 * command-line overrides (GIT_CONFIG_COUNT/KEY_n/VALUE_n, then
 * GIT_CONFIG_PARAMETERS, as git 2.39 reads them, then garchive's own -c
 * options).  include.path and includeIf (gitdir, gitdir/i, onbranch,
 * hasconfig:remote.*.url) are followed where they appear.
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

/*
 * Load the configuration for `repo` (NULL outside a repository: no
 * repository levels).  `overrides` are "name=value" or "name" strings
 * from -c options, applied after the environment's.  Returns 0 or
 * GA_ERROR with git's message: "bad config line 3 in file <path>",
 * "unable to parse command-line config" (after an "error:" line such as
 * "bogus format in GIT_CONFIG_PARAMETERS", reported through ga_report),
 * "unknown error occurred while reading the configuration files"...
 * Needs git_libgit2_init() when `repo` is NULL too.
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
 * malformed ("out of range" beyond int64 for config_get_int64()).
 */
int config_get_bool(int *out, const struct ga_config *cfg, const char *name);
int config_get_int64(int64_t *out, const struct ga_config *cfg,
		     const char *name);

/*
 * The same parsers for one value (NULL: a valueless key), for callers
 * that walk every entry as git does: git parses each occurrence of
 * tar.umask, so a bad value dies even when a later one is good.
 * Messages: "bad numeric config value '<value>' for '<name>': invalid
 * unit" (or "out of range"), "bad boolean config value '<value>' for
 * '<name>'".  git 2.39 names no file in them for `git archive` (its
 * values come from a cached config set), and neither do these.
 */
int config_parse_bool(int *out, const char *name, const char *value);

/*
 * git's git_parse_maybe_bool(): 1 or 0 for a boolean `value` as
 * config_parse_bool() reads it, -1 (and no message) for anything else.
 */
int config_maybe_bool(const char *value);
int config_parse_int(int *out, const char *name, const char *value);
int config_parse_int64(int64_t *out, const char *name, const char *value);

/*
 * git's message for a number it refuses (die_bad_number()), for callers
 * that check their own range: "bad numeric config value '<value>' for
 * '<name>': out of range" (or "invalid unit").  Returns GA_ERROR.
 */
int config_bad_number(const char *name, const char *value, int out_of_range);

/*
 * git's git_env_bool(): the environment variable `name` parsed as a
 * boolean, `def` when it is unset.  Returns 0, or GA_ERROR with
 * "bad boolean config value '<value>' for '<name>'".
 */
int config_env_bool(int *out, const char *name, int def);

/*
 * Where a value came from, for messages: " in file <path>" or "" (command
 * line).  Note that git 2.39's `git archive` messages about bad values do
 * not include it (see config_parse_int()).
 */
const char *config_origin(const struct ga_config *cfg, const char *name);

/*
 * Call `fn` for every entry, in the order git would see them (lowest
 * priority level first, file order within a file, included files where
 * they are included).  `value` may be NULL; `origin` is as
 * config_origin()'s.  A non-zero return from `fn` stops the walk and is
 * returned.
 */
typedef int (*config_foreach_fn)(const char *name, const char *value,
				 const char *origin, void *payload);
int config_foreach(const struct ga_config *cfg, config_foreach_fn fn,
		   void *payload);

/* git's scopes, plus XDG apart from global. */
enum config_scope {
	CONFIG_SCOPE_SYSTEM,
	CONFIG_SCOPE_XDG,
	CONFIG_SCOPE_GLOBAL,
	CONFIG_SCOPE_LOCAL,
	CONFIG_SCOPE_WORKTREE,
	CONFIG_SCOPE_COMMAND
};

/* One entry, with what git's messages about it need. */
struct config_entry {
	const char *name;	/* section and key lower case */
	const char *value;	/* NULL for a valueless key */
	const char *file;	/* as git names it; NULL: command line */
	int line;		/* in `file`; -1 for the command line */
	enum config_scope scope;	/* of the top-level file */
};

/* config_foreach() with the whole entry. */
typedef int (*config_entry_fn)(const struct config_entry *e, void *payload);
int config_foreach_entry(const struct ga_config *cfg, config_entry_fn fn,
			 void *payload);

/*
 * git's answer to a config callback that failed on `e` (its
 * git_die_config_linenr()): GA_ERROR with "bad config variable '<name>'
 * in file '<file>' at line <n>" or "unable to parse '<name>' from
 * command-line config".  config_error_nonbool() first reports git's
 * "error: missing value for '<name>'" line (tar.<fmt>.command without a
 * value).
 */
int config_error_entry(const struct config_entry *e);
int config_error_nonbool(const struct config_entry *e);

/*
 * safe.directory as git 2.39's ensure_valid_ownership() reads it: the
 * entries of every level but the repository's, in order; "*" allows
 * any path, an empty value forgets the entries before it, any other
 * value allows `path` when it is equal to it after "~" and "%(prefix)/"
 * are expanded.  Sets *out to 1 when the last word
 * allows `path`.  Returns 0, or GA_ERROR with git's "failed to expand
 * user dir in: '<value>'".
 */
int config_safe_directory(int *out, const struct ga_config *cfg,
			  const char *path);

#endif

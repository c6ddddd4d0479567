/*
 * config-env.h: the command-line configuration that git passes to its
 * children in the environment, as git 2.39's
 * git_config_from_parameters() reads it: GIT_CONFIG_COUNT entries
 * (GIT_CONFIG_KEY_<n>, GIT_CONFIG_VALUE_<n>) first, then
 * GIT_CONFIG_PARAMETERS, a list of shell-quoted words in its old
 * "'key=value'" form and its "'key'='value'" form of git 2.31 on.
 */
#ifndef GARCHIVE_CONFIG_ENV_H
#define GARCHIVE_CONFIG_ENV_H

/*
 * Called for each pair in order: `key` as written (not yet checked),
 * `value` NULL for "implicit true".  Returns 0, CONFIG_ENTRY_BAD (see
 * config-parse.h) after an "error:" line, or a negative code, and
 * anything but 0 stops the reading.
 */
typedef int (*config_pair_fn)(const char *key, const char *value,
			      void *payload);

/*
 * Read both variables.  Returns 0; CONFIG_ENTRY_BAD after git's
 * "error:" line for a malformed one ("bogus format in
 * GIT_CONFIG_PARAMETERS", "bogus count in GIT_CONFIG_COUNT", "missing
 * config key GIT_CONFIG_KEY_<n>"...) or from `fn`; or `fn`'s negative
 * code.
 */
int config_from_parameters(config_pair_fn fn, void *payload);

#endif

/*
 * config-parse.h: the grammar of git's configuration, as git 2.39's
 * config.c reads it: a file's bytes by git_parse_source() (sections and
 * "subsections", values with quotes, escapes, comments and continued
 * lines, a UTF-8 byte order mark, CRLF, and git's line numbers in
 * messages), and a key given on the command line by
 * git_config_parse_key().  What the entries mean (the stack, includes)
 * is config.c's.
 */
#ifndef GARCHIVE_CONFIG_PARSE_H
#define GARCHIVE_CONFIG_PARSE_H

#include <stddef.h>

/*
 * What an entry callback returns to have git's "bad config line" (or
 * "unable to parse command-line config") follow the error line it has
 * reported.
 */
#define CONFIG_ENTRY_BAD 1

/*
 * Called for each entry in file order: `name` with its section and key
 * lower case ("section.Sub.key"), `value` NULL for a valueless key,
 * `line` the entry's line (a continued value's last).  Returns 0 to go
 * on, CONFIG_ENTRY_BAD, or a negative code with the message set (git's
 * die()), which ends the parse with that code.
 */
typedef int (*config_parse_fn)(const char *name, const char *value,
			       int line, void *payload);

/*
 * Parse the `len` bytes of `data`, the file git names `display`.
 * Returns 0; the callback's negative code; or GA_ERROR with "bad config
 * line <n> in file <display>" for a syntax error or an entry the
 * callback found bad.
 */
int config_parse_source(const char *data, size_t len, const char *display,
			config_parse_fn fn, void *payload);

/*
 * git_config_parse_key(): `key` ("section.Sub.key") checked, with its
 * section and variable name lower-cased, malloc'd.  NULL after git's
 * "error:" line (through ga_report) when it is not a valid key: "key
 * does not contain a section: <key>", "invalid key: <key>", ...
 */
char *config_parse_key(const char *key);

#endif

/*
 * files.h: the files format's loose refs and reflogs, as git's
 * files-backend.c reads them.
 *
 * A loose ref is a file holding "<id>" (FETCH_HEAD adds text after
 * whitespace) or "ref: <target>", or a symbolic link to "refs/...".
 * A reflog is a file of lines
 *
 *	<old id> SP <new id> SP <name> <<email>> SP <time> SP <tz> TAB <msg> LF
 *
 * and a line that does not parse is skipped, as git skips it.
 *
 * Paths come from the store (refs.c), which knows the worktrees; this
 * file only reads them.  Reads are bounded: a ref file is read up to
 * FILES_REF_MAX bytes, a reflog line up to FILES_REFLOG_LINE_MAX, and a
 * directory walk stops FILES_MAX_DEPTH levels down.
 */
#ifndef GARCHIVE_REFS_FILES_H
#define GARCHIVE_REFS_FILES_H

#include <stddef.h>

#include "refs/refs-raw.h"

/*
 * A ref file holds an id or a target name; git reads it whole.  More
 * than this is no ref (a symbolic ref's target would be cut), and an
 * id is read from the start of the file, as git would.
 */
#define FILES_REF_MAX (64 * 1024)

/* A reflog line longer than this is skipped as damaged. */
#define FILES_REFLOG_LINE_MAX (1024 * 1024)

/* Ref directories nest no deeper than this (git's are a few levels). */
#define FILES_MAX_DEPTH 128

/*
 * git's parse_loose_ref_contents() on the `len` bytes at `buf` (NUL at
 * buf[len]): 0 with `out` set (REFS_ISSYMREF and its target, or the
 * id), or EINVAL with REFS_ISBROKEN in out->flags.
 */
int files_parse_ref(struct refs_raw *out, const char *buf, size_t len,
		    enum ga_hash_algo algo);

/*
 * git's read_ref_internal() for the loose file at `path`: 0 with `out`
 * set, or an errno value: ENOENT (no file: the packed value may
 * answer), EISDIR (a directory there: the same), ENOTDIR, EINVAL (not a
 * ref, REFS_ISBROKEN set) or what the system said.
 */
int files_read_ref(struct refs_raw *out, const char *path,
		   enum ga_hash_algo algo);

/*
 * git's refs_read_special_head() for FETCH_HEAD and MERGE_HEAD: the
 * file read as is (no trailing blanks trimmed).  Returns as
 * files_read_ref().
 */
int files_read_special(struct refs_raw *out, const char *path,
		       enum ga_hash_algo algo);

/* Where a ref or a ref directory ("refs/tags/") is, malloc'd. */
typedef char *(*files_path_fn)(void *ctx, const char *refname);

/*
 * The names of the loose refs under refs/ that start with `prefix`, in
 * byte order, appended to `out`: a walk of the directories `path_of`
 * gives (refs/bisect/, refs/worktree/ and refs/rewritten/ as their own,
 * the worktree's, as git lists them).  Names starting with '.' and
 * ending with ".lock" are not refs.  A symbolic link to a directory is
 * not followed (git follows it; a link to ".." would list refs without
 * end).  Returns 0.
 */
int files_loose_names(struct ga_strvec *out, const char *prefix,
		      files_path_fn path_of, void *ctx);

/*
 * The root refs (HEAD, ORIG_HEAD, ...) that are regular files in
 * `git_dir`, in byte order, appended to `out`.  Returns 0.
 */
int files_root_names(struct ga_strvec *out, const char *git_dir);

/*
 * Parse one reflog line (`len` bytes with its LF, NUL after it; the
 * buffer is changed) as git's show_one_reflog_ent(): 1 with `e` set
 * (its strings point into `line`), 0 when the line does not parse.
 */
int files_parse_reflog_line(struct refs_reflog_entry *e, char *line,
			    size_t len, enum ga_hash_algo algo);

/*
 * Call `fn` for each entry of the reflog file at `path`, newest first
 * (read backwards, as git's for_each_reflog_ent_reverse()) or oldest
 * first.  Returns 0, fn's first non-zero value, GA_ENOTFOUND when the
 * file cannot be opened (the caller decides), or GA_ERROR with git's
 * "cannot read ... from reflog for <refname>" words.
 */
int files_reflog_each(const char *path, const char *refname,
		      enum ga_hash_algo algo, int newest_first,
		      refs_reflog_fn fn, void *payload);

#endif

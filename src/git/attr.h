/*
 * attr.h: gitattributes, read the way `git archive` reads them.
 *
 * Sources, lowest precedence first: the built-in macro
 * "[attr]binary -diff -merge -text", the system file, the global file
 * (core.attributesFile), the per-directory .gitattributes files (root
 * first, deeper wins) and $GIT_DIR/info/attributes.  Per-directory files
 * are not read from disk by this module: the caller supplies a reader
 * (from the archived tree, or from the work tree with
 * --worktree-attributes), and parsed files are cached per directory.
 *
 * Paths are relative to the archive root (the archived tree), use '/'
 * and have no leading slash.  Not thread-safe: one attr_stack per thread.
 */
#ifndef GARCHIVE_ATTR_H
#define GARCHIVE_ATTR_H

#include <stddef.h>

struct ga_buf;

enum attr_state {
	ATTR_UNSPECIFIED = 0,
	ATTR_SET,		/* "name" */
	ATTR_UNSET,		/* "-name" */
	ATTR_VALUE		/* "name=value" */
};

struct attr_value {
	enum attr_state state;
	const char *value;	/* ATTR_VALUE only; owned by the stack */
};

/*
 * Read the .gitattributes of directory `dir` ("" for the root, else
 * "a/b" without a trailing slash) into `out` (an empty buffer owned by
 * the stack).  Return 0, GA_ENOTFOUND when there is none, or an error
 * code (with the message set), which attr_check() passes up.
 *
 * git reads these from the index built from the archived tree, or from
 * the work tree with --worktree-attributes, where it does not follow a
 * symlinked .gitattributes and warns about files it cannot open:
 * attr_read_file(out, "<dir>/.gitattributes", 1) does exactly that.
 */
typedef int (*attr_read_fn)(struct ga_buf *out, const char *dir,
			    void *payload);

struct attr_stack_options {
	const char *system_file;	/* NULL when GIT_ATTR_NOSYSTEM */
	const char *global_file;	/* core.attributesFile, or NULL */
	const char *info_file;		/* $GIT_DIR/info/attributes, or NULL */
	const char *info_file_shown;	/* its name in messages (NULL: as is) */
	attr_read_fn read_dir;		/* per-directory files; may be NULL */
	void *payload;
	int ignore_case;		/* core.ignoreCase */
	/*
	 * read_dir returns work-tree files rather than blobs.  git parses
	 * the two differently: a file is read line by line (a UTF-8 BOM is
	 * skipped, CR before LF dropped, a NUL only ends its line), a blob
	 * ends at its first NUL and keeps CRs; and the 100 MB warning says
	 * "file" or "blob".
	 */
	int worktree;
};

/*
 * Read an attributes file the way git does: a missing file (ENOENT,
 * ENOTDIR) is GA_ENOTFOUND; another open failure warns "unable to access
 * '<path>': <strerror>" and is GA_ENOTFOUND too, as is a file of 100 MB
 * or more ("ignoring overly large gitattributes file '<path>'").  With
 * `nofollow` a symlink fails to open (ELOOP), as git's in-tree files.
 * Returns 0 with the content in `out`.
 */
int attr_read_file(struct ga_buf *out, const char *path, int nofollow);

/*
 * attr_read_file(), naming the file `shown` in its warnings: git reads
 * work-tree files by paths relative to the top of the work tree.
 */
int attr_read_file_as(struct ga_buf *out, const char *path,
		      const char *shown, int nofollow);

/*
 * Whether the `len` bytes at `name` are a valid attribute name, as git's
 * attr_name_valid(): [-A-Za-z0-9_.]+, not starting with '-'.  1 or 0.
 */
int attr_name_valid(const char *name, size_t len);

struct attr_stack;

/*
 * Build a stack.  Missing global/system/info files are not errors.
 * Returns 0 or an error code.  Nothing is read until the first
 * attr_check(), which reads the sources in git's order (built-in macro,
 * system, global, root .gitattributes, info) so that their warnings come
 * out when and in the order git prints them.
 *
 * Diagnostics about the files go through ga_warning() and, for the two
 * that git prints without a prefix ("<name> is not a valid attribute
 * name: <file>:<line>", "<line> not allowed: <file>:<line>"),
 * ga_report(GA_REPORT_PLAIN).  A stack parses each file once.  git
 * parses (and warns) once per attribute check object instead: archive.c
 * has one (export-ignore, export-subst), convert.c another (the
 * conversion attributes), each :(attr:) pathspec item its own.  Use one
 * stack per such check to repeat git's warnings.
 */
int attr_stack_new(struct attr_stack **out,
		   const struct attr_stack_options *opts);

/*
 * Look up `nr` attributes for `path`.  `is_dir` makes patterns with a
 * trailing '/' apply; git looks trees and submodules up this way (as
 * "path/") for export-ignore.  A path ending in '/' is taken the same
 * way.  A directory's own .gitattributes does not apply to it, only to
 * what is inside.  out[i] receives the value of names[i], with macros
 * expanded; an invalid attribute name is always unspecified.  Values
 * stay valid until attr_stack_free().  Any path may be looked up in any
 * order; consecutive lookups in the same directories are cheapest.
 * Returns 0, or the error of the read_dir callback.
 */
int attr_check(struct attr_value *out, struct attr_stack *stack,
	       const char *path, int is_dir,
	       const char *const *names, size_t nr);

void attr_stack_free(struct attr_stack *stack);

#endif

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
 * "a/b" without a trailing slash) into `out`.  Return 0, GA_ENOTFOUND
 * when there is none, or an error code.
 */
typedef int (*attr_read_fn)(struct ga_buf *out, const char *dir,
			    void *payload);

struct attr_stack_options {
	const char *system_file;	/* NULL when GIT_ATTR_NOSYSTEM */
	const char *global_file;	/* core.attributesFile, or NULL */
	const char *info_file;		/* $GIT_DIR/info/attributes, or NULL */
	attr_read_fn read_dir;		/* per-directory files; may be NULL */
	void *payload;
	int ignore_case;		/* core.ignoreCase */
};

struct attr_stack;

/*
 * Build a stack.  Missing global/system/info files are not errors.
 * Returns 0 or an error code.
 */
int attr_stack_new(struct attr_stack **out,
		   const struct attr_stack_options *opts);

/*
 * Look up `nr` attributes for `path`.  `is_dir` makes patterns with a
 * trailing '/' apply; git looks directories up this way for
 * export-ignore.  out[i] receives the value of names[i], with macros
 * expanded.  Values stay valid until attr_stack_free().
 */
int attr_check(struct attr_value *out, struct attr_stack *stack,
	       const char *path, int is_dir,
	       const char *const *names, size_t nr);

void attr_stack_free(struct attr_stack *stack);

#endif

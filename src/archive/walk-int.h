/*
 * walk-int.h: the walk's state, shared by walk.c (order, selection,
 * content) and walk-attr.c (the attribute checks).  Private to them.
 */
#ifndef GARCHIVE_WALK_INT_H
#define GARCHIVE_WALK_INT_H

#include <stddef.h>
#include <stdint.h>

#include "garchive/common.h"
#include "garchive/walk.h"
#include "convert.h"
#include "prefetch.h"
#include "rawtree.h"

#include <git2/odb.h>
#include "odb/oid.h"

struct attr_stack;
struct attr_value;
struct odb_stream;
struct pathspec;
struct subst;

/*
 * git parses the attribute files (and prints its warnings about them)
 * once per "attribute check": archive.c has one for export-ignore and
 * export-subst, convert.c one for the conversion attributes, zip's
 * text detection one for "diff", and pathspecs their own.  Each gets
 * its own stack here, so warnings come out as often and in the order
 * git prints them.
 */
enum attr_check_kind {
	CHECK_ARCHIVE,
	CHECK_CONVERT,
	CHECK_DIFF,
	CHECK_PATHSPEC,		/* :(attr:) items while walking */
	CHECK_VALIDATE,		/* :(attr:) items while validating */
	CHECK_NR
};

/* A submodule to walk where its tree would sort (--recurse-submodules). */
struct held_gitlink {
	struct rawtree_entry te;	/* points into its frame's tree */
	struct walk_gitlink found;
};

/* A tree being walked. */
struct frame {
	struct odb_object *obj;	/* the raw tree; entries point into it */
	struct rawtree_iter iter;
	size_t rel_len;		/* length of its path in walk->rel, with '/' */
	int emitted;		/* its directory entry was produced */
	char oid_hex[GA_OID_MAX_HEXSZ + 1];
	/* Submodules waiting for their place, in tree order. */
	struct held_gitlink *gitlinks;
	size_t nr_gitlinks, alloc_gitlinks;
	struct rawtree_entry ahead;	/* read, not yet handled */
	int have_ahead;
};

/* A blob handed out piecewise: a loose object's stream, or memory. */
struct blob_stream {
	struct entry_stream base;
	struct odb_stream *odb_stream;
	struct odb_object *obj;
	size_t pos;
	const char *oid_hex;
	/*
	 * Streamed although git reads it whole (walk_options.stream_large):
	 * damage is reported as git's whole read reports it.
	 */
	git_odb *whole_odb;
	struct ga_oid id;
};

/* A large blob handed on unread (see struct entry_deferred). */
struct deferred_blob {
	struct entry_deferred base;
	git_odb *odb;			/* the walk's; thread-safe for reads */
	struct ga_oid id;
	char oid_hex[GA_OID_MAX_HEXSZ + 1];
};

enum walk_phase { PHASE_PREFIX, PHASE_TREE, PHASE_EXTRAS, PHASE_DONE };

struct walk {
	git_repository *repo;
	git_odb *odb;
	const struct walk_options *opts;
	const struct treeish *treeish;
	struct pathspec *ps;
	struct attr_stack *attrs[CHECK_NR];
	/* walk_options.attr_source, as resolved by walk_attr_setup(). */
	enum {
		ATTR_SOURCE_NONE,	/* none given, or a bad attr.tree */
		ATTR_SOURCE_TREE,	/* attr_source_id */
		ATTR_SOURCE_EMPTY,	/* names no tree: no attributes */
		ATTR_SOURCE_BAD		/* fatal at the first lookup */
	} attr_source;
	struct ga_oid attr_source_id;
	/*
	 * The trees along the path of the last attribute file or mode
	 * looked up: the next directory's file costs one tree read, not
	 * one per level above it.
	 */
	struct rawtree_cursor attr_trees;
	struct convert *conv;
	struct subst *subst;
	struct prefetch *pf;		/* NULL in serial mode */
	struct prefetch_pool *pool;	/* its workers, or NULL */
	struct prefetch_pool *own_pool;	/* the top walk's pool */
	struct prefetch_options pf_opts;
	uint64_t big_file_threshold;
	size_t stream_above;		/* see walk_options.stream_large */
	size_t prefix_len;

	enum walk_phase phase;
	struct frame *frames;
	size_t depth, alloc_frames;	/* frames[0 .. depth-1] are open */
	struct ga_buf rel;		/* path of the current entry, relative */
	struct rawtree_entry pending;	/* non-dir entry waiting for its dirs */
	int have_pending;
	size_t hashsz;			/* bytes of an object id */
	size_t extra_next;

	/* The entry handed out last, and what it owns. */
	struct archive_entry entry;
	struct ga_buf path;
	char oid_hex[GA_OID_MAX_HEXSZ + 1];
	struct odb_object *obj;
	struct ga_buf content;
	struct blob_stream stream;
	struct convert_meta meta;
	char treeish_hex[GA_OID_MAX_HEXSZ + 1];
	char root_hex[GA_OID_MAX_HEXSZ + 1];	/* the --prefix entry's */

	/* --recurse-submodules: the submodule being walked, if any. */
	struct walk *inner;
	struct archive_entry *inner_entry;	/* its next entry, held */
	struct ga_buf ps_buf;		/* paths as pathspecs see them */
	char *ps_base;			/* what comes before rel for them */
	size_t cwd_base_len;		/* of opts->cwd_base in the top walk */
	/*
	 * The mode of the entry pathspecs are matching against, set
	 * around the match: builtin_objectmode takes it from here, also
	 * below a submodule, whose trees the archived tree does not hold.
	 */
	uint32_t match_mode;
	int have_match_mode;
};

/* walk-attr.c */

/* The attribute stacks of every check, from walk->opts. */
int walk_attr_setup(struct walk *w);

/* Attributes `names` of `path` as check `kind` sees them. */
int walk_attr_lookup(struct attr_value *out, struct walk *w,
		     enum attr_check_kind kind, const char *path, int is_dir,
		     const char *const *names, size_t nr);

/* pathspec_attr_fn for :(attr:...) items, walking and validating. */
int walk_pathspec_attrs(struct attr_value *out, const char *path,
			int is_dir, const char *const *names, size_t nr,
			void *payload);
int walk_validate_attrs(struct attr_value *out, const char *path,
			int is_dir, const char *const *names, size_t nr,
			void *payload);

/* entry->text for zip, from the diff attribute (when wanted). */
int walk_text_hint(enum entry_text *out, struct walk *w, const char *path);

#endif

/*
 * commit.h: what pretty formats need of git's commit.c besides libgit2:
 * a header of the raw commit (find_commit_header) and the parents as
 * git sees them through grafts and a shallow file.
 */
#ifndef GARCHIVE_COMMIT_H
#define GARCHIVE_COMMIT_H

#include <stdint.h>

#include <git2/oid.h>
#include <git2/types.h>
#include "odb/oid.h"

/*
 * A commit as garchive reads it from the object store, for either hash:
 * what the archive (its time) and pretty formats (%T %t %P %p, the raw
 * text) need, parsed once.  libgit2's git_commit knows SHA-1 only.
 */
struct ga_commit {
	struct ga_oid id;
	struct ga_oid tree_id;
	/* The parents the commit names, before grafts and shallow. */
	struct ga_oid *parents;
	size_t nr_parents;
	/* The committer time as git's parse_commit_date() reads it. */
	int64_t time;
	/* The object's bytes, NUL-terminated after raw_len. */
	char *raw;
	size_t raw_len;
};

/*
 * Parse the commit object `data` (`size` bytes) whose id is `id` into
 * *out.  A missing or bad tree line is an error (GA_ECORRUPT); other
 * oddities are read as git reads them.
 */
int ga_commit_parse(struct ga_commit *out, const struct ga_oid *id,
		    const void *data, size_t size);

/*
 * Read the commit `id` from `odb` and parse it.  Returns 0, the odb's
 * error (its message set), or GA_ECORRUPT for an object that is not a
 * commit or has no tree line.
 */
int ga_commit_read(struct ga_commit **out, git_odb *odb,
		   const struct ga_oid *id);
void ga_commit_free(struct ga_commit *c);
/* Free what ga_commit_parse() filled in, not `c` itself. */
void ga_commit_release(struct ga_commit *c);

/*
 * The target of the tag object `data` (`size` bytes, ids of `algo`): its
 * id and declared type.  A tag is taken as libgit2 1.5 took it, so that
 * what was usable stays so: "object", "type" and "tag" lines, a tagger
 * line (if any) with an e-mail in <>, and a blank line before a message.
 * Returns 0, or -1 for a malformed tag (no message set).
 */
int ga_tag_target(struct ga_oid *target, git_object_t *type,
		  enum ga_hash_algo algo, const char *data, size_t size);

/*
 * What `id` peels to through tags, each tag's target read and checked
 * against the type the tag declares.  Returns 0 with *out (the id itself
 * for an object that is no tag), or -1 when an object cannot be read or
 * a tag is malformed (no message set).
 */
int ga_peel_tags(struct ga_oid *out, git_odb *odb, const struct ga_oid *id);

/*
 * The value of the first header `key` of the raw commit `msg` (a C
 * string), malloc'd, or NULL when it has none.
 */
char *commit_header(const char *msg, const char *key);

enum graft_state {
	GRAFT_NONE,		/* libgit2's parents are git's */
	GRAFT_PARENTS,		/* info/grafts replaces them */
	GRAFT_SHALLOW		/* the shallow file cuts them all */
};

struct commit_grafts {
	int loaded;
	enum graft_state state;
	struct ga_oid *parents;	/* unless GRAFT_NONE */
	size_t nr;
};

/*
 * Find what git's grafts ($GIT_GRAFT_FILE or info/grafts, the first line
 * for the commit wins) and shallow file say of commit `oid`, once (later
 * calls do nothing).  Unreadable or malformed files count as absent.
 */
void commit_grafts_load(struct commit_grafts *g, git_repository *repo,
			const struct ga_oid *oid);
void commit_grafts_release(struct commit_grafts *g);

#endif

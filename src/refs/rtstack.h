/*
 * rtstack.h: a stack of reftables, as git's reftable/stack.c reads it.
 *
 * <dir>/tables.list names the tables, oldest first.  A reader opens
 * every table the list names and keeps them (mapped, so a table that a
 * compaction deletes stays readable): that set is one moment of the
 * refs.  Another git process may rewrite the list and delete tables
 * while this happens; when a named table is missing and the list has
 * changed since it was read, the list is read again, as git does: at
 * least three tries, then for up to RTSTACK_DEADLINE_MS, at most
 * RTSTACK_MAX_TRIES, waiting a little longer each time.  A missing
 * list is an empty stack.
 *
 * Records are merged newest first: the newest table holding a key
 * decides it, and a deletion there hides the key.
 */
#ifndef GARCHIVE_REFS_RTSTACK_H
#define GARCHIVE_REFS_RTSTACK_H

#include <stddef.h>

#include "refs/refs-raw.h"
#include "refs/reftable.h"

#define RTSTACK_DEADLINE_MS	3000
#define RTSTACK_MAX_TRIES	64
/* tables.list is a few names; more than these is no stack git made. */
#define RTSTACK_LIST_MAX	(4 * 1024 * 1024)
#define RTSTACK_MAX_TABLES	10000

struct rtstack_table {
	char *path;
	void *map;
	size_t map_len;
	struct reftable_table t;
};

struct rtstack {
	char *dir;
	enum ga_hash_algo algo;
	struct rtstack_table *tables;	/* oldest first */
	size_t nr;
	int loaded;
	unsigned retries;		/* times the list was read again */
};

void rtstack_init(struct rtstack *st, const char *dir,
		  enum ga_hash_algo algo);
/* Forget the tables (they are read again on next use). */
void rtstack_unload(struct rtstack *st);
void rtstack_release(struct rtstack *st);

/*
 * Split the `len` bytes of a tables.list at LF (empty lines skipped, a
 * last line without LF taken, as git 2.47 does) into `out`.  A name
 * that could leave the directory ('/', "..", NUL), more than
 * RTSTACK_MAX_TABLES names, or a longer file than RTSTACK_LIST_MAX is
 * GA_ERROR ("<path>: corrupt reftable file").
 */
int rtstack_parse_list(struct ga_strvec *out, const char *buf, size_t len,
		       const char *path);

/* Open the tables, unless done already.  Returns 0 or GA_ERROR. */
int rtstack_load(struct rtstack *st);

/*
 * The newest record of ref `name`: 0 with `rec` set, GA_ENOTFOUND (no
 * record, or a deletion), or GA_ERROR.
 */
int rtstack_read_ref(struct reftable_record *rec, struct rtstack *st,
		     const char *name);

/*
 * The merged refs whose names start with `prefix`, as raw refs (all
 * names, root refs and bad names included); `st` must be loaded and
 * outlive the iteration.  Returns NULL with the error set on failure.
 */
struct refs_iter *rtstack_ref_iter_new(struct rtstack *st,
				       const char *prefix);

/*
 * The reflog of `name`, newest first or oldest first, without deleted
 * entries and existence markers (both ids null).  Returns 0, fn's first
 * non-zero value, or GA_ERROR.
 */
int rtstack_reflog_each(struct rtstack *st, const char *name,
			int newest_first, refs_reflog_fn fn, void *payload);

/* Whether `name` has a log record (an existence marker counts). */
int rtstack_reflog_exists(struct rtstack *st, const char *name);

#endif

/*
 * refs.h: a read-only ref store, for the repositories libgit2 cannot
 * open (SHA-256 object ids, reftable refs).
 *
 * A store reads the refs of one worktree of one repository, kept in
 * either of git's two formats (extensions.refStorage):
 *
 * - files: loose refs (a file per ref under refs/, HEAD and the other
 *   root refs beside it, symbolic refs as "ref: <target>"), the
 *   packed-refs file (a loose ref overrides its packed value) and the
 *   reflogs under logs/;
 * - reftable: a stack of binary tables named by reftable/tables.list,
 *   newest last, holding refs and reflogs; a newer table's record, a
 *   deletion included, hides an older one's
 *   (Documentation/technical/reftable).
 *
 * The ids are of the repository's hash, a parameter of the store.
 * Worktrees as git keeps them: HEAD and the other root refs,
 * refs/worktree/, refs/bisect/ and refs/rewritten/ belong to the
 * worktree (its own git dir, or for reftable its own reftable/ stack);
 * every other ref is shared (the common dir).  "main-worktree/<ref>"
 * and "worktrees/<id>/<ref>" name another worktree's own refs.
 * FETCH_HEAD and MERGE_HEAD are always files in the git dir, as git
 * 2.45 and later read them.
 *
 * Reading.  A reftable stack is read once, on first use, and kept: every
 * later answer comes from that snapshot, a set of refs that existed at
 * one moment, even while another git process rewrites the stack
 * (tables.list is read, every table it names opened; when one has
 * vanished the list is read again, as git's reader does, a bounded
 * number of times).  The packed-refs file is likewise read once.  Loose
 * refs are read on each call.  refs_refresh() drops what is kept.
 *
 * Every file is hostile input: sizes and offsets are checked before
 * use, no allocation follows a size read from a file beyond a checked
 * cap, and damage ends in git's message where git has one.  A store
 * never writes.  One store serves one thread at a time.
 *
 * Damage.  Where git dies (a packed-refs line that does not parse, a
 * name that would leave refs/), the store fails with GA_ERROR and git's
 * message.  A reftable stack git cannot load, or a table it cannot
 * parse, git reads silently as holding no refs (git archive HEAD then
 * says "not a valid object name: HEAD"); the store fails with GA_ERROR
 * and the cause, in the words of git's reftable_error_str() ("<table>:
 * corrupt reftable file", "<table>: file does not exist", "<dir>: data
 * concurrently modified"), and the caller chooses which to show.
 *
 * Functions return 0 or a negative GA_* code with the message set
 * (common.h); GA_ENOTFOUND is the answer "no such ref" and sets no
 * message.
 */
#ifndef GARCHIVE_REFS_H
#define GARCHIVE_REFS_H

#include <stddef.h>
#include <stdint.h>

#include "odb/oid.h"

struct ga_buf;
struct refs_store;

enum refs_storage {
	REFS_STORAGE_FILES,
	REFS_STORAGE_REFTABLE
};

/*
 * Open the refs of the worktree whose git dir is `git_dir`, in the
 * repository whose common dir is `common_dir` (the same path for the
 * main worktree; git's spelling of both is kept for messages), with ids
 * of `algo`.  Nothing is read yet.  Returns 0 with *out (free it with
 * refs_free()), or GA_ERROR for an unknown hash.
 */
int refs_open(struct refs_store **out, const char *git_dir,
	      const char *common_dir, enum ga_hash_algo algo,
	      enum refs_storage storage);
void refs_free(struct refs_store *refs);

/* Forget the kept reftable snapshots and packed-refs file. */
void refs_refresh(struct refs_store *refs);

/* What a ref is, as git's REF_* flags. */
#define REFS_ISSYMREF	0x01	/* a symbolic ref (when read last) */
#define REFS_ISPACKED	0x02	/* read from packed-refs */
#define REFS_ISBROKEN	0x04	/* unreadable, dangling or a bad name */
#define REFS_BAD_NAME	0x08	/* the name fails check_refname_format */
#define REFS_PEELED	0x10	/* refs_entry.peeled is what the store keeps */

/* git's check_refname_format() flags. */
#define REFS_NAME_ALLOW_ONELEVEL	0x01
#define REFS_NAME_REFSPEC_PATTERN	0x02

/* git's check_refname_format(): 0 when `name` is a valid ref name. */
int refs_check_name(const char *name, unsigned flags);

/*
 * Read `refname` itself, one level, not following a symbolic ref: git's
 * refs_read_raw_ref().  Returns 0 with either *flags & REFS_ISSYMREF and
 * the target in `target` (replaced), or the id in *oid; GA_ENOTFOUND
 * when there is no such ref (*flags has REFS_ISBROKEN when a file is
 * there but unreadable or not a ref), or GA_ERROR (a damaged
 * packed-refs file or reftable, with git's message where git dies).
 */
int refs_read_raw(struct ga_oid *oid, struct ga_buf *target, unsigned *flags,
		  struct refs_store *refs, const char *refname);

/* git's RESOLVE_REF_* flags. */
#define REFS_RESOLVE_READING		0x01
#define REFS_RESOLVE_NO_RECURSE		0x02
#define REFS_RESOLVE_ALLOW_BAD_NAME	0x04

/* git follows at most this many symbolic refs (SYMREF_MAXDEPTH). */
#define REFS_SYMREF_MAXDEPTH 5

/*
 * git's refs_resolve_ref_unsafe(): follow `refname` through symbolic
 * refs, at most REFS_SYMREF_MAXDEPTH reads.  Returns 0 with *out_name
 * (malloc'd, the caller frees it; NULL allowed) naming the last ref
 * read, *oid its id (the null id for a missing ref outside
 * REFS_RESOLVE_READING, or with REFS_RESOLVE_NO_RECURSE) and *flags
 * (NULL allowed) as git's; GA_ENOTFOUND where git returns NULL (a
 * missing ref while reading, a broken one, a bad name, too deep a
 * chain), *flags still set so that the caller can say "ignoring
 * dangling symref" or "ignoring broken ref"; or GA_ERROR.
 */
int refs_resolve(char **out_name, struct ga_oid *oid, unsigned *flags,
		 struct refs_store *refs, const char *refname,
		 unsigned resolve_flags);

/*
 * The target of symbolic ref `refname`: git's refs_read_symbolic_ref().
 * Returns 0 with `out` set, GA_ENOTFOUND when there is no such ref or it
 * is not symbolic, or GA_ERROR.
 */
int refs_read_symref(struct ga_buf *out, struct refs_store *refs,
		     const char *refname);

/*
 * The peeled value the store keeps for `refname` (reftable: the second
 * id of a ref to an annotated tag; files: a packed ref's "^" line, or
 * the null id for a ref of a "fully-peeled" packed-refs file without
 * one, which git takes as "not a tag").  Returns 0 with *out, or
 * GA_ENOTFOUND when the store keeps none (the caller peels the object
 * itself), or GA_ERROR.  Symbolic refs are not followed.
 */
int refs_read_peeled(struct ga_oid *out, struct refs_store *refs,
		     const char *refname);

/* One ref of an iteration. */
struct refs_entry {
	const char *name;
	struct ga_oid oid;	/* resolved; the null id when broken */
	struct ga_oid peeled;	/* with REFS_PEELED (null: not a tag) */
	const char *target;	/* a symbolic ref's target, else NULL */
	unsigned flags;		/* REFS_* */
};

typedef int (*refs_each_fn)(const struct refs_entry *entry, void *payload);

/* refs_for_each() flags, as git's DO_FOR_EACH_*. */
#define REFS_EACH_INCLUDE_BROKEN	0x01
#define REFS_EACH_ROOT_REFS		0x02

/*
 * Call `fn` for each ref whose name starts with `prefix` ("" or NULL for
 * all), in byte order of their names, as git's refs_for_each_ref():
 * refs under refs/ only, and HEAD and the other root refs too with
 * REFS_EACH_ROOT_REFS.  Broken refs are left out unless
 * REFS_EACH_INCLUDE_BROKEN; git also leaves out refs whose object is
 * missing, which the caller checks.  The entry is valid during the call.
 * Returns 0, the first non-zero value `fn` returned, or GA_ERROR (git's
 * "refname is dangerous" and the damage messages).
 */
int refs_for_each(struct refs_store *refs, const char *prefix,
		  unsigned each_flags, refs_each_fn fn, void *payload);

/* One reflog entry. */
struct refs_reflog_entry {
	struct ga_oid old_oid, new_oid;
	const char *who;	/* "Name <email>" */
	/*
	 * Seconds since the epoch, unsigned as git's timestamp_t, so
	 * that @{<date>} compares as git does.
	 */
	uint64_t timestamp;
	int tz;			/* as git's: -0130 is -130 */
	const char *message;	/* as git hands it out, LF included */
};

typedef int (*refs_reflog_fn)(const struct refs_reflog_entry *entry,
			      void *payload);

/* Whether `refname` has a reflog: 1, 0, or GA_ERROR. */
int refs_reflog_exists(struct refs_store *refs, const char *refname);

/*
 * Call `fn` for each entry of the reflog of `refname`, newest first
 * when `newest_first` (git's for_each_reflog_ent_reverse()), else
 * oldest first.  Lines of a logs/ file that do not parse are skipped,
 * as git skips them; a reftable's deleted entries and existence
 * markers are not shown.  Returns 0 (also for a ref without a reflog),
 * the first non-zero value of `fn`, or GA_ERROR.
 */
int refs_for_each_reflog(struct refs_store *refs, const char *refname,
			 int newest_first, refs_reflog_fn fn, void *payload);

/* What refs_read_ref_at() found besides the id. */
struct refs_ref_at {
	char *message;		/* the entry's message; the caller frees */
	uint64_t cutoff_time;
	int cutoff_tz;
	int cutoff_cnt;
};

/*
 * git's read_ref_at(): the value of `refname` `cnt` updates ago
 * (cnt >= 0, at_time 0) or at time `at_time` (cnt -1), from its reflog.
 * *out must hold the ref's current value on entry, as git's callers
 * prepare it (it is kept for "@{0}" with an empty reflog).  Returns 0
 * when found; 1 when the reflog ran out first (*out is then the oldest
 * known value and info->cutoff_* describe the oldest entry, from which
 * the caller words "log for '<ref>' only has <n> entries"); GA_ERROR
 * with git's "log for <ref> is empty".  The warnings "log for ref <ref>
 * has gap after <date>" and "... unexpectedly ended on <date>" go
 * through ga_warning().  `info` may be NULL.
 */
int refs_read_ref_at(struct ga_oid *out, struct refs_ref_at *info,
		     struct refs_store *refs, const char *refname,
		     uint64_t at_time, int cnt);
void refs_ref_at_release(struct refs_ref_at *info);

/*
 * git's expand_ref(): try the name `str` (`len` bytes) in the order of
 * git's ref_rev_parse_rules ("%s", "refs/%s", "refs/tags/%s",
 * "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD"), with
 * git's warnings for dangling symbolic refs and broken refs.  Returns
 * the number of names that resolve (0, 1, or more when
 * `warn_ambiguous` asks for all of them, as core.warnAmbiguousRefs),
 * with *out_ref (malloc'd) and *oid from the first; or GA_ERROR.
 */
int refs_dwim_ref(char **out_ref, struct ga_oid *oid,
		  struct refs_store *refs, const char *str, size_t len,
		  int warn_ambiguous);

/*
 * git's repo_dwim_log(): the same rules, for the first name that
 * resolves and has a reflog (the name itself, or the ref it resolves
 * to).  Returns the count as refs_dwim_ref(), with *out_log and *oid.
 */
int refs_dwim_log(char **out_log, struct ga_oid *oid,
		  struct refs_store *refs, const char *str, size_t len,
		  int warn_ambiguous);

#endif

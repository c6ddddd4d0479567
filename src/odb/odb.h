/*
 * odb.h: the object database every read of garchive goes through.
 *
 * garchive assembles each object database itself instead of letting
 * libgit2 open it: libgit2 1.5's loose-object reader spins forever on an
 * object cut short (libgit2 issue 7342) and corrupts its heap on a
 * header that lies about the size, its pack reader crashes on an index
 * whose object count overflows its size check, and the two readers
 * together looked objects up in an order that is not git's.  So the one
 * backend libgit2 is given is garchive's object store (odb/store.h):
 * packs (odb/pack.h), loose objects (loose.h) and alternates, looked up
 * in git's order, a damaged copy told as git tells it and the next copy
 * used, as git does.  Alternates are followed here, as git follows them.
 */
#ifndef GARCHIVE_ODB_H
#define GARCHIVE_ODB_H

#include <stddef.h>

#include <git2/types.h>

#include "odb/oid.h"
#include "repofmt.h"

/*
 * Open the object database in `objects_dir` with its alternates
 * (objects/info/alternates, recursively, relative entries resolved
 * against the directory that lists them).  `shown` is how messages name
 * the directory, NULL for `objects_dir` itself.  With `report`, git's
 * complaints about alternates ("object directory <dir> does not exist;
 * check .git/objects/info/alternates", nesting too deep) are reported
 * as errors as git prints them; a second database of the same run
 * passes 0.  `algo` is the hash that names the objects (the
 * repository's extensions.objectFormat, repofmt.h), `reader` who reads
 * through it (repofmt.h): with REPOFMT_READER_GARCHIVE the reads below
 * go to the store directly, else through libgit2's git_odb_read() and
 * friends.  Returns 0 or GA_ERROR; the caller frees *out.
 */
int odb_open(git_odb **out, const char *objects_dir, const char *shown,
	     int report, enum ga_hash_algo algo, enum repofmt_reader reader);

/*
 * The reader `odb` was opened with (odb_open()), for a second handle on
 * it; libgit2's when it was not opened here.
 */
enum repofmt_reader odb_reader(git_odb *odb);

/*
 * Open `repo`'s object database with odb_open() and install it in
 * `repo`, before anything is read through it.  `git_dir_shown` is the
 * repository directory as git names it in messages (GIT_DIR as given,
 * "." for the server), or NULL to work it out as git's setup does:
 * ".git" for the .git of the work tree, "." for the current directory,
 * else its absolute path.  The hash and the reader are the repository's,
 * from its format (repofmt_hash(), repofmt_reader()).  Returns 0 or
 * GA_ERROR.
 */
int odb_install(git_repository *repo, const char *git_dir_shown, int report);

/*
 * How messages name the objects directory of `odb`, an object database
 * opened here, for a second handle on it (see prefetch.c); NULL when it
 * was not opened here.
 */
const char *odb_shown(git_odb *odb);

/*
 * A stream on blob `id` of `odb`, from the copy git would read (see
 * ga_store_stream_open()), when it is a loose object (loose.h) or one
 * stored whole in a pack (pack-stream.h), as git streams them:
 * garchive reads a large blob in pieces, so that memory does not grow
 * with it.  Returns 0, GIT_ENOTFOUND when it cannot be streamed (not
 * found, or a delta: read it whole), GA_ECORRUPT with the error set,
 * or another libgit2 code.  odb_stream_read() gives the next
 * bytes, at most `cap`, 0 only at the end; it returns 0, or GA_ECORRUPT,
 * GA_EARCHIVE (a packed stream that zlib refuses, as git's stream fails)
 * or GA_ERROR with the error set.
 */
struct odb_stream;
int odb_stream_open(struct odb_stream **out, size_t *size, git_object_t *type,
		    git_odb *odb, const struct ga_oid *id);
int odb_stream_read(struct odb_stream *s, unsigned char *buf, size_t cap,
		    size_t *nread);
void odb_stream_free(struct odb_stream *s);

/*
 * Everything above the object store names objects by struct ga_oid,
 * which knows its hash; libgit2's git_oid is SHA-1 only.  These are the
 * one place where the two meet: the reads below take a ga_oid and hand
 * libgit2 its own id, and odb_oid_from_git() takes an id libgit2 gives
 * back (a SHA-1 one, as every object database libgit2 opens).
 */
void odb_oid_to_git(git_oid *out, const struct ga_oid *id);
void odb_oid_from_git(struct ga_oid *out, const git_oid *id);

/*
 * The hash that names the objects of `odb`: its store's, for a
 * database opened by odb_open(); SHA-1 for any other.  libgit2 reads
 * SHA-1 objects only: the reads below take the objects of a SHA-256
 * database from its store directly, with the same codes and messages.
 */
enum ga_hash_algo odb_hash_algo(git_odb *odb);

/*
 * The id of an object of `type` with content `data`, named by `algo`:
 * a SHA-1 through libgit2's hash (with git's collision detection, as
 * git hashes), a SHA-256 through libcrypto.
 */
void odb_hash_object(struct ga_oid *out, enum ga_hash_algo algo,
		     git_object_t type, const void *data, size_t len);

/*
 * An object read whole.  garchive's own type rather than libgit2's
 * git_odb_object, which only libgit2 can make and which only holds
 * SHA-1 objects; for a SHA-1 database it wraps libgit2's, so that
 * libgit2's object cache and a partial clone's lazy fetch serve it as
 * before.  The data is followed by a NUL byte.
 */
struct odb_object;
const void *odb_object_data(const struct odb_object *obj);
size_t odb_object_size(const struct odb_object *obj);
git_object_t odb_object_type(const struct odb_object *obj);
void odb_object_free(struct odb_object *obj);

/*
 * git_odb_read(), git_odb_read_header(), git_odb_exists() by ga_oid:
 * 0 (1 for a present object), GIT_ENOTFOUND with libgit2's message,
 * GA_ECORRUPT with git's lines in libgit2's error, or another code.
 */
int odb_read(struct odb_object **out, git_odb *odb, const struct ga_oid *id);
int odb_read_header(size_t *len, git_object_t *type, git_odb *odb,
		    const struct ga_oid *id);
int odb_exists(git_odb *odb, const struct ga_oid *id);

/*
 * The one object whose id starts with the first `len` hex digits of
 * `prefix`, as git_odb_exists_prefix().
 */
int odb_exists_prefix(struct ga_oid *out, git_odb *odb,
		      const struct ga_oid *prefix, size_t len);

/*
 * After a read through libgit2 failed with `code`: when the object is
 * damaged (GA_ECORRUPT), store git's lines from libgit2's error as this
 * thread's error and return GA_ECORRUPT; otherwise return 0 and leave
 * both errors as they are.
 */
int odb_corrupt_error(int code);

/*
 * The same for a blob.  git asks for a blob's type and size before it
 * reads it, so damage in the header of a loose blob is told twice.
 */
int odb_blob_corrupt_error(int code);

#endif

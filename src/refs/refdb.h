/*
 * refdb.h: libgit2's ref database, served by garchive's ref store.
 *
 * libgit2 (1.5 to 1.9) reads only the files format.  In a repository
 * whose refs are in reftable, or whose reader is garchive's (repofmt.h:
 * SHA-256, or GARCHIVE_TEST_READER=garchive), garchive installs a
 * read-only
 * git_refdb_backend over its own ref store (refs/refs.h), so that every
 * ref read through libgit2 - revparse, git_reference_dwim(), iterations
 * for decorations and ":/text", HEAD for the server - sees the refs git
 * sees.  Writes are refused: garchive never writes a ref.
 *
 * Reflogs are not served through libgit2 (its git_reflog cannot be
 * built by a backend through the public API): "<ref>@{<n>}" and DWIM
 * are resolved with the store directly (refdb_open_store()), in both
 * formats, and so are "@{-<n>}" and, in reftable repositories,
 * "@{<date>}" (libgit2's revparse reads it where its own backend
 * serves).
 */
#ifndef GARCHIVE_REFDB_H
#define GARCHIVE_REFDB_H

#include <git2/types.h>

#include "repofmt.h"

struct refs_store;

/*
 * Read and check the repository format of `repo` (repofmt_check(), with
 * `shown` and `discovered` as there) and, when its refs are kept in
 * reftable or its reader is garchive's, install the backend.  Returns 0
 * or GA_ERROR.
 */
int refdb_setup(git_repository *repo, const char *shown, int discovered);

/*
 * A ref store for `repo`, in the format its config names.  Returns 0
 * with *out (refs_free() it) or GA_ERROR.
 */
int refdb_open_store(struct refs_store **out, git_repository *repo);

/*
 * Whether the refs of `repo` are kept in reftable (its config says so):
 * 1 or 0, also 0 when the config cannot be read.
 */
int refdb_uses_reftable(git_repository *repo);

/*
 * Whether the backend above serves `repo` (refdb_setup() installed it),
 * so that libgit2 reads no reflog there: 1 or 0, also 0 when the config
 * cannot be read.
 */
int refdb_served(git_repository *repo);

#endif

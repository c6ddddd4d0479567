/*
 * upstream.h: the remote-tracking ref "<branch>@{upstream}" and
 * "<branch>@{push}" name, as git's remote.c finds it
 * (branch_get_upstream(), branch_get_push()), from the configuration
 * (branch.<name>.remote, .merge, .pushRemote, remote.pushDefault,
 * push.default, remote.<name>.fetch, .push, .mirror) and the refs, read
 * through garchive's ref store so that reftable repositories are
 * served too.
 *
 * Not read: the legacy $GIT_DIR/remotes/ and $GIT_DIR/branches/ files,
 * and url.<base>.insteadOf (which does not change a tracking ref).
 */
#ifndef GARCHIVE_UPSTREAM_H
#define GARCHIVE_UPSTREAM_H

#include <stddef.h>

struct ga_config;
struct refs_store;

enum upstream_kind {
	UPSTREAM_MERGE,		/* @{upstream}, @{u} */
	UPSTREAM_PUSH		/* @{push} */
};

/*
 * The full name of the ref `kind` gives for the branch `branch` (its
 * first `len` bytes; empty or "HEAD": the branch HEAD points to).
 * Returns 0 with *out (malloc'd; the caller frees it), or GA_ERROR with
 * git's message, as git dies with it: "HEAD does not point to a
 * branch", "no such branch: '<b>'", "no upstream configured for branch
 * '<b>'", "upstream branch '<ref>' not stored as a remote-tracking
 * branch", "push has no destination (push.default is 'nothing')",
 * "push refspecs for '<remote>' do not include '<b>'", "push
 * destination '<ref>' on remote '<remote>' has no local tracking
 * branch", "cannot resolve 'simple' push to a single destination".
 */
int upstream_tracking_ref(char **out, const struct ga_config *cfg,
			  struct refs_store *refs, const char *branch,
			  size_t len, enum upstream_kind kind);

#endif

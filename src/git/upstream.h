/*
 * upstream.h: "<branch>@{upstream}" and "<branch>@{push}", the
 * remote-tracking refs git's remote.c finds for a branch
 * (branch_get_upstream(), branch_get_push()), from the configuration:
 * branch.<name>.remote, .merge and .pushRemote, remote.pushDefault,
 * remote.<name>.fetch, .push and .mirror, and push.default (nothing,
 * matching, simple, upstream or its old name tracking, current; unset
 * is simple).  Remotes defined only by the old files .git/remotes/<name>
 * and .git/branches/<name> are not read.
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
 * The full name of the ref "<branch>@{upstream}" or "<branch>@{push}"
 * means, `branch` being its first `len` bytes; an empty name or "HEAD"
 * is the branch HEAD points to.  `cfg` may be NULL (nothing
 * configured).  Returns 0 with *out (malloc'd, the caller frees it), or
 * GA_ERROR with git's message, on which git dies: "HEAD does not point
 * to a branch", "no such branch: '<b>'", "no upstream configured for
 * branch '<b>'", "upstream branch '<ref>' not stored as a
 * remote-tracking branch", "push refspecs for '<remote>' do not include
 * '<b>'", "push destination '<ref>' on remote '<remote>' has no local
 * tracking branch", "push has no destination (push.default is
 * 'nothing')", "cannot resolve 'simple' push to a single destination",
 * "invalid refspec '<spec>'", or a configuration error.
 */
int upstream_ref(char **out, const struct ga_config *cfg,
		 struct refs_store *refs, const char *branch, size_t len,
		 enum upstream_kind kind);

#endif

/*
 * refname.c: what git's refs.c decides from a ref's name alone: whether
 * it is valid (check_refname_format) or safe to use as a path
 * (refname_is_safe), whether it is a root ref, a pseudo ref or a
 * per-worktree ref, and which worktree's storage holds it
 * (parse_worktree_ref); and the raw refs and iterators the backends
 * share (refs-raw.h).
 */
#include "refs/refs-raw.h"

#include <stdlib.h>
#include <string.h>

#include "garchive/common.h"
#include "sane-ctype.h"

/*
 * git's refname_disposition[]: 0 an ordinary byte, 1 the end of a
 * component ('/' or NUL), 2 '.', 3 '{', 4 forbidden anywhere (controls,
 * space, ~ ^ : ? [ \ DEL), 5 '*' (only in refspec patterns).
 */
static unsigned char disposition(unsigned char c)
{
	if (c == '\0' || c == '/')
		return 1;
	if (c == '.')
		return 2;
	if (c == '{')
		return 3;
	if (c < 0x20 || c == 0x7f || strchr(" ~^:?[\\", c))
		return 4;
	if (c == '*')
		return 5;
	return 0;
}

/*
 * git's check_refname_component(): the length of the component at
 * `name`, 0 for an empty one, or -1 when it is not allowed.
 */
static int check_component(const char *name, unsigned *flags)
{
	const char *cp;
	char last = '\0';

	for (cp = name; ; cp++) {
		unsigned char disp = disposition((unsigned char)*cp);

		if (disp == 1)
			break;
		if (disp == 2 && last == '.')
			return -1;		/* ".." */
		if (disp == 3 && last == '@')
			return -1;		/* "@{" */
		if (disp == 4)
			return -1;
		if (disp == 5) {
			if (!(*flags & REFS_NAME_REFSPEC_PATTERN))
				return -1;
			/* One '*' on one side of a refspec only. */
			*flags &= ~(unsigned)REFS_NAME_REFSPEC_PATTERN;
		}
		last = *cp;
	}
	if (cp == name)
		return 0;
	if (name[0] == '.')
		return -1;
	if (cp - name >= 5 && !memcmp(cp - 5, ".lock", 5))
		return -1;
	return (int)(cp - name);
}

int refs_check_name(const char *name, unsigned flags)
{
	int len, count = 0;

	if (!strcmp(name, "@"))
		return -1;
	for (;;) {
		len = check_component(name, &flags);
		if (len <= 0)
			return -1;
		count++;
		if (name[len] == '\0')
			break;
		name += len + 1;
	}
	if (name[len - 1] == '.')
		return -1;
	if (!(flags & REFS_NAME_ALLOW_ONELEVEL) && count < 2)
		return -1;
	return 0;
}

int refname_is_safe(const char *name)
{
	const char *rest;

	if (ga_skip_prefix(name, "refs/", &rest)) {
		size_t len = strlen(rest);
		char *norm;
		int safe;

		if (!len || rest[0] == '/' || rest[len - 1] == '/')
			return 0;
		/* "refs/a/../b" stays inside refs/, "refs/a/../../b" not. */
		norm = ga_xmalloc(len + 1);
		safe = !ga_normalize_path(norm, rest) && !strcmp(norm, rest);
		free(norm);
		return safe;
	}
	do {
		if (!ga_isupper((unsigned char)*name) && *name != '_')
			return 0;
		name++;
	} while (*name);
	return 1;
}

int refname_is_pseudo(const char *name)
{
	return !strcmp(name, "FETCH_HEAD") || !strcmp(name, "MERGE_HEAD");
}

/* git's is_root_ref_syntax(): upper case, '-' and '_' only. */
static int root_ref_syntax(const char *name)
{
	for (; *name; name++)
		if (!ga_isupper((unsigned char)*name) && *name != '-' &&
		    *name != '_')
			return 0;
	return 1;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !memcmp(s + n - m, suffix, m);
}

int refname_is_root(const char *name)
{
	static const char *const irregular[] = {
		"HEAD", "AUTO_MERGE", "BISECT_EXPECTED_REV",
		"NOTES_MERGE_PARTIAL", "NOTES_MERGE_REF", "MERGE_AUTOSTASH"
	};
	size_t i;

	if (!root_ref_syntax(name) || refname_is_pseudo(name))
		return 0;
	if (ends_with(name, "_HEAD"))
		return 1;
	for (i = 0; i < sizeof(irregular) / sizeof(*irregular); i++)
		if (!strcmp(name, irregular[i]))
			return 1;
	return 0;
}

int refname_is_per_worktree(const char *name)
{
	return ga_starts_with(name, "refs/worktree/") ||
	       ga_starts_with(name, "refs/bisect/") ||
	       ga_starts_with(name, "refs/rewritten/");
}

/* git's is_current_worktree_ref(). */
static int current_worktree_ref(const char *name)
{
	return root_ref_syntax(name) || refname_is_per_worktree(name);
}

enum refname_worktree refname_worktree(const char *name,
				       const char **wt_name, size_t *wt_len,
				       const char **bare)
{
	const char *rest;

	*wt_name = NULL;
	*wt_len = 0;
	if (ga_skip_prefix(name, "worktrees/", &rest)) {
		const char *slash = strchr(rest, '/');

		/* "worktrees/<id>" alone: bare is "", which nothing holds. */
		*wt_name = rest;
		*wt_len = slash ? (size_t)(slash - rest) : strlen(rest);
		*bare = slash ? slash + 1 : rest + *wt_len;
		if (!slash || current_worktree_ref(*bare))
			return REFNAME_WORKTREE_OTHER;
		*wt_name = NULL;
		*wt_len = 0;
	}
	if (ga_skip_prefix(name, "main-worktree/", &rest) &&
	    current_worktree_ref(rest)) {
		*bare = rest;
		return REFNAME_WORKTREE_MAIN;
	}
	*bare = name;
	if (current_worktree_ref(name))
		return REFNAME_WORKTREE_CURRENT;
	return REFNAME_WORKTREE_SHARED;
}

void refs_raw_release(struct refs_raw *raw)
{
	ga_buf_release(&raw->name);
	ga_buf_release(&raw->target);
}

void refs_iter_free(struct refs_iter *it)
{
	if (it)
		it->free(it);
}

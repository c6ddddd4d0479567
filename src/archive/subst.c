/*
 * subst.c: export-subst, "$Format:<fmt>$" in files with the export-subst
 * attribute (git's archive.c format_subst()): each placeholder string
 * is expanded for the archived commit by the pretty engine (pretty.c),
 * with git archive's one-%(describe)-per-archive rule.
 */
#include "subst.h"

#include "garchive/common.h"
#include "pretty.h"

#include <stdlib.h>
#include <string.h>

struct subst {
	struct pretty_commit pc;
};

int subst_new(struct subst **out, git_repository *repo,
	      const struct ga_commit *commit, const struct ga_config *cfg)
{
	struct subst *s = ga_xcalloc(1, sizeof(*s));
	int error;

	if ((error = pretty_commit_init(&s->pc, repo, commit, cfg)) < 0) {
		subst_free(s);
		*out = NULL;
		return error;
	}
	/* archive.c allows one %(describe) per archive. */
	s->pc.describes_left = 1;
	*out = s;
	return 0;
}

int subst_expand(struct ga_buf *out, struct subst *s,
		 const unsigned char *data, size_t len)
{
	const char *src = (const char *)data, *end = src + len;
	size_t base = out->len;
	int error;

	for (;;) {
		const char *b, *c;
		char *fmt;

		b = memmem(src, (size_t)(end - src), "$Format:", 8);
		if (!b)
			break;
		c = memchr(b + 8, '$', (size_t)(end - b - 8));
		if (!c)
			break;
		/* The format is a C string: a NUL ends it. */
		fmt = ga_xstrndup(b + 8, (size_t)(c - b - 8));
		ga_buf_put(out, src, (size_t)(b - src));
		error = pretty_format_commit(out, base, &s->pc, fmt);
		free(fmt);
		if (error < 0)
			return error;
		src = c + 1;
	}
	ga_buf_put(out, src, (size_t)(end - src));
	return 0;
}

void subst_free(struct subst *s)
{
	if (!s)
		return;
	pretty_commit_release(&s->pc);
	free(s);
}

/*
 * subst.c: placeholder that expands nothing; replaced by the
 * export-subst expander.
 */
#include "subst.h"
#include "garchive/common.h"

#include <stdlib.h>

struct subst {
	int unused;
};

int subst_new(struct subst **out, git_repository *repo,
	      const git_commit *commit, const struct ga_config *cfg)
{
	(void)repo, (void)commit, (void)cfg;
	*out = ga_xcalloc(1, sizeof(**out));
	return 0;
}

int subst_expand(struct ga_buf *out, struct subst *subst,
		 const unsigned char *data, size_t len)
{
	(void)subst;
	ga_buf_put(out, data, len);
	return 0;
}

void subst_free(struct subst *subst)
{
	free(subst);
}

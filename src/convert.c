/*
 * convert.c: placeholder that converts nothing; replaced by the
 * checkout conversion.
 */
#include "convert.h"
#include "garchive/common.h"

#include <stdlib.h>

const char *const convert_attr_names[CONVERT_ATTR_NR] = {
	"text", "eol", "crlf", "ident", "filter", "working-tree-encoding",
};

struct convert {
	int unused;
};

int convert_new(struct convert **out, const struct ga_config *cfg,
		const char *workdir, const struct convert_meta *meta)
{
	(void)cfg, (void)workdir, (void)meta;
	*out = ga_xcalloc(1, sizeof(**out));
	return 0;
}

int convert_to_worktree(struct ga_buf *out, struct convert *conv,
			const char *path, const char *oid_hex,
			const unsigned char *data, size_t len,
			const struct attr_value *attrs)
{
	(void)conv, (void)path, (void)oid_hex, (void)attrs;
	ga_buf_put(out, data, len);
	return 0;
}

int convert_finish(struct convert *conv)
{
	(void)conv;
	return 0;
}

void convert_free(struct convert *conv)
{
	free(conv);
}

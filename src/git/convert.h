/*
 * convert.h: git's checkout conversion, as `git archive` applies it to
 * every regular file it does not stream, in git's order: ident, then
 * end-of-line (text/eol/crlf attributes, core.autocrlf, core.eol), then
 * working-tree-encoding (iconv), then the filter driver
 * (filter.<name>.smudge through `sh -c`, or filter.<name>.process, the
 * long-running filter protocol version 2), honouring
 * filter.<name>.required.
 *
 * One struct convert serves a whole archive: a long-running process
 * filter is started on first use and stopped by convert_free().
 */
#ifndef GARCHIVE_CONVERT_H
#define GARCHIVE_CONVERT_H

#include <stddef.h>

#include <git2/types.h>

#include "filter-driver.h"

struct ga_buf;
struct ga_config;
struct attr_value;

/* The attributes conversion needs, in this order (see convert_attr_names). */
enum convert_attr {
	CONVERT_ATTR_TEXT,
	CONVERT_ATTR_EOL,
	CONVERT_ATTR_CRLF,
	CONVERT_ATTR_IDENT,
	CONVERT_ATTR_FILTER,
	CONVERT_ATTR_ENCODING,	/* working-tree-encoding */
	CONVERT_ATTR_NR
};

extern const char *const convert_attr_names[CONVERT_ATTR_NR];

struct convert;

/*
 * Prepare conversion with the settings of `cfg` (core.autocrlf, core.eol,
 * filter.*).  `workdir` is the directory filters run in.  `cfg` and
 * `meta` must outlive the struct.
 */
int convert_new(struct convert **out, const struct ga_config *cfg,
		const char *workdir, const struct convert_meta *meta);

/*
 * Convert the blob `oid_hex` (NULL: the blob is hashed here, as SHA-1)
 * stored at `path` (relative to the archived tree) from repository form
 * to work-tree form.  `attrs` holds the values of convert_attr_names for
 * that path.  Returns 0 and sets *changed: 1 when *out holds the new
 * content, 0 when the input is already the work-tree form (and *out is
 * left empty, so nothing is copied).  Errors use git's wording, e.g.
 * "<path>: smudge filter <name> failed" (GA_ERROR).
 */
int convert_maybe(struct ga_buf *out, int *changed, struct convert *conv,
		  const char *path, const char *oid_hex,
		  const unsigned char *data, size_t len,
		  const struct attr_value *attrs);

/*
 * Whether nothing in the pipeline can change a blob with `attrs`,
 * whatever its content: 1 if so, 0 if something may, or an error
 * (convert_maybe() would fail on these attributes too).
 */
int convert_is_identity(struct convert *conv, const struct attr_value *attrs);

/*
 * Stop the process filters as git does at exit (closing their pipes asks
 * them to shut down; they are waited for) and free.  Never fails.
 */
void convert_free(struct convert *conv);

#endif

/*
 * convert.c: git's checkout conversion for the blobs `git archive`
 * buffers, matching git 2.39.5's convert.c step by step: ident, then
 * end of line, then working-tree-encoding, then the filter driver.
 * This file decides what applies to a path (attributes, core.autocrlf,
 * core.eol, filter.<driver>.*); filter-driver.c runs the drivers.
 *
 * git's non-fatal "error:" lines go through ga_report().  A struct
 * convert is used by one thread at a time.
 */
#include "convert.h"

#include "attr.h"
#include "filter-driver.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "odb/odb.h"
#include "utf8.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <git2/odb.h>
#include <git2/oid.h>

const char *const convert_attr_names[CONVERT_ATTR_NR] = {
	"text", "eol", "crlf", "ident", "filter", "working-tree-encoding"
};

/* git's enum crlf_action: what the attributes ask for, then resolved. */
enum crlf_action {
	CRLF_UNDEFINED,
	CRLF_BINARY,
	CRLF_TEXT,
	CRLF_TEXT_INPUT,
	CRLF_TEXT_CRLF,
	CRLF_AUTO,
	CRLF_AUTO_INPUT,
	CRLF_AUTO_CRLF
};

enum auto_crlf { AUTO_CRLF_FALSE, AUTO_CRLF_TRUE, AUTO_CRLF_INPUT };

/* core.eol; "native" is LF on the Unix builds of git we imitate. */
enum eol { EOL_UNSET, EOL_CRLF, EOL_LF };
#define EOL_NATIVE EOL_LF

struct driver {
	struct driver *next;
	char *name;
	char *smudge;		/* NULL when not configured */
	char *process;
	int required;
};

struct convert {
	const struct ga_config *cfg;
	char *workdir;
	enum auto_crlf auto_crlf;
	enum eol core_eol;
	int drivers_loaded;		/* 1: read; -1: failed, as below */
	int drivers_error;
	char *drivers_error_msg;
	struct driver *drivers;
	struct filter_runner runner;
};

/* The per-path decision, git's struct conv_attrs. */
struct conv_attrs {
	struct driver *drv;
	enum crlf_action crlf_action;
	int ident;
	const char *encoding;
};

/*
 * Text statistics
 */

struct text_stat {
	size_t nul, lonecr, lonelf, crlf;
	size_t printable, nonprintable;
};

static void gather_stats(const unsigned char *buf, size_t size,
			 struct text_stat *st)
{
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < size; i++) {
		unsigned char c = buf[i];

		if (c == '\r') {
			if (i + 1 < size && buf[i + 1] == '\n') {
				st->crlf++;
				i++;
			} else {
				st->lonecr++;
			}
			continue;
		}
		if (c == '\n') {
			st->lonelf++;
			continue;
		}
		if (c == 127) {
			st->nonprintable++;
		} else if (c < 32) {
			/* BS, HT, ESC and FF count as text, as in git. */
			if (c == '\b' || c == '\t' || c == '\033' ||
			    c == '\014')
				st->printable++;
			else {
				if (!c)
					st->nul++;
				st->nonprintable++;
			}
		} else {
			st->printable++;
		}
	}
	/* A trailing DOS end-of-file mark (^Z) is not held against text. */
	if (size >= 1 && buf[size - 1] == '\032')
		st->nonprintable--;
}

/* git's convert_is_binary: lone CR, NUL, or > 1/128 non-printables. */
static int convert_is_binary(const struct text_stat *st)
{
	if (st->lonecr || st->nul)
		return 1;
	return (st->printable >> 7) < st->nonprintable;
}

/*
 * Configuration
 */

static int text_eol_is_crlf(const struct convert *conv)
{
	if (conv->auto_crlf == AUTO_CRLF_TRUE)
		return 1;
	if (conv->auto_crlf == AUTO_CRLF_INPUT)
		return 0;
	if (conv->core_eol == EOL_CRLF)
		return 1;
	if (conv->core_eol == EOL_UNSET && EOL_NATIVE == EOL_CRLF)
		return 1;
	return 0;
}

static enum eol output_eol(const struct convert *conv,
			   enum crlf_action action)
{
	switch (action) {
	case CRLF_BINARY:
		return EOL_UNSET;
	case CRLF_TEXT_CRLF:
	case CRLF_UNDEFINED:
	case CRLF_AUTO_CRLF:
		return EOL_CRLF;
	case CRLF_TEXT_INPUT:
	case CRLF_AUTO_INPUT:
		return EOL_LF;
	case CRLF_TEXT:
	case CRLF_AUTO:
		return text_eol_is_crlf(conv) ? EOL_CRLF : EOL_LF;
	}
	return conv->core_eol;
}

static struct driver *find_driver(struct convert *conv, const char *name,
				  size_t len)
{
	struct driver *drv;

	for (drv = conv->drivers; drv; drv = drv->next)
		if (!strncmp(drv->name, name, len) && !drv->name[len])
			return drv;
	return NULL;
}

static int set_command(char **dst, const char *name, const char *value,
		       const char *origin)
{
	if (!value) {
		/* git_config_string's complaint, then git_config dies. */
		ga_report(GA_REPORT_ERROR, "missing value for '%s'", name);
		if (origin && *origin)
			return ga_error_set("bad config variable '%s'%s", name,
					    origin);
		return ga_error_set("unable to parse '%s' from command-line config",
				    name);
	}
	free(*dst);
	*dst = ga_xstrdup(value);
	return 0;
}

/* git's read_convert_config: every filter.<name>.<key>, in order. */
static int read_filter_entry(const char *name, const char *value,
			     const char *origin, void *payload)
{
	struct convert *conv = payload;
	const char *sub, *key;
	struct driver *drv;
	size_t sublen;
	char *clean = NULL;
	int error;

	if (strncasecmp(name, "filter.", 7))
		return 0;
	sub = name + 7;
	key = strrchr(name, '.');
	if (key < sub)
		return 0;	/* "filter.key": no driver name */
	sublen = (size_t)(key - sub);
	key++;

	if (!(drv = find_driver(conv, sub, sublen))) {
		struct driver **tail = &conv->drivers;

		drv = ga_xcalloc(1, sizeof(*drv));
		drv->name = ga_xstrndup(sub, sublen);
		while (*tail)
			tail = &(*tail)->next;
		*tail = drv;
	}
	if (!strcasecmp(key, "smudge"))
		return set_command(&drv->smudge, name, value, origin);
	if (!strcasecmp(key, "process"))
		return set_command(&drv->process, name, value, origin);
	if (!strcasecmp(key, "clean")) {
		/* Not used on checkout, but git checks it all the same. */
		error = set_command(&clean, name, value, origin);
		free(clean);
		return error;
	}
	if (!strcasecmp(key, "required"))
		return config_parse_bool(&drv->required, name, value);
	return 0;
}

/*
 * git reads the filter.* keys when it converts its first file, so a bad
 * one stops the archive there and not at startup.
 */
static void free_drivers(struct convert *conv)
{
	struct driver *drv;

	while ((drv = conv->drivers)) {
		conv->drivers = drv->next;
		free(drv->name);
		free(drv->smudge);
		free(drv->process);
		free(drv);
	}
}

/*
 * Read the filter drivers once.  A bad one fails every call, not only
 * the first, with the same error and without a second report: a caller
 * that only asks (convert_is_identity) must not swallow the error git
 * gives when it converts.
 */
static int load_drivers(struct convert *conv)
{
	int error;

	if (conv->drivers_loaded > 0)
		return 0;
	if (conv->drivers_loaded < 0)
		return ga_error_restore(conv->drivers_error,
					conv->drivers_error_msg);
	if ((error = config_foreach(conv->cfg, read_filter_entry, conv)) < 0) {
		free_drivers(conv);
		conv->drivers_loaded = -1;
		conv->drivers_error = error;
		conv->drivers_error_msg = ga_xstrdup(ga_error_message());
		return error;
	}
	conv->drivers_loaded = 1;
	return 0;
}

/*
 * git_default_core_config sees every core.autocrlf and core.eol in
 * order, so a malformed core.autocrlf anywhere is fatal even when a
 * later one would override it.
 */
static int read_core_entry(const char *name, const char *value,
			   const char *origin, void *payload)
{
	struct convert *conv = payload;
	int b, error;

	(void)origin;
	if (!strcasecmp(name, "core.autocrlf")) {
		if (value && !strcasecmp(value, "input")) {
			conv->auto_crlf = AUTO_CRLF_INPUT;
			return 0;
		}
		if ((error = config_parse_bool(&b, "core.autocrlf", value)) < 0)
			return error;
		conv->auto_crlf = b ? AUTO_CRLF_TRUE : AUTO_CRLF_FALSE;
	} else if (!strcasecmp(name, "core.eol")) {
		if (value && !strcasecmp(value, "lf"))
			conv->core_eol = EOL_LF;
		else if (value && !strcasecmp(value, "crlf"))
			conv->core_eol = EOL_CRLF;
		else if (value && !strcasecmp(value, "native"))
			conv->core_eol = EOL_NATIVE;
		else
			conv->core_eol = EOL_UNSET;
	}
	return 0;
}

int convert_new(struct convert **out, const struct ga_config *cfg,
		const char *workdir, const struct convert_meta *meta)
{
	struct convert *conv;
	int error;

	conv = ga_xcalloc(1, sizeof(*conv));
	conv->cfg = cfg;
	conv->workdir = workdir ? ga_xstrdup(workdir) : NULL;
	conv->runner.workdir = conv->workdir;
	conv->runner.meta = meta;
	conv->auto_crlf = AUTO_CRLF_FALSE;
	conv->core_eol = EOL_UNSET;
	if ((error = config_foreach(cfg, read_core_entry, conv)) < 0) {
		convert_free(conv);
		return error;
	}
	*out = conv;
	return 0;
}

/*
 * Attributes
 */

static enum crlf_action check_crlf(const struct attr_value *a)
{
	switch (a->state) {
	case ATTR_SET:
		return CRLF_TEXT;
	case ATTR_UNSET:
		return CRLF_BINARY;
	case ATTR_UNSPECIFIED:
		return CRLF_UNDEFINED;
	case ATTR_VALUE:
		if (!strcmp(a->value, "input"))
			return CRLF_TEXT_INPUT;
		if (!strcmp(a->value, "auto"))
			return CRLF_AUTO;
		break;
	}
	return CRLF_UNDEFINED;
}

static enum eol check_eol(const struct attr_value *a)
{
	if (a->state != ATTR_VALUE)
		return EOL_UNSET;
	if (!strcmp(a->value, "lf"))
		return EOL_LF;
	if (!strcmp(a->value, "crlf"))
		return EOL_CRLF;
	return EOL_UNSET;
}

static int convert_attrs(struct conv_attrs *ca, struct convert *conv,
			 const struct attr_value *attrs)
{
	const struct attr_value *enc = &attrs[CONVERT_ATTR_ENCODING];
	const struct attr_value *filter = &attrs[CONVERT_ATTR_FILTER];
	enum crlf_action action;
	int error;

	memset(ca, 0, sizeof(*ca));
	if ((error = load_drivers(conv)) < 0)
		return error;

	/* text wins over the legacy crlf attribute. */
	action = check_crlf(&attrs[CONVERT_ATTR_TEXT]);
	if (action == CRLF_UNDEFINED)
		action = check_crlf(&attrs[CONVERT_ATTR_CRLF]);
	ca->ident = attrs[CONVERT_ATTR_IDENT].state == ATTR_SET;
	if (filter->state == ATTR_VALUE)
		ca->drv = find_driver(conv, filter->value,
				      strlen(filter->value));
	/* eol=... implies text unless the file is binary (-text). */
	if (action != CRLF_BINARY) {
		enum eol eol = check_eol(&attrs[CONVERT_ATTR_EOL]);

		if (action == CRLF_AUTO && eol == EOL_LF)
			action = CRLF_AUTO_INPUT;
		else if (action == CRLF_AUTO && eol == EOL_CRLF)
			action = CRLF_AUTO_CRLF;
		else if (eol == EOL_LF)
			action = CRLF_TEXT_INPUT;
		else if (eol == EOL_CRLF)
			action = CRLF_TEXT_CRLF;
	}

	/*
	 * git tests for an empty value before true/false, and its "false"
	 * is an empty string: only "working-tree-encoding" alone dies.
	 */
	switch (enc->state) {
	case ATTR_UNSPECIFIED:
	case ATTR_UNSET:
		break;
	case ATTR_SET:
		return ga_error_set("true/false are no valid working-tree-encodings");
	case ATTR_VALUE:
		if (*enc->value && !utf8_same_encoding(enc->value, "UTF-8"))
			ca->encoding = enc->value;
		break;
	}

	if (action == CRLF_TEXT)
		action = text_eol_is_crlf(conv) ? CRLF_TEXT_CRLF
						: CRLF_TEXT_INPUT;
	if (action == CRLF_UNDEFINED) {
		switch (conv->auto_crlf) {
		case AUTO_CRLF_FALSE:
			action = CRLF_BINARY;
			break;
		case AUTO_CRLF_TRUE:
			action = CRLF_AUTO_CRLF;
			break;
		case AUTO_CRLF_INPUT:
			action = CRLF_AUTO_INPUT;
			break;
		}
	}
	ca->crlf_action = action;
	return 0;
}

/*
 * ident
 */

/* git's count_ident: "$Id$" and any "$Id:...$" on one line. */
static size_t count_ident(const unsigned char *cp, size_t size)
{
	size_t cnt = 0;

	while (size) {
		unsigned char ch = *cp++;

		size--;
		if (ch != '$')
			continue;
		if (size < 3)
			break;
		if (memcmp("Id", cp, 2))
			continue;
		ch = cp[2];
		cp += 3;
		size -= 3;
		if (ch == '$')
			cnt++;
		if (ch != ':')
			continue;
		while (size) {
			ch = *cp++;
			size--;
			if (ch == '$') {
				cnt++;
				break;
			}
			if (ch == '\n')
				break;
		}
	}
	return cnt;
}

/*
 * Replace "$Id$" and git-style "$Id: ... $" by "$Id: <hex> $".  An
 * expansion with a space anywhere but right before the closing '$' is
 * some other system's and is kept; so is one broken by a newline.
 */
static int ident_to_worktree(struct ga_buf *dst, const unsigned char *src,
			     size_t len, const char *hex)
{
	const unsigned char *dollar, *end;

	if (!count_ident(src, len))
		return 0;
	ga_buf_grow(dst, len);
	for (;;) {
		dollar = memchr(src, '$', len);
		if (!dollar)
			break;
		ga_buf_put(dst, src, (size_t)(dollar + 1 - src));
		len -= (size_t)(dollar + 1 - src);
		src = dollar + 1;

		if (len < 3 || memcmp("Id", src, 2))
			continue;
		if (src[2] == '$') {
			src += 3;
			len -= 3;
		} else if (src[2] == ':') {
			end = memchr(src + 3, '$', len - 3);
			if (!end)
				break;
			if (memchr(src + 3, '\n', (size_t)(end - src - 3)))
				continue;
			/*
			 * git searches for a space from src + 4 with a length
			 * that is negative for "$Id:$"; any space it finds then
			 * lies after the '$', so "$Id:$" is replaced.
			 */
			if (end - src > 4) {
				const unsigned char *spc =
					memchr(src + 4, ' ',
					       (size_t)(end - src - 4));

				if (spc && spc < end - 1)
					continue;
			}
			len -= (size_t)(end + 1 - src);
			src = end + 1;
		} else {
			continue;
		}
		ga_buf_puts(dst, "Id: ");
		ga_buf_puts(dst, hex);
		ga_buf_puts(dst, " $");
	}
	ga_buf_put(dst, src, len);
	return 1;
}

/*
 * End of line
 */

static int will_convert_lf_to_crlf(const struct convert *conv,
				   const struct text_stat *st,
				   enum crlf_action action)
{
	if (output_eol(conv, action) != EOL_CRLF)
		return 0;
	if (!st->lonelf)
		return 0;
	if (action == CRLF_AUTO || action == CRLF_AUTO_INPUT ||
	    action == CRLF_AUTO_CRLF) {
		/* "auto" never touches a file with CRs or that looks binary. */
		if (st->lonecr || st->crlf)
			return 0;
		if (convert_is_binary(st))
			return 0;
	}
	return 1;
}

static int crlf_to_worktree(const struct convert *conv, struct ga_buf *dst,
			    const unsigned char *src, size_t len,
			    enum crlf_action action)
{
	struct text_stat st;
	const unsigned char *nl;

	if (!len || output_eol(conv, action) != EOL_CRLF)
		return 0;
	gather_stats(src, len, &st);
	if (!will_convert_lf_to_crlf(conv, &st, action))
		return 0;
	ga_buf_grow(dst, len + st.lonelf);
	while ((nl = memchr(src, '\n', len))) {
		if (nl > src && nl[-1] == '\r') {
			ga_buf_put(dst, src, (size_t)(nl + 1 - src));
		} else {
			ga_buf_put(dst, src, (size_t)(nl - src));
			ga_buf_put(dst, "\r\n", 2);
		}
		len -= (size_t)(nl + 1 - src);
		src = nl + 1;
	}
	ga_buf_put(dst, src, len);
	return 1;
}

/*
 * working-tree-encoding
 */

static int encode_to_worktree(struct ga_buf *dst, const char *path,
			      const unsigned char *src, size_t len,
			      const char *enc)
{
	if (!enc || !len)
		return 0;
	if (utf8_reencode(dst, (const char *)src, len, enc, "UTF-8") < 0) {
		ga_report(GA_REPORT_ERROR,
			  "failed to encode '%s' from %s to %s", path, "UTF-8",
			  enc);
		return 0;
	}
	return 1;
}

/* git's apply_filter for CAP_SMUDGE: a process takes precedence. */
static int apply_filter(struct convert *conv, struct ga_buf *dst,
			const char *path, const char *oid_hex,
			const unsigned char *src, size_t len,
			const struct driver *drv)
{
	if (!drv)
		return 0;
	/* Even an empty filter.<driver>.process disables the smudge. */
	if (!drv->process && drv->smudge && *drv->smudge)
		return filter_run_smudge(&conv->runner, dst, path, src, len,
					 drv->smudge);
	if (drv->process && *drv->process)
		return filter_run_process(&conv->runner, dst, path, oid_hex,
					  src, len, drv->process);
	return 0;
}

/*
 * The pipeline
 */

int convert_maybe(struct ga_buf *out, int *changed, struct convert *conv,
		  const char *path, const char *oid_hex,
		  const unsigned char *data, size_t len,
		  const struct attr_value *attrs)
{
	struct conv_attrs ca;
	struct ga_buf bufs[2] = { GA_BUF_INIT, GA_BUF_INIT };
	struct ga_buf *cur = NULL, *next = &bufs[0];
	const unsigned char *src = data;
	char hex[GA_OID_MAX_HEXSZ + 1];
	int ret, error;

	if ((error = convert_attrs(&ca, conv, attrs)) < 0)
		return error;
	if (!oid_hex) {
		struct ga_oid oid;

		odb_hash_object(&oid, GA_HASH_SHA1, GIT_OBJECT_BLOB, data, len);
		ga_oid_fmt(hex, &oid);
		oid_hex = hex;
	}

	/*
	 * Each step reads `src`/`len` and, when it changes something, writes
	 * into the other buffer, which then becomes the input.
	 */
#define STEP_DONE() do { \
		cur = next; \
		src = (const unsigned char *)cur->ptr; \
		len = cur->len; \
		next = cur == &bufs[0] ? &bufs[1] : &bufs[0]; \
		ga_buf_setlen(next, 0); \
	} while (0)

	if (ca.ident && ident_to_worktree(next, src, len, oid_hex))
		STEP_DONE();
	if (crlf_to_worktree(conv, next, src, len, ca.crlf_action))
		STEP_DONE();
	if (encode_to_worktree(next, path, src, len, ca.encoding))
		STEP_DONE();
	ret = apply_filter(conv, next, path, oid_hex, src, len, ca.drv);
	if (ret < 0) {
		error = ret;
		goto done;
	}
	if (ret)
		STEP_DONE();
	else if (ca.drv && ca.drv->required) {
		error = ga_error_set("%s: smudge filter %s failed", path,
				     ca.drv->name);
		goto done;
	}
#undef STEP_DONE

	ga_buf_setlen(out, 0);
	*changed = src != data;
	if (*changed)
		ga_buf_put(out, src, len);
	error = 0;
done:
	ga_buf_release(&bufs[0]);
	ga_buf_release(&bufs[1]);
	return error;
}

int convert_is_identity(struct convert *conv, const struct attr_value *attrs)
{
	struct conv_attrs ca;
	int error;

	if ((error = convert_attrs(&ca, conv, attrs)) < 0)
		return error;
	/* A driver, even one without commands, may fail as "required". */
	return !ca.ident && !ca.encoding && !ca.drv &&
		output_eol(conv, ca.crlf_action) != EOL_CRLF;
}

void convert_free(struct convert *conv)
{
	if (!conv)
		return;
	filter_runner_release(&conv->runner);
	free_drivers(conv);
	free(conv->drivers_error_msg);
	free(conv->workdir);
	free(conv);
}

/*
 * repofmt.c: the repository format as git reads it (see repofmt.h).
 */
#include "repofmt.h"

#include "config-parse.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "libgit2.h"

void repofmt_register_extensions(void)
{
	/*
	 * Every extension git reads, so that libgit2 opens what git opens;
	 * repofmt_verify() then refuses what git refuses, in its words.
	 */
	static const char *known[] = {
		"noop-v1", "objectformat", "refstorage", "worktreeconfig",
		"preciousobjects", "partialclone"
	};

	git_libgit2_opts(GIT_OPT_SET_EXTENSIONS, known, GA_ARRAY_SIZE(known));
}

char *repofmt_common_dir(const char *git_dir)
{
	struct ga_buf buf = GA_BUF_INIT;
	char *path = ga_path_join(git_dir, "commondir"), *dir;

	if (ga_buf_read_file(&buf, path) < 0 || !buf.len) {
		ga_buf_release(&buf);
		free(path);
		return ga_xstrdup(git_dir);
	}
	free(path);
	ga_buf_rtrim(&buf, 0);
	dir = buf.ptr[0] == '/' ? ga_xstrdup(buf.ptr)
				: ga_path_join(git_dir, buf.ptr);
	ga_buf_release(&buf);
	return dir;
}

/* git_config_int() of the version, as git parses it. */
static int parse_version(struct repofmt *fmt, const char *value,
			 const char *file)
{
	char *end;
	long v;

	errno = 0;
	v = value ? strtol(value, &end, 0) : 0;
	if (!value || errno || end == value || *end || v < INT_MIN ||
	    v > INT_MAX)
		return ga_error_set("bad numeric config value '%s' for "
				    "'core.repositoryformatversion' in file "
				    "%s: invalid unit", value ? value : "",
				    file);
	fmt->version = (int)v;
	return 0;
}

/* What git's handle_extension() makes of an extension. */
enum ext_result { EXT_UNKNOWN, EXT_KNOWN, EXT_BAD };

struct read_state {
	struct repofmt *fmt;
	const char *file;
	int quiet;		/* no "error:" line for a bad value */
};

/* git's handle_extension(): the extensions of version 1 only. */
static enum ext_result v1_extension(struct read_state *rs, const char *ext,
				    const char *value)
{
	struct repofmt *fmt = rs->fmt;

	if (!strcmp(ext, "noop-v1"))
		return EXT_KNOWN;
	if (!strcmp(ext, "objectformat")) {
		fmt->hash = value ? ga_hash_by_name(value) : GA_HASH_UNKNOWN;
		if (fmt->hash == GA_HASH_UNKNOWN) {
			if (!rs->quiet)
				ga_report(GA_REPORT_ERROR, "invalid value for "
					  "'%s': '%s'",
					  "extensions.objectformat",
					  value ? value : "");
			return EXT_BAD;
		}
		return EXT_KNOWN;
	}
	if (!strcmp(ext, "refstorage")) {
		if (value && !strcmp(value, "files"))
			fmt->refs = REFS_STORAGE_FILES;
		else if (value && !strcmp(value, "reftable"))
			fmt->refs = REFS_STORAGE_REFTABLE;
		else {
			if (!rs->quiet)
				ga_report(GA_REPORT_ERROR, "invalid value for "
					  "'%s': '%s'",
					  "extensions.refstorage",
					  value ? value : "");
			return EXT_BAD;
		}
		return EXT_KNOWN;
	}
	return EXT_UNKNOWN;
}

static int read_entry(const char *name, const char *value, int line,
		      void *payload)
{
	static const char *any_version[] = {
		"noop", "preciousobjects", "partialclone", "worktreeconfig"
	};
	struct read_state *rs = payload;
	const char *ext;
	size_t i;
	enum ext_result known;

	(void)line;
	if (!strcmp(name, "core.repositoryformatversion"))
		return parse_version(rs->fmt, value, rs->file);
	if (!ga_skip_prefix(name, "extensions.", &ext))
		return 0;
	for (i = 0; i < GA_ARRAY_SIZE(any_version); i++)
		if (!strcmp(ext, any_version[i]))
			return 0;
	known = v1_extension(rs, ext, value);
	if (known == EXT_BAD)
		return CONFIG_ENTRY_BAD;
	ga_strvec_push(known == EXT_KNOWN ? &rs->fmt->v1_only
					  : &rs->fmt->unknown,
		       ga_xstrdup(ext));
	return 0;
}

/*
 * The one place the reader is chosen (repofmt.h): garchive's stores for
 * a hash libgit2 cannot read, or when the test knob asks for them.
 */
static enum repofmt_reader choose_reader(enum ga_hash_algo hash)
{
	const char *knob = getenv("GARCHIVE_TEST_READER");

	if (hash != GA_HASH_SHA1 || (knob && !strcmp(knob, "garchive")))
		return REPOFMT_READER_GARCHIVE;
	return REPOFMT_READER_LIBGIT2;
}

static int read_format(struct repofmt *fmt, const char *git_dir,
		       const char *shown, int quiet)
{
	struct ga_buf data = GA_BUF_INIT;
	struct read_state rs;
	char *common = repofmt_common_dir(git_dir), *path, *file;
	int error = 0;

	memset(fmt, 0, sizeof(*fmt));
	fmt->version = -1;
	fmt->hash = GA_HASH_SHA1;
	fmt->refs = REFS_STORAGE_FILES;
	path = ga_path_join(common, "config");
	file = ga_path_join(shown ? shown : git_dir, "config");
	rs.fmt = fmt;
	rs.file = file;
	rs.quiet = quiet;
	/* No config is a version-0 repository to git's setup. */
	if (ga_buf_read_file(&data, path) == 0)
		error = config_parse_source(data.ptr ? data.ptr : "", data.len,
					    file, read_entry, &rs);
	fmt->reader = choose_reader(fmt->hash);
	ga_buf_release(&data);
	free(file);
	free(path);
	free(common);
	return error;
}

int repofmt_read(struct repofmt *fmt, const char *git_dir, const char *shown)
{
	return read_format(fmt, git_dir, shown, 0);
}

void repofmt_release(struct repofmt *fmt)
{
	ga_strvec_clear(&fmt->unknown);
	ga_strvec_clear(&fmt->v1_only);
}

static int refuse_list(const char *one, const char *many,
		       const struct ga_strvec *list)
{
	struct ga_buf msg = GA_BUF_INIT;
	size_t i;
	int error;

	ga_buf_puts(&msg, list->nr == 1 ? one : many);
	for (i = 0; i < list->nr; i++)
		ga_buf_printf(&msg, "\n\t%s", list->v[i]);
	error = ga_error_set("%s", msg.ptr);
	ga_buf_release(&msg);
	return error;
}

int repofmt_verify(const struct repofmt *fmt)
{
	if (fmt->version > 1)
		return ga_error_set("Expected git repo version <= 1, found %d",
				    fmt->version);
	if (fmt->version >= 1 && fmt->unknown.nr)
		return refuse_list("unknown repository extension found:",
				   "unknown repository extensions found:",
				   &fmt->unknown);
	if (fmt->version == 0 && fmt->v1_only.nr)
		return refuse_list("repo version is 0, but v1-only extension "
				   "found:", "repo version is 0, but v1-only "
				   "extensions found:", &fmt->v1_only);
	return 0;
}

int repofmt_check(struct repofmt *fmt, const char *git_dir, const char *shown,
		  int discovered)
{
	int error;

	if ((error = repofmt_read(fmt, git_dir, shown)) < 0)
		return error;
	if ((error = repofmt_verify(fmt)) < 0) {
		/* git's setup warns before it dies, as it would go on. */
		ga_warning("%s", ga_error_message());
		if (discovered)
			ga_warning("ignoring git dir '%s': %s",
				   shown ? shown : git_dir,
				   ga_error_message());
		return error;
	}
	return 0;
}

enum ga_hash_algo repofmt_hash(const char *git_dir)
{
	struct repofmt fmt;
	enum ga_hash_algo hash = GA_HASH_SHA1;

	if (read_format(&fmt, git_dir, NULL, 1) == 0)
		hash = fmt.hash;
	else
		ga_error_clear();
	repofmt_release(&fmt);
	return hash == GA_HASH_UNKNOWN ? GA_HASH_SHA1 : hash;
}

enum repofmt_reader repofmt_reader(const char *git_dir)
{
	struct repofmt fmt;
	enum repofmt_reader reader;

	if (read_format(&fmt, git_dir, NULL, 1) < 0) {
		ga_error_clear();
		fmt.hash = GA_HASH_SHA1;
	}
	reader = choose_reader(fmt.hash == GA_HASH_UNKNOWN ? GA_HASH_SHA1
							   : fmt.hash);
	repofmt_release(&fmt);
	return reader;
}

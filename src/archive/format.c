/*
 * format.c: the table of archive formats, built from tar.* config.
 *
 * git registers "tar", then the tar filter formats, then "zip", and tries
 * them in that order when it infers a format from an output file name.
 * The tar filters start as tgz and tar.gz (with git's remote flag) and
 * grow with every tar.<name>.* key in configuration order; a filter that
 * never gets a command is dropped.
 *
 * The one deliberate difference from git lives here: tgz and tar.gz
 * default to the built-in `gzip -cn` (SINK_GZIP) instead of git's
 * in-process deflater, whose bytes changed every tarball checksum in
 * 2.38.  "git archive gzip" still selects the in-process deflater.
 * garchive's own gzip, which writes gzip -cn's bytes in process
 * (SINK_ENGINE), runs for a command that names `garchive gzip` and,
 * with garchive.gzip = builtin, for the built-in tgz and tar.gz.
 */
#include "garchive/format.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "gzip-options.h"

#include <stdlib.h>
#include <string.h>

/* The magic command that means "git's in-process gzip". */
#define INTERNAL_GZIP_COMMAND "git archive gzip"

/* Default tar.umask, as git's. */
#define DEFAULT_TAR_UMASK 002

/* A tar filter while the configuration is being read. */
struct pending_filter {
	char *name;
	char *command;		/* NULL: never configured */
	int builtin_gzip;	/* tgz/tar.gz with no configured command */
	int remote;
};

struct load_state {
	struct pending_filter *filters;
	size_t nr, alloc;
	unsigned int tar_umask;
	unsigned int process_umask;
	const struct ga_config *cfg;
};

static struct pending_filter *find_filter(struct load_state *st,
					  const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < st->nr; i++)
		if (strlen(st->filters[i].name) == len &&
		    !memcmp(st->filters[i].name, name, len))
			return &st->filters[i];
	return NULL;
}

static struct pending_filter *add_filter(struct load_state *st,
					 const char *name, size_t len)
{
	struct pending_filter *f;

	GA_ALLOC_GROW(st->filters, st->nr + 1, st->alloc);
	f = &st->filters[st->nr++];
	memset(f, 0, sizeof(*f));
	f->name = ga_xstrndup(name, len);
	return f;
}

static int read_umask(struct load_state *st, const struct config_entry *e)
{
	int n, error;

	if (e->value && !strcmp(e->value, "user")) {
		st->tar_umask = st->process_umask;
		return 0;
	}
	/* git reads it with git_config_int(): an int, any base. */
	if ((error = config_parse_int(&n, e->name, e->value)) < 0)
		return error;
	st->tar_umask = (unsigned int)n;
	return 0;
}

/*
 * One configuration entry, in the order git sees them.  Keys arrive
 * with section and variable names in lower case and the subsection as
 * written.
 */
static int load_entry(const struct config_entry *e, void *payload)
{
	struct load_state *st = payload;
	const char *name = e->name;
	const char *sub, *dot;
	struct pending_filter *f;

	if (strncmp(name, "tar.", 4))
		return 0;
	if (!strcmp(name, "tar.umask"))
		return read_umask(st, e);
	sub = name + 4;
	dot = strrchr(sub, '.');
	if (!dot)
		return 0;	/* tar.<key> with two levels: not ours */
	f = find_filter(st, sub, dot - sub);
	if (!f)
		f = add_filter(st, sub, dot - sub);
	if (!strcmp(dot + 1, "command")) {
		if (!e->value)
			return config_error_nonbool(e);
		free(f->command);
		f->command = ga_xstrdup(e->value);
		f->builtin_gzip = 0;
		return 0;
	}
	if (!strcmp(dot + 1, "remote"))
		return config_parse_bool(&f->remote, name, e->value);
	return 0;
}

static void push_format(struct format_list *list, const char *name,
			enum format_writer writer, enum sink_kind kind,
			const char *command, int remote)
{
	struct format *fmt;

	GA_ALLOC_GROW(list->items, list->nr + 1, list->alloc);
	fmt = &list->items[list->nr++];
	fmt->name = ga_xstrdup(name);
	fmt->writer = writer;
	fmt->sink.kind = kind;
	fmt->sink.command = command ? ga_xstrdup(command) : NULL;
	fmt->sink.gzip_line = NULL;
	fmt->remote = remote;
}

/*
 * A command garchive runs as its own gzip, without a child: its parse,
 * which the sink continues with the level; NULL for any other command.
 * Bad options name the engine too: they fail when the filter opens, as
 * the child's would.
 */
static struct gzip_line *engine_line(const char *command)
{
	struct gzip_line *line = gzip_line_parse(command);
	struct gzip_options o;

	if (line && !gzip_line_options(&o, line, -1)) {
		gzip_line_free(line);
		line = NULL;
	}
	ga_error_clear();
	return line;
}

/* garchive.gzip: "builtin" (the engine) or "gzip" (gzip -cn, default). */
static int read_gzip_choice(int *builtin, const struct ga_config *cfg)
{
	const char *v = NULL;
	int error;

	*builtin = 0;
	if (!cfg)
		return 0;
	error = config_get_string(&v, cfg, "garchive.gzip");
	if (error == GA_ENOTFOUND) {
		ga_error_clear();
		return 0;
	}
	if (error < 0)
		return error;
	if (v && !strcmp(v, "builtin"))
		*builtin = 1;
	else if (!v || strcmp(v, "gzip"))
		return ga_error_set("bad config value '%s' for 'garchive.gzip'"
				    " (builtin or gzip)", v ? v : "");
	return 0;
}

static void release_state(struct load_state *st)
{
	size_t i;

	for (i = 0; i < st->nr; i++) {
		free(st->filters[i].name);
		free(st->filters[i].command);
	}
	free(st->filters);
}

int format_list_load(struct format_list *out, const struct ga_config *cfg,
		     unsigned int process_umask)
{
	struct load_state st = { NULL, 0, 0, DEFAULT_TAR_UMASK,
				 process_umask, cfg };
	struct pending_filter *f;
	struct gzip_line *line;
	size_t i;
	int error, builtin;

	memset(out, 0, sizeof(*out));
	f = add_filter(&st, "tgz", 3);
	f->builtin_gzip = f->remote = 1;
	f = add_filter(&st, "tar.gz", 6);
	f->builtin_gzip = f->remote = 1;

	if (cfg && (error = config_foreach_entry(cfg, load_entry, &st)) != 0)
		goto done;
	if ((error = read_gzip_choice(&builtin, cfg)) < 0)
		goto done;

	push_format(out, "tar", FORMAT_TAR, SINK_NONE, NULL, 1);
	for (i = 0; i < st.nr; i++) {
		f = &st.filters[i];
		if (f->builtin_gzip && builtin)
			push_format(out, f->name, FORMAT_TAR, SINK_ENGINE,
				    NULL, f->remote);
		else if (f->builtin_gzip)
			push_format(out, f->name, FORMAT_TAR, SINK_GZIP,
				    "gzip -cn", f->remote);
		else if (!f->command)
			continue;	/* never got a command: not a format */
		else if (!strcmp(f->command, INTERNAL_GZIP_COMMAND))
			push_format(out, f->name, FORMAT_TAR, SINK_ZLIB,
				    f->command, f->remote);
		else if ((line = engine_line(f->command))) {
			push_format(out, f->name, FORMAT_TAR, SINK_ENGINE,
				    f->command, f->remote);
			out->items[out->nr - 1].sink.gzip_line = line;
		} else
			push_format(out, f->name, FORMAT_TAR, SINK_COMMAND,
				    f->command, f->remote);
	}
	push_format(out, "zip", FORMAT_ZIP, SINK_NONE, NULL, 1);
	out->tar_umask = st.tar_umask;
	error = 0;
done:
	release_state(&st);
	if (error)
		format_list_release(out);
	return error < 0 ? error : (error ? GA_ERROR : 0);
}

void format_list_release(struct format_list *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->nr; i++) {
		free(list->items[i].name);
		free((char *)list->items[i].sink.command);
		gzip_line_free((struct gzip_line *)list->items[i].sink.gzip_line);
	}
	free(list->items);
	memset(list, 0, sizeof(*list));
}

const struct format *format_lookup(const struct format_list *list,
				   const char *name)
{
	size_t i;

	for (i = 0; i < list->nr; i++)
		if (!strcmp(list->items[i].name, name))
			return &list->items[i];
	return NULL;
}

/*
 * git wants a '.' before the extension and at least one more character
 * before that, so ".zip" alone does not ask for zip.
 */
static int has_extension(const char *filename, const char *ext)
{
	size_t flen = strlen(filename), elen = strlen(ext);

	if (flen < elen + 2 || filename[flen - elen - 1] != '.')
		return 0;
	return !strcmp(filename + flen - elen, ext);
}

const struct format *format_infer(const struct format_list *list,
				  const char *filename)
{
	size_t i;

	for (i = 0; i < list->nr; i++)
		if (has_extension(filename, list->items[i].name))
			return &list->items[i];
	return NULL;
}

int format_check_level(const struct format *fmt, int level)
{
	int ok;

	if (level < 0)
		return 0;
	if (fmt->writer == FORMAT_ZIP)
		ok = level <= 9;
	else
		ok = fmt->sink.kind != SINK_NONE;
	if (ok)
		return 0;
	return ga_error_set("Argument not supported for format '%s': -%d",
			    fmt->name, level);
}

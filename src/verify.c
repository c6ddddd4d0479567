/*
 * verify.c: `garchive verify` (see garchive/verify.h for the shape of a
 * run).
 *
 * The answer is built from three comparisons made while the file is
 * read once:
 *
 *  - the decompressed bytes against the archive garchive writes (a
 *    SHA-256 of each, and a CRC of each MiB so that a difference is seen
 *    early and the candidate compressors are stopped at once);
 *  - the file's bytes against each candidate compressor fed the
 *    decompressed bytes (recompress.c), for a compressed tar;
 *  - each entry of the file against the expected entry of the same
 *    path: kind, executable bit, link target and a SHA-256 of content.
 *
 * The expected archive is written with the time, umask (and for zip the
 * MS-DOS time) the file's first entry shows, so that an archive which
 * differs only there is reproduced exactly and the command that does it
 * can be printed; that it was not written with garchive's defaults is
 * reported as a difference of its own.
 */
#include "garchive/verify.h"
#include "garchive/archive.h"
#include "garchive/common.h"
#include "garchive/filter.h"
#include "garchive/format.h"
#include "garchive/walk.h"
#include "bytesrc.h"
#include "progress.h"
#include "rawtree.h"
#include "recompress.h"
#include "sha256.h"
#include "tar-read.h"
#include "unpack.h"
#include "zip-read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libgit2.h"
#include <zlib.h>

/* Granularity of the early comparison of the two tars. */
#define VERIFY_CHUNK		((size_t)1 << 20)
/* How much of the decompressed start is read before the tree-ish. */
#define VERIFY_PEEK		((size_t)64 << 10)
/* Paths listed per kind of difference without -v. */
#define VERIFY_LIST_MAX		20
/* What the file may hold beyond twice the expected size. */
#define VERIFY_SLACK		((uint64_t)64 << 20)
/* Bytes after a tar's end record that are still read. */
#define VERIFY_TRAILER_MAX	((uint64_t)1 << 20)
#define VERIFY_BUF		((size_t)64 << 10)

/* ---- the expected entries ---- */

struct expect {
	char *path;
	size_t path_len;
	uint32_t mode;		/* WALK_MODE_* */
	uint64_t size;		/* content, or link target length */
	unsigned char sha[GA_SHA256_LEN];
	size_t index;		/* in the expected archive's order */
	int seen;
};

struct table {
	struct expect **slots;
	size_t cap, nr;
};

static uint64_t path_hash(const char *p, size_t len)
{
	uint64_t h = 14695981039346656037ULL;	/* FNV-1a */

	while (len--) {
		h ^= (unsigned char)*p++;
		h *= 1099511628211ULL;
	}
	return h;
}

static struct expect **table_slot(struct table *t, const char *path,
				  size_t len)
{
	size_t i = (size_t)path_hash(path, len) & (t->cap - 1);

	while (t->slots[i] && (t->slots[i]->path_len != len ||
			       memcmp(t->slots[i]->path, path, len)))
		i = (i + 1) & (t->cap - 1);
	return &t->slots[i];
}

static void table_grow(struct table *t)
{
	struct expect **old = t->slots;
	size_t old_cap = t->cap, i;

	t->cap = old_cap ? old_cap * 2 : 1024;
	t->slots = ga_xcalloc(t->cap, sizeof(*t->slots));
	for (i = 0; i < old_cap; i++)
		if (old[i])
			*table_slot(t, old[i]->path, old[i]->path_len) = old[i];
	free(old);
}

/* The record of `path`, new (zeroed) if absent; *fresh says which. */
static struct expect *table_add(struct table *t, const char *path,
				size_t len, int *fresh)
{
	struct expect **slot;

	if ((t->nr + 1) * 10 >= t->cap * 7)
		table_grow(t);
	slot = table_slot(t, path, len);
	*fresh = !*slot;
	if (!*slot) {
		*slot = ga_xcalloc(1, sizeof(**slot));
		(*slot)->path = ga_xstrndup(path, len);
		(*slot)->path_len = len;
		t->nr++;
	}
	return *slot;
}

static struct expect *table_get(struct table *t, const char *path,
				size_t len)
{
	return t->cap ? *table_slot(t, path, len) : NULL;
}

static void table_release(struct table *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++) {
		if (!t->slots[i])
			continue;
		free(t->slots[i]->path);
		free(t->slots[i]);
	}
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* ---- lists of differences ---- */

enum list_kind {
	LIST_ONLY_ARCHIVE,
	LIST_ONLY_TREE,
	LIST_CONTENT,
	LIST_MODE,
	LIST_LINK,
	LIST_TWICE,
	LIST_DIR_ONLY_ARCHIVE,
	LIST_DIR_ONLY_TREE,
	LIST_NR
};

static const char *const list_titles[LIST_NR] = {
	"only in archive",
	"only in tree-ish",
	"other content",
	"other mode",
	"other link target",
	"twice in archive",
	"directory only in archive",
	"directory only in tree-ish",
};

struct path_list {
	char **items;
	size_t nr, alloc;
	uint64_t count;
};

/* ---- the run ---- */

struct verify;

struct expect_sink {
	struct sink base;
	struct verify *v;
};

struct decoded {
	struct byte_source base;
	struct verify *v;
};

/* A streamed expected blob, hashed as the writer reads it. */
struct hash_stream {
	struct entry_stream base;
	struct entry_stream *inner;
	struct ga_sha256 *sha;
};

/* Running CRCs of MiB-sized chunks of a stream. */
struct chunker {
	uint32_t crc;
	size_t fill;
	size_t index;
};

struct verify {
	const struct verify_options *opts;
	const struct format_list *formats;
	unsigned int cfg_umask;

	struct unpack_input in;
	enum unpack_kind kind;
	int zip;
	struct unpack_decoder *dec;
	struct byte_source *dsrc;	/* decompressed bytes (or the file) */
	char *fmt_name;			/* the format the command names */
	const struct format *fmt;
	int fmt_gzip;			/* the format compresses with gzip */

	struct recompress *rc;
	struct recompress_candidate cands[20];
	size_t nr_cands;
	char *labels[20];
	const char *gzip_skip;		/* why no gzip candidate was tried */

	/* The decompressed start, read before the tree-ish is known. */
	unsigned char *peek;
	size_t peek_len, peek_pos;
	char *recorded_commit;
	char *first_path;
	int have_mtime, have_umask, have_dos;
	int64_t file_mtime;
	unsigned int file_umask;
	uint16_t first_dos_time, first_dos_date;

	/* The plan, copied: main's lives on its stack. */
	struct verify_plan plan_copy;
	const struct verify_plan *plan;
	git_oid tree_id;
	char *treeish_name, *commit_hex;
	char *prefix;
	int prefix_found;
	int64_t mtime;			/* used for the expected archive */
	unsigned int umask_used;
	int mtime_changed, umask_changed, tz_changed;
	int64_t tz_offset;		/* east of UTC, for zip */

	/* The expected archive. */
	struct expect_sink esink;
	struct table table;
	size_t nr_expected, nr_expected_files;
	uint64_t expected_content;
	struct ga_sha256 e_sha;
	uint64_t e_len;
	uint32_t *e_crcs;
	size_t nr_e_crcs, alloc_e_crcs;
	struct chunker e_chunk;
	struct expect *current;
	struct hash_stream hstream;
	struct ga_sha256 entry_sha;

	/* Reading the file. */
	struct decoded dstream;
	struct ga_sha256 a_sha, d_sha;
	uint64_t d_len, budget;
	struct chunker d_chunk;
	int tar_differs;
	uint64_t first_diff;		/* start of the first differing MiB */
	int over_budget;
	char *over_budget_msg;
	unsigned char *buf;
	unsigned char a_digest[GA_SHA256_LEN], d_digest[GA_SHA256_LEN];
	unsigned char e_digest[GA_SHA256_LEN];
	int checked;

	/* What was found. */
	struct path_list lists[LIST_NR];
	size_t nr_entries, nr_dirs;
	size_t last_index;
	int have_last;
	char *misordered;		/* first entry out of order */
	char *mtime_odd, *perm_odd, *owner_odd, *attr_odd;
	unsigned tar_flags;		/* TAR_READ_* seen */
	struct tar_read_summary tsum;
	uint64_t trailer_len;
	int trailer_zero, trailer_more;
	struct zip_read_summary zsum;
	int zip_no_ut, zip_extra_other, zip_descriptors;
	const struct unpack_gzip_info *gz;
	int winner;
	struct progress *progress;
};

static void list_add(struct verify *v, enum list_kind kind, char *item)
{
	struct path_list *l = &v->lists[kind];

	l->count++;
	if (!v->opts->verbose && l->nr >= VERIFY_LIST_MAX) {
		free(item);
		return;
	}
	GA_ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	l->items[l->nr++] = item;
}

/*
 * A path as git's quote_path() shows one: in double quotes with C
 * escapes when it has control characters, quotes or backslashes (or a
 * NUL, which tar can hold), as is otherwise.
 */
static char *quote_path(const char *p, size_t len)
{
	struct ga_buf b = GA_BUF_INIT;
	size_t i;
	int quote = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
			quote = 1;
	}
	if (!quote) {
		ga_buf_put(&b, p, len);
		return ga_buf_detach(&b, NULL);
	}
	ga_buf_putc(&b, '"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		switch (c) {
		case '"': ga_buf_puts(&b, "\\\""); break;
		case '\\': ga_buf_puts(&b, "\\\\"); break;
		case '\t': ga_buf_puts(&b, "\\t"); break;
		case '\n': ga_buf_puts(&b, "\\n"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				ga_buf_printf(&b, "\\%03o", c);
			else
				ga_buf_putc(&b, (int)c);
		}
	}
	ga_buf_putc(&b, '"');
	return ga_buf_detach(&b, NULL);
}

/* A word for the shell: quoted only when it needs to be. */
static void shell_word(struct ga_buf *out, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
			 "WXYZ0123456789._/@:=+-,%^") == strlen(s))
		ga_buf_puts(out, s);
	else
		ga_sq_quote(out, s);
}

static void format_time(char *out, size_t size, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) ||
	    !strftime(out, size, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(out, size, "@%" PRId64, t);
}

/* ---- opening the file ---- */

static void raw_tap(void *payload, const unsigned char *data, size_t len)
{
	struct verify *v = payload;

	ga_sha256_update(&v->a_sha, data, len);
	if (v->rc)
		recompress_file_bytes(v->rc, data, len);
}

static void add_cand(struct verify *v, enum recompress_kind kind, int level,
		     const char *const *argv, const char *command, char *label)
{
	struct recompress_candidate *c;

	if (v->nr_cands >= GA_ARRAY_SIZE(v->cands)) {
		free(label);
		return;
	}
	c = &v->cands[v->nr_cands];
	c->kind = kind;
	c->level = level;
	c->argv = argv;
	c->command = command;
	c->label = label;
	v->labels[v->nr_cands++] = label;
}

static const char *const gzip_argv[10][4] = {
	{ "gzip", "-cn", "-0", NULL }, { "gzip", "-cn", "-1", NULL },
	{ "gzip", "-cn", "-2", NULL }, { "gzip", "-cn", "-3", NULL },
	{ "gzip", "-cn", "-4", NULL }, { "gzip", "-cn", "-5", NULL },
	{ "gzip", "-cn", NULL, NULL }, { "gzip", "-cn", "-7", NULL },
	{ "gzip", "-cn", "-8", NULL }, { "gzip", "-cn", "-9", NULL },
};

/*
 * The gzip compressors garchive and git use, at one level: `gzip -cn`
 * (garchive's tgz, git before 2.38) and git's in-process zlib (git 2.38
 * and later, garchive's fallback).  When the built-in GNU gzip engine
 * of `garchive gzip` (issue 17) exists, it belongs here too, as an
 * in-process stand-in for the `gzip -cn` row: same bytes, no process.
 */
static void add_gzip_level(struct verify *v, int level)
{
	add_cand(v, RECOMPRESS_PROGRAM, level, gzip_argv[level], NULL,
		 level == 6 ? ga_xstrdup("gzip -cn")
			    : ga_xstrfmt("gzip -cn -%d", level));
	add_cand(v, RECOMPRESS_ZLIB, level, NULL, NULL,
		 level == 6 ? ga_xstrdup("git's in-process gzip")
			    : ga_xstrfmt("git's in-process gzip -%d", level));
}

/*
 * Which candidates can have made this gzip header.  Both gzip -n and
 * git write mtime 0, no name and OS 3 (Unix); the extra flags byte says
 * the level class: 2 for level 9, 4 for the fastest (1, and zlib's 0),
 * 0 for the rest, so only those levels are tried, the default first.
 */
static void gzip_candidates(struct verify *v)
{
	const unsigned char *h = v->in.head;
	static const int middle[] = { 6, 2, 3, 4, 5, 7, 8 };
	size_t i;

	if (v->in.head_len < 10) {
		v->gzip_skip = "the gzip header is cut short";
		return;
	}
	if (h[2] != 8) {
		v->gzip_skip = "it is not deflate-compressed";
		return;
	}
	if (h[3] || h[4] || h[5] || h[6] || h[7]) {
		v->gzip_skip = "its gzip header has a file name, a time or "
			       "other fields (gzip without -n, or another "
			       "tool)";
		return;
	}
	if (h[9] != 3) {
		v->gzip_skip = "its gzip header names another operating "
			       "system than Unix";
		return;
	}
	switch (h[8]) {
	case 2:
		add_gzip_level(v, 9);
		break;
	case 4:
		add_gzip_level(v, 1);
		add_cand(v, RECOMPRESS_ZLIB, 0, NULL, NULL,
			 ga_xstrdup("git's in-process gzip -0"));
		break;
	case 0:
		for (i = 0; i < GA_ARRAY_SIZE(middle); i++)
			add_gzip_level(v, middle[i]);
		break;
	default:
		v->gzip_skip = "its gzip header has unusual extra flags";
	}
}

static int choose_format(struct verify *v)
{
	const char *name = v->opts->format;
	const char *file = v->opts->file;
	const struct format *fmt = NULL;

	if (name) {
		fmt = format_lookup(v->formats, name);
		if (!fmt)
			return ga_error_set("Unknown archive format '%s'",
					    name);
		if ((fmt->writer == FORMAT_ZIP) != v->zip)
			return ga_error_set("'%s' is a %s archive, not %s",
					    v->in.name, v->zip ? "zip" : "tar",
					    name);
	} else if (strcmp(file, "-")) {
		/* As -o would: a name that says another container is
		 * ignored in favour of what the bytes say. */
		fmt = format_infer(v->formats, file);
		if (fmt && (fmt->writer == FORMAT_ZIP) != v->zip)
			fmt = NULL;
		if (fmt && fmt->writer == FORMAT_TAR &&
		    fmt->filter.kind != FILTER_NONE &&
		    fmt->filter.kind != FILTER_COMMAND &&
		    v->kind != UNPACK_GZIP)
			fmt = NULL;
	}
	if (!fmt) {
		const char *guess = v->zip ? "zip"
				  : v->kind == UNPACK_GZIP ? "tar.gz" : "tar";

		fmt = format_lookup(v->formats, guess);
		if (!fmt)
			GA_BUG("verify: built-in format missing");
	}
	v->fmt = fmt;
	v->fmt_name = ga_xstrdup(fmt->name);
	v->fmt_gzip = fmt->filter.kind == FILTER_GZIP ||
		      fmt->filter.kind == FILTER_ZLIB;
	return 0;
}

static void choose_candidates(struct verify *v)
{
	const struct format *fmt = v->fmt;

	if (fmt->filter.kind == FILTER_COMMAND)
		add_cand(v, RECOMPRESS_COMMAND, -1, NULL, fmt->filter.command,
			 ga_xstrfmt("tar.%s.command '%s'", fmt->name,
				    fmt->filter.command));
	if (v->kind == UNPACK_GZIP)
		gzip_candidates(v);
	if (v->nr_cands)
		recompress_new(&v->rc, v->cands, v->nr_cands);
}

/* Read the start of the decompressed stream into v->peek. */
static int read_peek(struct verify *v)
{
	int error;

	v->peek = ga_xmalloc(VERIFY_PEEK);
	while (v->peek_len < VERIFY_PEEK) {
		size_t n;

		if ((error = v->dsrc->read(v->dsrc, v->peek + v->peek_len,
					   VERIFY_PEEK - v->peek_len, &n)) < 0)
			return error;
		if (!n)
			break;
		v->peek_len += n;
	}
	return 0;
}

/* What the first tar headers say: commit, time, umask, first path. */
static void peek_tar(struct verify *v)
{
	struct mem_source src;
	struct tar_reader *r;
	struct tar_read_entry *e;
	struct tar_read_summary s;

	mem_source_init(&src, v->peek, v->peek_len);
	tar_reader_new(&r, &src.base, NULL);
	/*
	 * A directory or an executable shows the whole umask; a plain
	 * file only its read and write bits.  Symbolic links show none.
	 */
	while (tar_reader_next(&e, r) == 0) {
		int regular = e->type == '0' || e->type == '\0';

		if (!v->first_path)
			v->first_path = ga_xstrndup(e->path, e->path_len);
		if (e->type == '5' || (regular && (e->perm & 0100))) {
			v->file_umask = ~e->perm & 0777;
			v->have_umask = 1;
			break;
		}
		if (regular && !v->have_umask) {
			v->file_umask = (~e->perm & 0666) |
					(v->cfg_umask & 0111);
			v->have_umask = 1;
		}
	}
	ga_error_clear();
	tar_reader_summary(&s, r);
	if (s.comment)
		v->recorded_commit = ga_xstrdup(s.comment);
	if (r && (s.nr_global || v->first_path)) {
		v->file_mtime = s.has_global_mtime ? s.global_mtime
						   : s.first_mtime;
		v->have_mtime = 1;
	}
	tar_reader_free(r);
}

static void peek_zip(struct verify *v)
{
	struct mem_source src;
	struct zip_reader *r;
	struct zip_read_entry *e;

	mem_source_init(&src, v->peek, v->peek_len);
	zip_reader_new(&r, &src.base, 0);
	if (zip_reader_next(&e, r) == 0) {
		v->first_path = ga_xstrndup(e->path, e->path_len);
		v->first_dos_time = e->dos_time;
		v->first_dos_date = e->dos_date;
		v->have_dos = 1;
		if (e->extras & ZIP_READ_EXTRA_UT) {
			v->file_mtime = e->ut_mtime;
			v->have_mtime = 1;
		}
	}
	ga_error_clear();
	zip_reader_free(r);
}

int verify_open(struct verify **out, const struct verify_options *opts,
		const struct format_list *formats, unsigned int tar_umask)
{
	struct verify *v = ga_xcalloc(1, sizeof(*v));
	int error;

	v->opts = opts;
	v->formats = formats;
	v->cfg_umask = tar_umask;
	v->winner = -1;
	v->buf = ga_xmalloc(VERIFY_BUF);
	ga_sha256_init(&v->a_sha);
	ga_sha256_init(&v->d_sha);
	ga_sha256_init(&v->e_sha);
	ga_sha256_init(&v->entry_sha);
	v->in.fd = -1;
	*out = v;

	if ((error = unpack_input_open(&v->in, opts->file)) < 0)
		return error;
	v->in.tap = raw_tap;
	v->in.tap_payload = v;
	v->kind = unpack_sniff(&v->in);
	if (v->kind == UNPACK_UNKNOWN)
		return ga_error_set("'%s' is not a tar or zip archive",
				    v->in.name);
	v->zip = v->kind == UNPACK_ZIP;
	if ((error = choose_format(v)) < 0)
		return error;
	choose_candidates(v);

	if (v->kind == UNPACK_TAR || v->zip) {
		v->dsrc = &v->in.base;
	} else if ((error = unpack_decoder_new(&v->dec, &v->dsrc, v->kind,
					       &v->in)) < 0) {
		return error;
	}
	if ((error = read_peek(v)) < 0)
		return error;
	if (v->zip) {
		if (unpack_input_seekable(&v->in) &&
		    (error = zip_read_tail_comment(&v->recorded_commit,
						   v->in.fd)) < 0)
			return error;
		peek_zip(v);
		return 0;
	}
	if (v->peek_len < 512 || (!unpack_is_tar_header(v->peek) &&
				  memcmp(v->peek, (char[512]){ 0 }, 512)))
		return ga_error_set("'%s' is compressed with %s, but what it "
				    "holds is not a tar archive", v->in.name,
				    unpack_kind_name(v->kind));
	peek_tar(v);
	return 0;
}

const char *verify_recorded_commit(const struct verify *v)
{
	return v->recorded_commit;
}

int verify_is_zip(const struct verify *v)
{
	return v->zip;
}

/* ---- the plan ---- */

/*
 * The prefix git's --prefix would have given the first entry: its first
 * directory, unless the tree itself has an entry of that name at its
 * root (then the archive has no prefix and starts in that directory).
 */
static int find_prefix(struct verify *v, const struct verify_plan *plan)
{
	const char *slash;
	struct rawtree_entry te;
	git_odb *odb = NULL;
	char *name;
	int error;

	v->prefix_found = 1;
	if (!v->first_path || !(slash = strchr(v->first_path, '/')) ||
	    slash == v->first_path) {
		v->prefix = ga_xstrdup("");
		return 0;
	}
	name = ga_xstrndup(v->first_path, (size_t)(slash - v->first_path));
	if (git_repository_odb(&odb, plan->repo) < 0) {
		free(name);
		return ga_error_from_git(NULL);
	}
	error = rawtree_lookup(&te, odb, plan->tree_id, name,
			       GIT_OID_RAWSZ);
	git_odb_free(odb);
	free(name);
	if (error == GA_ENOTFOUND) {
		ga_error_clear();
		v->prefix = ga_xstrndup(v->first_path,
					(size_t)(slash - v->first_path) + 1);
		return 0;
	}
	if (error < 0)
		return error;
	v->prefix = ga_xstrdup("");
	return 0;
}

/* The MS-DOS date and time fields back as the struct tm zip.c reads. */
static void dos_to_tm(struct tm *tm, uint16_t dtime, uint16_t ddate)
{
	memset(tm, 0, sizeof(*tm));
	tm->tm_year = (ddate >> 9) + 80;
	tm->tm_mon = ((ddate >> 5) & 15) - 1;
	tm->tm_mday = ddate & 31;
	tm->tm_hour = dtime >> 11;
	tm->tm_min = (dtime >> 5) & 63;
	tm->tm_sec = (dtime & 31) * 2;
}

/* The DOS fields zip.c writes for `tm`. */
static void tm_to_dos(uint16_t *dtime, uint16_t *ddate, const struct tm *tm)
{
	*ddate = (uint16_t)(tm->tm_mday + (tm->tm_mon + 1) * 32 +
			    (tm->tm_year + 1900 - 1980) * 512);
	*dtime = (uint16_t)(tm->tm_sec / 2 + tm->tm_min * 32 +
			    tm->tm_hour * 2048);
}

int verify_prepare(struct verify *v, const struct verify_plan *plan,
		   struct archive_args *args, const char **prefix)
{
	int error;

	v->plan_copy = *plan;
	git_oid_cpy(&v->tree_id, plan->tree_id);
	v->treeish_name = ga_xstrdup(plan->treeish_name);
	v->commit_hex = plan->commit_hex ? ga_xstrdup(plan->commit_hex)
					 : NULL;
	v->plan_copy.tree_id = &v->tree_id;
	v->plan_copy.treeish_name = v->treeish_name;
	v->plan_copy.commit_hex = v->commit_hex;
	v->plan_copy.repo = NULL;	/* only for find_prefix() now */
	v->plan = &v->plan_copy;
	if (v->opts->prefix) {
		v->prefix = ga_xstrdup(v->opts->prefix);
	} else if ((error = find_prefix(v, plan)) < 0) {
		return error;
	}
	*prefix = v->prefix;

	v->mtime = v->have_mtime ? v->file_mtime : plan->default_mtime;
	/* A tree has no time of its own: any time is given by --mtime. */
	v->mtime_changed = plan->commit_hex && v->mtime != plan->default_mtime;
	args->mtime = v->mtime;
	v->umask_used = args->tar_umask;
	if (!v->zip && v->have_umask) {
		v->umask_changed = v->file_umask != args->tar_umask;
		v->umask_used = v->file_umask;
		args->tar_umask = v->file_umask;
	}
	if (v->zip) {
		time_t t = (time_t)v->mtime;
		struct tm local;
		uint16_t dt, dd;

		localtime_r(&t, &local);
		args->mtime_local = local;
		if (v->have_dos) {
			tm_to_dos(&dt, &dd, &local);
			if (dt != v->first_dos_time ||
			    dd != v->first_dos_date) {
				struct tm file_tm;
				time_t as_utc;

				dos_to_tm(&args->mtime_local,
					  v->first_dos_time,
					  v->first_dos_date);
				file_tm = args->mtime_local;
				as_utc = timegm(&file_tm);
				v->tz_changed = 1;
				/* Zones are whole minutes; DOS seconds even. */
				v->tz_offset = (int64_t)as_utc - v->mtime;
				v->tz_offset = (v->tz_offset + (v->tz_offset < 0
						? -30 : 30)) / 60 * 60;
			}
		}
	}
	/* The whole file may hold twice what is expected, and some. */
	return 0;
}

/* ---- the expected archive ---- */

static void chunk_update(struct chunker *c, const unsigned char *p,
			 size_t len, void (*done)(struct verify *, uint32_t,
						  size_t),
			 struct verify *v)
{
	while (len) {
		size_t n = VERIFY_CHUNK - c->fill;

		if (n > len)
			n = len;
		c->crc = (uint32_t)crc32_z(c->crc, p, n);
		c->fill += n;
		p += n;
		len -= n;
		if (c->fill == VERIFY_CHUNK) {
			done(v, c->crc, c->index++);
			c->crc = 0;
			c->fill = 0;
		}
	}
}

static void expect_chunk(struct verify *v, uint32_t crc, size_t index)
{
	(void)index;
	GA_ALLOC_GROW(v->e_crcs, v->nr_e_crcs + 1, v->alloc_e_crcs);
	v->e_crcs[v->nr_e_crcs++] = crc;
}

static int esink_write(struct sink *s, const void *buf, size_t len)
{
	struct verify *v = ((struct expect_sink *)s)->v;

	ga_sha256_update(&v->e_sha, buf, len);
	chunk_update(&v->e_chunk, buf, len, expect_chunk, v);
	v->e_len += len;
	return 0;
}

static int esink_finish(struct sink *s)
{
	struct verify *v = ((struct expect_sink *)s)->v;

	if (v->e_chunk.fill)
		expect_chunk(v, v->e_chunk.crc, v->e_chunk.index);
	ga_sha256_final(&v->e_sha, v->e_digest);
	return 0;
}

static void esink_free(struct sink *s)
{
	(void)s;
}

struct sink *verify_expect_sink(struct verify *v)
{
	v->esink.base.write = esink_write;
	v->esink.base.finish = esink_finish;
	v->esink.base.free = esink_free;
	v->esink.v = v;
	return &v->esink.base;
}

static int hash_stream_read(struct entry_stream *s, unsigned char *buf,
			    size_t cap, size_t *nread)
{
	struct hash_stream *h = (struct hash_stream *)s;
	int error = h->inner->read(h->inner, buf, cap, nread);

	if (!error)
		ga_sha256_update(h->sha, buf, *nread);
	return error;
}

static int is_dir(uint32_t mode)
{
	return mode == WALK_MODE_DIR || mode == WALK_MODE_GITLINK;
}

void verify_expect_entry(struct verify *v, struct archive_entry *e)
{
	struct expect *x;
	int fresh;

	if (e->deferred)
		GA_BUG("verify: deferred entry");
	x = table_add(&v->table, e->path, e->path_len, &fresh);
	v->current = fresh ? x : NULL;
	if (!fresh)
		return;
	x->mode = e->mode;
	x->index = v->nr_expected++;
	if (is_dir(e->mode))
		return;
	v->nr_expected_files++;
	x->size = e->size;
	v->expected_content += e->size;
	ga_sha256_init(&v->entry_sha);
	if (e->stream) {
		v->hstream.base.read = hash_stream_read;
		v->hstream.inner = e->stream;
		v->hstream.sha = &v->entry_sha;
		e->stream = &v->hstream.base;
	} else {
		ga_sha256_update(&v->entry_sha, e->data, (size_t)e->size);
	}
}

void verify_expect_done(struct verify *v, struct archive_entry *e)
{
	if (e->stream == &v->hstream.base)
		e->stream = v->hstream.inner;
	if (!v->current || is_dir(v->current->mode))
		return;
	ga_sha256_final(&v->entry_sha, v->current->sha);
}

/* ---- reading the file ---- */

static void decoded_chunk(struct verify *v, uint32_t crc, size_t index)
{
	if (v->tar_differs)
		return;
	if (index >= v->nr_e_crcs || v->e_crcs[index] != crc) {
		v->tar_differs = 1;
		v->first_diff = (uint64_t)index * VERIFY_CHUNK;
		/* No compressor can make this file from garchive's tar. */
		recompress_stop(v->rc, "the tar inside differs");
	}
}

static int decoded_read(struct byte_source *s, unsigned char *buf,
			size_t cap, size_t *nread)
{
	struct verify *v = ((struct decoded *)s)->v;
	int error;

	if (v->peek_pos < v->peek_len) {
		size_t n = v->peek_len - v->peek_pos;

		*nread = n < cap ? n : cap;
		memcpy(buf, v->peek + v->peek_pos, *nread);
		v->peek_pos += *nread;
	} else if ((error = v->dsrc->read(v->dsrc, buf, cap, nread)) < 0) {
		return error;
	}
	if (!*nread)
		return 0;
	v->d_len += *nread;
	if (v->d_len > v->budget) {
		v->over_budget = 1;
		return ga_error_code(GA_ELIMIT, "it holds more than %" PRIu64
				     " bytes, where garchive writes %" PRIu64,
				     v->budget, v->e_len);
	}
	ga_sha256_update(&v->d_sha, buf, *nread);
	chunk_update(&v->d_chunk, buf, *nread, decoded_chunk, v);
	if (v->rc && recompress_alive(v->rc))
		return recompress_feed(v->rc, buf, *nread);
	return 0;
}

/* Hash the rest of the current entry's content. */
static int hash_content(struct verify *v, unsigned char *digest,
			uint64_t *size,
			int (*readfn)(void *r, unsigned char *buf, size_t cap,
				      size_t *n),
			void *reader)
{
	int error;

	*size = 0;
	ga_sha256_init(&v->entry_sha);
	for (;;) {
		size_t n;

		if ((error = readfn(reader, v->buf, VERIFY_BUF, &n)) < 0)
			return error;
		if (!n)
			break;
		*size += n;
		ga_sha256_update(&v->entry_sha, v->buf, n);
	}
	ga_sha256_final(&v->entry_sha, digest);
	return 0;
}

static int tar_read_fn(void *r, unsigned char *buf, size_t cap, size_t *n)
{
	return tar_reader_read(r, buf, cap, n);
}

static int zip_read_fn(void *r, unsigned char *buf, size_t cap, size_t *n)
{
	return zip_reader_read(r, buf, cap, n);
}

static const char *kind_name(uint32_t mode)
{
	switch (mode) {
	case WALK_MODE_EXEC:
		return "executable";
	case WALK_MODE_SYMLINK:
		return "symbolic link";
	case WALK_MODE_DIR:
	case WALK_MODE_GITLINK:
		return "directory";
	case WALK_MODE_FILE:
		return "file";
	default:
		return "special file";
	}
}

static void note_once(char **slot, const char *path, size_t len)
{
	if (!*slot)
		*slot = quote_path(path, len);
}

/* The record of an archive path, or NULL after listing it. */
static struct expect *match_path(struct verify *v, const char *path,
				 size_t len, int dir)
{
	struct expect *x = table_get(&v->table, path, len);

	if (dir)
		v->nr_dirs++;
	else
		v->nr_entries++;
	if (v->progress && !dir)
		progress_update(v->progress, v->nr_entries, v->d_len);
	if (!x) {
		list_add(v, dir ? LIST_DIR_ONLY_ARCHIVE : LIST_ONLY_ARCHIVE,
			 quote_path(path, len));
		return NULL;
	}
	if (x->seen) {
		list_add(v, LIST_TWICE, quote_path(path, len));
		return NULL;
	}
	x->seen = 1;
	if (v->have_last && x->index < v->last_index)
		note_once(&v->misordered, path, len);
	v->last_index = x->index;
	v->have_last = 1;
	return x;
}

/* The kind and mode an archive entry has against the expected one. */
static int same_kind(struct verify *v, const struct expect *x, uint32_t mode,
		     const char *path, size_t len)
{
	int ok = is_dir(x->mode) ? is_dir(mode) : x->mode == mode;
	char *q;

	if (ok)
		return 1;
	q = quote_path(path, len);
	list_add(v, LIST_MODE, ga_xstrfmt("%s (archive: %s, tree-ish: %s)", q,
					  kind_name(mode),
					  kind_name(x->mode)));
	free(q);
	return 0;
}

static void compare_content(struct verify *v, const struct expect *x,
			    const unsigned char *sha, uint64_t size,
			    const char *path, size_t len)
{
	if (size == x->size && !memcmp(sha, x->sha, GA_SHA256_LEN))
		return;
	list_add(v, x->mode == WALK_MODE_SYMLINK ? LIST_LINK : LIST_CONTENT,
		 quote_path(path, len));
}

/* The permission bits git writes for `mode` with the umask used. */
static uint32_t expected_perm(const struct verify *v, uint32_t mode)
{
	switch (mode) {
	case WALK_MODE_SYMLINK:
		return 0777;
	case WALK_MODE_FILE:
		return 0666 & ~v->umask_used;
	default:
		return 0777 & ~v->umask_used;
	}
}

static int tar_entry(struct verify *v, struct tar_reader *r,
		     struct tar_read_entry *e)
{
	unsigned char sha[GA_SHA256_LEN];
	struct ga_buf path = GA_BUF_INIT;
	struct expect *x;
	uint32_t mode;
	uint64_t size;
	int error = 0;

	switch (e->type) {
	case '0': case '\0': case '7':
		mode = e->perm & 0100 ? WALK_MODE_EXEC : WALK_MODE_FILE;
		break;
	case '2':
		mode = WALK_MODE_SYMLINK;
		break;
	case '5':
		mode = WALK_MODE_DIR;
		break;
	default:
		mode = 0;	/* hard links, devices, fifos... */
	}
	ga_buf_put(&path, e->path, e->path_len);
	if (mode == WALK_MODE_DIR && (!path.len || path.ptr[path.len - 1] != '/'))
		ga_buf_putc(&path, '/');
	v->tar_flags |= e->flags;
	x = match_path(v, path.ptr, path.len, mode == WALK_MODE_DIR);
	if (!x || !same_kind(v, x, mode, path.ptr, path.len))
		goto done;
	if (mode == WALK_MODE_SYMLINK) {
		ga_sha256_init(&v->entry_sha);
		ga_sha256_update(&v->entry_sha, e->link, e->link_len);
		ga_sha256_final(&v->entry_sha, sha);
		compare_content(v, x, sha, e->link_len, path.ptr, path.len);
	} else if (mode != WALK_MODE_DIR) {
		if ((error = hash_content(v, sha, &size, tar_read_fn, r)) < 0)
			goto done;
		compare_content(v, x, sha, size, path.ptr, path.len);
	}
	if (e->mtime != v->mtime)
		note_once(&v->mtime_odd, path.ptr, path.len);
	if (e->perm != expected_perm(v, mode))
		note_once(&v->perm_odd, path.ptr, path.len);
	if (e->uid || e->gid || strcmp(e->uname, "root") ||
	    strcmp(e->gname, "root"))
		note_once(&v->owner_odd, path.ptr, path.len);
done:
	ga_buf_release(&path);
	return error;
}

static int check_tar(struct verify *v)
{
	struct tar_reader *r;
	struct tar_read_entry *e;
	int error;

	tar_reader_new(&r, &v->dstream.base, NULL);
	while ((error = tar_reader_next(&e, r)) == 0)
		if ((error = tar_entry(v, r, e)) < 0)
			break;
	tar_reader_summary(&v->tsum, r);
	if (v->tsum.comment)
		v->tsum.comment = NULL;	/* freed with the reader */
	if (error == GA_ITEROVER)
		error = tar_reader_trailer(r, VERIFY_TRAILER_MAX,
					   &v->trailer_len, &v->trailer_zero,
					   &v->trailer_more);
	/* What the global header recorded, kept beyond the reader. */
	if (!error) {
		struct tar_read_summary s;

		tar_reader_summary(&s, r);
		free(v->recorded_commit);
		v->recorded_commit = s.comment ? ga_xstrdup(s.comment) : NULL;
	}
	tar_reader_free(r);
	return error;
}

/* The kind a central directory header gives, as unzip reads it. */
static uint32_t central_mode(const struct zip_read_central *c)
{
	uint32_t unix_mode = c->external_attr >> 16;

	if ((c->made_by >> 8) == 3 && unix_mode) {
		switch (unix_mode & 0170000) {
		case 0120000:
			return WALK_MODE_SYMLINK;
		case 0040000:
			return WALK_MODE_DIR;
		case 0100000:
			return unix_mode & 0100 ? WALK_MODE_EXEC
						: WALK_MODE_FILE;
		default:
			return 0;
		}
	}
	if ((c->external_attr & 0x10) ||
	    (c->path_len && c->path[c->path_len - 1] == '/'))
		return WALK_MODE_DIR;
	return WALK_MODE_FILE;
}

static int zip_entry(struct verify *v, struct zip_reader *r,
		     struct zip_read_entry *e)
{
	unsigned char sha[GA_SHA256_LEN];
	int dir = e->path_len && e->path[e->path_len - 1] == '/';
	struct expect *x;
	uint64_t size;
	int error;

	if (!(e->extras & ZIP_READ_EXTRA_UT))
		v->zip_no_ut = 1;
	else if ((int64_t)e->ut_mtime != (int64_t)(uint32_t)v->mtime)
		note_once(&v->mtime_odd, e->path, e->path_len);
	if (e->extras & ZIP_READ_EXTRA_OTHER)
		v->zip_extra_other = 1;
	if (v->have_dos && (e->dos_time != v->first_dos_time ||
			    e->dos_date != v->first_dos_date))
		note_once(&v->mtime_odd, e->path, e->path_len);
	x = match_path(v, e->path, e->path_len, dir);
	if (!x || dir)
		return 0;
	if (is_dir(x->mode)) {
		same_kind(v, x, WALK_MODE_FILE, e->path, e->path_len);
		return 0;
	}
	if ((error = hash_content(v, sha, &size, zip_read_fn, r)) < 0)
		return error;
	compare_content(v, x, sha, size, e->path, e->path_len);
	return 0;
}

static void zip_central(struct verify *v, const struct zip_read_central *c)
{
	struct expect *x = table_get(&v->table, c->path, c->path_len);

	/* Paths not expected, or seen twice, are listed already. */
	if (x && x->seen)
		same_kind(v, x, central_mode(c), c->path, c->path_len);
}

static int check_zip(struct verify *v)
{
	struct zip_reader *r;
	struct zip_read_entry *e;
	struct zip_read_central *c;
	uint64_t max = v->expected_content * 2 + VERIFY_SLACK;
	int error;

	zip_reader_new(&r, &v->dstream.base, max);
	while ((error = zip_reader_next(&e, r)) == 0)
		if ((error = zip_entry(v, r, e)) < 0)
			break;
	if (error == GA_ITEROVER)
		while ((error = zip_reader_next_central(&c, r)) == 0)
			zip_central(v, c);
	if (error == GA_ITEROVER)
		error = zip_reader_trailer(r, VERIFY_TRAILER_MAX,
					   &v->trailer_len, &v->trailer_more);
	zip_reader_summary(&v->zsum, r);
	if (v->zsum.comment) {
		free(v->recorded_commit);
		v->recorded_commit = ga_xstrndup(v->zsum.comment,
						 v->zsum.comment_len);
		v->zsum.comment = NULL;
	}
	v->zip_descriptors = v->zsum.descriptors;
	if (error == GA_ELIMIT) {
		v->over_budget = 1;
	}
	zip_reader_free(r);
	return error;
}

/* Whatever is left of the decompressed stream, through the checks. */
static int drain_decoded(struct verify *v)
{
	size_t n;
	int error;

	do {
		error = v->dstream.base.read(&v->dstream.base, v->buf,
					     VERIFY_BUF, &n);
	} while (!error && n);
	return error;
}

static void list_unseen(struct verify *v)
{
	size_t i;

	for (i = 0; i < v->table.cap; i++) {
		struct expect *x = v->table.slots[i];

		if (!x || x->seen)
			continue;
		list_add(v, is_dir(x->mode) ? LIST_DIR_ONLY_TREE
					    : LIST_ONLY_TREE,
			 quote_path(x->path, x->path_len));
	}
}

static int cmp_items(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void verify_set_progress(struct verify *v, struct progress *p)
{
	progress_free(v->progress);
	v->progress = p;
}

int verify_check(struct verify *v)
{
	int error;
	size_t i;

	progress_set_total(v->progress, v->nr_expected_files);
	v->dstream.base.read = decoded_read;
	v->dstream.v = v;
	v->budget = v->e_len * 2 + VERIFY_SLACK;

	error = v->zip ? check_zip(v) : check_tar(v);
	if (error == GA_ELIMIT) {
		v->over_budget = 1;
		free(v->over_budget_msg);
		v->over_budget_msg = ga_xstrdup(ga_error_message());
		ga_error_clear();
		error = 0;
		recompress_stop(v->rc, "the file is too large");
	} else if (!error) {
		error = drain_decoded(v);
		if (error == GA_ELIMIT) {
			v->over_budget = 1;
			v->over_budget_msg = ga_xstrdup(ga_error_message());
			ga_error_clear();
			error = 0;
		}
	}
	if (error < 0)
		return error;
	if (!v->over_budget) {
		/* The last partial MiB, and a tar that ends early. */
		if (v->d_chunk.fill)
			decoded_chunk(v, v->d_chunk.crc, v->d_chunk.index);
		if (v->d_len != v->e_len && !v->tar_differs) {
			v->tar_differs = 1;
			v->first_diff = (v->d_len < v->e_len ? v->d_len
							     : v->e_len) &
					~(uint64_t)(VERIFY_CHUNK - 1);
			recompress_stop(v->rc, "the tar inside differs");
		}
	}
	if (v->dec && !v->over_budget &&
	    (error = unpack_decoder_finish(v->dec)) < 0)
		return error;
	if (v->dec)
		v->gz = unpack_decoder_gzip(v->dec);
	if (!v->over_budget && (error = unpack_input_drain(&v->in)) < 0)
		return error;
	ga_sha256_final(&v->a_sha, v->a_digest);
	ga_sha256_final(&v->d_sha, v->d_digest);
	if (v->rc && (error = recompress_finish(v->rc, v->in.total)) < 0)
		return error;
	v->winner = recompress_winner(v->rc);
	progress_done(v->progress, v->nr_entries, v->d_len);
	v->progress = NULL;
	list_unseen(v);
	for (i = 0; i < LIST_NR; i++)
		if (v->lists[i].nr > 1)
			qsort(v->lists[i].items, v->lists[i].nr, sizeof(char *),
		      cmp_items);
	v->checked = 1;
	return 0;
}

/* ---- the answer ---- */

static int files_differ(const struct verify *v)
{
	return v->over_budget || v->lists[LIST_ONLY_ARCHIVE].count ||
	       v->lists[LIST_ONLY_TREE].count ||
	       v->lists[LIST_CONTENT].count || v->lists[LIST_MODE].count ||
	       v->lists[LIST_LINK].count || v->lists[LIST_TWICE].count ||
	       (v->zip && v->zsum.inconsistent);
}

static int tar_same(const struct verify *v)
{
	return !v->tar_differs && v->d_len == v->e_len &&
	       !memcmp(v->d_digest, v->e_digest, GA_SHA256_LEN);
}

static int compressed(const struct verify *v)
{
	return v->kind != UNPACK_TAR && v->kind != UNPACK_ZIP;
}

/*
 * The --format (and -c) words of the command: the tar alone, or the
 * compressor that was found as garchive names it.
 */
static void format_words(struct ga_buf *b, const struct verify *v,
			 const struct recompress_candidate *c)
{
	const struct format *fmt = v->fmt;
	const char *name = fmt->filter.kind == FILTER_GZIP ||
			   fmt->filter.kind == FILTER_ZLIB ? fmt->name
							   : "tar.gz";

	if (v->zip) {
		ga_buf_puts(b, " --format=zip");
		return;
	}
	if (!c) {
		ga_buf_puts(b, " --format=tar");
		return;
	}
	switch (c->kind) {
	case RECOMPRESS_COMMAND:
		ga_buf_printf(b, " --format=%s", fmt->name);
		return;
	case RECOMPRESS_ZLIB:
		if (fmt->filter.kind != FILTER_ZLIB)
			ga_buf_printf(b, " -c tar.%s.command='git archive "
				      "gzip'", name);
		break;
	case RECOMPRESS_PROGRAM:
		if (fmt->filter.kind != FILTER_GZIP)
			name = "tar.gz";
		break;
	}
	ga_buf_printf(b, " --format=%s", name);
	if (c->level != 6)
		ga_buf_printf(b, " -%d", c->level);
}

/*
 * The command that writes this file (with `whole`) or the tar inside
 * it.  Only printed where the comparison proved it.
 */
static char *reproduce_command(const struct verify *v, int whole)
{
	const struct verify_plan *p = v->plan;
	const struct recompress_candidate *c = NULL;
	struct ga_buf b = GA_BUF_INIT;
	size_t i;

	if (whole && v->winner >= 0)
		c = &v->cands[v->winner];
	if (v->tz_changed) {
		int64_t off = v->tz_offset < 0 ? -v->tz_offset : v->tz_offset;

		/* POSIX TZ offsets count west of UTC. */
		ga_buf_printf(&b, "TZ=UTC%c%02d:%02d ",
			      v->tz_offset > 0 ? '-' : '+', (int)(off / 3600),
			      (int)(off / 60 % 60));
	}
	ga_buf_puts(&b, "garchive");
	if (v->umask_changed)
		ga_buf_printf(&b, " -c tar.umask=0%03o", v->umask_used);
	format_words(&b, v, c);
	if (*v->prefix) {
		ga_buf_puts(&b, " --prefix=");
		shell_word(&b, v->prefix);
	}
	if (v->mtime_changed || !p->commit_hex)
		ga_buf_printf(&b, " --mtime=@%" PRId64, v->mtime);
	ga_buf_putc(&b, ' ');
	shell_word(&b, p->treeish_name);
	for (i = 0; i < v->opts->nr_pathspecs; i++) {
		ga_buf_putc(&b, ' ');
		shell_word(&b, v->opts->pathspecs[i]);
	}
	if (whole && strcmp(v->opts->file, "-")) {
		const char *base = strrchr(v->opts->file, '/');

		ga_buf_puts(&b, " -o ");
		shell_word(&b, base ? base + 1 : v->opts->file);
	}
	return ga_buf_detach(&b, NULL);
}

static void line(FILE *out, const char *key, const char *fmt, ...)
	GA_PRINTF(3, 4);

static void line(FILE *out, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(out, "  %-10s ", key);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

/* A "differs:" line, counted. */
static void differs(FILE *out, int *n, const char *fmt, ...)
	GA_PRINTF(3, 4);

static void differs(FILE *out, int *n, const char *fmt, ...)
{
	va_list ap;

	(*n)++;
	fprintf(out, "  %-10s ", "differs:");
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

static void describe_file(const struct verify *v, FILE *out)
{
	const char *what = v->zip ? "zip archive" : "tar archive";

	if (compressed(v))
		line(out, "file:", "%s, tar compressed with %s, %" PRIu64
		     " bytes (%" PRIu64 " uncompressed)", v->in.name,
		     unpack_kind_name(v->kind), v->in.total, v->d_len);
	else
		line(out, "file:", "%s, %s, %" PRIu64 " bytes", v->in.name,
		     what, v->in.total);
	line(out, "entries:", "%zu files and links, %zu director%s "
	     "(tree-ish: %zu entries)", v->nr_entries, v->nr_dirs,
	     v->nr_dirs == 1 ? "y" : "ies", v->nr_expected);
}

static void describe_treeish(const struct verify *v, FILE *out)
{
	const struct verify_plan *p = v->plan;
	char hex[GIT_OID_HEXSZ + 1];
	struct ga_buf paths = GA_BUF_INIT;
	size_t i;

	git_oid_tostr(hex, sizeof(hex), p->tree_id);
	if (p->commit_hex && !v->opts->treeish)
		line(out, "tree-ish:", "commit %s (recorded in the archive)",
		     p->commit_hex);
	else if (p->commit_hex)
		line(out, "tree-ish:", "%s (commit %s)", p->treeish_name,
		     p->commit_hex);
	else
		line(out, "tree-ish:", "%s (tree %s)", p->treeish_name, hex);
	line(out, "prefix:", "%s%s", *v->prefix ? v->prefix : "(none)",
	     v->prefix_found ? " (found from the entries)" : "");
	for (i = 0; i < v->opts->nr_pathspecs; i++) {
		if (i)
			ga_buf_putc(&paths, ' ');
		shell_word(&paths, v->opts->pathspecs[i]);
	}
	if (paths.len)
		line(out, "paths:", "%s", paths.ptr);
	ga_buf_release(&paths);
}

static void print_lists(const struct verify *v, FILE *out, int dirs)
{
	size_t k, i;

	for (k = 0; k < LIST_NR; k++) {
		const struct path_list *l = &v->lists[k];
		int is_dirs = k == LIST_DIR_ONLY_ARCHIVE ||
			      k == LIST_DIR_ONLY_TREE;

		if (is_dirs != dirs)
			continue;
		for (i = 0; i < l->nr; i++)
			fprintf(out, "  %s: %s\n", list_titles[k], l->items[i]);
		if (l->count > l->nr)
			fprintf(out, "  %s: ... and %" PRIu64 " more (-v lists "
				"all)\n", list_titles[k], l->count - l->nr);
	}
}

/* Where an archive with the same files differs from garchive's. */
static void print_fields(const struct verify *v, FILE *out)
{
	const struct verify_plan *p = v->plan;
	char a[40], b[40];
	int n = 0;

	if (v->mtime_changed) {
		format_time(a, sizeof(a), v->mtime);
		format_time(b, sizeof(b), p->default_mtime);
		differs(out, &n, "time: %s, where garchive writes the "
		     "commit's %s", a, b);
	}
	if (v->mtime_odd)
		differs(out, &n, "time: entries have different times "
		     "(first %s)", v->mtime_odd);
	if (v->umask_changed)
		differs(out, &n, "modes: written with tar.umask 0%03o; "
		     "garchive uses 0%03o", v->umask_used, v->cfg_umask);
	if (v->perm_odd)
		differs(out, &n, "modes: permission bits that no umask "
		     "gives (first %s)", v->perm_odd);
	if (v->tz_changed) {
		int64_t off = v->tz_offset < 0 ? -v->tz_offset : v->tz_offset;

		differs(out, &n, "MS-DOS times: written in another time "
		     "zone (UTC%c%02d:%02d)", v->tz_offset < 0 ? '-' : '+',
		     (int)(off / 3600), (int)(off / 60 % 60));
	}
	if (v->owner_odd)
		differs(out, &n, "owner: not root/0 (first %s): "
		     "another tool", v->owner_odd);
	if (v->misordered)
		differs(out, &n, "order: entries not in the tree's order "
		     "(first %s): another tool", v->misordered);
	if (v->tar_flags & TAR_READ_GNU_LONG)
		differs(out, &n, "long names in GNU headers: another "
		     "tool");
	if (v->tar_flags & TAR_READ_PAX_OTHER)
		differs(out, &n, "pax records git does not write: "
		     "another tool");
	if (v->tar_flags & (TAR_READ_NOT_USTAR | TAR_READ_ODD_HEADER |
			    TAR_READ_OTHER_SIZE))
		differs(out, &n, "header fields filled otherwise "
		     "(magic, checksum, devices): another tool");
	if (!v->zip) {
		const char *want = p->commit_hex;
		const char *got = v->recorded_commit;

		if (want && !got)
			differs(out, &n, "no commit recorded (no pax "
			     "global header)");
		else if (!want && got)
			differs(out, &n, "records commit %s, where the "
			     "tree-ish is a tree", got);
		else if (want && strcmp(want, got))
			differs(out, &n, "records commit %s, not %s",
			     got, want);
		if (v->tsum.global_other || v->tsum.nr_global > 1)
			differs(out, &n, "pax global header holds more "
			     "than git writes");
		if (!v->trailer_zero || v->trailer_more) {
			differs(out, &n, "data after the end of the tar");
		} else {
			uint64_t tail = 10240 - v->tsum.end % 10240;

			if (tail < 1024)
				tail += 10240;
			if (v->trailer_len != tail)
				differs(out, &n, "end of archive: %"
				     PRIu64 " bytes of zeros, git writes %"
				     PRIu64, v->trailer_len, tail);
		}
	} else {
		const char *want = p->commit_hex ? p->commit_hex : "";
		const char *got = v->recorded_commit ? v->recorded_commit : "";

		if (strcmp(want, got))
			differs(out, &n, "zip comment: \"%s\", git writes "
			     "\"%s\"", got, want);
		if (v->zip_no_ut)
			differs(out, &n, "no extended timestamps: another "
			     "tool");
		if (v->zip_extra_other)
			differs(out, &n, "extra fields git does not "
			     "write: another tool");
		if (v->trailer_len || v->trailer_more)
			differs(out, &n, "data after the end of the zip");
	}
	if (!n && !tar_same(v))
		differs(out, &n, "%s", v->zip
			? "compressed data or fields: another deflate level, "
			  "zlib or tool"
			: "header bytes: another tool");
}

static void print_gzip(const struct verify *v, FILE *out, int tar_ok)
{
	struct ga_buf names = GA_BUF_INIT;
	size_t i;

	if (v->kind != UNPACK_GZIP && !v->nr_cands)
		return;
	if (v->winner >= 0) {
		/* Several compressors can give the same bytes. */
		for (i = v->winner; i < v->nr_cands; i++)
			if (recompress_matched(v->rc, i))
				line(out, i == (size_t)v->winner ? "made by:"
				     : "also by:", "%s", v->labels[i]);
		return;
	}
	if (v->gz && v->gz->members > 1)
		line(out, "gzip:", "%zu gzip members, garchive writes one",
		     v->gz->members);
	if (v->gz && v->gz->trailing)
		line(out, "gzip:", "%" PRIu64 " bytes after the gzip data",
		     v->gz->trailing);
	if (v->gz && v->gz->name[0]) {
		char *q = quote_path(v->gz->name, strlen(v->gz->name));
		const unsigned char *h = v->gz->header;
		int64_t t = (int64_t)h[4] | (int64_t)h[5] << 8 |
			    (int64_t)h[6] << 16 | (int64_t)h[7] << 24;
		char when[40];

		format_time(when, sizeof(when), t);
		line(out, "gzip:", "header names %s, time %s: gzip without -n",
		     q, when);
		free(q);
	} else if (v->gzip_skip) {
		line(out, "gzip:", "no garchive or git compressor: %s",
		     v->gzip_skip);
	}
	if (!tar_ok || !v->nr_cands)
		return;
	if (v->opts->verbose) {
		for (i = 0; i < v->nr_cands; i++)
			line(out, "not:", "%s (%s)", v->labels[i],
			     recompress_why(v->rc, i));
		return;
	}
	for (i = 0; i < v->nr_cands; i++)
		ga_buf_printf(&names, "%s%s", i ? ", " : "", v->labels[i]);
	line(out, "not:", "%s (-v says where each differs)", names.ptr);
	ga_buf_release(&names);
}

enum verify_verdict verify_report(struct verify *v, FILE *out)
{
	enum verify_verdict verdict;
	int tar_ok = tar_same(v);
	int defaults = !v->mtime_changed && !v->umask_changed &&
		       !v->tz_changed;
	char hex[GA_SHA256_HEXLEN + 1];
	char *cmd = NULL;

	if (files_differ(v))
		verdict = VERIFY_DIFFERENT;
	else if (tar_ok && defaults && (!compressed(v) || v->winner >= 0))
		verdict = VERIFY_IDENTICAL;
	else if (tar_ok && defaults)
		verdict = VERIFY_SAME_TAR;
	else
		verdict = VERIFY_SAME_FILES;

	fprintf(out, "%s\n", verdict == VERIFY_IDENTICAL ? "identical"
		: verdict == VERIFY_SAME_TAR ? "same tar, other compression"
		: verdict == VERIFY_SAME_FILES
		? "same files, other archive bytes" : "different");
	describe_file(v, out);
	describe_treeish(v, out);

	if (verdict == VERIFY_DIFFERENT) {
		if (v->over_budget)
			line(out, "stopped:", "%s",
			     v->over_budget_msg ? v->over_budget_msg
						: "the file is too large");
		if (v->zip && v->zsum.inconsistent)
			line(out, "damaged:", "%s", v->zsum.inconsistent);
		print_lists(v, out, 0);
	} else {
		print_fields(v, out);
		print_lists(v, out, 1);
		if (tar_ok && (!compressed(v) || v->winner >= 0))
			cmd = reproduce_command(v, 1);
		else if (tar_ok)
			cmd = reproduce_command(v, 0);
		print_gzip(v, out, tar_ok);
		if (cmd && (!compressed(v) || v->winner >= 0))
			line(out, "command:", "%s", cmd);
		else if (cmd)
			line(out, "tar:", "%s (gives the tar inside)", cmd);
		else if (v->tar_differs && !v->zip)
			line(out, "first:", "difference in the MiB at byte %"
			     PRIu64 " of the tar", v->first_diff);
	}
	if (v->opts->digest && v->over_budget) {
		line(out, "sha256:", "(the file was not read to its end)");
	} else if (v->opts->digest) {
		ga_sha256_hex(hex, v->a_digest);
		line(out, "sha256:", "%s  file", hex);
		if (!v->zip) {
			ga_sha256_hex(hex, v->d_digest);
			line(out, "sha256:", "%s  tar", hex);
		}
	}
	free(cmd);
	return verdict;
}

void verify_free(struct verify *v)
{
	size_t i, k;

	if (!v)
		return;
	progress_free(v->progress);
	recompress_free(v->rc);
	unpack_decoder_free(v->dec);
	unpack_input_close(&v->in);
	for (i = 0; i < v->nr_cands; i++)
		free(v->labels[i]);
	for (k = 0; k < LIST_NR; k++) {
		for (i = 0; i < v->lists[k].nr; i++)
			free(v->lists[k].items[i]);
		free(v->lists[k].items);
	}
	table_release(&v->table);
	ga_sha256_release(&v->a_sha);
	ga_sha256_release(&v->d_sha);
	ga_sha256_release(&v->e_sha);
	ga_sha256_release(&v->entry_sha);
	free(v->e_crcs);
	free(v->peek);
	free(v->buf);
	free(v->fmt_name);
	free(v->treeish_name);
	free(v->commit_hex);
	free(v->recorded_commit);
	free(v->first_path);
	free(v->prefix);
	free(v->misordered);
	free(v->mtime_odd);
	free(v->perm_odd);
	free(v->owner_odd);
	free(v->attr_odd);
	free(v->over_budget_msg);
	free(v);
}

void verify_options_release(struct verify_options *o)
{
	size_t i;

	if (!o)
		return;
	free(o->file);
	free(o->treeish);
	free(o->prefix);
	free(o->format);
	for (i = 0; i < o->nr_pathspecs; i++)
		free(o->pathspecs[i]);
	free(o->pathspecs);
	memset(o, 0, sizeof(*o));
}

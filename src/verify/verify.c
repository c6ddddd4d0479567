/*
 * verify.c: `garchive verify` (see garchive/verify.h for the shape of a
 * run): opening the file, the plan and the expected archive.  Reading
 * the file is verify-check.c's, the answer verify-report.c's.
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
#include "verify-state.h"
#include "rawtree.h"
#include "quote.h"
#include "ustar.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>

/* ---- the expected entries ---- */

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

struct expect *verify_expect_get(struct table *t, const char *path,
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

/* See verify-state.h. */
char *verify_quote_path(const char *p, size_t len)
{
	struct ga_buf b = GA_BUF_INIT;

	ga_quote_c(&b, p, len, 0);
	return ga_buf_detach(&b, NULL);
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
		    fmt->sink.kind != SINK_NONE &&
		    fmt->sink.kind != SINK_COMMAND &&
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
	v->fmt_gzip = fmt->sink.kind == SINK_GZIP ||
		      fmt->sink.kind == SINK_ZLIB;
	return 0;
}

static void choose_candidates(struct verify *v)
{
	const struct format *fmt = v->fmt;

	if (fmt->sink.kind == SINK_COMMAND)
		add_cand(v, RECOMPRESS_COMMAND, -1, NULL, fmt->sink.command,
			 ga_xstrfmt("tar.%s.command '%s'", fmt->name,
				    fmt->sink.command));
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
	if (v->peek_len < USTAR_RECORD ||
	    (!unpack_is_tar_header(v->peek) &&
	     memcmp(v->peek, (char[USTAR_RECORD]){ 0 }, USTAR_RECORD)))
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
			       ga_oid_rawsz(plan->tree_id));
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
	ga_oid_cpy(&v->tree_id, plan->tree_id);
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

void verify_chunk_update(struct chunker *c, const unsigned char *p,
			 size_t len,
			 void (*done)(struct verify *, uint32_t, size_t),
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
	verify_chunk_update(&v->e_chunk, buf, len, expect_chunk, v);
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
	if (archive_mode_is_dir(e->mode))
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
	if (!v->current || archive_mode_is_dir(v->current->mode))
		return;
	ga_sha256_final(&v->entry_sha, v->current->sha);
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

/*
 * verify-report.c: the answer of `garchive verify`: what was compared,
 * the verdict, the differences found and the command that reproduces
 * the file (see verify.c).
 */
#include "verify-state.h"
#include "quote.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	const char *name = fmt->sink.kind == SINK_GZIP ||
			   fmt->sink.kind == SINK_ZLIB ? fmt->name
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
		if (fmt->sink.kind != SINK_ZLIB)
			ga_buf_printf(b, " -c tar.%s.command='git archive "
				      "gzip'", name);
		break;
	case RECOMPRESS_PROGRAM:
		if (fmt->sink.kind != SINK_GZIP)
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
	char hex[GA_OID_MAX_HEXSZ + 1];
	struct ga_buf paths = GA_BUF_INIT;
	size_t i;

	ga_oid_fmt(hex, p->tree_id);
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
		char *q = verify_quote_path(v->gz->name, strlen(v->gz->name));
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

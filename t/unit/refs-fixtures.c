/*
 * refs-fixtures.c: the ref store on repositories made by git 2.47
 * (t/fixtures/reftable.tar.gz, made by make-reftable-fixtures.sh on
 * Debian 13), against what that git said of them: show-ref,
 * for-each-ref, symbolic-ref HEAD, the reflogs with their dates, and
 * rev-parse of names, "<ref>@{<n>}" and worktree refs, in SHA-1 and
 * SHA-256 repositories, reftable (auto-compacted, packed, a stack of
 * one table a transaction, 256-byte blocks) and files, each from its
 * main worktree and from a linked one.  No newer git is needed.
 */
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "garchive/common.h"
#include "gitscratch.h"
#include "refs/refs.h"

static const char *const repos[] = {
	"sha1-reftable-auto", "sha1-reftable-packed", "sha1-reftable-stack",
	"sha1-reftable-small", "sha1-files",
	"sha256-reftable-auto", "sha256-reftable-packed",
	"sha256-reftable-stack", "sha256-reftable-small", "sha256-files"
};

/* The warnings the store gave (git's "warning: " lines), in order. */
static struct ga_buf warnings = GA_BUF_INIT;

static void catch_report(enum ga_report_kind kind, const char *msg,
			 void *payload)
{
	(void)payload;
	if (kind == GA_REPORT_WARNING)
		ga_buf_printf(&warnings, "warning: %s;", msg);
}

/* A test name made of parts (tap.h's names are plain strings). */
static const char *name_of(const char *fmt, ...)
{
	static char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return buf;
}

static char *slurp(const char *fmt, ...)
{
	struct ga_buf buf = GA_BUF_INIT;
	va_list ap;
	char *path;

	va_start(ap, fmt);
	path = scratch_vfmt(fmt, ap);
	va_end(ap);
	if (ga_buf_read_file(&buf, path) < 0)
		ga_buf_puts(&buf, "(missing)");
	free(path);
	return ga_buf_detach(&buf, NULL);
}

struct out {
	struct ga_buf buf;
	int with_peeled;
	struct refs_store *refs;
	int looked_up, differ;
};

/*
 * Each ref again by name (a seek in every table, through the indexes):
 * the same id, and the same peeled value.
 */
static void look_up(struct out *o, const struct refs_entry *e)
{
	struct ga_oid oid, peeled;
	unsigned flags;
	int ret;

	o->looked_up++;
	ret = refs_resolve(NULL, &oid, &flags, o->refs, e->name,
			   REFS_RESOLVE_READING);
	if (ret || !ga_oid_equal(&oid, &e->oid) ||
	    (flags & REFS_ISSYMREF) != (e->flags & REFS_ISSYMREF))
		o->differ++;
	ret = refs_read_peeled(&peeled, o->refs, e->name);
	if ((e->flags & REFS_PEELED) ? ret || !ga_oid_equal(&peeled, &e->peeled)
				     : ret != GA_ENOTFOUND)
		o->differ++;
}

static int show_ref(const struct refs_entry *e, void *payload)
{
	struct out *o = payload;
	char hex[GA_OID_MAX_HEXSZ + 1];

	if (o->with_peeled) {
		look_up(o, e);
		ga_buf_printf(&o->buf, "%s %s\n", ga_oid_fmt(hex, &e->oid),
			      e->name);
		if ((e->flags & REFS_PEELED) && !ga_oid_is_null(&e->peeled))
			ga_buf_printf(&o->buf, "%s %s^{}\n",
				      ga_oid_fmt(hex, &e->peeled), e->name);
	} else {
		ga_buf_printf(&o->buf, "%s %s %s\n", e->name,
			      ga_oid_fmt(hex, &e->oid),
			      e->target ? e->target : "");
	}
	return 0;
}

static void check_refs(struct refs_store *refs, const char *expect,
		       const char *what)
{
	struct out o = { GA_BUF_INIT, 1, refs, 0, 0 };
	char hex[GA_OID_MAX_HEXSZ + 1];
	struct ga_oid oid;
	char *want;

	if (!refs_resolve(NULL, &oid, NULL, refs, "HEAD",
			  REFS_RESOLVE_READING))
		ga_buf_printf(&o.buf, "%s HEAD\n", ga_oid_fmt(hex, &oid));
	ok(!refs_for_each(refs, "", 0, show_ref, &o), "%s: iterate", what);
	want = slurp("%s/show-ref", expect);
	is_str(ga_buf_str(&o.buf, 0), want,
	       name_of("%s: git show-ref --head -d", what));
	free(want);
	ok(o.looked_up > 10 && !o.differ, "%s: %d refs read again by name, "
	   "peeled values too: %d differ", what, o.looked_up, o.differ);
	ga_buf_setlen(&o.buf, 0);
	o.with_peeled = 0;
	refs_for_each(refs, "", 0, show_ref, &o);
	want = slurp("%s/for-each-ref", expect);
	is_str(ga_buf_str(&o.buf, 0), want,
	       name_of("%s: git for-each-ref", what));
	free(want);
	ga_buf_release(&o.buf);
}

static void check_symref(struct refs_store *refs, const char *expect,
			 const char *what)
{
	struct ga_buf target = GA_BUF_INIT, raw = GA_BUF_INIT;
	char *want = slurp("%s/symref", expect);
	struct ga_oid oid;
	unsigned flags;

	ok(!refs_read_symref(&target, refs, "HEAD"), "%s: HEAD is symbolic",
	   what);
	ok(!refs_read_raw(&oid, &raw, &flags, refs, "HEAD") &&
	   (flags & REFS_ISSYMREF) && !strcmp(raw.ptr, target.ptr),
	   "%s: HEAD read one level", what);
	ok(refs_read_symref(&raw, refs, "refs/heads/main") == GA_ENOTFOUND,
	   "%s: a branch is not symbolic", what);
	ga_buf_release(&raw);
	ga_buf_putc(&target, '\n');
	is_str(ga_buf_str(&target, 0), want,
	       name_of("%s: git symbolic-ref HEAD", what));
	free(want);
	ga_buf_release(&target);
}

struct log_out {
	struct ga_buf buf;
	const char *ref;
	struct ga_oid prev_old;
	int chained, n;
};

static int show_log(const struct refs_reflog_entry *e, void *payload)
{
	struct log_out *lo = payload;
	char hex[GA_OID_MAX_HEXSZ + 1];
	size_t len = strcspn(e->message, "\n");

	/* Each entry starts where the one before (older) ends. */
	if (lo->n++ && !ga_oid_equal(&lo->prev_old, &e->new_oid))
		lo->chained = 0;
	lo->prev_old = e->old_oid;
	ga_buf_printf(&lo->buf, "%s@{%llu %+05d}\t%s\t%s\t%.*s\n", lo->ref,
		      (unsigned long long)e->timestamp, e->tz,
		      ga_oid_fmt(hex, &e->new_oid), e->who, (int)len,
		      e->message);
	return 0;
}

static void check_reflogs(struct refs_store *refs, const char *expect,
			  const char *list, const char *what)
{
	char *refs_list = ga_xstrdup(list), *ref, *save = NULL;

	for (ref = strtok_r(refs_list, " ", &save); ref;
	     ref = strtok_r(NULL, " ", &save)) {
		struct log_out lo = { GA_BUF_INIT, ref, { { 0 }, 0 }, 1, 0 };
		char *file = ga_xstrdup(ref), *p, *want;

		for (p = file; *p; p++)
			if (*p == '/')
				*p = '_';
		want = slurp("%s/reflog.%s", expect, file);
		ok(!refs_for_each_reflog(refs, ref, 1, show_log, &lo),
		   "%s: reflog of %s", what, ref);
		is_str(ga_buf_str(&lo.buf, 0), want,
		       name_of("%s: git reflog show %s", what, ref));
		ok(refs_reflog_exists(refs, ref) == 1, "it exists");
		/*
		 * The old ids chain the entries, the first from nothing
		 * (an entry of feature's was deleted: a gap).
		 */
		if (strcmp(ref, "refs/heads/feature"))
			ok(lo.chained && ga_oid_is_null(&lo.prev_old),
			   "old ids chain the entries of %s", ref);
		free(want);
		free(file);
		ga_buf_release(&lo.buf);
	}
	free(refs_list);
}

/*
 * What git's get_oid_basic() makes of "<name>" and "<name>@{<n>}", with
 * the store's answers: the id, or the words git would say.
 */
static void eval(struct ga_buf *out, struct refs_store *refs,
		 const char *expr)
{
	char hex[GA_OID_MAX_HEXSZ + 1];
	const char *at = strstr(expr, "@{");
	struct ga_oid oid;
	char *name = NULL;
	int found;

	ga_buf_setlen(&warnings, 0);
	if (!at) {
		found = refs_dwim_ref(&name, &oid, refs, expr, strlen(expr), 1);
		if (found > 0)
			ga_buf_puts(out, ga_oid_fmt(hex, &oid));
		else
			ga_buf_printf(out, "fatal: ambiguous argument '%s': "
				      "unknown revision or path not in the "
				      "working tree.;%s", expr,
				      ga_buf_str(&warnings, 0));
	} else {
		struct refs_ref_at info = { 0 };
		int n = atoi(at + 2), ret;

		found = refs_dwim_log(&name, &oid, refs, expr,
				      (size_t)(at - expr), 1);
		ret = found > 0 ?
		      refs_read_ref_at(&oid, &info, refs, name, 0, n) : -1;
		if (!ret || (ret == 1 && n == info.cutoff_cnt &&
			     !ga_oid_is_null(&oid)))
			ga_buf_puts(out, ga_oid_fmt(hex, &oid));
		else if (ret == 1)
			ga_buf_printf(out, "fatal: log for '%.*s' only has %d "
				      "entries;", (int)(at - expr), expr,
				      info.cutoff_cnt);
		else
			ga_buf_printf(out, "(no reflog: %s)",
				      ga_error_message());
		refs_ref_at_release(&info);
	}
	free(name);
}

static void check_rev_parse(struct refs_store *refs, const char *expect,
			    const char *what)
{
	char *want = slurp("%s/rev-parse", expect), *line, *save = NULL;
	struct ga_buf got = GA_BUF_INIT, all = GA_BUF_INIT;

	for (line = strtok_r(want, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab = '\0';
		ga_buf_setlen(&got, 0);
		eval(&got, refs, line);
		/* git prints its fatal line before the warnings, sorted. */
		if (!strcmp(line, "dangling"))
			is_str(ga_buf_str(&got, 0),
			       "fatal: ambiguous argument 'dangling': unknown "
			       "revision or path not in the working tree.;"
			       "warning: ignoring dangling symref "
			       "refs/heads/dangling;",
			       name_of("%s: dangling symref", what));
		ga_buf_printf(&all, "%s\t%s\n", line,
			      ga_buf_str(&got, 0));
		*tab = '\t';
	}
	free(want);
	want = slurp("%s/rev-parse", expect);
	is_str(ga_buf_str(&all, 0), want, name_of("%s: git rev-parse", what));
	free(want);
	ga_buf_release(&got);
	ga_buf_release(&all);
}

static void check_repo(const char *top, const char *name)
{
	char *meta = slurp("%s/%s/meta", top, name);
	enum ga_hash_algo algo = strstr(meta, "hash sha256") ?
				 GA_HASH_SHA256 : GA_HASH_SHA1;
	enum refs_storage storage = strstr(meta, "storage reftable") ?
				    REFS_STORAGE_REFTABLE : REFS_STORAGE_FILES;
	char *git_dir = ga_xstrfmt("%s/%s/repo/.git", top, name);
	char *wt_dir = ga_xstrfmt("%s/worktrees/wt", git_dir);
	char *expect = ga_xstrfmt("%s/%s/expect/main", top, name);
	char *what = ga_xstrfmt("%s (main)", name);
	struct refs_store *refs;

	ok(!refs_open(&refs, git_dir, git_dir, algo, storage), "%s: open",
	   name);
	check_refs(refs, expect, what);
	check_symref(refs, expect, what);
	check_reflogs(refs, expect, "HEAD refs/heads/main refs/heads/feature "
		      "refs/remotes/origin/main", what);
	check_rev_parse(refs, expect, what);
	refs_free(refs);

	free(expect);
	free(what);
	expect = ga_xstrfmt("%s/%s/expect/wt", top, name);
	what = ga_xstrfmt("%s (worktree)", name);
	ok(!refs_open(&refs, wt_dir, git_dir, algo, storage), "%s: open",
	   what);
	check_refs(refs, expect, what);
	check_symref(refs, expect, what);
	check_reflogs(refs, expect, "HEAD refs/heads/wt-branch", what);
	check_rev_parse(refs, expect, what);
	refs_free(refs);

	free(meta);
	free(git_dir);
	free(wt_dir);
	free(expect);
	free(what);
}

static const char *find_fixtures(void)
{
	static const char *const where[] = {
		"t/fixtures/reftable.tar.gz", "../fixtures/reftable.tar.gz",
		"fixtures/reftable.tar.gz"
	};
	size_t i;

	for (i = 0; i < sizeof(where) / sizeof(*where); i++)
		if (!access(where[i], R_OK))
			return where[i];
	return NULL;
}

int main(void)
{
	const char *tarball = find_fixtures();
	char top[] = "/tmp/ga-refs-fixtures-XXXXXX";
	size_t i;

	if (!tarball) {
		printf("1..0 # SKIP t/fixtures/reftable.tar.gz not found\n");
		return 0;
	}
	if (!mkdtemp(top))
		abort();
	ga_set_report_handler(catch_report, NULL);
	ok(!scratch_sh("tar -C %s -xzf %s", top, tarball),
	   "the fixtures unpack");
	for (i = 0; i < sizeof(repos) / sizeof(*repos); i++)
		check_repo(top, repos[i]);
	if (!tap_failed && !getenv("GARCHIVE_TEST_KEEP"))
		scratch_sh("rm -rf %s", top);
	else
		diag("fixtures kept in %s", top);
	ga_buf_release(&warnings);
	return tap_done();
}

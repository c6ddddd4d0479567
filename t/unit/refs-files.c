/*
 * refs-files.c: the ref store's name rules and its files format on
 * hand-made input: ref names as git's check_refname_format() and
 * parse_worktree_ref() judge them, loose ref files (symbolic refs,
 * links, FETCH_HEAD's extra text, directories, FIFOs, files too large),
 * reflog lines read forwards and backwards, and packed-refs files
 * (sorted or not, peeled, damaged) against what the system git makes
 * of the same files: the same ids, or the same fatal message.
 */
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "garchive/common.h"
#include "gitscratch.h"
#include "refs/files.h"
#include "refs/packed.h"
#include "refs/refs.h"

static void test_names(void)
{
	static const char *const good[] = {
		"refs/heads/main", "refs/tags/v1.0", "refs/heads/a-b/c_d",
		"refs/heads/\xc3\xa9t\xc3\xa9", "refs/heads/@", "refs/x@y"
	};
	static const char *const bad[] = {
		"refs/heads/.hidden", "refs/heads/a..b", "refs/heads/x.lock",
		"refs/heads/", "refs//heads", "refs/heads/a@{1}", "@",
		"refs/heads/a b", "refs/heads/a~1", "refs/heads/a^",
		"refs/heads/a:b", "refs/heads/a?", "refs/heads/a[b",
		"refs/heads/a\\b", "refs/heads/a*", "refs/heads/end.",
		"refs/heads/tab\there", "refs/heads/del\x7f", "/refs/heads/x",
		"refs/heads/x.lock/y", ""
	};
	const char *wt, *bare;
	size_t i, wt_len;

	for (i = 0; i < sizeof(good) / sizeof(*good); i++)
		ok(!refs_check_name(good[i], 0), "valid name %s", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ok(refs_check_name(bad[i], REFS_NAME_ALLOW_ONELEVEL),
		   "invalid name '%s'", bad[i]);
	ok(refs_check_name("HEAD", 0) &&
	   !refs_check_name("HEAD", REFS_NAME_ALLOW_ONELEVEL),
	   "one level only when allowed");
	ok(!refs_check_name("refs/heads/*", REFS_NAME_REFSPEC_PATTERN) &&
	   refs_check_name("refs/*/a*", REFS_NAME_REFSPEC_PATTERN),
	   "one '*' in a refspec pattern");

	ok(refname_is_safe("refs/heads/x") && refname_is_safe("HEAD") &&
	   refname_is_safe("FETCH_HEAD") && !refname_is_safe("head") &&
	   !refname_is_safe("refs/../x") && !refname_is_safe("refs/") &&
	   !refname_is_safe("refs/x/"), "safe names as git's");
	ok(refname_is_root("HEAD") && refname_is_root("ORIG_HEAD") &&
	   refname_is_root("BISECT_EXPECTED_REV") &&
	   !refname_is_root("FETCH_HEAD") && !refname_is_root("FOO") &&
	   !refname_is_root("refs/heads/HEAD"), "root refs as git's");

	ok(refname_worktree("HEAD", &wt, &wt_len, &bare) ==
	   REFNAME_WORKTREE_CURRENT && !strcmp(bare, "HEAD"), "HEAD is ours");
	ok(refname_worktree("refs/bisect/bad", &wt, &wt_len, &bare) ==
	   REFNAME_WORKTREE_CURRENT, "refs/bisect/ is ours");
	ok(refname_worktree("refs/heads/x", &wt, &wt_len, &bare) ==
	   REFNAME_WORKTREE_SHARED, "branches are shared");
	ok(refname_worktree("main-worktree/HEAD", &wt, &wt_len, &bare) ==
	   REFNAME_WORKTREE_MAIN && !strcmp(bare, "HEAD"),
	   "main-worktree/HEAD");
	ok(refname_worktree("worktrees/wt1/refs/worktree/a", &wt, &wt_len,
			    &bare) == REFNAME_WORKTREE_OTHER &&
	   wt_len == 3 && !strncmp(wt, "wt1", 3) &&
	   !strcmp(bare, "refs/worktree/a"), "worktrees/<id>/<ref>");
	ok(refname_worktree("worktrees/wt1/refs/heads/x", &wt, &wt_len,
			    &bare) == REFNAME_WORKTREE_SHARED &&
	   !strcmp(bare, "worktrees/wt1/refs/heads/x"),
	   "worktrees/<id>/<shared ref> is a plain name");
	ok(refname_worktree("main-worktree/refs/heads/x", &wt, &wt_len,
			    &bare) == REFNAME_WORKTREE_SHARED,
	   "main-worktree/<shared ref> is a plain name");
}

#define HEX1 "1111111111111111111111111111111111111111"
#define HEX2 "2222222222222222222222222222222222222222"

static void test_loose_parse(void)
{
	struct refs_raw raw;
	char hex[GA_OID_MAX_HEXSZ + 1];
	struct {
		const char *text;
		int err, symref;
		const char *want;
	} cases[] = {
		{ "ref: refs/heads/main", 0, 1, "refs/heads/main" },
		{ "ref:refs/heads/x", 0, 1, "refs/heads/x" },
		{ "ref: \t refs/heads/y", 0, 1, "refs/heads/y" },
		{ HEX1, 0, 0, HEX1 },
		{ HEX1 "\tbranch 'x' of somewhere", 0, 0, HEX1 },
		{ "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 0, 0,
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" },
		{ HEX1 "x", EINVAL, 0, NULL },
		{ "111111111111111111111111111111111111111", EINVAL, 0, NULL },
		{ "", EINVAL, 0, NULL },
		{ "refs: refs/heads/x", EINVAL, 0, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		int err;

		memset(&raw, 0, sizeof(raw));
		err = files_parse_ref(&raw, cases[i].text,
				      strlen(cases[i].text), GA_HASH_SHA1);
		if (cases[i].err)
			ok(err == cases[i].err && (raw.flags & REFS_ISBROKEN),
			   "'%s' is not a ref", cases[i].text);
		else if (cases[i].symref)
			ok(!err && (raw.flags & REFS_ISSYMREF) &&
			   !strcmp(raw.target.ptr, cases[i].want),
			   "'%s' is a symbolic ref", cases[i].text);
		else
			ok(!err && !(raw.flags & REFS_ISSYMREF) &&
			   !strcmp(ga_oid_fmt(hex, &raw.oid), cases[i].want),
			   "'%s' is an id", cases[i].text);
		refs_raw_release(&raw);
	}
	memset(&raw, 0, sizeof(raw));
	ok(files_parse_ref(&raw, HEX1, 40, GA_HASH_SHA256) == EINVAL,
	   "40 digits are no SHA-256 id");
	refs_raw_release(&raw);
}

static void write_file(const char *path, const char *data, size_t len)
{
	if (scratch_write(path, data, len))
		abort();
}

static void test_loose_files(const char *dir)
{
	struct refs_raw raw;
	char *path = ga_xstrfmt("%s/ref", dir), *big;
	int err;

	memset(&raw, 0, sizeof(raw));
	write_file(path, HEX2 "\n\n  \n", 44);
	ok(!files_read_ref(&raw, path, GA_HASH_SHA1), "an id with blanks");
	ok(files_read_ref(&raw, "/nonexistent/x", GA_HASH_SHA1) == ENOENT,
	   "a missing file");
	ok(files_read_ref(&raw, dir, GA_HASH_SHA1) == EISDIR,
	   "a directory");
	unlink(path);
	ok(!symlink("refs/heads/target", path) &&
	   !files_read_ref(&raw, path, GA_HASH_SHA1) &&
	   (raw.flags & REFS_ISSYMREF) &&
	   !strcmp(raw.target.ptr, "refs/heads/target"),
	   "a link to refs/... is a symbolic ref");
	unlink(path);
	ok(!mkfifo(path, 0600) &&
	   files_read_ref(&raw, path, GA_HASH_SHA1) == EINVAL,
	   "a FIFO is no ref (and no wait)");
	unlink(path);

	/* Past FILES_REF_MAX: an id still reads, a target would be cut. */
	big = ga_xmalloc(FILES_REF_MAX + 100);
	memset(big, ' ', FILES_REF_MAX + 100);
	memcpy(big, HEX1 "\n", 41);
	write_file(path, big, FILES_REF_MAX + 100);
	ok(!files_read_ref(&raw, path, GA_HASH_SHA1), "a long file's id");
	memcpy(big, "ref: refs/heads/x", 17);
	memset(big + 17, 'x', FILES_REF_MAX + 83);
	write_file(path, big, FILES_REF_MAX + 100);
	err = files_read_ref(&raw, path, GA_HASH_SHA1);
	ok(err == EINVAL && (raw.flags & REFS_ISBROKEN),
	   "a target too long to read is no ref");
	write_file(path, "ref: refs/heads/x\n", 18);
	ok(files_read_special(&raw, path, GA_HASH_SHA1) == 0 &&
	   !strcmp(raw.target.ptr, "refs/heads/x\n"),
	   "FETCH_HEAD and MERGE_HEAD are not trimmed (as git 2.45+)");
	free(big);
	unlink(path);
	free(path);
	refs_raw_release(&raw);
}

static void test_reflog_line(void)
{
	static const struct {
		const char *rest;	/* after "<old> <new> " */
		enum ga_hash_algo algo;
		int parses;
		const char *what;
	} bad[] = {
		{ "A <a> 0 +0000\tx\n", GA_HASH_SHA1, 0,
		  "time 0 is no entry (as git)" },
		{ "A <a> 5 0000\tx\n", GA_HASH_SHA1, 0, "a zone without sign" },
		{ "A a 5 +0000\tx\n", GA_HASH_SHA1, 0, "no '>'" },
		{ "A <a> 5 +0000\tx", GA_HASH_SHA1, 0, "no LF" },
		{ "A <a> 5 +0000\tx\n", GA_HASH_SHA256, 0,
		  "SHA-1 ids in a SHA-256 reflog" },
	};
	char line[512];
	struct refs_reflog_entry e;
	size_t i;

	snprintf(line, sizeof(line), "%s %s A U Thor <a@b.c> 1112911993 "
		 "-0700\tcommit: one\n", HEX1, HEX2);
	ok(files_parse_reflog_line(&e, line, strlen(line), GA_HASH_SHA1) &&
	   !strcmp(e.who, "A U Thor <a@b.c>") &&
	   e.timestamp == 1112911993 && e.tz == -700 &&
	   !strcmp(e.message, "commit: one\n"), "a reflog line");
	snprintf(line, sizeof(line), "%s %s A <a> 5 +0130\n", HEX1, HEX2);
	ok(files_parse_reflog_line(&e, line, strlen(line), GA_HASH_SHA1) &&
	   e.tz == 130 && !strcmp(e.message, "\n"), "no message");
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(line, sizeof(line), "%s %s %s", HEX1, HEX2,
			 bad[i].rest);
		ok(files_parse_reflog_line(&e, line, strlen(line),
					   bad[i].algo) == bad[i].parses,
		   "%s", bad[i].what);
	}
}

struct collect {
	struct ga_buf buf;
	int stop_after;
	int n;
};

static int collect(const struct refs_reflog_entry *e, void *payload)
{
	struct collect *c = payload;
	char a[GA_OID_MAX_HEXSZ + 1], b[GA_OID_MAX_HEXSZ + 1];

	ga_buf_printf(&c->buf, "%s %s %s %llu %d %s",
		      ga_oid_fmt(a, &e->old_oid), ga_oid_fmt(b, &e->new_oid),
		      e->who, (unsigned long long)e->timestamp, e->tz,
		      e->message);
	return ++c->n == c->stop_after ? 42 : 0;
}

/* Entries in the other order: split at LF, reverse. */
static char *reversed(const char *s)
{
	struct ga_buf out = GA_BUF_INIT;
	const char *end = s + strlen(s);

	while (end > s) {
		const char *start = end - 1;

		while (start > s && start[-1] != '\n')
			start--;
		ga_buf_put(&out, start, (size_t)(end - start));
		end = start;
	}
	return ga_buf_detach(&out, NULL);
}

static void test_reflog_file(const char *dir)
{
	char *path = ga_xstrfmt("%s/log", dir), *rev;
	struct ga_buf file = GA_BUF_INIT;
	struct collect fwd = { GA_BUF_INIT, 0, 0 };
	struct collect back = { GA_BUF_INIT, 0, 0 };
	int i;

	/* Good lines, junk, a line over the limit, lines across chunks. */
	ga_buf_puts(&file, "junk\n\n");
	for (i = 0; i < 3000; i++)
		ga_buf_printf(&file, "%s %s Some One <s@o> %d +0100\t"
			      "entry %d %0*d\n", i % 2 ? HEX1 : HEX2,
			      i % 2 ? HEX2 : HEX1, 1000 + i, i, i % 50, 0);
	ga_buf_printf(&file, "%s %s X <x> 7 +0000\t", HEX1, HEX2);
	ga_buf_addchars(&file, 'm', FILES_REFLOG_LINE_MAX);
	ga_buf_puts(&file, "\n");
	ga_buf_printf(&file, "%s %s Last <l> 9 -0000\tlast\n", HEX1, HEX2);
	ga_buf_printf(&file, "%s %s Cut <c> 9 -0000\tno LF", HEX1, HEX2);
	write_file(path, file.ptr, file.len);

	ok(!files_reflog_each(path, "HEAD", GA_HASH_SHA1, 0, collect, &fwd),
	   "a reflog oldest first");
	ok(fwd.n == 3001, "every good line, no junk, no overlong line "
	   "(%d)", fwd.n);
	ok(!files_reflog_each(path, "HEAD", GA_HASH_SHA1, 1, collect, &back),
	   "newest first");
	rev = reversed(ga_buf_str(&back.buf, 0));
	ok(back.n == fwd.n && !strcmp(rev, ga_buf_str(&fwd.buf, 0)),
	   "the same entries backwards");
	free(rev);

	ga_buf_setlen(&back.buf, 0);
	back.n = 0;
	back.stop_after = 2;
	ok(files_reflog_each(path, "HEAD", GA_HASH_SHA1, 1, collect,
			     &back) == 42 && back.n == 2,
	   "the callback stops the walk with its value");
	ok(files_reflog_each("/nonexistent", "HEAD", GA_HASH_SHA1, 1,
			     collect, &back) == GA_ENOTFOUND, "no file");

	write_file(path, "", 0);
	back.n = 0;
	ok(!files_reflog_each(path, "HEAD", GA_HASH_SHA1, 1, collect, &back) &&
	   !back.n, "an empty reflog");
	ga_buf_release(&file);
	ga_buf_release(&fwd.buf);
	ga_buf_release(&back.buf);
	unlink(path);
	free(path);
}

static int show(const struct refs_entry *e, void *payload)
{
	struct ga_buf *out = payload;
	char hex[GA_OID_MAX_HEXSZ + 1];

	ga_buf_printf(out, "%s %s\n", ga_oid_fmt(hex, &e->oid), e->name);
	return 0;
}

/*
 * Write `content` (with "H" standing for the id of HEAD) as packed-refs
 * of the repository in the cwd, then compare the store with git: the id
 * of `ref` (or git's fatal message), and the list of refs.
 */
static void packed_vs_git(const char *content, const char *ref,
			  const char *head, const char *what)
{
	struct ga_buf file = GA_BUF_INIT, mine = GA_BUF_INIT;
	struct refs_store *refs;
	char hex[GA_OID_MAX_HEXSZ + 1], *git_out;
	struct ga_oid oid;
	const char *p;
	int status, ret;

	for (p = content; *p; p++)
		if (*p == 'H')
			ga_buf_puts(&file, head);
		else
			ga_buf_putc(&file, *p);
	write_file(".git/packed-refs", file.ptr, file.len);
	refs_open(&refs, ".git", ".git", GA_HASH_SHA1, REFS_STORAGE_FILES);

	git_out = scratch_out(NULL, &status, "git rev-parse --verify %s 2>&1",
			      ref);
	ret = refs_resolve(NULL, &oid, NULL, refs, ref, REFS_RESOLVE_READING);
	if (!ret)
		ga_buf_printf(&mine, "%s\n", ga_oid_fmt(hex, &oid));
	else if (ret == GA_ENOTFOUND)
		ga_buf_puts(&mine, "fatal: Needed a single revision\n");
	else
		ga_buf_printf(&mine, "fatal: %s\n", ga_error_message());
	if (!ok(!strcmp(mine.ptr, git_out), "%s: rev-parse %s", what, ref))
		diag("got %s, want %s", mine.ptr, git_out);
	free(git_out);

	ga_buf_setlen(&mine, 0);
	refs_refresh(refs);
	git_out = scratch_out(NULL, &status, "git for-each-ref "
			      "--format='%%(objectname) %%(refname)' 2>&1");
	ret = refs_for_each(refs, "", 0, show, &mine);
	if (ret < 0)
		ga_buf_printf(&mine, "fatal: %s\n", ga_error_message());
	if (!ok(!strcmp(ga_buf_str(&mine, 0), git_out), "%s: for-each-ref",
		what))
		diag("got %s, want %s", ga_buf_str(&mine, 0), git_out);
	free(git_out);
	refs_free(refs);
	ga_buf_release(&mine);
	ga_buf_release(&file);
}

static void test_packed_vs_git(const char *dir)
{
	static const char sorted[] = "# pack-refs with: peeled fully-peeled "
				     "sorted \n";
	char *head, *repo = ga_xstrfmt("%s/repo", dir);

	if (scratch_sh("git init -q %s && cd %s && git commit -q "
		       "--allow-empty -m one", repo, repo)) {
		ok(0, "a repository for packed-refs tests");
		free(repo);
		return;
	}
	if (chdir(repo))
		abort();
	head = scratch_out(NULL, NULL, "git rev-parse HEAD");
	head[strcspn(head, "\n")] = '\0';
	packed_vs_git("# pack-refs with: peeled fully-peeled sorted \n"
		      "H refs/heads/a\nH refs/tags/t\n^H\n", "refs/tags/t",
		      head, "a sorted file");
	packed_vs_git("H refs/heads/b\nH refs/heads/a\nH refs/heads/c\n",
		      "refs/heads/a", head, "an unsorted file");
	packed_vs_git("H refs/heads/a\nH refs/heads/b", "refs/heads/a", head,
		      "an unterminated last line");
	packed_vs_git("# bogus\nH refs/heads/a\n", "refs/heads/a", head,
		      "a bad header");
	packed_vs_git("# pack-refs with: sorted", "refs/heads/a", head,
		      "a header without LF");
	packed_vs_git("H refs/heads/b\nshort\nH refs/heads/a\n",
		      "refs/heads/a", head, "a short line, unsorted");
	packed_vs_git("H refs/heads/a\nH refs/heads/b\nbogus line\n",
		      "refs/heads/a", head, "a short last line");
	packed_vs_git("# pack-refs with: sorted\nH refs/heads/a\n^H\n^H\n"
		      "H refs/heads/b\n", "refs/heads/b", head,
		      "two peeled lines");
	packed_vs_git("# pack-refs with: sorted\nH refs/heads/a\n^abc\n",
		      "refs/heads/a", head, "a short peeled line");
	packed_vs_git("# pack-refs with: sorted\nH refs/heads/a\n"
		      "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz refs/heads/b\n",
		      "refs/heads/b", head, "an id that is not hex");
	packed_vs_git("# pack-refs with: sorted\nH refs/heads/../../x\n"
		      "H refs/heads/a\n", "refs/heads/a", head,
		      "a dangerous name");
	packed_vs_git(sorted, "refs/heads/a", head, "only a header");
	if (chdir(dir))
		abort();
	free(head);
	free(repo);
}

static void test_packed_parse(void)
{
	static const char text[] =
		"# pack-refs with: peeled fully-peeled \n"
		HEX1 " refs/tags/b\n^" HEX2 "\n"
		HEX2 " refs/heads/a\n";
	struct packed_refs p;
	struct refs_raw raw;
	char hex[GA_OID_MAX_HEXSZ + 1];

	memset(&raw, 0, sizeof(raw));
	ok(!packed_parse(&p, ga_xstrdup(text), sizeof(text) - 1, "pr",
			 GA_HASH_SHA1), "an unsorted, peeled file");
	ok(p.nr == 2 && p.peeled == PACKED_PEELED_FULLY, "two records");
	ok(!packed_record(&raw, &p, 0) && !strcmp(raw.name.ptr, "refs/heads/a")
	   && (raw.flags & REFS_PEELED) && ga_oid_is_null(&raw.peeled),
	   "fully peeled: a branch is known not to be a tag");
	ok(!packed_record(&raw, &p, 1) && !strcmp(raw.name.ptr, "refs/tags/b")
	   && (raw.flags & REFS_PEELED) &&
	   !strcmp(ga_oid_fmt(hex, &raw.peeled), HEX2), "a peeled tag");
	ok(packed_read(&raw, &p, "refs/heads/z") == GA_ENOTFOUND &&
	   !packed_read(&raw, &p, "refs/tags/b") &&
	   !strcmp(ga_oid_fmt(hex, &raw.oid), HEX1), "look-ups");
	packed_release(&p);
	ok(!packed_parse(&p, ga_xstrdup(""), 0, "pr", GA_HASH_SHA1) &&
	   !p.nr, "an empty file");
	packed_release(&p);
	refs_raw_release(&raw);
}

int main(void)
{
	char *dir = scratch_init("refs-files");

	test_names();
	test_loose_parse();
	test_reflog_line();
	test_packed_parse();
	if (!dir) {
		ok(1, "# SKIP git not found: no files, no comparisons");
		return tap_done();
	}
	test_loose_files(dir);
	test_reflog_file(dir);
	test_packed_vs_git(dir);
	scratch_done(dir);
	return tap_done();
}

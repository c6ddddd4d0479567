/*
 * subst.c: export-subst expansion against git 2.39.5 itself.
 *
 * Every check builds files marked export-subst in scratch repositories,
 * archives them with the system `git archive`, and compares the
 * extracted bytes with subst_expand() over the same blobs.  Time-
 * dependent placeholders are pinned with GIT_TEST_DATE_NOW, which git
 * and garchive both honour.
 */
#include "gitscratch.h"
#include "tap.h"

#include "commit.h"
#include "odb/odb.h"
#include "subst.h"
#include "garchive/common.h"
#include "garchive/config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

static char scratch[PATH_MAX];

/* Run a shell command in the scratch directory; its exit status. */
__attribute__((format(printf, 1, 2)))
static int sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd, *full;
	int rc;

	va_start(ap, fmt);
	cmd = scratch_vfmt(fmt, ap);
	va_end(ap);
	full = scratch_fmt("cd '%s' && { %s\n} >/dev/null 2>&1", scratch, cmd);
	rc = system(full);
	if (rc != 0)
		diag("command failed (%d): %s", rc, cmd);
	free(cmd);
	free(full);
	return rc;
}

/* The stdout of a shell command, NUL-safe. */
__attribute__((format(printf, 2, 3)))
static char *sh_out(size_t *len, const char *fmt, ...)
{
	va_list ap;
	char *cmd, *buf;

	va_start(ap, fmt);
	cmd = scratch_vfmt(fmt, ap);
	va_end(ap);
	buf = scratch_out(len, NULL, "cd '%s' && { %s\n} 2>/dev/null",
			  scratch, cmd);
	free(cmd);
	return buf;
}

static void put(const char *path, const char *data, size_t len)
{
	char *full = malloc(strlen(scratch) + strlen(path) + 2);
	FILE *f;

	if (!full)
		abort();
	sprintf(full, "%s/%s", scratch, path);
	f = fopen(full, "wb");
	if (!f || fwrite(data, 1, len, f) != len)
		diag("cannot write %s", full);
	if (f)
		fclose(f);
	free(full);
}

static void puts_file(const char *path, const char *text)
{
	put(path, text, strlen(text));
}

/*
 * Our expansion of the export-subst files `paths` (space separated, in
 * archive order) of `treeish` in `repo`, concatenated like `tar -xO`.
 * Returns 0, or the error code of subst_new/subst_expand.
 */
static int ours(const char *repo, const char *treeish, const char *paths,
		struct ga_buf *out)
{
	git_repository *r = NULL;
	git_object *obj = NULL, *blob = NULL, *peeled = NULL;
	git_odb *odb = NULL;
	struct ga_commit *commit = NULL;
	struct ga_oid id;
	struct ga_config *cfg = NULL;
	struct subst *s = NULL;
	char *path = malloc(strlen(scratch) + strlen(repo) + 2);
	char *list = strdup(paths), *tok, *save = NULL;
	int error = -1;

	sprintf(path, "%s/%s", scratch, repo);
	if (git_repository_open(&r, path) < 0 ||
	    config_load(&cfg, r, NULL, 0) < 0 ||
	    git_revparse_single(&obj, r, treeish) < 0 ||
	    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0 ||
	    git_repository_odb(&odb, r) < 0) {
		diag("cannot open %s %s", repo, treeish);
		goto done;
	}
	odb_oid_from_git(&id, git_object_id(peeled));
	if ((error = ga_commit_read(&commit, odb, &id)) < 0)
		goto done;
	if ((error = subst_new(&s, r, commit, cfg)) < 0)
		goto done;
	for (tok = strtok_r(list, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char spec[1024];

		snprintf(spec, sizeof(spec), "%s:%s", treeish, tok);
		if (git_revparse_single(&blob, r, spec) < 0) {
			diag("no blob %s", spec);
			error = -1;
			goto done;
		}
		error = subst_expand(out, s, git_blob_rawcontent((git_blob *)blob),
				     (size_t)git_blob_rawsize((git_blob *)blob));
		git_object_free(blob);
		blob = NULL;
		if (error < 0)
			goto done;
	}
done:
	subst_free(s);
	config_free(cfg);
	ga_commit_free(commit);
	git_object_free(peeled);
	git_odb_free(odb);
	git_object_free(obj);
	git_repository_free(r);
	free(path);
	free(list);
	return error;
}

/* Compare git archive with ours for the given files. */
static int check(const char *repo, const char *treeish, const char *paths,
		 const char *name)
{
	struct ga_buf got = GA_BUF_INIT;
	size_t want_len;
	/*
	 * git 2.45 writes %aI and %cI of a zero offset as "Z" (its commit
	 * 69e2bee1a3); 2.39, which garchive follows, writes "+00:00".
	 */
	char *want = sh_out(&want_len,
			    "cd %s && git archive --format=tar %s -- %s | "
			    "tar -xOf - %s", repo, treeish, paths,
			    tap_git_is_2_39() ? "" :
			    "| sed 's/\\(T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\\)Z/\\1+00:00/g'");
	int error = ours(repo, treeish, paths, &got), res;

	if (error < 0) {
		ok(0, "%s", name);
		diag("subst failed (%d): %s", error, ga_error_message());
		res = 0;
	} else {
		res = is_mem(got.ptr ? got.ptr : "", got.len, want, want_len,
			     name);
		if (!res && want_len < 4000) {
			diag("want: %.*s", (int)want_len, want);
			diag("got:  %.*s", (int)got.len, got.ptr ? got.ptr : "");
		}
	}
	free(want);
	ga_buf_release(&got);
	return res;
}

/* Commit the work tree of `repo` with message `msg`. */
static void commit_all(const char *repo, const char *msg)
{
	put("msg.tmp", msg, strlen(msg));
	sh("cd %s && git add -A && git commit -q -F ../msg.tmp", repo);
}

static const char *const placeholders[] = {
	"H=%H h=%h T=%T t=%t P=%P p=%p",
	"an=%an aN=%aN ae=%ae aE=%aE al=%al aL=%aL",
	"ad=%ad aD=%aD at=%at ai=%ai aI=%aI as=%as ar=%ar ah=%ah",
	"cn=%cn cN=%cN ce=%ce cE=%cE cl=%cl cL=%cL",
	"cd=%cd cD=%cD ct=%ct ci=%ci cI=%cI cs=%cs cr=%cr ch=%ch",
	"d=%d D=%D S=%S e=[%e] m=%m N=%N",
	"s=%s f=%f",
	"b=[%b]",
	"B=[%B]",
	"G=%G?|%GG|%GS|%GK|%GF|%GP|%GT|%GX|%G",
	"g=%gD|%gd|%gn|%gN|%ge|%gE|%gs|%gx|%g",
	"lit=%n|%%|%x41%x0a%x7E|%xg1|%x4|%Q|%(foo)|%a|%ax|%aZ|%c|%",
	"magic=[%+s][%-s][% s][%+Q][%-Q][% Q][%+w(5)][%+%][%+x41][% e]",
	"nl\n\n[%-e][%-b]x\n[%+e]",
	"colors=%Cred%Cgreen%Cblue%Creset%Cfoo%C(red)%C(auto)%C(auto,red)"
	"%C(always,red)x%C(always,bold ul #ff8800 brightblue)y"
	"%C(always,reset)%C(always,no-bold 123 45)%C(always,normal)"
	"%C(always, )%C(always)%C(always,dim italic blink reverse strike"
	" nodim no-ul default)%C(always,-1 200)%C(always,9 7)%C(always",
	"wrap=%w(20,2,4)%b%w(0)|%s|%w(12)%s%w(30,-3,1)%s%w(10,1,2)%x41 b%n",
	"wrapbad=%w(20000)%s|%w(x)|%w(5|%w(5,2,3,4)|%w()%s",
	"pad=[%<(10)%h][%>(10)%h][%><(11)%h][%<(5,trunc)%s]"
	"[%<(8,ltrunc)%s][%<(9,mtrunc)%s][%>>(6)%an]",
	"steal=[      %>>(10)%an][ %C(always,red)  %>>(4)%s]",
	"col=abc%<|(20)%h|%>|(30)%an|%<|(-70)x|%<(20000)%h|%<(-5)%h|"
	"%<(0)%h|%<()%h|%<(5,foo)%h|%<(5,)x|%<(7)%%x|%<(7)%Q|"
	"%<(5)%<(8)%h|%<(6)%C(always,red)%h%Creset|%<(6)",
	"lit2=%<(4294967306)%h|%>>(3)%x00%s|%<(3,trunc)%x00abc",
	"tr=[%(trailers)]",
	"tr=[%(trailers:only)][%(trailers:only=no)][%(trailers:unfold)]",
	"tr=[%(trailers:key=Signed-off-by)][%(trailers:key=reviewed-by:)]",
	"tr=[%(trailers:key=Helped-by,unfold,valueonly)]"
	"[%(trailers:keyonly,separator=%x2C)]",
	"tr=[%(trailers:separator=|,key_value_separator=%x3D)]"
	"[%(trailers:only,separator=)][%(trailers:separator)]",
	"tr=[%(trailers:bogus)][%(trailers:only=maybe)][%(trailers:key)]"
	"[%(trailers:only=maybe,unfold)][%(trailersX)][%(trailers:",
	"tr=[%(trailers:only=1,unfold=true,keyonly=off,valueonly=0)]",
	"mixed=%an <%ae> on %ad%n%s%n%n%b",
	"trnum=[%(trailers:only=k)][%(trailers:only=-2147483648)]"
	"[%(trailers:only=2147483647,unfold=0x0)][%(trailers:only=1k)]",
};

static void write_placeholder_file(const char *path)
{
	struct ga_buf b = GA_BUF_INIT;
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(placeholders); i++)
		ga_buf_printf(&b, "%zu: $Format:%s$\n", i, placeholders[i]);
	put(path, b.ptr, b.len);
	ga_buf_release(&b);
}

/* Each placeholder line on its own, so a failure names its family. */
static void write_line_files(const char *repo)
{
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(placeholders); i++) {
		struct ga_buf name = GA_BUF_INIT, body = GA_BUF_INIT;

		ga_buf_printf(&body, "$Format:%s$\n", placeholders[i]);
		ga_buf_printf(&name, "%s/line%02zu.txt", repo, i);
		put(name.ptr, body.ptr, body.len);
		ga_buf_release(&name);
		ga_buf_release(&body);
	}
}

static void setup_main_repo(void)
{
	sh("git init -q r1 && cd r1 && "
	   "echo '* export-subst' >.gitattributes && echo one >one");
	puts_file("r1/.mailmap",
		  "# comment\n"
		  "Proper Name <proper@example.com> <author@example.com>\n"
		  "<Fixed@Example.com> <COMMITTER@example.com>\n"
		  "Other <other@x> Some One <some@one.example>\n"
		  "Nobody <> <nothing@x>\n");
	write_placeholder_file("r1/all.txt");
	write_line_files("r1");
	sh("cd r1 && git add . && "
	   "GIT_AUTHOR_DATE='1500000000 +0200' "
	   "GIT_COMMITTER_DATE='1500000000 +0200' git commit -q -m initial && "
	   "git tag -a v1.0 -m 'version 1' && git tag light && "
	   "git tag -a v0.9-rc -m rc && git tag -a tagtag -m tt v1.0 && "
	   "git branch zz && git branch aa && git branch old && "
	   "echo two >two");
	commit_all("r1",
		   "A rather long subject line that goes on and on, for "
		   "testing truncation...\n"
		   "and continues here\n\n"
		   "Body paragraph one with some words to wrap around nicely\n"
		   "and a second line.\n"
		   "\n"
		   "Another paragraph: not a trailer line\n"
		   "Signed-off-by: A U Thor <author@example.com>\n"
		   "Reviewed-by: Some One <some@one.example>\n"
		   "Helped-by: X <x@y>\n"
		   "  continued value line\n"
		   "Change-Id: I1234\n");
	sh("cd r1 && git tag -a v2.0 -m v2 && git branch feature && "
	   "git update-ref refs/remotes/origin/main HEAD && "
	   "git symbolic-ref refs/remotes/origin/HEAD "
	   "refs/remotes/origin/main && "
	   "git update-ref refs/stash HEAD && "
	   "git update-ref refs/notes/commits HEAD && "
	   "git update-ref refs/custom/x HEAD && "
	   "git tag -a nested -m n v2.0");
}

static void test_placeholders(void)
{
	size_t i;

	check("r1", "HEAD", "all.txt", "every placeholder family in one file");
	for (i = 0; i < GA_ARRAY_SIZE(placeholders); i++) {
		char path[64], name[128];

		snprintf(path, sizeof(path), "line%02zu.txt", i);
		snprintf(name, sizeof(name), "placeholders: %.40s",
			 placeholders[i]);
		check("r1", "HEAD", path, name);
	}
	check("r1", "HEAD~1", ".gitattributes one", "files without $Format");
	check("r1", "v1.0", "all.txt line05.txt line22.txt",
	      "the older commit (tags, branches)");
}

static void test_decorations(void)
{
	sh("cd r1 && git checkout -q --detach HEAD");
	check("r1", "HEAD", "line05.txt", "decorations: detached HEAD");
	sh("cd r1 && git checkout -q feature");
	check("r1", "HEAD", "line05.txt", "decorations: HEAD -> other branch");
	sh("cd r1 && git checkout -q master");
	check("r1", "old", "line05.txt", "decorations: tags, light, branches");
	sh("git clone -q --depth 1 file://$PWD/r1 shallow");
	check("shallow", "HEAD", "line00.txt line05.txt",
	      "shallow clone: grafted, no parents");
}

static void test_relative_dates(void)
{
	static const long offsets[] = {
		0, 1, 45, 89, 90, 3000, 5399, 5400, 7200, 86399, 129600,
		86400 * 3, 86400 * 6, 86400 * 13, 86400 * 20, 86400 * 69,
		86400 * 70, 86400 * 200, 86400 * 364, 86400 * 366,
		86400 * 400, 86400 * 730, 86400 * 1000, 86400 * 1900,
		86400 * 4000, -100, -86400 * 40
	};
	size_t i;
	char now[32], name[64];

	puts_file("r1/rel.txt", "$Format:%ar|%cr|%ah|%ch|%ad$\n");
	sh("cd r1 && git add rel.txt && GIT_AUTHOR_DATE='1546329600 +0530' "
	   "GIT_COMMITTER_DATE='1546329600 +0530' git commit -q -m rel");
	for (i = 0; i < GA_ARRAY_SIZE(offsets); i++) {
		snprintf(now, sizeof(now), "%ld", 1546329600L + offsets[i]);
		setenv("GIT_TEST_DATE_NOW", now, 1);
		snprintf(name, sizeof(name), "relative and human dates, now%+ld",
			 offsets[i]);
		check("r1", "HEAD", "rel.txt", name);
	}
	setenv("TZ", "America/New_York", 1);
	setenv("GIT_TEST_DATE_NOW", "1546400000", 1);
	check("r1", "HEAD", "rel.txt", "human dates in another time zone");
	setenv("TZ", "UTC", 1);
	unsetenv("GIT_TEST_DATE_NOW");
	sh("cd r1 && git reset -q --hard HEAD~1");
}

static void test_describe(void)
{
	static const char *const fmts[] = {
		"%(describe)", "%(describe:tags)", "%(describe:tags=no)",
		"%(describe:abbrev=4)", "%(describe:abbrev=0)",
		"%(describe:match=v0*)", "%(describe:exclude=v2*)",
		"%(describe:match=nothing*)", "%(describe:tags,abbrev=12)",
		"%(describe:foo)", "%(describe:abbrev=x)",
		"%(describe:abbrev=)", "%(describe:tags=maybe)",
		"%(describe:tags=maybe,abbrev=5)", "%(describe:tags,)",
		"%(describeX)", "%(describe", "%(describe:match=v*,exclude=*rc)",
	};
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(fmts); i++) {
		char path[64], body[256];

		snprintf(path, sizeof(path), "r1/desc%02zu.txt", i);
		snprintf(body, sizeof(body),
			 "$Format:%s$|$Format:%%(describe)$|$Format:%s$\n",
			 fmts[i], fmts[i]);
		puts_file(path, body);
	}
	puts_file("r1/descz.txt", "second file: $Format:%(describe:tags)$\n");
	commit_all("r1", "describe tests\n");
	for (i = 0; i < GA_ARRAY_SIZE(fmts); i++) {
		char path[64], name[128];

		snprintf(path, sizeof(path), "desc%02zu.txt", i);
		snprintf(name, sizeof(name), "describe once per archive: %s",
			 fmts[i]);
		check("r1", "HEAD", path, name);
	}
	check("r1", "HEAD", "desc00.txt descz.txt",
	      "describe quota spans files of one archive");
}

static void test_scanning(void)
{
	static const char bin[] = "bin\0ary $Format:%h\0%H$ end\0\n"
				  "$Format:%x00%s$\r\n$Format:$$Format:%n$"
				  "\x80\xff $Format:%an";

	put("r1/scan-bin.bin", bin, sizeof(bin) - 1);
	puts_file("r1/scan-crlf.txt",
		  "line one\r\n$Format:%s%n%b$\r\nline $Format:%an$\r\n");
	puts_file("r1/scan-edge.txt",
		  "$Format:$|$Format:%%$|$$Format$|$Format:|Format:$|"
		  "$Format:%h$$Format:%h$|$Format:%h\n$ dangling $Format:%H");
	puts_file("r1/scan-none.txt", "no placeholders at all\n");
	puts_file("r1/scan-empty.txt", "");
	commit_all("r1", "scanning\n");
	check("r1", "HEAD", "scan-bin.bin", "binary content, NUL in a format");
	check("r1", "HEAD", "scan-crlf.txt", "CRLF content keeps LF from %n");
	check("r1", "HEAD", "scan-edge.txt",
	      "empty, adjacent and dangling $Format:");
	check("r1", "HEAD", "scan-none.txt scan-empty.txt",
	      "no placeholders, empty file");
}

static void test_mailmap(void)
{
	sh("cd r1 && git config mailmap.file ../extra.mailmap && "
	   "printf 'File Name <file@x> <author@example.com>\\n' "
	   ">../extra.mailmap");
	check("r1", "HEAD", "line01.txt line03.txt", "mailmap.file overrides");
	sh("cd r1 && printf 'Blob Name <blob@x> <author@EXAMPLE.com>\\n' "
	   ">mm && git add mm && git commit -q -m mm && "
	   "git config mailmap.blob HEAD:mm && git config --unset mailmap.file");
	check("r1", "HEAD", "line01.txt line03.txt", "mailmap.blob");
	sh("cd r1 && git config mailmap.blob HEAD:nonexistent");
	check("r1", "HEAD", "line01.txt", "missing mailmap.blob is ignored");
	sh("cd r1 && git config --unset mailmap.blob && rm .mailmap");
	check("r1", "HEAD", "line01.txt line03.txt", "no work tree .mailmap");
	sh("cd r1 && git checkout -q .mailmap && "
	   "git clone -q --bare . ../bare.git");
	check("bare.git", "HEAD", "line01.txt line03.txt",
	      "bare repository reads HEAD:.mailmap");
}

static void test_trailer_config(void)
{
	sh("cd r1 && git config trailer.separators ':#' && "
	   "git config trailer.sob.key Signed-off-by && "
	   "git config trailer.rev.key 'Reviewed-BY' && "
	   "git config core.commentChar ';'");
	sh("cd r1 && printf 'subject\\n\\n; comment\\nbody\\n\\n"
	   "Bug #42\\nrev: someone\\nsob: me\\nNot a trailer line here\\n"
	   "Fixes: 123\\n; trailing comment\\n' >../msg2 && "
	   "git commit -q --allow-empty --cleanup=verbatim -F ../msg2");
	check("r1", "HEAD", "line22.txt line23.txt line24.txt line25.txt "
	      "line26.txt line27.txt line28.txt",
	      "trailers with trailer.* and core.commentChar");
	sh("cd r1 && git config --unset trailer.separators && "
	   "git config --unset core.commentChar");
	check("r1", "HEAD", "line22.txt line24.txt line25.txt",
	      "trailers with default separators");
	sh("cd r1 && printf 'subject\\n\\nSigned-off-by: x\\n"
	   "# >8 cut\\n\\n# ------------------------ >8 "
	   "------------------------\\nFoo: bar\\n' >../msg3 && "
	   "git commit -q --allow-empty --cleanup=verbatim -F ../msg3");
	check("r1", "HEAD", "line22.txt line24.txt", "trailers before a cut line");
	sh("cd r1 && printf 'only subject\\n' >../msg4 && "
	   "git commit -q --allow-empty -F ../msg4");
	check("r1", "HEAD", "line22.txt line25.txt", "no trailers");
	sh("cd r1 && git config --unset-all trailer.sob.key && "
	   "git config --unset-all trailer.rev.key");
}

/* A commit written by hand, with `body` after "tree <t>\n". */
static void raw_commit(const char *ref, const char *headers)
{
	put("raw.tmp", headers, strlen(headers));
	sh("cd r1 && t=$(git rev-parse HEAD^{tree}) && "
	   "{ printf 'tree %%s\\n' $t; cat ../raw.tmp; } >../raw2.tmp && "
	   "c=$(git hash-object -t commit -w --literally ../raw2.tmp) && "
	   "git update-ref %s $c", ref);
}

static void test_odd_commits(void)
{
	static const char *const idents[] = {
		"A <> 0 +0000", " <> 0 +0000",
		"Name  <a@b>   1234567890   +0100", "Name <a@b> 1234567890",
		"Name <a>b> 123 +0000", "Name <a@b> 4102444800 +1400",
		"Name<a@b>1 +0000", "Name <a@b> 123 +00",
		"Name <a@b> 1000000000 -0001",
		"Name <a@b> 1000000000 +0099",
		"Author <author@example.com> 1 +0000",
		"some one <SOME@ONE.example> 1 +0000",
		"Y <proper@example.com> 1 +0000",
		"Z <Author@Example.COM> 1 +0000",
	};
	struct ga_buf got = GA_BUF_INIT;
	size_t i;
	int rc, error;

	for (i = 0; i < GA_ARRAY_SIZE(idents); i++) {
		char headers[256], name[128];

		snprintf(headers, sizeof(headers),
			 "author %s\ncommitter %s\n\nS\n", idents[i],
			 idents[i]);
		raw_commit("refs/raw/ident", headers);
		snprintf(name, sizeof(name), "ident '%s'", idents[i]);
		check("r1", "refs/raw/ident", "line01.txt line02.txt line03.txt "
		      "line04.txt", name);
	}
	/* git dies on a time zone that moves the date before 1970. */
	raw_commit("refs/raw/ident", "author N <a@b> 1000 -9999\n"
		   "committer N <a@b> 1000 -9999\n\nS\n");
	rc = sh("cd r1 && git archive refs/raw/ident line02.txt >/dev/null");
	error = ours("r1", "refs/raw/ident", "line02.txt", &got);
	ok(rc != 0 && error == GA_ERROR &&
		   !strcmp(ga_error_message(),
			   "Timestamp before Unix epoch: 1000 -9999"),
	   "a date before the epoch is fatal, as in git");
	ga_buf_release(&got);

	raw_commit("refs/raw/header",
		   "author A <a@b> 1 +0000\ncommitter C <c@d> 1 +0000\n"
		   "x-custom header\n continued\n\n  \n\nsubject only\n");
	check("r1", "refs/raw/header", "line06.txt line07.txt line08.txt",
	      "extra headers and blank lines");
	raw_commit("refs/raw/enc-utf8",
		   "author A <a@b> 1 +0000\ncommitter C <c@d> 1 +0000\n"
		   "encoding utf8\n\nS \xc3\xa9\n");
	check("r1", "refs/raw/enc-utf8", "line05.txt line06.txt line08.txt",
	      "explicit utf8 encoding header");
	raw_commit("refs/raw/enc-bogus",
		   "author A <a@b> 1 +0000\ncommitter C <c@d> 1 +0000\n"
		   "encoding no-such-charset\n\nS \xe9\n");
	check("r1", "refs/raw/enc-bogus", "line05.txt line06.txt line08.txt",
	      "unknown encoding header");
	raw_commit("refs/raw/multiline",
		   "parent 0000000000000000000000000000000000000001\n"
		   "author A <a@b> 1 +0000\ncommitter C <c@d> 1 +0000\n"
		   "\n\n\n  subject\n  on two lines  \n\n\n\nbody\n\n\n");
	check("r1", "refs/raw/multiline", "line00.txt line06.txt line07.txt "
	      "line08.txt line22.txt", "blank lines around subject and body");
}

static void test_encoding(void)
{
	puts_file("msg5", "Caf\351 subject \251\n\nBody \351\n");
	puts_file("r1/enc1.txt", "x $Format:%s$\n");
	puts_file("r1/enc2.txt", "caf\303\251 $Format:%s|%an|%e|%b$ \n");
	puts_file("r1/enc3.txt", "\342\202\254 $Format:%s$\n");
	puts_file("r1/enc4.txt", "\377 $Format:%s$\n");
	puts_file("r1/enc5.txt", "$Format:%H$ caf\303\251 $Format:%h$|"
		  "$Format:%s$ caf\303\251 $Format:%s$\n");
	puts_file("r1/enc6.txt", "$Format:%<(12)%s|%w(8)%s$\n");
	sh("cd r1 && git add . && GIT_AUTHOR_NAME=$(printf 'Ren\\351') "
	   "git -c i18n.commitEncoding=ISO-8859-1 commit -q -F ../msg5");
	check("r1", "HEAD", "enc1.txt", "latin-1 commit: subject");
	check("r1", "HEAD", "enc2.txt", "latin-1 commit: file re-encoded");
	check("r1", "HEAD", "enc3.txt", "latin-1 commit: unencodable file");
	check("r1", "HEAD", "enc4.txt", "latin-1 commit: invalid UTF-8 file");
	check("r1", "HEAD", "enc5.txt", "latin-1 commit: repeated conversion");
	check("r1", "HEAD", "enc6.txt", "latin-1 commit: padding, wrapping");
	check("r1", "HEAD", "line00.txt line01.txt line05.txt",
	      "latin-1 commit: placeholders without the header");
}

static void test_wide_text(void)
{
	puts_file("msg6", "\346\274\242\345\255\227 \346\274\242"
		  "\345\255\227\346\274\242 cafe\314\201 x\342\200\213y "
		  "long words here to wrap \350\241\214\n\nbody \346\274"
		  "\242\345\255\227 more text to wrap around the edge\n");
	puts_file("r1/wide.txt",
		  "$Format:[%<(6,trunc)%s][%>(30)%s][%<(7,ltrunc)%s]"
		  "[%<(7,mtrunc)%s][%<(3,trunc)%s][%<(1,trunc)%s]"
		  "[%<(2,mtrunc)%s]%n%w(10,1,2)%s%n%w(7)%b$\n");
	sh("cd r1 && git add wide.txt && git commit -q -F ../msg6");
	check("r1", "HEAD", "wide.txt", "double-width and combining text");
	puts_file("msg7", "bad \377\376 utf8 subject that is long\n");
	sh("cd r1 && git commit -q --allow-empty -F ../msg7");
	check("r1", "HEAD", "wide.txt", "invalid UTF-8 in padding/wrapping");
}

static void test_colors_fail(void)
{
	struct ga_buf got = GA_BUF_INIT;
	int rc, error;

	puts_file("r1/badcolor.txt", "$Format:%C(always,nocolor)$\n");
	commit_all("r1", "bad color\n");
	rc = sh("cd r1 && git archive HEAD badcolor.txt >/dev/null");
	error = ours("r1", "HEAD", "badcolor.txt", &got);
	ok(rc != 0 && error == GA_ERROR &&
		   !strcmp(ga_error_message(), "unable to parse --pretty format"),
	   "invalid %%C(always,...) is fatal, as in git");
	ga_buf_release(&got);
	puts_file("r1/badcolor.txt", "$Format:%C(nocolor)%C(auto,x)$\n");
	commit_all("r1", "ignored bad color\n");
	check("r1", "HEAD", "badcolor.txt", "bad colours are not parsed when off");
}

static void test_abbrev_config(void)
{
	static const char *const values[] = { "4", "12", "40", "auto", "no",
					      "false", "" };
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(values); i++) {
		char name[64];

		sh("cd r1 && git config core.abbrev '%s'", values[i]);
		snprintf(name, sizeof(name), "core.abbrev=%s", values[i]);
		check("r1", "HEAD", "line00.txt", name);
	}
	sh("cd r1 && git config core.abbrev 3");
	{
		struct ga_buf got = GA_BUF_INIT;
		int rc = sh("cd r1 && git archive HEAD line00.txt >/dev/null");
		int error = ours("r1", "HEAD", "line00.txt", &got);

		ok(rc != 0 && error == GA_ERROR,
		   "core.abbrev out of range is fatal");
		ga_buf_release(&got);
	}
	sh("cd r1 && git config --unset core.abbrev");
}

/* A blob whose id shares `digits` hex digits with `hex`. */
static void find_collision(const char *hex, int digits, struct ga_buf *out)
{
	char want[41], buf[64];
	unsigned long i;
	git_oid oid;

	snprintf(want, sizeof(want), "%s", hex);
	for (i = 0;; i++) {
		char got[41];
		int n = snprintf(buf, sizeof(buf), "collision %lu\n", i);

		git_odb_hash(&oid, buf, (size_t)n, GIT_OBJECT_BLOB);
		git_oid_tostr(got, sizeof(got), &oid);
		if (!strncmp(got, want, (size_t)digits)) {
			ga_buf_put(out, buf, (size_t)n);
			return;
		}
	}
}

static void test_ambiguity(void)
{
	struct ga_buf blob = GA_BUF_INIT;
	size_t len;
	char *hex;

	sh("git init -q amb && cd amb && echo '* export-subst' >.gitattributes"
	   " && printf 'h=$Format:%%%%h$ t=$Format:%%%%t$ p=$Format:%%%%p$\\n'"
	   " >f && git add . && git commit -q -m one && echo 2 >g && git add g && "
	   "git commit -q -m two && git config core.abbrev 4");
	hex = sh_out(&len, "cd amb && git rev-parse HEAD");
	find_collision(hex, 5, &blob);
	put("coll.tmp", blob.ptr, blob.len);
	check("amb", "HEAD", "f", "unique abbreviation, abbrev 4");
	sh("cd amb && git hash-object -w ../coll.tmp");
	check("amb", "HEAD", "f", "loose object sharing 5 digits lengthens %h");
	sh("cd amb && git repack -q -a -d");
	check("amb", "HEAD", "f", "packed object sharing 5 digits");
	sh("cd amb && git config --unset core.abbrev");
	check("amb", "HEAD", "f", "auto abbreviation with few objects");
	free(hex);
	ga_buf_release(&blob);
}

static void test_big_repo(void)
{
	/* Over 2^14 packed objects make "auto" choose 8 digits. */
	sh("git init -q big && cd big && "
	   "echo '* export-subst' >.gitattributes && "
	   "printf 'h=$Format:%%%%h$ t=$Format:%%%%t$\\n' >f && "
	   "git add . && git commit -q -m one && "
	   "i=0; while [ $i -lt 17000 ]; do "
	   "printf 'blob\\ndata <<E\\n%%d\\nE\\n' $i; i=$((i+1)); done | "
	   "git fast-import --quiet");
	check("big", "HEAD", "f", "auto abbreviation from pack object count");
	sh("cd big && git multi-pack-index write");
	check("big", "HEAD", "f", "auto abbreviation with a multi-pack-index");
	sh("cd big && git repack -q -d && git multi-pack-index write && "
	   "git -c core.multiPackIndex=false count-objects -v");
	check("big", "HEAD", "f", "midx and a pack it does not cover");
	sh("cd big && git config core.multiPackIndex false");
	check("big", "HEAD", "f", "core.multiPackIndex=false");
	sh("git init -q loose && cd loose && "
	   "echo '* export-subst' >.gitattributes && "
	   "printf 'h=$Format:%%%%h$\\n' >f && git add . && "
	   "git commit -q -m one && git clone -q --shared . ../alt && "
	   "cd ../loose && git repack -q -a -d");
	check("alt", "HEAD", "f", "alternates count toward auto");
}

/* Both git and we must fail, with git's message. */
static void check_fatal(const char *path, const char *content,
			const char *message, const char *name)
{
	struct ga_buf got = GA_BUF_INIT;
	char file[256];
	size_t len;
	char *err;
	int error;

	snprintf(file, sizeof(file), "r1/%s", path);
	puts_file(file, content);
	commit_all("r1", "fatal\n");
	err = sh_out(&len, "cd r1 && git archive HEAD %s 2>&1 >/dev/null",
		     path);
	error = ours("r1", "HEAD", path, &got);
	ok(error == GA_ERROR && !strcmp(ga_error_message(), message) &&
		   strstr(err, message) != NULL,
	   "%s", name);
	free(err);
	ga_buf_release(&got);
}

static void test_prefilled_buffer(void)
{
	struct ga_buf got = GA_BUF_INIT;
	size_t want_len;
	char *want;
	int error;

	puts_file("r1/pre.txt", "\n$Format:%-b%<|(12)%h|%>>(9)%s$ x  "
		  "$Format:%>>(3)%h$\n");
	commit_all("r1", "pre\n");
	want = sh_out(&want_len, "cd r1 && git archive HEAD pre.txt | "
		      "tar -xOf -");
	ga_buf_puts(&got, "PRE\n\n");
	error = ours("r1", "HEAD", "pre.txt", &got);
	ok(!error && got.len == want_len + 5 &&
		   !memcmp(got.ptr, "PRE\n\n", 5) &&
		   !memcmp(got.ptr + 5, want, want_len),
	   "text already in the buffer is not part of the file");
	free(want);
	ga_buf_release(&got);
}

static void test_refs_config(void)
{
	sh("cd r1 && git config log.excludeDecoration 'refs/tags/*' && "
	   "git config log.decorate full");
	check("r1", "feature", "line05.txt",
	      "log.excludeDecoration and log.decorate do not apply");
	sh("cd r1 && git config --unset log.excludeDecoration && "
	   "git config --unset log.decorate && "
	   "echo $(git rev-parse feature) $(git rev-parse old) "
	   "$(git rev-parse HEAD) >.git/info/grafts");
	check("r1", "feature", "line00.txt line05.txt",
	      "info/grafts: parents and decoration");
	sh("cd r1 && rm .git/info/grafts && git replace old feature");
	check("r1", "feature", "line05.txt",
	      "a replacement commit is not decorated");
	setenv("GIT_NO_REPLACE_OBJECTS", "1", 1);
	check("r1", "old", "line05.txt", "GIT_NO_REPLACE_OBJECTS");
	unsetenv("GIT_NO_REPLACE_OBJECTS");
	sh("cd r1 && git replace -d old");
}

static void test_signed(void)
{
	if (sh("command -v ssh-keygen && "
	       "ssh-keygen -q -t ed25519 -N '' -f sshkey")) {
		ok(1, "# SKIP no ssh-keygen");
		return;
	}
	puts_file("r1/sig.txt", "$Format:%G?|%GG|%GS|%GK|%GF|%GP|%GX$\n");
	sh("cd r1 && git add sig.txt && git -c gpg.format=ssh "
	   "-c user.signingkey=../sshkey.pub commit -q -S -m signed");
	check("r1", "HEAD", "sig.txt", "ssh-signed commit");
}

int main(void)
{
	char *home;

	snprintf(scratch, sizeof(scratch), "%s", "/tmp/garchive-subst-XXXXXX");
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 1;
	}
	home = malloc(strlen(scratch) + 8);
	sprintf(home, "%s/home", scratch);
	mkdir(home, 0755);
	scratch_seal_env(home);
	/* Dates in different zones, for the date placeholders. */
	setenv("GIT_AUTHOR_DATE", "1546329600 -0800", 1);
	setenv("GIT_COMMITTER_DATE", "1546333200 +0100", 1);
	setenv("COLUMNS", "100", 1);
	sh("git config --global init.defaultBranch master && "
	   "git config --global advice.detachedHead false");

	git_libgit2_init();
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM,
			 home);
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_XDG, home);

	setup_main_repo();
	test_placeholders();
	test_decorations();
	test_relative_dates();
	test_describe();
	test_scanning();
	test_mailmap();
	test_trailer_config();
	test_odd_commits();
	test_encoding();
	test_wide_text();
	test_colors_fail();
	test_abbrev_config();
	test_ambiguity();
	test_big_repo();
	test_prefilled_buffer();
	check_fatal("steal.txt", "          $Format:%>>|(1)%+x41$\n",
		    "`pos' is too far after the end of the buffer",
		    "stealing below a %+ insertion point dies as in git");
	test_refs_config();
	test_signed();

	git_libgit2_shutdown();
	if (!tap_failed && !getenv("GARCHIVE_TEST_KEEP"))
		sh("rm -rf '%s'", scratch);
	else
		diag("scratch directory kept: %s", scratch);
	free(home);
	return tap_done();
}

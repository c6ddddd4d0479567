/*
 * convert.c unit test: checkout conversion against git 2.39.5.
 *
 * Every case is a directory of a scratch repository whose files all get
 * one .gitattributes line ("<dir>/[*] <attributes>").  The blobs are
 * committed raw, then `git archive` runs with some configuration and its
 * files and stderr become the expectation for convert_maybe(), which
 * gets the same attribute values (written by hand next to the line that
 * produces them) and the same configuration.  Files are converted
 * in the order git archives them, so the "error:" lines of both sides
 * can be compared whole.
 */
#include "convert.h"

#include "attr.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "gitscratch.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <git2.h>

#define U { ATTR_UNSPECIFIED, NULL }
#define S { ATTR_SET, NULL }
#define N { ATTR_UNSET, NULL }
#define V(x) { ATTR_VALUE, x }

/* Which files a case directory holds. */
enum blob_set { SET_EOL, SET_ENC, SET_FILTER, SET_BIG, SET_QUOTE, SET_PROC };

struct rule {
	const char *dir;
	const char *line;	/* attributes for "<dir>/[*]", or NULL */
	/* text, eol, crlf, ident, filter, working-tree-encoding */
	struct attr_value attrs[CONVERT_ATTR_NR];
	enum blob_set set;
};

struct blob {
	const char *name;
	const char *data;
	size_t len;
};

#define B(name, lit) { name, lit, sizeof(lit) - 1 }

static const struct blob eol_blobs[] = {
	B("lf", "a\nb\n"),
	B("crlf", "a\r\nb\r\n"),
	B("mixed", "a\r\nb\nc\n"),
	B("lonecr", "a\rb\nc\n"),
	B("trailcr", "a\nb\r"),
	B("crlfonly", "\r\n"),
	B("nul", "a\nb\0c\n"),
	B("noeol", "abc"),
	B("empty", ""),
	B("ctl-bin", "\001\002abc\n"),
	B("ctl-eof", "abc\ndef\n\032"),
	B("del", "x\177\n"),
	B("utf8", "h\xc3\xa9llo\nw\xc3\xb6rld\n"),
	B("ident", "$Id$\n$Id: abc $\n$Id: old junk $\n$Id:\n$\n$Id:$\n"
		   "$Id: a\tb $\n$Id:  $\n$$Id$$\nId$ $Id\n$I\n"
		   "$Id: unterminated\n"),
	B("ident-end", "x $Id: no end"),
	B("ident-last", "$Id$"),
	B("ident-crlf", "$Id$\r\n$Id: z $\r\n"),
};

static const struct blob enc_blobs[] = {
	B("ascii", "hello\n"),
	B("latin", "h\xc3\xa9llo\nw\n"),
	B("snow", "snow \xe2\x98\x83\n"),
	B("badutf", "bad \xff\xfe utf8\n"),
	B("empty", ""),
	B("ident", "$Id$\n"),
};

static const struct blob filter_blobs[] = {
	B("small.txt", "Hello World\n"),
	B("empty.txt", ""),
};

static const struct blob quote_blobs[] = {
	B("a b.txt", "spaces\n"),
	B("it's.txt", "quote\n"),
	B("x!y \"z\" $HOME `w`.txt", "all of it\n"),
};

static const struct blob proc_blobs[] = {
	B("a.txt", "Hello World\n"),
	B("empty.txt", ""),
	B("error.txt", "error\n"),
	B("errafter.txt", "errafter\n"),
	B("emptyafter.txt", "emptyafter\n"),
	B("weird.txt", "weird\n"),
	B("x-after-weird.txt", "restarted\n"),
	B("y-crlf.txt", "l1\nl2\n"),
};

/* The ~1 MB generated texts (pipe deadlock checks). */
static char *big_text;
static size_t big_len;
static char *long_line;
static size_t long_len;

static char *trash;
static git_repository *repo_handle;

static void die_setup(const char *what)
{
	fprintf(stderr, "setup failed: %s: %s\n", what, strerror(errno));
	exit(99);
}

GA_PRINTF(1, 2)
static int sh(const char *fmt, ...)
{
	struct ga_buf cmd = GA_BUF_INIT;
	va_list ap;
	char *s;
	int rc;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die_setup("vasprintf");
	va_end(ap);
	ga_buf_puts(&cmd, s);
	free(s);
	fflush(NULL);
	rc = system(cmd.ptr);
	ga_buf_release(&cmd);
	if (rc == -1 || !WIFEXITED(rc))
		return -1;
	return WEXITSTATUS(rc);
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len) ||
	    close(fd) < 0)
		die_setup(path);
}

static int read_file(struct ga_buf *out, const char *path)
{
	ga_buf_grow(out, 0);
	ga_buf_setlen(out, 0);
	return ga_buf_read_file(out, path);
}

/* The report handler prints as main does, to whatever fd 2 is now. */
static void report(enum ga_report_kind kind, const char *msg, void *payload)
{
	struct ga_buf line = GA_BUF_INIT;

	(void)payload;
	if (kind != GA_REPORT_PLAIN)
		ga_buf_puts(&line, kind == GA_REPORT_WARNING ? "warning: "
							     : "error: ");
	ga_buf_puts(&line, msg);
	ga_buf_putc(&line, '\n');
	if (write(2, line.ptr, line.len) < 0)
		line.len = 0;	/* nowhere to complain to */
	ga_buf_release(&line);
}

static int saved_stderr = -1;

static void capture_start(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	fflush(stderr);
	saved_stderr = dup(2);
	if (fd < 0 || saved_stderr < 0 || dup2(fd, 2) < 0)
		die_setup("capture");
	close(fd);
}

static void capture_stop(void)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
}

static void blobs_of(enum blob_set set, const struct blob **blobs,
		     size_t *nr)
{
	static struct blob big[3];

	switch (set) {
	case SET_EOL:
		*blobs = eol_blobs;
		*nr = GA_ARRAY_SIZE(eol_blobs);
		return;
	case SET_ENC:
		*blobs = enc_blobs;
		*nr = GA_ARRAY_SIZE(enc_blobs);
		return;
	case SET_FILTER:
		*blobs = filter_blobs;
		*nr = GA_ARRAY_SIZE(filter_blobs);
		return;
	case SET_QUOTE:
		*blobs = quote_blobs;
		*nr = GA_ARRAY_SIZE(quote_blobs);
		return;
	case SET_PROC:
		*blobs = proc_blobs;
		*nr = GA_ARRAY_SIZE(proc_blobs);
		return;
	case SET_BIG:
		big[0] = (struct blob){ "big.txt", big_text, big_len };
		big[1] = (struct blob){ "long.txt", long_line, long_len };
		big[2] = (struct blob){ "small.txt", "Hello World\n", 12 };
		*blobs = big;
		*nr = 3;
		return;
	}
}

/*
 * A repository with one directory per rule, the files committed raw
 * first, then the .gitattributes.  `setup` runs in it before the first
 * commit (config, hooks for git-lfs...).
 */
static char *make_repo(const char *name, const struct rule *rules,
		       size_t nr, const char *setup)
{
	struct ga_buf attrs = GA_BUF_INIT;
	char *dir = ga_xstrfmt("%s/%s", trash, name), *path;
	size_t i, j, nb = 0;
	const struct blob *blobs = NULL;

	if (sh("git init -q '%s'", dir))
		die_setup("git init");
	if (setup && sh("cd '%s' && %s", dir, setup))
		die_setup(setup);
	for (i = 0; i < nr; i++) {
		char *sub = ga_xstrfmt("%s/%s", dir, rules[i].dir);

		if (mkdir(sub, 0755) < 0 && errno != EEXIST)
			die_setup(sub);
		blobs_of(rules[i].set, &blobs, &nb);
		for (j = 0; j < nb; j++) {
			char *p = ga_xstrfmt("%s/%s", sub, blobs[j].name);

			write_file(p, blobs[j].data, blobs[j].len);
			free(p);
		}
		free(sub);
		if (rules[i].line)
			ga_buf_printf(&attrs, "%s/* %s\n", rules[i].dir,
				      rules[i].line);
	}
	if (sh("cd '%s' && git add -A && git commit -q -m files 2>/dev/null",
	       dir))
		die_setup("commit files");
	ga_buf_grow(&attrs, 0);
	path = ga_xstrfmt("%s/.gitattributes", dir);
	write_file(path, attrs.ptr, attrs.len);
	free(path);
	/*
	 * Plumbing that keeps away from the index: porcelain would convert
	 * the files with the new attributes (and may die of them).
	 */
	if (sh("cd '%s' && "
	       "blob=$(git hash-object -w --no-filters .gitattributes) && "
	       "tree=$({ git ls-tree HEAD | grep -v '\t.gitattributes$'; "
	       "printf '100644 blob %%s\t.gitattributes\n' $blob; } | "
	       "git mktree) && "
	       "commit=$(git commit-tree -p HEAD -m attributes $tree) && "
	       "git update-ref HEAD $commit && git read-tree HEAD", dir))
		die_setup("commit attributes");
	ga_buf_release(&attrs);
	return dir;
}

static const struct rule *rule_for(const struct rule *rules, size_t nr,
				   const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t i;

	if (!slash)
		return NULL;
	for (i = 0; i < nr; i++)
		if (strlen(rules[i].dir) == (size_t)(slash - path) &&
		    !strncmp(rules[i].dir, path, (size_t)(slash - path)))
			return &rules[i];
	return NULL;
}

struct entry {
	char *path;
	char oid[GIT_OID_HEXSZ + 1];
};

/* `git ls-tree -r -z HEAD`: the regular files in archive order. */
static size_t list_files(struct entry **out, const char *dir)
{
	struct ga_buf list = GA_BUF_INIT;
	char *file = ga_xstrfmt("%s/ls-tree.out", trash);
	struct entry *e = NULL;
	size_t nr = 0, alloc = 0;
	const char *p, *end;

	if (sh("git -C '%s' ls-tree -r -z HEAD >'%s'", dir, file) ||
	    read_file(&list, file) < 0)
		die_setup("ls-tree");
	for (p = list.ptr; p < list.ptr + list.len; p = end + 1) {
		const char *tab;

		end = p + strlen(p);
		tab = strchr(p, '\t');
		if (!tab || strncmp(p, "100", 3) || strncmp(p + 7, "blob ", 5))
			continue;
		GA_ALLOC_GROW(e, nr + 1, alloc);
		memcpy(e[nr].oid, p + 12, GIT_OID_HEXSZ);
		e[nr].oid[GIT_OID_HEXSZ] = '\0';
		e[nr].path = ga_xstrdup(tab + 1);
		nr++;
	}
	ga_buf_release(&list);
	free(file);
	*out = e;
	return nr;
}

/* The work-tree form of a blob, as the walk takes it from convert_maybe(). */
static int convert_blob(struct ga_buf *out, struct convert *conv,
			const char *path, const char *oid_hex,
			const unsigned char *data, size_t len,
			const struct attr_value *attrs)
{
	int changed, error;

	error = convert_maybe(out, &changed, conv, path, oid_hex, data, len,
			      attrs);
	if (!error && !changed)
		ga_buf_put(out, data, len);
	return error;
}

struct run {
	const char *label;
	const char *repo;
	const struct rule *rules;
	size_t nr_rules;
	const char *const *config;	/* "-c" settings for both sides */
	size_t nr_config;
	const char *env;		/* shell assignments for git's run */
	int expect_rc;			/* git archive's exit status */
};

/*
 * Run git archive, extract it, convert every file ourselves and compare
 * contents (one test per rule) and stderr (one test per run).
 */
static void check_run(const struct run *r)
{
	struct ga_buf cmd = GA_BUF_INIT, want = GA_BUF_INIT,
		      got = GA_BUF_INIT, git_err = GA_BUF_INIT,
		      our_err = GA_BUF_INIT, bad = GA_BUF_INIT,
		      wrong_identity = GA_BUF_INIT;
	struct ga_config *cfg = NULL;
	struct convert *conv = NULL;
	struct convert_meta meta;
	struct entry *files = NULL;
	char *tar = ga_xstrfmt("%s/out.tar", trash);
	char *x = ga_xstrfmt("%s/x", trash);
	char *gerr = ga_xstrfmt("%s/git.err", trash);
	char *oerr = ga_xstrfmt("%s/ours.err", trash);
	char *head_file = ga_xstrfmt("%s/head.out", trash);
	char head[GIT_OID_HEXSZ + 1], *label;
	size_t i, j, nr, nr_identity = 0;
	int rc, error = 0, *rule_bad;

	ga_buf_printf(&cmd, "cd '%s' && %s git", r->repo, r->env ? r->env : "");
	for (i = 0; i < r->nr_config; i++)
		ga_buf_printf(&cmd, " -c '%s'", r->config[i]);
	ga_buf_printf(&cmd, " archive --format=tar HEAD >'%s' 2>'%s'", tar,
		      gerr);
	rc = sh("%s", cmd.ptr);
	sh("rm -rf '%s' && mkdir '%s' && tar xf '%s' -C '%s' 2>/dev/null",
	   x, x, tar, x);
	/*
	 * git 2.40 words a filter that is not found "cannot exec '<cmd>'";
	 * 2.39, which garchive follows, "cannot run <cmd>" (both say
	 * "cannot exec" when it cannot be run).
	 */
	if (!tap_git_is_2_39())
		sh("sed -i \"s/^fatal: cannot exec '\\(.*\\)': "
		   "No such file or directory\\$/"
		   "fatal: cannot run \\1: No such file or directory/\" "
		   "'%s'", gerr);
	read_file(&git_err, gerr);
	ok(rc == r->expect_rc, "%s: git archive exits %d", r->label,
	   r->expect_rc);

	if (sh("git -C '%s' rev-parse HEAD >'%s'", r->repo, head_file) ||
	    read_file(&got, head_file) < 0 || got.len < GIT_OID_HEXSZ)
		die_setup("rev-parse");
	memcpy(head, got.ptr, GIT_OID_HEXSZ);
	head[GIT_OID_HEXSZ] = '\0';
	meta.ref = "refs/heads/main";
	meta.treeish = head;

	if (git_repository_open(&repo_handle, r->repo) < 0)
		die_setup("git_repository_open");
	if (config_load(&cfg, repo_handle, r->config, r->nr_config) < 0)
		die_setup("config_load");

	nr = list_files(&files, r->repo);
	rule_bad = ga_xcalloc(r->nr_rules + 1, sizeof(*rule_bad));
	capture_start(oerr);
	error = convert_new(&conv, cfg, r->repo, &meta);
	for (i = 0; !error && i < nr; i++) {
		const struct rule *rule = rule_for(r->rules, r->nr_rules,
						   files[i].path);
		struct attr_value none[CONVERT_ATTR_NR] = { U, U, U, U, U, U };
		const struct attr_value *attrs = rule ? rule->attrs : none;
		git_oid oid;
		git_blob *blob = NULL;
		char *path;
		int identity;

		if (git_oid_fromstr(&oid, files[i].oid) < 0 ||
		    git_blob_lookup(&blob, repo_handle, &oid) < 0)
			die_setup("blob");
		identity = convert_is_identity(conv, attrs);
		if (identity < 0)
			ga_error_clear();
		error = convert_blob(&got, conv, files[i].path, files[i].oid,
				     git_blob_rawcontent(blob),
				     (size_t)git_blob_rawsize(blob), attrs);
		/* The walk hands such a blob on unread: it must not change. */
		if (!error && identity == 1) {
			nr_identity++;
			if (got.len != (size_t)git_blob_rawsize(blob) ||
			    memcmp(got.ptr, git_blob_rawcontent(blob),
				   got.len))
				ga_buf_printf(&wrong_identity, "%s ",
					      files[i].path);
		}
		git_blob_free(blob);
		if (error < 0)
			break;
		if (rc)
			continue;	/* git died: no file to compare */
		path = ga_xstrfmt("%s/%s", x, files[i].path);
		if (read_file(&want, path) < 0 || want.len != got.len ||
		    memcmp(want.ptr, got.ptr, got.len)) {
			ga_buf_printf(&bad, "%s ", files[i].path);
			rule_bad[rule ? (size_t)(rule - r->rules)
				      : r->nr_rules] = 1;
		}
		free(path);
	}
	convert_free(conv);
	capture_stop();
	read_file(&our_err, oerr);
	if (error < 0)
		ga_buf_printf(&our_err, "fatal: %s\n", ga_error_message());

	ok((error < 0) == (rc != 0), "%s: conversion %s", r->label,
	   rc ? "fails as git does" : "succeeds");
	ok(!wrong_identity.len, "%s: no conversion changes what "
	   "convert_is_identity() passes (%zu files)", r->label, nr_identity);
	if (wrong_identity.len)
		diag("changed: %s", wrong_identity.ptr);
	if (!rc) {
		for (j = 0; j < r->nr_rules; j++)
			ok(!rule_bad[j], "%s: %s (%s)", r->label,
			   r->rules[j].dir,
			   r->rules[j].line ? r->rules[j].line : "none");
		ok(!rule_bad[r->nr_rules], "%s: files without attributes",
		   r->label);
		if (bad.len)
			diag("differ: %s", bad.ptr);
	}
	label = ga_xstrfmt("%s: stderr as git's", r->label);
	is_str(our_err.ptr, git_err.ptr, label);
	free(label);

	for (i = 0; i < nr; i++)
		free(files[i].path);
	free(files);
	free(rule_bad);
	config_free(cfg);
	git_repository_free(repo_handle);
	repo_handle = NULL;
	ga_buf_release(&cmd);
	ga_buf_release(&want);
	ga_buf_release(&got);
	ga_buf_release(&git_err);
	ga_buf_release(&our_err);
	ga_buf_release(&bad);
	ga_buf_release(&wrong_identity);
	free(tar);
	free(x);
	free(gerr);
	free(oerr);
	free(head_file);
}

/*
 * End of line and ident
 */

static const struct rule eol_rules[] = {
	{ "none", NULL, { U, U, U, U, U, U }, SET_EOL },
	{ "text", "text", { S, U, U, U, U, U }, SET_EOL },
	{ "notext", "-text", { N, U, U, U, U, U }, SET_EOL },
	{ "auto", "text=auto", { V("auto"), U, U, U, U, U }, SET_EOL },
	{ "text-crlf", "text eol=crlf", { S, V("crlf"), U, U, U, U },
	  SET_EOL },
	{ "text-lf", "text eol=lf", { S, V("lf"), U, U, U, U }, SET_EOL },
	{ "eol-crlf", "eol=crlf", { U, V("crlf"), U, U, U, U }, SET_EOL },
	{ "eol-lf", "eol=lf", { U, V("lf"), U, U, U, U }, SET_EOL },
	{ "auto-crlf", "text=auto eol=crlf",
	  { V("auto"), V("crlf"), U, U, U, U }, SET_EOL },
	{ "auto-lf", "text=auto eol=lf", { V("auto"), V("lf"), U, U, U, U },
	  SET_EOL },
	{ "notext-crlf", "-text eol=crlf", { N, V("crlf"), U, U, U, U },
	  SET_EOL },
	{ "crlf", "crlf", { U, U, S, U, U, U }, SET_EOL },
	{ "nocrlf", "-crlf", { U, U, N, U, U, U }, SET_EOL },
	{ "crlf-input", "crlf=input", { U, U, V("input"), U, U, U }, SET_EOL },
	{ "crlf-auto", "crlf=auto", { U, U, V("auto"), U, U, U }, SET_EOL },
	{ "nocrlf-crlf", "-crlf eol=crlf", { U, V("crlf"), N, U, U, U },
	  SET_EOL },
	{ "text-crlfinput", "text crlf=input", { S, U, V("input"), U, U, U },
	  SET_EOL },
	/* binary is the macro "-diff -merge -text". */
	{ "binary", "binary", { N, U, U, U, U, U }, SET_EOL },
	{ "ident", "ident", { U, U, U, S, U, U }, SET_EOL },
	{ "ident-crlf", "ident text eol=crlf", { S, V("crlf"), U, S, U, U },
	  SET_EOL },
	{ "noident", "-ident", { U, U, U, N, U, U }, SET_EOL },
	{ "ident-value", "ident=yes", { U, U, U, V("yes"), U, U }, SET_EOL },
	{ "text-bogus", "text=bogus", { V("bogus"), U, U, U, U, U }, SET_EOL },
	{ "text-input", "text=input", { V("input"), U, U, U, U, U }, SET_EOL },
	{ "eol-bogus", "eol=bogus", { U, V("bogus"), U, U, U, U }, SET_EOL },
	{ "eol-set", "eol", { U, S, U, U, U, U }, SET_EOL },
	{ "text-unspec", "!text crlf", { U, U, S, U, U, U }, SET_EOL },
};

static void test_eol(void)
{
	static const char *const autocrlf[] = {
		NULL, "core.autocrlf=true", "core.autocrlf=input",
		"core.autocrlf=false", "core.autocrlf",
	};
	static const char *const eol[] = {
		NULL, "core.eol=lf", "core.eol=crlf", "core.eol=native",
		"core.eol=CRLF",
	};
	char *repo = make_repo("eol", eol_rules, GA_ARRAY_SIZE(eol_rules),
			       NULL);
	size_t a, e;

	for (a = 0; a < GA_ARRAY_SIZE(autocrlf); a++) {
		for (e = 0; e < GA_ARRAY_SIZE(eol); e++) {
			const char *config[2];
			size_t n = 0;
			char *label;
			struct run r = { 0 };

			/* Skip the spellings already covered, keep the rest. */
			if ((a == 4 && e != 0) || (e == 4 && a != 0))
				continue;
			if (autocrlf[a])
				config[n++] = autocrlf[a];
			if (eol[e])
				config[n++] = eol[e];
			label = ga_xstrfmt("eol [%s %s]",
					   autocrlf[a] ? autocrlf[a] : "-",
					   eol[e] ? eol[e] : "-");
			r.label = label;
			r.repo = repo;
			r.rules = eol_rules;
			r.nr_rules = GA_ARRAY_SIZE(eol_rules);
			r.config = config;
			r.nr_config = n;
			check_run(&r);
			free(label);
		}
	}
	{
		static const char *const bad[] = { "core.autocrlf=bogus" };
		struct run r = { 0 };

		r.label = "bad core.autocrlf";
		r.repo = repo;
		r.rules = eol_rules;
		r.nr_rules = GA_ARRAY_SIZE(eol_rules);
		r.config = bad;
		r.nr_config = 1;
		r.expect_rc = 128;
		check_run(&r);
	}
	free(repo);
}

/*
 * working-tree-encoding
 */

static const struct rule enc_rules[] = {
	{ "u16", "working-tree-encoding=UTF-16",
	  { U, U, U, U, U, V("UTF-16") }, SET_ENC },
	{ "u16lebom", "working-tree-encoding=UTF-16LE-BOM",
	  { U, U, U, U, U, V("UTF-16LE-BOM") }, SET_ENC },
	{ "u16bebom", "working-tree-encoding=utf-16be-bom",
	  { U, U, U, U, U, V("utf-16be-bom") }, SET_ENC },
	{ "u16be", "working-tree-encoding=utf16be",
	  { U, U, U, U, U, V("utf16be") }, SET_ENC },
	{ "u32", "working-tree-encoding=UTF-32",
	  { U, U, U, U, U, V("UTF-32") }, SET_ENC },
	{ "latin1", "working-tree-encoding=ISO-8859-1",
	  { U, U, U, U, U, V("ISO-8859-1") }, SET_ENC },
	{ "latin-1", "working-tree-encoding=latin-1",
	  { U, U, U, U, U, V("latin-1") }, SET_ENC },
	{ "translit", "working-tree-encoding=ASCII//TRANSLIT",
	  { U, U, U, U, U, V("ASCII//TRANSLIT") }, SET_ENC },
	{ "bogus", "working-tree-encoding=NO-SUCH-ENCODING",
	  { U, U, U, U, U, V("NO-SUCH-ENCODING") }, SET_ENC },
	{ "utf8", "working-tree-encoding=utf8",
	  { U, U, U, U, U, V("utf8") }, SET_ENC },
	{ "emptyenc", "working-tree-encoding=",
	  { U, U, U, U, U, V("") }, SET_ENC },
	{ "u16crlf", "working-tree-encoding=UTF-16LE text eol=crlf",
	  { S, V("crlf"), U, U, U, V("UTF-16LE") }, SET_ENC },
	{ "u16ident", "working-tree-encoding=UTF-16LE ident",
	  { U, U, U, S, U, V("UTF-16LE") }, SET_ENC },
	/* "-working-tree-encoding" is no encoding; the value "true" dies. */
	{ "noenc", "-working-tree-encoding",
	  { U, U, U, U, U, N }, SET_ENC },
	{ "wteset", "working-tree-encoding",
	  { U, U, U, U, U, S }, SET_ENC },
};

static void test_encoding(void)
{
	/* "working-tree-encoding" alone dies at its first file: own run. */
	char *repo = make_repo("enc", enc_rules, GA_ARRAY_SIZE(enc_rules) - 1,
			       NULL);
	char *repo2 = make_repo("enc-die", enc_rules + 13, 2, NULL);
	struct run r = { 0 };

	r.label = "encoding";
	r.repo = repo;
	r.rules = enc_rules;
	r.nr_rules = GA_ARRAY_SIZE(enc_rules) - 1;
	check_run(&r);

	r.label = "encoding true/false";
	r.repo = repo2;
	r.rules = enc_rules + 13;
	r.nr_rules = 2;
	r.expect_rc = 128;
	check_run(&r);
	free(repo);
	free(repo2);
}

/*
 * filter.<driver>.smudge and .process
 */

static const char pf_script[] =
	"#!/usr/bin/env python3\n"
	"# A long-running filter (protocol version 2) for the tests.\n"
	"import os, sys\n"
	"# The mode is in the name it is run by: pf-<mode>.py.\n"
	"base = os.path.basename(sys.argv[0])\n"
	"mode = base[3:-3] if base.startswith('pf-') else 'ok'\n"
	"log = os.environ.get('PF_LOG')\n"
	"def logw(s):\n"
	"    if log:\n"
	"        with open(log, 'a') as f: f.write(s)\n"
	"def rd(n):\n"
	"    b = b''\n"
	"    while len(b) < n:\n"
	"        c = os.read(0, n - len(b))\n"
	"        if not c: return None\n"
	"        b += c\n"
	"    return b\n"
	"def pkt():\n"
	"    h = rd(4)\n"
	"    if h is None: return None\n"
	"    n = int(h, 16)\n"
	"    return b'' if n == 0 else rd(n - 4)\n"
	"def lines():\n"
	"    r = []\n"
	"    while True:\n"
	"        p = pkt()\n"
	"        if p is None: return None\n"
	"        if p == b'': return r\n"
	"        r.append(p)\n"
	"def enc(b): return b'%04x' % (len(b) + 4) + b\n"
	"def send(b):\n"
	"    while b: b = b[os.write(1, b):]\n"
	"def drain():\n"
	"    while pkt() is not None: pass\n"
	"    sys.exit(0)\n"
	"F = b'0000'\n"
	"hs = lines()\n"
	"if hs is None: sys.exit(0)\n"
	"logw('%s hs %r\\n' % (mode, hs))\n"
	"if mode == 'die0': sys.exit(0)\n"
	"if mode == 'badgreet': send(enc(b'bogus\\n') + F); drain()\n"
	"if mode == 'badver':\n"
	"    send(enc(b'git-filter-server\\n') + enc(b'version=3\\n') + F)\n"
	"    drain()\n"
	"send(enc(b'git-filter-server\\n') + enc(b'version=2\\n') + F)\n"
	"caps = lines()\n"
	"if caps is None: sys.exit(0)\n"
	"logw('%s caps %r\\n' % (mode, caps))\n"
	"if mode == 'badcap':\n"
	"    send(enc(b'capability=frobnicate\\n') + F)\n"
	"    drain()\n"
	"if mode == 'cleanonly': send(enc(b'capability=clean\\n') + F)\n"
	"else:\n"
	"    send(enc(b'capability=clean\\n') +\n"
	"         enc(b'capability=smudge\\n') + F)\n"
	"while True:\n"
	"    meta = lines()\n"
	"    if meta is None and mode == 'sigexit':\n"
	"        os.kill(os.getpid(), 10)\n"
	"    if meta is None: sys.exit(0)\n"
	"    logw('%s meta %r\\n' % (mode, meta))\n"
	"    path = ''\n"
	"    for m in meta:\n"
	"        if m.startswith(b'pathname='): path = m[9:].decode()\n"
	"    if mode == 'exitmeta' and 'big' in path: sys.exit(0)\n"
	"    data = []\n"
	"    while True:\n"
	"        p = pkt()\n"
	"        if p is None: sys.exit(0)\n"
	"        if p == b'': break\n"
	"        data.append(p)\n"
	"    data = b''.join(data)\n"
	"    logw('%s len %d\\n' % (mode, len(data)))\n"
	"    if mode == 'badlen': send(b'zzzz'); drain()\n"
	"    if mode == 'biglen': send(b'ffff'); drain()\n"
	"    if 'crash' in path: sys.exit(3)\n"
	"    if 'errafter' in path:\n"
	"        send(enc(b'status=success\\n') + F + enc(b'part') + F +\n"
	"             enc(b'status=error\\n') + F)\n"
	"        continue\n"
	"    if 'emptyafter' in path:\n"
	"        send(enc(b'status=success\\n') + F + enc(b'X') + F + F)\n"
	"        continue\n"
	"    if 'error' in path: send(enc(b'status=error\\n') + F); continue\n"
	"    if 'abort' in path: send(enc(b'status=abort\\n') + F); continue\n"
	"    if 'weird' in path and 'after' not in path:\n"
	"        send(enc(b'status=weird\\n') + F); continue\n"
	"    out = data.upper()\n"
	"    body = b''.join(enc(out[i:i + 65516])\n"
	"                    for i in range(0, len(out), 65516))\n"
	"    send(enc(b'status=success\\n') + F + body + F + F)\n";

static const struct rule filter_rules[] = {
	{ "rot13", "filter=rot13", { U, U, U, U, V("rot13"), U }, SET_BIG },
	{ "quote", "filter=path", { U, U, U, U, V("path"), U }, SET_QUOTE },
	{ "cwd", "filter=cwd", { U, U, U, U, V("cwd"), U }, SET_FILTER },
	{ "fail", "filter=fail", { U, U, U, U, V("fail"), U }, SET_FILTER },
	{ "nocmd", "filter=nocmd", { U, U, U, U, V("nocmd"), U }, SET_FILTER },
	{ "nocmdsh", "filter=nocmdsh", { U, U, U, U, V("nocmdsh"), U },
	  SET_FILTER },
	{ "noexec", "filter=noexec", { U, U, U, U, V("noexec"), U },
	  SET_FILTER },
	{ "relnf", "filter=relnf", { U, U, U, U, V("relnf"), U }, SET_FILTER },
	{ "noshebang", "filter=noshebang", { U, U, U, U, V("noshebang"), U },
	  SET_FILTER },
	{ "sig", "filter=sig", { U, U, U, U, V("sig"), U }, SET_FILTER },
	{ "head", "filter=head", { U, U, U, U, V("head"), U }, SET_BIG },
	{ "true", "filter=true", { U, U, U, U, V("true"), U }, SET_FILTER },
	{ "cleanonly", "filter=cleanonly", { U, U, U, U, V("cleanonly"), U },
	  SET_FILTER },
	{ "undefined", "filter=undefined", { U, U, U, U, V("undefined"), U },
	  SET_FILTER },
	{ "emptyproc", "filter=emptyproc", { U, U, U, U, V("emptyproc"), U },
	  SET_FILTER },
	{ "setfilter", "filter", { U, U, U, U, S, U }, SET_FILTER },
	{ "crlfrot", "filter=rot13 text eol=crlf ident",
	  { S, V("crlf"), U, S, V("rot13"), U }, SET_FILTER },
	{ "proc", "filter=proc", { U, U, U, U, V("proc"), U }, SET_PROC },
	{ "procbig", "filter=procdirect", { U, U, U, U, V("procdirect"), U },
	  SET_BIG },
	{ "procabort", "filter=procabort", { U, U, U, U, V("procabort"), U },
	  SET_FILTER },
	{ "proccrash", "filter=proccrash", { U, U, U, U, V("proccrash"), U },
	  SET_FILTER },
	{ "procbadgreet", "filter=procbadgreet",
	  { U, U, U, U, V("procbadgreet"), U }, SET_FILTER },
	{ "procbadver", "filter=procbadver",
	  { U, U, U, U, V("procbadver"), U }, SET_FILTER },
	{ "proccleanonly", "filter=proccleanonly",
	  { U, U, U, U, V("proccleanonly"), U }, SET_FILTER },
	{ "procnocmd", "filter=procnocmd", { U, U, U, U, V("procnocmd"), U },
	  SET_FILTER },
	{ "procexitmeta", "filter=procexitmeta",
	  { U, U, U, U, V("procexitmeta"), U }, SET_BIG },
	{ "procover", "filter=procover", { U, U, U, U, V("procover"), U },
	  SET_FILTER },
	/* dies of SIGUSR1 when git closes its pipes at the end */
	{ "procsigexit", "filter=procsigexit",
	  { U, U, U, U, V("procsigexit"), U }, SET_FILTER },
};

static void test_filters(void)
{
	struct ga_buf setup = GA_BUF_INIT, log_git = GA_BUF_INIT,
		      log_ours = GA_BUF_INIT;
	char *pf = ga_xstrfmt("%s/pf.py", trash);
	char *noexec = ga_xstrfmt("%s/noexec.sh", trash);
	char *noshebang = ga_xstrfmt("%s/noshebang", trash);
	char *lg = ga_xstrfmt("%s/pf-git.log", trash);
	char *lo = ga_xstrfmt("%s/pf-ours.log", trash);
	char *repo, *env;
	struct run r = { 0 };
	static const char *const required[] = { "filter.fail.required=true" };
	static const char *const proc_required[] = {
		"filter.proc.required"
	};
	static const char *const bad_required[] = {
		"filter.fail.required=maybe"
	};
	static const char *const no_value[] = { "filter.rot13.smudge" };
	static const char *const nocmd_required[] = {
		"filter.cleanonly.required=1"
	};
	struct { const char *label, *mode; } fatal[] = {
		{ "process exits at once", "die0" },
		{ "process asks for an unknown capability", "badcap" },
		{ "process sends a bad length", "badlen" },
		{ "process sends an oversized packet", "biglen" },
	};
	static const char *const modes[] = {
		"abort", "crash", "badgreet", "badver", "cleanonly",
		"exitmeta", "die0", "badcap", "badlen", "biglen", "sigexit",
	};
	size_t i;

	write_file(pf, pf_script, sizeof(pf_script) - 1);
	write_file(noexec, "#!/bin/sh\ncat\n", 14);
	write_file(noshebang, "echo from-sh; cat\n", 18);
	if (chmod(pf, 0755) < 0 || chmod(noshebang, 0755) < 0)
		die_setup("chmod");
	for (i = 0; i < GA_ARRAY_SIZE(modes); i++) {
		char *link = ga_xstrfmt("%s/pf-%s.py", trash, modes[i]);

		if (symlink("pf.py", link) < 0)
			die_setup(link);
		free(link);
	}

	ga_buf_printf(&setup,
		"git config filter.rot13.smudge 'tr A-Za-z N-ZA-Mn-za-m' && "
		"git config filter.path.smudge "
		"'printf \"<%%s|%%s|%%s|%%s>\\n\" %%f %%%% %%x \"%%\"; cat' && "
		"git config filter.cwd.smudge 'pwd; cat' && "
		"git config filter.fail.smudge 'cat >/dev/null; "
		"echo partial; exit 3' && "
		"git config filter.nocmd.smudge nonexistent-cmd-garchive && "
		"git config filter.nocmdsh.smudge "
		"'nonexistent-cmd-garchive %%f' && "
		"git config filter.noexec.smudge '%s' && "
		"git config filter.relnf.smudge ./no-such-program && "
		"git config filter.noshebang.smudge '%s' && "
		"git config filter.sig.smudge 'cat >/dev/null; kill -9 $$' && "
		"git config filter.head.smudge 'head -c 10' && "
		"git config filter.true.smudge true && "
		"git config filter.cleanonly.clean cat && "
		"git config filter.emptyproc.smudge 'tr a-z A-Z' && "
		"git config filter.emptyproc.process '' && "
		/*
		 * Filters that get killed are exec'd directly: git does not
		 * close a stopped filter's pipes, so a shell's orphaned child
		 * would hold the pipes of the others and hang git at exit.
		 */
		"git config filter.proc.process '%s/pf.py' && "
		"git config filter.proc.smudge 'false' && "
		"git config filter.procdirect.process 'python3 %s/pf.py' && "
		"git config filter.procabort.process '%s/pf-abort.py' && "
		"git config filter.proccrash.process '%s/pf-crash.py' && "
		"git config filter.proccrash.smudge 'tr a-z A-Z' && "
		"git config filter.procbadgreet.process '%s/pf-badgreet.py' && "
		"git config filter.procbadver.process '%s/pf-badver.py' && "
		"git config filter.proccleanonly.process "
		"'%s/pf-cleanonly.py' && "
		"git config filter.procnocmd.process "
		"nonexistent-proc-garchive && "
		"git config filter.procexitmeta.process '%s/pf-exitmeta.py' && "
		"git config filter.procover.process '%s/pf.py' && "
		"git config filter.procover.required false && "
		"git config filter.procsigexit.process '%s/pf-sigexit.py' && "
		/*
		 * A file that crashes its filter, then one after it; one that
		 * makes its filter abort, then others it no longer gets.
		 */
		"mkdir proccrash procabort && "
		"printf 'x\\n' >proccrash/crash.txt && "
		"printf 'y\\n' >proccrash/crash2.txt && "
		"printf 'z\\n' >procabort/abort.txt",
		noexec, noshebang, trash, trash, trash, trash, trash, trash,
		trash, trash, trash, trash);
	repo = make_repo("filters", filter_rules,
			 GA_ARRAY_SIZE(filter_rules), setup.ptr);

	env = ga_xstrfmt("PF_LOG='%s'", lg);
	r.label = "filters";
	r.repo = repo;
	r.rules = filter_rules;
	r.nr_rules = GA_ARRAY_SIZE(filter_rules);
	r.env = env;
	unlink(lg);
	setenv("PF_LOG", lo, 1);
	unlink(lo);
	check_run(&r);
	read_file(&log_git, lg);
	read_file(&log_ours, lo);
	ok(log_git.len > 0, "process filters were run");
	is_str(log_ours.ptr, log_git.ptr,
	       "process filters see git's handshake and metadata");
	free(env);

	r.env = NULL;
	unsetenv("PF_LOG");

	r.label = "required smudge fails";
	r.config = required;
	r.nr_config = 1;
	r.expect_rc = 128;
	check_run(&r);

	r.label = "required process filter fails";
	r.config = proc_required;
	check_run(&r);

	r.label = "required driver without smudge";
	r.config = nocmd_required;
	check_run(&r);

	r.label = "bad filter.<driver>.required";
	r.config = bad_required;
	check_run(&r);

	r.label = "filter.<driver>.smudge without a value";
	r.config = no_value;
	check_run(&r);

	for (i = 0; i < GA_ARRAY_SIZE(fatal); i++) {
		const char *config[1];
		char *c = ga_xstrfmt("filter.proc.process=%s/pf-%s.py", trash,
				     fatal[i].mode);

		config[0] = c;
		r.label = fatal[i].label;
		r.config = config;
		r.expect_rc = 128;
		check_run(&r);
		free(c);
	}

	ga_buf_release(&setup);
	ga_buf_release(&log_git);
	ga_buf_release(&log_ours);
	free(repo);
	free(pf);
	free(noexec);
	free(noshebang);
	free(lg);
	free(lo);
}

/*
 * git-lfs, through filter-process and through smudge
 */

static const struct rule lfs_rules[] = {
	/* the line `git lfs track 'lfs/[*]'` writes */
	{ "lfs", "filter=lfs diff=lfs merge=lfs -text",
	  { N, U, U, U, V("lfs"), U }, SET_BIG },
	{ "plain", NULL, { U, U, U, U, U, U }, SET_FILTER },
};

static void test_lfs(void)
{
	struct ga_buf content = GA_BUF_INIT;
	char *repo, *path;
	struct run r = { 0 };

	if (sh("git lfs version >/dev/null 2>&1")) {
		ok(1, "# SKIP git-lfs is not installed");
		return;
	}
	/*
	 * The files are written before `git lfs track`, so they are cleaned
	 * into pointers when added; make_repo's .gitattributes commit comes
	 * after: track here instead, before the first commit.
	 */
	repo = make_repo("lfs", lfs_rules, GA_ARRAY_SIZE(lfs_rules),
			 "git lfs install --local >/dev/null && "
			 "git lfs track 'lfs/*' >/dev/null");
	if (sh("cd '%s' && git show HEAD~1:lfs/small.txt | "
	       "grep -q git-lfs.github.com", repo))
		diag("lfs/small.txt is not stored as a pointer");
	r.label = "git-lfs filter-process";
	r.repo = repo;
	r.rules = lfs_rules;
	r.nr_rules = GA_ARRAY_SIZE(lfs_rules);
	check_run(&r);
	/* The comparison means something only if git-lfs did smudge. */
	path = ga_xstrfmt("%s/x/lfs/big.txt", trash);
	read_file(&content, path);
	ok(content.len == big_len && !memcmp(content.ptr, big_text, big_len),
	   "git archive smudged lfs/big.txt from its pointer");
	ga_buf_release(&content);
	free(path);

	if (sh("git -C '%s' config --unset filter.lfs.process", repo))
		die_setup("unset filter.lfs.process");
	r.label = "git-lfs smudge";
	check_run(&r);
	free(repo);
}

static void make_big_texts(void)
{
	struct ga_buf b = GA_BUF_INIT;
	size_t i;

	for (i = 0; b.len < 1024 * 1024; i++)
		ga_buf_printf(&b, "line %zu of the big text, Mixed Case\n", i);
	big_len = b.len;
	big_text = ga_buf_detach(&b, NULL);
	for (i = 0; i < 200000; i++)
		ga_buf_putc(&b, 'a' + (int)(i % 26));
	ga_buf_puts(&b, "\nend\n");
	long_len = b.len;
	long_line = ga_buf_detach(&b, NULL);
}

static void seal_environment(void)
{
	char tmpl[] = "/tmp/garchive-convert-XXXXXX";

	if (!mkdtemp(tmpl))
		die_setup("mkdtemp");
	trash = ga_xstrdup(tmpl);
	scratch_seal_env(trash);
	/* Python must not buffer differently under git and under us. */
	unsetenv("PYTHONUNBUFFERED");
	if (scratch_write_gitconfig(trash))
		die_setup("~/.gitconfig");
}

int main(void)
{
	int rc;

	/* As main does: a filter that exits early must give us EPIPE. */
	signal(SIGPIPE, SIG_IGN);
	seal_environment();
	git_libgit2_init();
	ga_set_report_handler(report, NULL);
	make_big_texts();

	test_eol();
	test_encoding();
	test_filters();
	test_lfs();

	rc = tap_done();
	if (!getenv("GARCHIVE_TEST_KEEP"))
		sh("rm -rf '%s'", trash);
	else
		diag("kept %s", trash);
	free(trash);
	free(big_text);
	free(long_line);
	git_libgit2_shutdown();
	return rc;
}

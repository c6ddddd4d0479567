/*
 * Unit tests for pathspecs: for many argument sets, the files that
 * `git archive HEAD -- <args>` puts in its tar must be exactly the
 * entries pathspec_match() selects in a walk of the same tree, each
 * item must validate as git's does ("did not match any files"), and
 * parse errors must carry git's message.
 */
#include "pathspec.h"
#include "attr.h"
#include "garchive/common.h"

#include "tap.h"
#include "gitscratch.h"

static char *scratch;
static char *repo;		/* absolute path of the repository */

struct entry {
	char *path;
	int kind;		/* the is_dir argument */
};

static struct entry *tree;
static size_t tree_nr;

static struct attr_stack *attrs;

static int read_dir(struct ga_buf *out, const char *dir, void *payload)
{
	char *path = *dir ? ga_xstrfmt("%s/.gitattributes", dir)
			  : ga_xstrdup(".gitattributes");
	int ret = attr_read_file(out, path, 1);

	(void)payload;
	free(path);
	return ret;
}

static int attr_cb(struct attr_value *out, const char *path, int is_dir,
		   const char *const *names, size_t nr, void *payload)
{
	(void)payload;
	return attr_check(out, attrs, path, is_dir, names, nr);
}

static void put(const char *path, const char *text)
{
	char *dir = ga_xstrdup(path), *slash = strrchr(dir, '/');

	if (slash) {
		*slash = '\0';
		scratch_sh("mkdir -p '%s'", dir);
	}
	scratch_write(path, text, strlen(text));
	free(dir);
}

/*
 * A tree like the torture repository's: nested directories, "foo.txt"
 * beside "foo/", executables, names with spaces and glob characters, a
 * symlink, a submodule and empty trees (which only plumbing can make).
 */
static int make_repo(void)
{
	static const char *const files[] = {
		"a.txt", "Foo.TXT", "foo.txt", "foo/bar.txt", "foo/baz/qux.c",
		"foo.bar/x", "foobar", "di.txt", "dir/sub/f", "dir/sub/g.txt",
		"dir/sub/deeper/h.c", "dir/a b.txt", "dir/star*name",
		"dir/q?mark", "dir/[br]acket", "dir/back\\slash", "dir/b",
		"with space/inner file", "sub/x.sh", "nest/file.txt", "-dash",
		"a.b.c", "Upper/File.TXT", "dir/sub/.hidden",
		"d\xc3\xa9j\xc3\xa0",
	};
	size_t i;

	repo = scratch_fmt("%s/repo", scratch);
	if (scratch_sh("git init -q '%s'", repo) || chdir(repo))
		return -1;
	for (i = 0; i < GA_ARRAY_SIZE(files); i++)
		put(files[i], files[i]);
	put("dir/exe.sh", "#!/bin/sh\n");
	put("x.sh", "#!/bin/sh\n");
	put(".gitattributes", "*.txt text\n*.c lang=c\ndir/sub/** deep\n"
	    "foo export-ignore\ndir/sub/g.txt export-ignore\n");
	put("dir/.gitattributes", "*.sh exe\n");
	return scratch_sh(
		"chmod 755 dir/exe.sh x.sh && ln -s foo.txt link && "
		"git add -A && git commit -q -m one && "
		/* A submodule at modules/lib. */
		"git update-index --add --cacheinfo "
		"160000,$(git rev-parse HEAD),modules/lib && "
		"git commit -q -m two && "
		/* Empty trees: emptydir/ and nest/empty/. */
		"e=$(git mktree </dev/null) && "
		"n=$(git ls-tree HEAD nest/ | sed 's|nest/||'; "
		"    printf '040000 tree %%s\\tempty\\n' $e) && "
		"n=$(printf '%%s\\n' \"$n\" | git mktree) && "
		"t=$( (git ls-tree HEAD | grep -v '\tnest$'; "
		"      printf '040000 tree %%s\\tnest\\n' $n; "
		"      printf '040000 tree %%s\\temptydir\\n' $e) | "
		"  git mktree) && "
		"c=$(echo three | git commit-tree $t -p HEAD) && "
		"git update-ref HEAD $c");
}

/* The entries of HEAD in tree order, with their kinds. */
static int load_tree(void)
{
	size_t len, alloc = 0;
	int st;
	char *out = scratch_out(&len, &st,
				"git ls-tree -r -t -z --full-tree HEAD");
	char *p = out;

	while (p < out + len) {
		char *tab = strchr(p, '\t');
		int kind = 0;

		if (!tab)
			break;
		if (!strncmp(p + 7, "tree", 4))
			kind = 1;
		else if (!strncmp(p + 7, "commit", 6))
			kind = PATHSPEC_GITLINK;
		GA_ALLOC_GROW(tree, tree_nr + 1, alloc);
		tree[tree_nr].path = ga_xstrdup(tab + 1);
		tree[tree_nr].kind = kind;
		tree_nr++;
		p = tab + strlen(tab) + 1;
	}
	free(out);
	return st || !tree_nr ? -1 : 0;
}

static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return dir[0] && !strncmp(path, dir, n) && path[n] == '/';
}

static int export_ignored(const char *path, int kind)
{
	static const char *const name[] = { "export-ignore" };
	struct attr_value v;

	/* git looks trees and submodules up as "path/". */
	if (attr_check(&v, attrs, path, kind != 0, name, 1))
		return 0;
	return v.state == ATTR_SET;
}

/*
 * Walk the tree as git archive does: enter trees the pathspec may match
 * inside, collect the selected non-trees (NUL-separated).  With
 * `prune` 0, decide every entry without skipping subtrees; with
 * `ignore`, leave export-ignored entries out as git archive does.
 */
static int select_entries(struct ga_buf *out, const struct pathspec *ps,
			  int prune, int ignore)
{
	char *skip = ga_xstrdup("");
	size_t i;
	int ret = 0;

	for (i = 0; i < tree_nr; i++) {
		const struct entry *e = &tree[i];
		int m;

		if (prune && under(e->path, skip))
			continue;
		if (e->kind == 1) {
			m = pathspec_may_match_inside(ps, e->path);
			if (m != pathspec_match(ps, e->path, 1, attr_cb,
						NULL)) {
				diag("may_match_inside and match disagree "
				     "on %s", e->path);
				ret = -1;
			}
			/* The walk's own business, as in git's callback. */
			if (m && ignore && export_ignored(e->path, 1))
				m = 0;
			if (!m) {
				free(skip);
				skip = ga_xstrdup(e->path);
			}
			continue;
		}
		m = pathspec_match(ps, e->path, e->kind, attr_cb, NULL);
		if (m < 0) {
			ret = m;
			break;
		}
		if (m && !(ignore && export_ignored(e->path, e->kind)))
			ga_buf_put(out, e->path, strlen(e->path) + 1);
	}
	free(skip);
	return ret;
}

/* Validate every item as git does; the first one matching nothing. */
static int first_unmatched(const struct pathspec *ps, size_t *which)
{
	size_t i, j;

	for (i = 0; i < pathspec_nr(ps); i++) {
		char *skip = ga_xstrdup("");
		int found = 0;

		for (j = 0; j < tree_nr && !found; j++) {
			const struct entry *e = &tree[j];
			int m;

			if (under(e->path, skip))
				continue;
			if (e->kind == 1 &&
			    !pathspec_item_may_match_inside(ps, i, e->path)) {
				free(skip);
				skip = ga_xstrdup(e->path);
				continue;
			}
			m = pathspec_item_match(ps, i, e->path, e->kind,
						attr_cb, NULL);
			if (m < 0) {
				free(skip);
				return m;
			}
			found = m;
		}
		free(skip);
		if (!found) {
			*which = i;
			return 1;
		}
	}
	return 0;
}

/* Files and submodules in git's tar (trees come and go with them). */
static void tar_entries(struct ga_buf *out, const char *list)
{
	const char *p = list;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		size_t i;
		int keep = len && p[len - 1] != '/';

		for (i = 0; !keep && i < tree_nr; i++) {
			if (tree[i].kind == PATHSPEC_GITLINK &&
			    strlen(tree[i].path) == len - 1 &&
			    !strncmp(tree[i].path, p, len - 1))
				keep = 1;
		}
		if (keep) {
			if (p[len - 1] == '/')
				len--;
			ga_buf_put(out, p, len);
			ga_buf_putc(out, '\0');
		}
		p += len + (nl ? 1 : 0);
		while (*p == '/' || *p == '\n')
			p++;
	}
}

struct pcase {
	const char *env;	/* e.g. "GIT_GLOB_PATHSPECS=1", or NULL */
	const char *args[8];
};

static void env_of(struct pathspec_env *env, const char *s)
{
	memset(env, 0, sizeof(*env));
	if (!s)
		return;
	env->glob = !!strstr(s, "GIT_GLOB_PATHSPECS=1");
	env->noglob = !!strstr(s, "GIT_NOGLOB_PATHSPECS=1");
	env->icase = !!strstr(s, "GIT_ICASE_PATHSPECS=1");
	env->literal = !!strstr(s, "GIT_LITERAL_PATHSPECS=1");
}

static void run_case(const struct pcase *c)
{
	struct ga_buf cmd = GA_BUF_INIT, label = GA_BUF_INIT;
	struct ga_buf want = GA_BUF_INIT, got = GA_BUF_INIT;
	struct ga_buf all = GA_BUF_INIT, msg = GA_BUF_INIT;
	struct pathspec_env env;
	struct pathspec *ps = NULL;
	size_t nr = 0, which = 0;
	char *listing, *err;
	int st, ret;

	for (nr = 0; c->args[nr]; nr++) {
		char *q = scratch_quote(c->args[nr]);

		ga_buf_printf(&cmd, " %s", q);
		ga_buf_printf(&label, "%s%s", nr ? " " : "", q);
		free(q);
	}
	if (c->env)
		ga_buf_printf(&label, " (%s)", c->env);
	listing = scratch_out(NULL, &st,
		"env %s git archive HEAD --%s >../out.tar 2>../err && "
		"tar --quoting-style=literal -tf ../out.tar",
		c->env ? c->env : "", cmd.ptr ? cmd.ptr : "");
	err = scratch_out(NULL, NULL, "cat ../err");

	env_of(&env, c->env);
	ret = pathspec_parse(&ps, (char *const *)c->args, nr, repo, &env);
	if (!ret)
		ret = first_unmatched(ps, &which);
	if (ret < 0) {
		ga_buf_printf(&msg, "fatal: %s\n", ga_error_message());
	} else if (ret > 0) {
		ga_buf_printf(&msg, "fatal: pathspec '%s' did not match any "
			      "files\n", pathspec_original(ps, which));
	}

	if (st || ret) {
		const char *bug = strstr(err, ": error initializing");

		/* Where git hits a BUG(), an error with its text will do. */
		if (!strncmp(err, "BUG: ", 5) && bug) {
			char *line = scratch_fmt("fatal%.*s\n",
						 (int)strcspn(bug, "\n"), bug);

			is_str(msg.ptr ? msg.ptr : "(no error)", line,
			       label.ptr ? label.ptr : "(none)");
			free(line);
		} else
			is_str(msg.ptr ? msg.ptr : "(no error)", err,
			       label.ptr ? label.ptr : "(none)");
		goto done;
	}
	tar_entries(&want, listing);
	ret = select_entries(&got, ps, 1, 1);
	ok(!ret && scratch_same_set(got.ptr, got.len, want.ptr, want.len),
	   "selects what git archive does: %s",
	   label.ptr ? label.ptr : "(none)");
	ga_buf_setlen(&got, 0);
	ret = select_entries(&got, ps, 1, 0);
	ret |= select_entries(&all, ps, 0, 0);
	ok(!ret && scratch_same_set(all.ptr, all.len, got.ptr, got.len),
	   "same without pruning: %s", label.ptr ? label.ptr : "(none)");
done:
	pathspec_free(ps);
	free(listing);
	free(err);
	ga_buf_release(&cmd);
	ga_buf_release(&label);
	ga_buf_release(&want);
	ga_buf_release(&got);
	ga_buf_release(&all);
	ga_buf_release(&msg);
}

static const struct pcase cases[] = {
	{ NULL, { NULL } },
	{ NULL, { "." } },
	{ NULL, { "a.txt" } },
	{ NULL, { "foo" } },
	{ NULL, { "foo/" } },
	{ NULL, { "foo.txt" } },
	{ NULL, { "di" } },
	{ NULL, { "dir" } },
	{ NULL, { "dir/" } },
	{ NULL, { "dir/sub" } },
	{ NULL, { "dir/sub/" } },
	{ NULL, { "dir//sub///" } },
	{ NULL, { "*.sh" } },
	{ NULL, { "*.txt" } },
	{ NULL, { "dir/*" } },
	{ NULL, { "dir/*.txt" } },
	{ NULL, { "*" } },
	{ NULL, { "**" } },
	{ NULL, { "?" } },
	{ NULL, { "f*" } },
	{ NULL, { "*/f" } },
	{ NULL, { "dir/sub/*" } },
	{ NULL, { "*o*" } },
	{ NULL, { "[ad]*" } },
	{ NULL, { "d[h-j]r" } },
	{ NULL, { ":(glob)*.sh" } },
	{ NULL, { ":(glob)**/*.sh" } },
	{ NULL, { ":(glob)**/f" } },
	{ NULL, { ":(glob)dir/**" } },
	{ NULL, { ":(glob)dir/*" } },
	{ NULL, { ":(glob)**" } },
	{ NULL, { ":(glob)d*" } },
	{ NULL, { ":(glob)*/sub" } },
	{ NULL, { ":(glob)dir/**/h.c" } },
	{ NULL, { ":(icase)foo.TXT" } },
	{ NULL, { ":(icase)FOO" } },
	{ NULL, { ":(icase)*.TXT" } },
	{ NULL, { ":(icase)upper/" } },
	{ NULL, { ":(icase,glob)**/*.SH" } },
	{ NULL, { ":(literal)dir/star*name" } },
	{ NULL, { "dir/star*name" } },
	{ NULL, { "dir/[br]acket" } },
	{ NULL, { "dir/q?mark" } },
	{ NULL, { "dir/back\\slash" } },
	{ NULL, { ":(glob)dir/back\\slash" } },
	{ NULL, { ":(literal)dir/*" } },
	{ NULL, { ":!foo" } },
	{ NULL, { ":(exclude)foo", "dir" } },
	{ NULL, { ":^dir/sub" } },
	{ NULL, { "*", ":!*.txt" } },
	{ NULL, { ":!*.txt" } },
	{ NULL, { ".", ":!dir/sub", ":!*.sh" } },
	{ NULL, { "dir", ":!dir/sub/f" } },
	{ NULL, { "dir", ":!dir/*" } },
	{ NULL, { "dir", ":(exclude,glob)dir/*" } },
	{ NULL, { ":!dir", ":!foo", ":!nest" } },
	{ NULL, { ":(exclude)*" } },
	{ NULL, { ":^" } },
	{ NULL, { ":!" } },
	{ NULL, { "dir", ":!dir" } },
	{ NULL, { "d*", ":!dir" } },
	{ NULL, { "foo", ":(exclude,icase)FOO/BAZ" } },
	{ NULL, { ":/foo.txt" } },
	{ NULL, { ":(top)dir" } },
	{ NULL, { ":/" } },
	{ NULL, { ":" } },
	{ NULL, { "::a.txt" } },
	{ NULL, { ":/!dir" } },
	{ NULL, { "./dir/../foo.txt" } },
	{ NULL, { "dir/sub/../exe.sh" } },
	{ NULL, { "foo.txt", "foo.txt" } },
	{ NULL, { "x.sh", "sub/x.sh" } },
	{ NULL, { "sub" } },
	{ NULL, { "link" } },
	{ NULL, { "link/" } },
	{ NULL, { "modules/lib" } },
	{ NULL, { "modules/lib/" } },
	{ NULL, { "modules/" } },
	{ NULL, { "modules/l*" } },
	{ NULL, { "emptydir" } },
	{ NULL, { "emptydir/" } },
	{ NULL, { "nest/empty" } },
	{ NULL, { "nest" } },
	{ NULL, { "with space" } },
	{ NULL, { "dir/a b.txt" } },
	{ NULL, { "d\xc3\xa9*" } },
	{ NULL, { ":(attr:lang=c)" } },
	{ NULL, { ":(attr:text)" } },
	{ NULL, { ":(attr:text)dir" } },
	{ NULL, { ":(attr:!text)dir" } },
	{ NULL, { ":(attr:deep)" } },
	{ NULL, { ":(attr:deep -text)" } },
	{ NULL, { ":(attr:exe)" } },
	{ NULL, { ":(exclude,attr:text)" } },
	{ NULL, { ":(attr:export-ignore)" } },
	{ NULL, { ":(attr:nothing)" } },
	{ NULL, { ":(attr: )a.txt" } },
	{ NULL, { ":(prefix:1,icase)dIR" } },
	{ NULL, { ":(prefix:2,icase)DIr" } },
	{ NULL, { ":(prefix:0)dir" } },
	{ NULL, { ":(prefix:-1)dir" } },
	{ NULL, { ":(prefix:1)*.txt" } },
	{ NULL, { ":(prefix:10)a.txt" } },
	{ NULL, { "nonexistent" } },
	{ NULL, { "foo.txt", "nonexistent", "other" } },
	{ NULL, { "" } },
	{ NULL, { "a.txt", "" } },
	{ NULL, { "../x" } },
	{ NULL, { ":(glob)../x" } },
	{ NULL, { "dir/../../x" } },
	{ NULL, { "dir/../.." } },
	{ NULL, { ".." } },
	{ NULL, { ":(top)../x" } },
	{ NULL, { ":(top)./a.txt" } },
	{ NULL, { ":(foo)x" } },
	{ NULL, { ":(glob" } },
	{ NULL, { ":(glob)" } },
	{ NULL, { ":(,,glob,)a.txt" } },
	{ NULL, { ":(GLOB)a.txt" } },
	{ NULL, { ":(literal,glob)x" } },
	{ NULL, { ":-x" } },
	{ NULL, { ":#x" } },
	{ NULL, { ":(attr:)x" } },
	{ NULL, { ":(attr:a,attr:b)x" } },
	{ NULL, { ":(attr:in@v)x" } },
	{ NULL, { ":(attr:a=b\\)x" } },
	{ NULL, { ":(attr:a=b!c)x" } },
	{ NULL, { ":(attr:a=b\\" } },
	{ NULL, { ":(attr:-a=b)x" } },
	{ NULL, { ":(prefix:x)x" } },
	{ NULL, { ":(foo)x", "" } },
	{ NULL, { "../x", ":(foo)x" } },
	{ "GIT_GLOB_PATHSPECS=1", { "*.sh" } },
	{ "GIT_GLOB_PATHSPECS=1", { "**/*.sh" } },
	{ "GIT_GLOB_PATHSPECS=1", { ":(literal)dir/star*name" } },
	{ "GIT_NOGLOB_PATHSPECS=1", { "dir/star*name" } },
	{ "GIT_NOGLOB_PATHSPECS=1", { "*.sh" } },
	{ "GIT_NOGLOB_PATHSPECS=1", { ":(glob)*.sh" } },
	{ "GIT_ICASE_PATHSPECS=1", { "FOO.TXT" } },
	{ "GIT_ICASE_PATHSPECS=1", { "*.txt", ":!FOO*" } },
	{ "GIT_LITERAL_PATHSPECS=1", { "dir/star*name" } },
	{ "GIT_LITERAL_PATHSPECS=1", { ":(glob)x" } },
	{ "GIT_LITERAL_PATHSPECS=1", { ":!foo" } },
	{ "GIT_LITERAL_PATHSPECS=1 GIT_NOGLOB_PATHSPECS=1", { "a.txt" } },
	{ "GIT_GLOB_PATHSPECS=1 GIT_NOGLOB_PATHSPECS=1", { "a.txt" } },
	{ "GIT_GLOB_PATHSPECS=1 GIT_NOGLOB_PATHSPECS=1", { NULL } },
	{ "GIT_LITERAL_PATHSPECS=1 GIT_ICASE_PATHSPECS=1", { "a.txt" } },
	{ "GIT_LITERAL_PATHSPECS=1 GIT_GLOB_PATHSPECS=1", { "a.txt" } },
};

/* Absolute paths depend on where the scratch repository is. */
static void absolute_cases(void)
{
	char *in = scratch_fmt("%s/foo.txt", repo);
	char *top = scratch_fmt("%s", repo);
	char *slash = scratch_fmt("%s/dir/", repo);
	char *up = scratch_fmt("%s/../x", repo);
	char *dotdot = scratch_fmt("%s/dir/../a.txt", repo);
	char *missing = scratch_fmt("%s/nonexistent/a/b", scratch);
	char *link = scratch_fmt("%s/replink/a.txt", scratch);
	char *badlink = scratch_fmt("%s/replink/no/a.txt", scratch);
	char *sibling = scratch_fmt("%sX/a.txt", repo);
	struct pcase c[] = {
		{ NULL, { in } }, { NULL, { top } }, { NULL, { slash } },
		{ NULL, { up } }, { NULL, { dotdot } }, { NULL, { missing } },
		{ NULL, { link } }, { NULL, { badlink } },
		{ NULL, { sibling } }, { NULL, { "/" } },
	};
	size_t i;

	scratch_sh("ln -s repo '%s/replink'", scratch);
	for (i = 0; i < GA_ARRAY_SIZE(c); i++)
		run_case(&c[i]);
	free(in);
	free(top);
	free(slash);
	free(up);
	free(dotdot);
	free(missing);
	free(link);
	free(badlink);
	free(sibling);
}

static void api_cases(void)
{
	char *const args[] = { "a", ":!b", ":(glob)c*" };
	struct pathspec *ps = NULL;

	ok(!pathspec_parse(&ps, args, 3, "/top", NULL), "parse without env");
	ok(pathspec_nr(ps) == 3, "three items");
	is_str(pathspec_original(ps, 1), ":!b", "original text kept");
	ok(!pathspec_is_exclude(ps, 0) && pathspec_is_exclude(ps, 1),
	   "exclude items are known");
	ok(pathspec_match(ps, "a", 0, NULL, NULL) == 1 &&
	   pathspec_match(ps, "b", 0, NULL, NULL) == 0 &&
	   pathspec_match(ps, "cd", 0, NULL, NULL) == 1 &&
	   pathspec_match(ps, "c/d", 0, NULL, NULL) == 0,
	   "matching without a callback");
	pathspec_free(ps);
	ps = NULL;
	ok(!pathspec_parse(&ps, args, 0, "/top", NULL) &&
	   pathspec_nr(ps) == 0 && pathspec_match(ps, "x/y", 0, NULL, NULL),
	   "an empty pathspec selects everything");
	pathspec_free(ps);
	pathspec_free(NULL);
}

/* One pathspec parsed in cwd "sub/..." as git 2.41 and later parse it. */
static struct pathspec *parse_in(const char *cwd, const char *arg,
				 const struct pathspec_env *env)
{
	char *args[1];
	struct pathspec *ps = NULL;

	args[0] = (char *)arg;
	if (pathspec_parse_in(&ps, args, 1, "/top", cwd, env) < 0) {
		ok(0, "parse '%s' in '%s': %s", arg, cwd, ga_error_message());
		return NULL;
	}
	return ps;
}

/* Whether `arg`, parsed in `cwd`, selects the file `path`. */
static int selects(const char *cwd, const char *arg, const char *path,
		   const struct pathspec_env *env)
{
	struct pathspec *ps = parse_in(cwd, arg, env);
	int ret = ps ? pathspec_match(ps, path, 0, NULL, NULL) : -1;

	pathspec_free(ps);
	return ret;
}

static void cwd_cases(void)
{
	static const struct pathspec_env icase = { 0, 0, 1, 0, 0 };
	char *args[] = { "../../.." };
	struct pathspec *ps = NULL;

	ga_error_clear();
	ok(selects("a/bin/", "../bin", "a/bin/sh", NULL) == 1 &&
	   selects("a/bin/", "../bin", "a/readme", NULL) == 0 &&
	   selects("a/bin/", "../bin", "a/binx", NULL) == 0,
	   "../bin in a/bin/ is a/bin");
	ok(selects("a/bin/", "..", "a/readme", NULL) == 1 &&
	   selects("a/bin/", "..", "top", NULL) == 0, ".. in a/bin/ is a");
	ok(selects("a/bin/", "../..", "top", NULL) == 1,
	   "../.. in a/bin/ is everything");
	ok(pathspec_parse_in(&ps, args, 1, "/top", "a/bin/", NULL) ==
	   GA_ERROR && !strcmp(ga_error_message(), "../../..: '../../..' is "
			       "outside repository at '/top'"),
	   "../../.. in a/bin/ is outside the repository");
	pathspec_free(ps);
	ps = NULL;
	ok(selects("sub/", "x", "sub/x", NULL) == 1 &&
	   selects("sub/", "x", "x", NULL) == 0, "x in sub/ is sub/x");
	ok(selects("sub/", ":(top)x", "x", NULL) == 1 &&
	   selects("sub/", ":/x", "x", NULL) == 1 &&
	   selects("sub/", ":(top)x", "sub/x", NULL) == 0,
	   ":(top) and :/ ignore the cwd");
	ok(selects("sub/", "/top/y", "y", NULL) == 1 &&
	   selects("sub/", "/top/y", "sub/y", NULL) == 0,
	   "an absolute path ignores the cwd");
	ok(selects("sub/", ":!x", "sub/y", NULL) == 1 &&
	   selects("sub/", ":!x", "sub/x", NULL) == 0 &&
	   selects("sub/", ":!x", "top", NULL) == 0,
	   "an exclude-only pathspec includes the cwd, not everything");
	ps = parse_in("sub/", ":!x", NULL);
	ok(ps && pathspec_item_match(ps, 0, "sub/y", 0, NULL, NULL) == 1 &&
	   pathspec_item_match(ps, 0, "top", 0, NULL, NULL) == 0,
	   "an exclude item is validated within the cwd");
	pathspec_free(ps);
	ok(selects("a*/", "x", "a*/x", NULL) == 1 &&
	   selects("a*/", "x", "ab/x", NULL) == 0 &&
	   selects("a*/", "../a*/x", "ab/x", NULL) == 1,
	   "the part of the cwd that remains is literal");
	ok(selects("Sub/", "x", "Sub/X", &icase) == 1 &&
	   selects("Sub/", "x", "sub/x", &icase) == 0,
	   "GIT_ICASE_PATHSPECS: the cwd part stays case sensitive");
	args[0] = "../x";
	ok(pathspec_parse_in(&ps, args, 1, "/top", "", NULL) == GA_ERROR &&
	   !strcmp(ga_error_message(), "../x: '../x' is outside repository "
		   "at '/top'"), "no cwd: .. is outside the repository");
	pathspec_free(ps);
}

int main(void)
{
	struct attr_stack_options opts = { 0 };
	size_t i;

	scratch = scratch_init("pathspec");
	if (!scratch) {
		printf("1..0 # SKIP git is not available\n");
		return 0;
	}
	if (make_repo() || load_tree()) {
		ok(0, "make the scratch repository");
		scratch_done(scratch);
		return tap_done();
	}
	opts.read_dir = read_dir;
	opts.worktree = 1;
	opts.info_file = ".git/info/attributes";
	attr_stack_new(&attrs, &opts);

	for (i = 0; i < GA_ARRAY_SIZE(cases); i++)
		run_case(&cases[i]);
	absolute_cases();
	api_cases();
	cwd_cases();

	attr_stack_free(attrs);
	for (i = 0; i < tree_nr; i++)
		free(tree[i].path);
	free(tree);
	free(repo);
	if (chdir("/"))
		ok(0, "chdir /");
	scratch_done(scratch);
	return tap_done();
}

/*
 * Unit tests for the attribute stack: scratch repositories with
 * .gitattributes at several depths, $GIT_DIR/info/attributes and a
 * global file, compared with `git check-attr` (work-tree files) and
 * `git check-attr --cached` (blobs, as git archive reads them), path by
 * path, in several lookup orders, plus the warnings git prints.
 */
#include "attr.h"
#include "garchive/common.h"

#include "tap.h"
#include "gitscratch.h"

#include <errno.h>
#include <time.h>

static char *scratch;		/* the scratch directory */
static struct ga_buf reports = GA_BUF_INIT;

static void collect_report(enum ga_report_kind kind, const char *msg,
			   void *payload)
{
	(void)payload;
	if (kind == GA_REPORT_WARNING)
		ga_buf_puts(&reports, "warning: ");
	else if (kind == GA_REPORT_ERROR)
		ga_buf_puts(&reports, "error: ");
	ga_buf_puts(&reports, msg);
	ga_buf_putc(&reports, '\n');
}

/* Write a file below the current directory, creating its directories. */
static void put(const char *path, const char *data, size_t len)
{
	char *dir = ga_xstrdup(path), *slash = strrchr(dir, '/');

	if (slash) {
		*slash = '\0';
		scratch_sh("mkdir -p '%s'", dir);
	}
	if (scratch_write(path, data, len))
		printf("# cannot write %s: %s\n", path, strerror(errno));
	free(dir);
}

static void puts_file(const char *path, const char *text)
{
	put(path, text, strlen(text));
}

/* Start a fresh repository "<scratch>/<name>" and chdir into it. */
static int new_repo(const char *name)
{
	if (chdir(scratch) ||
	    scratch_sh("rm -rf %s && git init -q %s", name, name) ||
	    chdir(name)) {
		ok(0, "create repository %s", name);
		return -1;
	}
	return 0;
}

struct read_ctx {
	int cached;
	int calls;
};

/* read_dir: work-tree files (git's CHECKIN) or index blobs (--cached). */
static int read_dir(struct ga_buf *out, const char *dir, void *payload)
{
	struct read_ctx *ctx = payload;
	char *path = *dir ? ga_xstrfmt("%s/.gitattributes", dir)
			  : ga_xstrdup(".gitattributes");
	int ret;

	ctx->calls++;
	/*
	 * check-attr without --cached reads the work tree and falls back
	 * to the index (git archive --worktree-attributes has no index).
	 */
	ret = ctx->cached ? GA_ENOTFOUND : attr_read_file(out, path, 1);
	if (ret == GA_ENOTFOUND) {
		char *q = scratch_quote(path);
		size_t len;
		int st;
		char *blob = scratch_out(&len, &st,
			"git cat-file blob :%s 2>/dev/null", q);

		ret = GA_ENOTFOUND;
		if (!st) {
			ga_buf_put(out, blob, len);
			ret = 0;
		}
		free(blob);
		free(q);
	}
	free(path);
	return ret;
}

static const char *state_str(const struct attr_value *v)
{
	switch (v->state) {
	case ATTR_SET:
		return "set";
	case ATTR_UNSET:
		return "unset";
	case ATTR_VALUE:
		return v->value;
	default:
		return "unspecified";
	}
}

/* Keep the first occurrence of each line, in order. */
static char *dedup_lines(const char *text)
{
	struct ga_buf out = GA_BUF_INIT;
	const char *p = text;

	ga_buf_puts(&out, "");
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
		char *line = ga_xstrndup(p, len);
		const char *q = out.ptr;
		int seen = 0;

		while ((q = strstr(q, line))) {
			if (q == out.ptr || q[-1] == '\n') {
				seen = 1;
				break;
			}
			q++;
		}
		if (!seen)
			ga_buf_puts(&out, line);
		free(line);
		p += len;
	}
	return ga_buf_detach(&out, NULL);
}

struct scenario {
	const char *name;
	const char *global;	/* core.attributesFile, or NULL */
	int ignore_case;
	const char *const *paths;
	const char *const *names;
};

static size_t count(const char *const *v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

/* git's answer: values[path * nnames + name], from check-attr -z. */
static char **git_check_attr(const struct scenario *sc, int cached,
			     char **err)
{
	size_t np = count(sc->paths), nn = count(sc->names), i, len;
	struct ga_buf cmd = GA_BUF_INIT;
	char **values = ga_xcalloc(np * nn, sizeof(*values));
	char *out, *p, *end;
	int st;

	ga_buf_printf(&cmd, "git check-attr -z%s", cached ? " --cached" : "");
	for (i = 0; i < nn; i++)
		ga_buf_printf(&cmd, " %s", sc->names[i]);
	ga_buf_puts(&cmd, " --");
	for (i = 0; i < np; i++) {
		char *q = scratch_quote(sc->paths[i]);

		ga_buf_printf(&cmd, " %s", q);
		free(q);
	}
	ga_buf_puts(&cmd, " 2>../git-stderr");
	out = scratch_out(&len, &st, "%s", cmd.ptr);
	ga_buf_release(&cmd);
	if (st)
		diag("git check-attr exited with %d", st);
	for (p = out, end = out + len; p < end;) {
		const char *path = p, *name, *value;
		size_t pi, ni;

		name = path + strlen(path) + 1;
		if (name >= end)
			break;
		value = name + strlen(name) + 1;
		if (value >= end)
			break;
		p = (char *)value + strlen(value) + 1;
		for (pi = 0; pi < np && strcmp(sc->paths[pi], path); pi++)
			;
		for (ni = 0; ni < nn && strcmp(sc->names[ni], name); ni++)
			;
		if (pi < np && ni < nn && !values[pi * nn + ni])
			values[pi * nn + ni] = ga_xstrdup(value);
	}
	free(out);
	{
		char *raw = scratch_out(NULL, NULL, "cat ../git-stderr");

		*err = dedup_lines(raw);
		free(raw);
	}
	return values;
}

/*
 * Look every path up (all names at once, then each name alone) in the
 * order given by `order`, comparing with git's `values`.
 */
static void compare_pass(struct attr_stack *stack, const struct scenario *sc,
			 char **values, const size_t *order, int cached,
			 const char *label)
{
	size_t np = count(sc->paths), nn = count(sc->names), k, j;
	struct attr_value *got = ga_xcalloc(nn, sizeof(*got));

	for (k = 0; k < np; k++) {
		size_t i = order[k];
		const char *path = sc->paths[i];
		size_t len = strlen(path);
		int bad = 0, ret;
		char *lookup = ga_xstrdup(path);
		int is_dir = 0;

		/* Alternate the two ways of naming a directory. */
		if (len && path[len - 1] == '/' && k % 2) {
			lookup[len - 1] = '\0';
			is_dir = 1;
		}
		ret = attr_check(got, stack, lookup, is_dir, sc->names, nn);
		if (ret)
			diag("attr_check failed: %s", ga_error_message());
		for (j = 0; j < nn; j++) {
			const char *want = values[i * nn + j];
			const char *have = ret ? "(error)" : state_str(&got[j]);

			if (want && strcmp(want, have)) {
				diag("%s: %s: want '%s', got '%s'", path,
				     sc->names[j], want, have);
				bad = 1;
			}
			if (!want) {
				diag("%s: %s: git said nothing", path,
				     sc->names[j]);
				bad = 1;
			}
		}
		/* Each name alone must give the same answer. */
		for (j = 0; j < nn && !ret; j++) {
			struct attr_value one;
			const char *want = values[i * nn + j];

			if (attr_check(&one, stack, lookup, is_dir,
				       &sc->names[j], 1))
				bad = 1;
			else if (want && strcmp(want, state_str(&one))) {
				diag("%s: %s alone: want '%s', got '%s'", path,
				     sc->names[j], want, state_str(&one));
				bad = 1;
			}
		}
		ok(!bad && !ret, "%s %s %s: '%s'", sc->name,
		   cached ? "cached" : "worktree", label, path);
		free(lookup);
	}
	free(got);
}

static void run_scenario(const struct scenario *sc)
{
	size_t np = count(sc->paths), nn = count(sc->names), i, mode;
	size_t *order = ga_xcalloc(np, sizeof(*order));

	for (mode = 0; mode < 2; mode++) {
		struct attr_stack_options opts = { 0 };
		struct read_ctx ctx = { (int)mode, 0 };
		struct attr_stack *stack = NULL;
		char *git_err = NULL, *mine;
		char **values = git_check_attr(sc, (int)mode, &git_err);
		unsigned int seed = 12345;

		opts.global_file = sc->global;
		opts.info_file = ".git/info/attributes";
		opts.read_dir = read_dir;
		opts.payload = &ctx;
		opts.ignore_case = sc->ignore_case;
		opts.worktree = !mode;

		ga_buf_setlen(&reports, 0);
		attr_stack_new(&stack, &opts);
		for (i = 0; i < np; i++)
			order[i] = i;
		compare_pass(stack, sc, values, order, (int)mode, "in order");

		mine = dedup_lines(reports.ptr ? reports.ptr : "");
		is_str(mine, git_err, "warnings are git's");
		free(mine);

		/* The same stack, looked up backwards and shuffled. */
		for (i = 0; i < np; i++)
			order[i] = np - 1 - i;
		compare_pass(stack, sc, values, order, (int)mode, "reversed");
		for (i = np; i > 1; i--) {
			size_t r, t;

			seed = seed * 1103515245u + 12345u;
			r = (seed >> 16) % i;
			t = order[i - 1];
			order[i - 1] = order[r];
			order[r] = t;
		}
		compare_pass(stack, sc, values, order, (int)mode, "shuffled");
		attr_stack_free(stack);

		for (i = 0; i < np * nn; i++)
			free(values[i]);
		free(values);
		free(git_err);
	}
	free(order);
}

static void scenario_precedence(void)
{
	static const char *const paths[] = {
		"top.txt", "a.txt", "ab.txt", "x.c", "sub/x.c", "sub/a.txt",
		"sub/anch.txt", "sub/deeper/anch.txt", "sub/deeper/x.c",
		"sub/deeper/y.h", "sub/deeper/z.txt", "sub/", "sub/deeper/",
		"deep/", "x/deep/", "x/deep/f", "deep/y/z", "info.txt",
		"sub/info.txt", "name with space.txt", "q\"uote", "tab\there",
		"odd name", "ODD.TXT", "dup", "dup2", "unset-me", "other/sub/",
		"other/sub/f.txt", "Sub/x.txt", "sub/deeper/more/w.h",
		"sub/deeper/more/", "sub/other.h", "x/y/z/q.c", "anch.txt",
		NULL
	};
	static const char *const names[] = {
		"text", "t1", "c1", "c2", "c3", "anchored", "subtxt",
		"subdir-basename", "subdir-anchored", "deepdir", "under-deep",
		"later", "x", "spaced", "quoted", "tabbed", "oddesc", "upper",
		"sub-anchored", "hsub", "hd", "info", "g1", "g2", "nothere",
		NULL
	};
	static const struct scenario sc = {
		"precedence", "../global-precedence", 0, paths, names
	};

	if (new_repo("precedence"))
		return;
	puts_file(".gitattributes",
		  "# comment\n"
		  "   # indented comment\n"
		  "\n"
		  "*.txt text t1=root\n"
		  "*.c c1 -c2\n"
		  "/top.txt anchored\n"
		  "sub/*.txt subtxt\n"
		  "sub/ subdir-basename\n"
		  "/sub/ subdir-anchored\n"
		  "deep/ deepdir\n"
		  "**/deep/** under-deep\n"
		  "a*.txt later=1\n"
		  "a*.txt later=2\n"
		  "dup -x x\n"
		  "dup2 x -x\n"
		  "\"name with space.txt\" spaced\n"
		  "\"q\\\"uote\" quoted\n"
		  "\"tab\\there\" tabbed\n"
		  "odd\\ name oddesc\n"
		  "*.TXT upper\n"
		  "unset-me !t1 text\n"
		  "\t  x/**/*.c\tc1=tabbed  \t\n");
	puts_file("sub/.gitattributes",
		  "*.txt t1=sub -text\n"
		  "x.c c2\n"
		  "/anch.txt sub-anchored\n"
		  "deeper/*.h hsub\n"
		  "*.txt !later\n");
	puts_file("sub/deeper/.gitattributes",
		  "*.h hd\n"
		  "*.txt t1=deeper\n"
		  "/x.c !c1\n"
		  "more/ hd=dir\n");
	puts_file(".git/info/attributes",
		  "info.txt info\n"
		  "*.c c3=info\n"
		  "sub/deeper/*.txt t1=info\n");
	puts_file("../global-precedence",
		  "*.txt t1=global g1\n"
		  "*.c c3=global g2\n"
		  "*.h g2=global\n");
	if (scratch_sh("git config core.attributesFile ../global-precedence"
		       " && git add -A 2>/dev/null")) {
		ok(0, "set up precedence");
		return;
	}
	run_scenario(&sc);
}

static void scenario_macros(void)
{
	static const char *const paths[] = {
		"f.m1", "f.neg", "f.pos", "f.m2", "f.unm", "f.val", "f.off",
		"f.bin", "f.bin2", "f.sh", "f.loop", "sub/f.m1", "sub/f.m2",
		"sub/x.y", "f.g", "f.info", "sub/f.g", "f.chain", "f.plain",
		"sub/deep/f.m2", NULL
	};
	static const char *const names[] = {
		"m1", "m2", "a", "b", "c", "d", "gm", "ga", "gb", "shadow",
		"fromglobal", "fromroot", "frominfo", "binary", "diff",
		"merge", "text", "loop1", "loop2", "l1", "l2", "m3", "z",
		"chain", "e", NULL
	};
	static const struct scenario sc = {
		"macros", "../global-macros", 0, paths, names
	};

	if (new_repo("macros"))
		return;
	puts_file("../global-macros",
		  "[attr]gm ga -gb\n"
		  "[attr]shadow fromglobal\n"
		  "*.g gm\n"
		  "*.chain chain\n");
	puts_file(".gitattributes",
		  "[attr]m1 a b=1 -c\n"
		  "[attr]m2 m1 d\n"
		  "[attr]shadow fromroot\n"
		  "*.m1 m1\n"
		  "*.neg -a m1\n"
		  "*.pos m1 -a\n"
		  "*.m2 m2\n"
		  "*.unm !m1\n"
		  "*.val m1=x\n"
		  "*.off -m1\n"
		  "*.bin binary\n"
		  "*.bin2 binary text\n"
		  "*.sh shadow\n"
		  "*.loop loop1\n"
		  "[attr]loop1 loop2 l1\n"
		  "[attr]loop2 loop1 l2\n"
		  "[attr]chain m2 -d e\n"
		  "[attr]m1 a b=2 -c\n");
	puts_file("sub/.gitattributes",
		  "*.m1 -b\n"
		  "[attr]m3 z\n"
		  "*.m2 !d\n"
		  "x.* m1\n"
		  "*.g gb\n");
	puts_file("sub/deep/.gitattributes", "*.m2 -a\n");
	puts_file(".git/info/attributes",
		  "[attr]shadow frominfo\n"
		  "*.info m1\n"
		  "*.g -ga\n");
	if (scratch_sh("git config core.attributesFile ../global-macros"
		       " && git add -A 2>/dev/null")) {
		ok(0, "set up macros");
		return;
	}
	run_scenario(&sc);
}

static void scenario_builtin_redefined(void)
{
	static const char *const paths[] = { "a.b", "a.c", "s/a.b", NULL };
	static const char *const names[] = {
		"binary", "diff", "merge", "text", "mine", NULL
	};
	static const struct scenario sc = {
		"redefined-binary", NULL, 0, paths, names
	};

	if (new_repo("redefined"))
		return;
	puts_file(".gitattributes",
		  "*.b binary\n[attr]binary -diff mine\n*.c -binary\n");
	puts_file("s/.gitattributes", "*.b text\n");
	if (scratch_sh("git add -A 2>/dev/null")) {
		ok(0, "set up redefined-binary");
		return;
	}
	run_scenario(&sc);
}

static void scenario_syntax(void)
{
	static const char *const paths[] = {
		"in@valid", "ok1", "-bad", "=x", "e", "e2", "e3", "neg", "!neg",
		"!lit", "q", "v", "bad\\q", "\"bad\\q\"", "octA", "sp ace",
		"\"unterminated", "long1", "long2", "sub/a.c", "sub2/a.h",
		"sub3/a.bom", "sub4/a.a", "sub4/a.b", "sub4/a.c", "sub5/x",
		"[attr]", "m2", "y", "last", "sub6/f", NULL
	};
	static const char *const names[] = {
		"x", "good", "lit", "qm", "c", "b", "n1", "n2", "n3", "n4",
		"bq", "oc", "ss", "uq", "long", "ok2", "crlf1", "bom", "na",
		"n", "nc", "z", "y", "m2", "sym", "last", "linked", "s6",
		NULL
	};
	static const struct scenario sc = {
		"syntax", NULL, 0, paths, names
	};
	struct ga_buf buf = GA_BUF_INIT;

	if (new_repo("syntax"))
		return;
	ga_buf_puts(&buf,
		    "in@valid x\n"
		    "ok1 good\n"
		    "-bad x\n"
		    "=x\n"
		    "e -\n"
		    "e2 -=x\n"
		    "e3 !\n"
		    "!neg x\n"
		    "\\!lit lit\n"
		    "\"[attr]qm b\" c\n"
		    "q qm\n"
		    "v -n1=val !n2=val n3= n4=a=b\n"
		    "\"bad\\q\" bq\n"
		    "\"oct\\101\" oc\n"
		    "\"sp ace\"ss\n"
		    "\"unterminated uq\n");
	/* 2047 bytes are fine, 2048 are too long, leading blanks count. */
	ga_buf_printf(&buf, "long1 long%*s\n", 2047 - 10, "x");
	ga_buf_printf(&buf, "  long2 long%*s\n", 2048 - 12, "x");
	ga_buf_printf(&buf, "#%*s\n", 3000, "x");
	ga_buf_puts(&buf,
		    "[attr]\n"
		    "[attr]in@valid x\n"
		    "\"[attr] \" y\n"
		    "   \"[attr]m2\" z\n"
		    "m2 m2\n"
		    "last last");
	put(".gitattributes", buf.ptr, buf.len);
	ga_buf_release(&buf);
	puts_file("sub/.gitattributes",
		  "[attr]notok x y\n*.c ok2\n   [attr]also\tnot\n");
	puts_file("sub2/.gitattributes", "*.h crlf1\r\n[attr]m3 q\r\n");
	puts_file("sub3/.gitattributes", "\xef\xbb\xbf*.bom bom\n");
	put("sub4/.gitattributes", "*.a na\n*.b n\0b\n*.c nc\n", 21);
	/* A symlink: not followed in the work tree, parsed as a blob. */
	if (scratch_sh("mkdir -p sub5 && ln -s '* sym' sub5/.gitattributes"))
		ok(0, "symlink");
	/* An unreadable .gitattributes (a directory). */
	if (scratch_sh("mkdir -p sub6/.gitattributes && "
		       ">sub6/.gitattributes/f && "
		       "printf '* s6\\n' >.git/info/attributes"))
		ok(0, "directory .gitattributes");
	if (scratch_sh("git add -A 2>/dev/null")) {
		ok(0, "set up syntax");
		return;
	}
	run_scenario(&sc);
}

static void scenario_icase(void)
{
	static const char *const paths[] = {
		"a.txt", "A.TXT", "sub/x.c", "SUB/X.C", "Sub/x.c", "top.c",
		"TOP.C", "dir/", "DIR/", "q/Dir/", "lit.ab", "LIT.AB",
		"cls.X", "cls.x", "sub/y.h", NULL
	};
	static const char *const names[] = {
		"u", "anch", "top", "d", "lit", "cls", "subc", "esc", NULL
	};
	static const struct scenario sc = {
		"ignorecase", NULL, 1, paths, names
	};

	if (new_repo("icase"))
		return;
	puts_file(".gitattributes",
		  "*.TXT u\n"
		  "Sub/x.c anch\n"
		  "/Top.c top\n"
		  "Dir/ d\n"
		  "lit.AB lit\n"
		  "*.[X] cls\n"
		  "*.\\H esc\n");
	puts_file("sub/.gitattributes", "*.C subc\n");
	if (scratch_sh("git config core.ignoreCase true && "
		       "git add -A 2>/dev/null")) {
		ok(0, "set up ignorecase");
		return;
	}
	run_scenario(&sc);
}

/* The 100 MB limit, on a sparse global file git only stats. */
static void scenario_large(void)
{
	static const char *const paths[] = { "a", "b/c", NULL };
	static const char *const names[] = { "big", "small", NULL };
	static const struct scenario sc = {
		"large", "../global-large", 0, paths, names
	};

	if (new_repo("large"))
		return;
	puts_file(".gitattributes", "* small\n");
	if (scratch_sh("truncate -s 100M ../global-large && "
		       "git config core.attributesFile ../global-large && "
		       "git add -A 2>/dev/null")) {
		ok(0, "set up large");
		return;
	}
	run_scenario(&sc);
}

/* Sources git cannot be pointed at here: the system file. */
static void system_file(void)
{
	static const char *const names[] = {
		"sys", "sysonly", "sm", "from-system", "from-global"
	};
	struct attr_stack_options opts = { 0 };
	struct attr_stack *stack = NULL;
	struct attr_value v[5];

	if (new_repo("system"))
		return;
	puts_file("../system-attrs",
		  "*.s sys=1 sysonly\n"
		  "[attr]sm from-system\n"
		  "*.m sm\n");
	puts_file("../global-attrs", "*.s sys=2\n[attr]sm from-global\n");
	opts.system_file = "../system-attrs";
	opts.global_file = "../global-attrs";
	attr_stack_new(&stack, &opts);
	ok(!attr_check(v, stack, "a.s", 0, names, 5), "system: lookup");
	is_str(state_str(&v[0]), "2", "system: global wins over system");
	is_str(state_str(&v[1]), "set", "system: system file applies");
	ok(!attr_check(v, stack, "d/a.m", 0, names, 5), "system: lookup");
	is_str(state_str(&v[2]), "set", "system: macro from system file");
	is_str(state_str(&v[3]), "unspecified",
	       "system: the global macro definition wins");
	is_str(state_str(&v[4]), "set",
	       "system: the global definition expands");
	attr_stack_free(stack);
}

struct mem_tree {
	int calls;
	int fail;
};

static int mem_read(struct ga_buf *out, const char *dir, void *payload)
{
	struct mem_tree *t = payload;

	t->calls++;
	if (t->fail && !strcmp(dir, "bad"))
		return ga_error_set("cannot read tree %s", dir);
	if (!*dir)
		ga_buf_puts(out, "*.c code\nd*/ dirs\n[attr]mac ma\n");
	else if (strlen(dir) % 3 == 0)
		ga_buf_puts(out, "*.c -code\n*.h mac\n");
	else
		return GA_ENOTFOUND;
	return 0;
}

/* Each directory is read once, in any order; errors pass through. */
static void caching(void)
{
	static const char *const names[] = { "code", "dirs", "ma" };
	struct mem_tree t = { 0, 0 };
	struct attr_stack_options opts = { 0 };
	struct attr_stack *stack = NULL;
	struct attr_value v[3];
	char path[64];
	int d, f, bad = 0;
	clock_t start = clock();

	opts.read_dir = mem_read;
	opts.payload = &t;
	attr_stack_new(&stack, &opts);
	/* 2000 directories of 50 files, depth first, then again backwards. */
	for (d = 0; d < 2000; d++) {
		snprintf(path, sizeof(path), "d%d/", d);
		bad |= attr_check(v, stack, path, 1, names, 3);
		bad |= v[1].state != ATTR_SET;
		snprintf(path, sizeof(path), "d%d/s", d);
		for (f = 0; f < 50; f++) {
			/* The deepest file with rules decides. */
			int sub = (int)strlen(path) % 3 == 0;
			int top = (int)snprintf(path, sizeof(path), "d%d", d)
				  % 3 == 0;

			snprintf(path, sizeof(path), "d%d/s/f%d.%c", d, f,
				 f % 2 ? 'c' : 'h');
			bad |= attr_check(v, stack, path, 0, names, 3);
			if (f % 2)
				bad |= v[0].state !=
				       (sub || top ? ATTR_UNSET : ATTR_SET);
			else
				bad |= v[2].state !=
				       (sub || top ? ATTR_SET
						   : ATTR_UNSPECIFIED);
			snprintf(path, sizeof(path), "d%d/s", d);
		}
	}
	for (d = 1999; d >= 0; d--) {
		snprintf(path, sizeof(path), "d%d/s/x.c", d);
		bad |= attr_check(v, stack, path, 0, names, 3);
	}
	ok(!bad, "100k lookups succeed");
	ok(t.calls == 1 + 2 * 2000, "each directory read once (%d reads)",
	   t.calls);
	diag("100k lookups took %.2fs",
	     (double)(clock() - start) / CLOCKS_PER_SEC);
	attr_stack_free(stack);

	t.fail = 1;
	t.calls = 0;
	attr_stack_new(&stack, &opts);
	ok(attr_check(v, stack, "bad/x.c", 0, names, 3) == GA_ERROR,
	   "a reader error is returned");
	is_str(ga_error_message(), "cannot read tree bad",
	       "with the reader's message");
	ok(!attr_check(v, stack, "good/x.c", 0, names, 3) &&
	   v[0].state == ATTR_SET, "the stack still works after an error");
	attr_stack_free(stack);

	/* Found by t/fuzz/attr.c: a leading '/' made attr_check spin. */
	t.fail = 0;
	attr_stack_new(&stack, &opts);
	ok(!attr_check(v, stack, "/build/x.c", 0, names, 3) &&
	   !attr_check(v, stack, "/x.c", 0, names, 3) &&
	   !attr_check(v, stack, "//x/", 0, names, 3) &&
	   !attr_check(v, stack, "a//b.c", 0, names, 3),
	   "paths with a leading or doubled '/' are looked up");
	attr_stack_free(stack);
}

static int big_read(struct ga_buf *out, const char *dir, void *payload)
{
	(void)payload;
	if (*dir)
		return GA_ENOTFOUND;
	/* Zero pages: no real memory is touched. */
	free(out->ptr);
	out->alloc = 100 * 1024 * 1024 + 1;
	out->ptr = ga_xcalloc(1, out->alloc);
	out->len = out->alloc - 1;
	return 0;
}

static void large_blob(void)
{
	static const char *const names[] = { "x" };
	struct attr_stack_options opts = { 0 };
	struct attr_stack *stack = NULL;
	struct attr_value v;

	opts.read_dir = big_read;
	ga_buf_setlen(&reports, 0);
	attr_stack_new(&stack, &opts);
	ok(!attr_check(&v, stack, "a", 0, names, 1), "large blob: lookup");
	is_str(reports.ptr, "warning: ignoring overly large gitattributes "
	       "blob '.gitattributes'\n", "large blob: git's warning");
	attr_stack_free(stack);
}

static void read_file_cases(void)
{
	struct ga_buf b = GA_BUF_INIT;

	if (new_repo("readfile"))
		return;
	puts_file("f", "abc\n");
	scratch_sh("mkdir d && ln -s f l");
	ok(!attr_read_file(&b, "f", 1) && b.len == 4, "read a file");
	ok(attr_read_file(&b, "missing", 1) == GA_ENOTFOUND,
	   "a missing file is not found");
	ok(attr_read_file(&b, "f/x", 1) == GA_ENOTFOUND,
	   "ENOTDIR is not found");
	ga_buf_setlen(&reports, 0);
	ok(attr_read_file(&b, "l", 1) == GA_ENOTFOUND,
	   "a symlink is not followed");
	is_str(reports.ptr, "warning: unable to access 'l': Too many levels "
	       "of symbolic links\n", "with git's warning");
	ok(!attr_read_file(&b, "l", 0) && b.len == 4, "unless asked to");
	ok(!attr_read_file(&b, "d", 0) && b.len == 0,
	   "a directory reads as empty");
	ga_buf_release(&b);
}

int main(void)
{
	ga_set_report_handler(collect_report, NULL);
	scratch = scratch_init("attr");
	if (!scratch) {
		printf("1..0 # SKIP git is not available\n");
		return 0;
	}
	scenario_precedence();
	scenario_macros();
	scenario_builtin_redefined();
	scenario_syntax();
	scenario_icase();
	scenario_large();
	system_file();
	read_file_cases();
	caching();
	large_blob();
	if (chdir("/"))
		ok(0, "chdir /");
	scratch_done(scratch);
	ga_buf_release(&reports);
	return tap_done();
}

/*
 * Unit tests for cli.c: every argument vector is parsed by garchive's
 * cli stage and given to the real `git archive` in a scratch repository.
 * git's exit status decides the expected result (0, fatal 128, usage
 * 129), git's first diagnostic line the expected message, and where
 * git's usage text appeared (stdout, stderr, nowhere) the expected usage
 * destination.  Successful parses are then checked field by field; the
 * extra files against the tail of git's own tar output.
 */
#include "gitscratch.h"
#include "tap.h"

#include "garchive/cli.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "garchive/format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <git2.h>
#include <zlib.h>

#define A(...) ((const char *[]){ __VA_ARGS__, NULL })
#define NOARGS ((const char *[]){ NULL })

/* What a case expects beyond agreeing with git. */
#define LATER	0x1	/* git fails in a later stage; cli must pass */

static char root[256];		/* scratch directory */
static char out_path[300], err_path[300];
static struct format_list formats;

struct git_run {
	int rc;
	int code;		/* GA_OK, GA_ERROR or GA_EUSAGE */
	char *msg;		/* first diagnostic without its prefix */
	enum ga_usage_dest dest;
	int remote;		/* the answer came from a server */
	char *out, *err;	/* stdout and stderr bytes */
	size_t out_len, err_len;
};

static char *read_file(const char *path, size_t *len)
{
	struct ga_buf buf = GA_BUF_INIT;

	(void)ga_buf_read_file(&buf, path);
	return ga_buf_detach(&buf, len);
}

static void git_run_release(struct git_run *g)
{
	free(g->msg);
	free(g->out);
	free(g->err);
	memset(g, 0, sizeof(*g));
}

/* Run `git <argv...>` in `dir` with stdout and stderr in files. */
static int spawn_git(const char *dir, const char *const *argv)
{
	const char *full[64];
	pid_t pid;
	int status, fd, i;

	full[0] = "git";
	for (i = 0; argv[i] && i < 62; i++)
		full[i + 1] = argv[i];
	full[i + 1] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (dir && chdir(dir))
			_exit(126);
		fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		close(fd);
		fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		close(fd);
		execvp("git", (char **)full);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * git 2.39's runs, recorded (as t/lib.sh's ref_git_ does for the
 * scripts).  Where git is 2.39 the cases run git; with
 * GARCHIVE_TEST_RECORD_2_39 set they also write each run to
 * t/unit/ref-2.39/cli.gz, and with another git they read git's answer
 * from there: the same runs in the same order, each checked against its
 * directory and arguments.  The scratch directory is kept as @ROOT@.
 * GARCHIVE_TEST_ANY_GIT compares with the live git, whatever it is.
 */
enum { REF_LIVE, REF_RECORD, REF_REPLAY };
static int ref_mode = REF_LIVE;
static gzFile ref_file;
static unsigned ref_seq;

static void ref_open(void)
{
	char path[4096];

	if (getenv("GARCHIVE_TEST_ANY_GIT") ||
	    (tap_git_is_2_39() && !getenv("GARCHIVE_TEST_RECORD_2_39")))
		return;
	/* __FILE__ is t/unit/cli.c, as the Makefile compiles it from the top. */
	snprintf(path, sizeof(path), "%.*s/ref-2.39/cli.gz",
		 (int)(strrchr(__FILE__, '/') - __FILE__), __FILE__);
	ref_mode = tap_git_is_2_39() ? REF_RECORD : REF_REPLAY;
	if (ref_mode == REF_RECORD) {
		*strrchr(path, '/') = '\0';
		(void)mkdir(path, 0777);
		path[strlen(path)] = '/';
	}
	ref_file = gzopen(path, ref_mode == REF_RECORD ? "wb9" : "rb");
	if (!ref_file) {
		printf("1..0 # SKIP compares with git 2.39 and cannot open "
		       "its record %s\n", path);
		exit(0);
	}
}

/* `text` with each `from` replaced by `to`, newly allocated. */
static char *replace_all(const char *text, size_t len, const char *from,
			 const char *to, size_t *out_len)
{
	struct ga_buf buf = GA_BUF_INIT;
	size_t flen = strlen(from), i = 0;

	while (i < len) {
		if (flen && len - i >= flen && !memcmp(text + i, from, flen)) {
			ga_buf_puts(&buf, to);
			i += flen;
		} else {
			ga_buf_put(&buf, text + i, 1);
			i++;
		}
	}
	return ga_buf_detach(&buf, out_len);
}

/* The run's key: its number, directory and arguments, the root as @ROOT@. */
static char *ref_key(const char *dir, const char *const *argv)
{
	struct ga_buf buf = GA_BUF_INIT;
	char *key;
	size_t len;
	int i;

	ga_buf_printf(&buf, "%u [%s]", ref_seq, dir ? dir : "");
	for (i = 0; argv[i]; i++)
		ga_buf_printf(&buf, " [%s]", argv[i]);
	key = replace_all(buf.ptr, buf.len, root, "@ROOT@", &len);
	ga_buf_release(&buf);
	for (i = 0; key[i]; i++)
		if (key[i] == '\n')
			key[i] = ' ';
	return key;
}

static void ref_record(const char *key, const struct git_run *g)
{
	size_t err_len;
	char *err = replace_all(g->err, g->err_len, root, "@ROOT@", &err_len);

	gzprintf(ref_file, "%s\n%d %zu %zu\n", key, g->rc, g->out_len,
		 err_len);
	if (g->out_len)
		gzwrite(ref_file, g->out, (unsigned)g->out_len);
	if (err_len)
		gzwrite(ref_file, err, (unsigned)err_len);
	free(err);
}

/* Read `len` bytes of the record into a new NUL-terminated buffer. */
static char *ref_read(size_t len)
{
	char *p = malloc(len + 1);

	if (!p)
		abort();
	if (len && gzread(ref_file, p, (unsigned)len) != (int)len)
		len = 0;
	p[len] = '\0';
	return p;
}

static int ref_replay(const char *key, struct git_run *g)
{
	char line[8192], *err;
	size_t err_len;

	if (!gzgets(ref_file, line, sizeof(line)) ||
	    strcmp(strtok(line, "\n") ? line : "", key)) {
		diag("recorded git 2.39 run is not %s: record again "
		     "(make record-2.39)", key);
		return -1;
	}
	if (!gzgets(ref_file, line, sizeof(line)) ||
	    sscanf(line, "%d %zu %zu", &g->rc, &g->out_len, &err_len) != 3)
		return -1;
	g->out = ref_read(g->out_len);
	err = ref_read(err_len);
	g->err = replace_all(err, err_len, "@ROOT@", root, &g->err_len);
	free(err);
	return 0;
}

/*
 * A file the last run of git wrote (its -o file): recorded after the run,
 * written again from the record in a replay.
 */
static void ref_side_file(const char *path)
{
	struct git_run g;
	char *key;
	FILE *f;

	if (ref_mode == REF_LIVE)
		return;
	memset(&g, 0, sizeof(g));
	key = ga_xstrfmt("%u file [%s]", ref_seq, path);
	if (ref_mode == REF_RECORD) {
		g.out = read_file(path, &g.out_len);
		g.err = ref_read(0);
		ref_record(key, &g);
	} else if (!ref_replay(key, &g) && (f = fopen(path, "wb"))) {
		fwrite(g.out, 1, g.out_len, f);
		fclose(f);
	}
	free(key);
	git_run_release(&g);
}

/* git's run of `argv` in `dir`: live, recorded or replayed. */
static void ref_run(struct git_run *g, const char *dir,
		    const char *const *argv)
{
	char *key = NULL;

	ref_seq++;
	if (ref_mode != REF_LIVE)
		key = ref_key(dir, argv);
	if (ref_mode == REF_REPLAY) {
		if (ref_replay(key, g) < 0) {
			g->rc = -1;
			g->out = ref_read(0);
			g->err = ref_read(0);
			g->out_len = g->err_len = 0;
		}
		free(key);
		return;
	}
	g->rc = spawn_git(dir, argv);
	g->out = read_file(out_path, &g->out_len);
	g->err = read_file(err_path, &g->err_len);
	if (ref_mode == REF_RECORD)
		ref_record(key, g);
	free(key);
}

/*
 * Classify git's result.  A remote request reports the server's
 * diagnostics as "remote: fatal: ..." lines padded with spaces.
 */
static void run_git(struct git_run *g, const char *dir,
		    const char *const *argv)
{
	char *line, *end;

	memset(g, 0, sizeof(*g));
	ref_run(g, dir, argv);
	g->code = g->rc == 128 ? GA_ERROR : g->rc == 129 ? GA_EUSAGE : GA_OK;

	/*
	 * The server's own "fatal: sent error..." shares our stderr and
	 * may come first; the client's "remote: " lines are the answer.
	 */
	line = starts_with(g->err, "remote: ") ? g->err :
		strstr(g->err, "\nremote: ");
	if (line && *line == '\n')
		line++;
	g->remote = line != NULL;
	if (!line)
		line = g->err;
	end = strchr(line, '\n');
	if (g->remote) {
		line += strlen("remote: ");
		g->code = GA_OK;
		if (starts_with(line, "fatal: "))
			g->code = GA_ERROR;
		else if (starts_with(line, "error: ") ||
			 starts_with(line, "usage: "))
			g->code = GA_EUSAGE;
	}
	if (starts_with(line, "fatal: ") || starts_with(line, "error: ")) {
		line += 7;
		g->msg = strndup(line, end ? (size_t)(end - line)
					   : strlen(line));
		/* sideband lines end in eight spaces */
		if (g->remote) {
			size_t n = strlen(g->msg);

			while (n && g->msg[n - 1] == ' ')
				g->msg[--n] = '\0';
		}
	}
	if (starts_with(g->out, "usage: git archive"))
		g->dest = GA_USAGE_STDOUT;
	else if (starts_with(g->err, "usage: git archive") ||
		 (end && starts_with(end + 1, "usage: git archive")))
		g->dest = GA_USAGE_STDERR;
}

static char *describe(const char *dir, const char *const *args)
{
	struct ga_buf buf = GA_BUF_INIT;
	int i;

	ga_buf_puts(&buf, dir ? "(in sub/)" : "git archive");
	for (i = 0; args[i]; i++)
		ga_buf_printf(&buf, " '%s'", args[i]);
	return ga_buf_detach(&buf, NULL);
}

/*
 * Parse `args` with garchive as main would: global options, pass 1, then
 * pass 2 here or, with --remote, as the server would (in $GIT_DIR, no
 * cwd prefix, remote restrictions).
 */
static int garchive_parse(struct archive_options *opts, const char *dir,
			  const char *const *args)
{
	char *argv[64];
	int argc = 0, error, server;

	argv[argc++] = "git-archive";
	while (args[argc - 1] && argc < 63) {
		argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	argv[argc] = NULL;
	ga_error_clear();
	if ((error = cli_parse_pass1(opts, argc, argv)) < 0 ||
	    opts->completion)
		return error;
	server = opts->remote != NULL;
	if (dir && chdir(dir))
		return -100;
	if (server && chdir(".git"))
		return -100;
	error = cli_parse_archive(opts, &formats, dir ? "sub/" : "", server);
	if ((server && chdir("..")) || (dir && chdir("..")))
		return -100;
	return error;
}

/*
 * garchive's usage is git's with "git archive" named "garchive", then
 * garchive's own options.
 */
static void same_usage(const char *usage, const char *git_text,
		       size_t git_len, const char *what)
{
	struct ga_buf want = GA_BUF_INIT;
	const char *p = git_text, *end = git_text + git_len, *hit;
	size_t len;

	while (p < end && (hit = memmem(p, (size_t)(end - p), "git archive",
				       11))) {
		ga_buf_put(&want, p, (size_t)(hit - p));
		ga_buf_puts(&want, "garchive");
		p = hit + 11;
	}
	ga_buf_put(&want, p, (size_t)(end - p));
	len = strlen(usage) < want.len ? strlen(usage) : want.len;
	is_mem(usage, len, want.ptr, want.len, what);
	ok(!strncmp(usage + len, "garchive's own options", 22),
	   "  ... then garchive's own options");
	ga_buf_release(&want);
}

/*
 * The heart of the tests: garchive and git must agree on the outcome,
 * the message and where the usage goes.  Returns garchive's code with
 * `opts` filled for further checks.
 */
static int check(struct archive_options *opts, unsigned flags,
		 const char *dir, const char *const *args)
{
	struct git_run g;
	const char *argv[64];
	char *what = describe(dir, args);
	const char *usage = cli_usage();
	int code, i, n = 0;

	argv[n++] = "archive";
	for (i = 0; args[i] && n < 62; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	run_git(&g, dir, argv);
	code = garchive_parse(opts, dir, args);

	if (flags & LATER) {
		ok(g.code != GA_OK && code == 0,
		   "%s: git fails later (%s), cli accepts", what,
		   g.msg ? g.msg : "?");
		if (code)
			diag("garchive: %d %s", code, ga_error_message());
		goto done;
	}
	if (!ok(code == g.code, "%s: outcome %d as git's (exit %d)", what,
		code, g.rc)) {
		diag("garchive: '%s'", ga_error_message());
		diag("git: '%s'", g.err);
	}
	if (g.code == GA_OK)
		goto done;
	is_str(ga_error_message(), g.msg ? g.msg : "",
	       "  ... same message");
	if (g.remote)
		goto done;
	ok(ga_error_usage_dest() == g.dest, "  ... usage on %s as git's",
	   g.dest == GA_USAGE_STDOUT ? "stdout" :
	   g.dest == GA_USAGE_STDERR ? "stderr" : "nothing");
	if (g.dest == GA_USAGE_STDOUT)
		same_usage(usage, g.out, g.out_len,
			   "  ... usage text as git's stdout");
	if (g.dest == GA_USAGE_STDERR) {
		const char *u = strstr(g.err, "usage: git archive");

		same_usage(usage, u, g.err_len - (u - g.err),
			   "  ... usage text as git's stderr");
	}
done:
	git_run_release(&g);
	free(what);
	return code;
}

/* Just agreement with git; the options are thrown away. */
static void same_as_git(unsigned flags, const char *dir,
			const char *const *args)
{
	struct archive_options opts;

	memset(&opts, 0, sizeof(opts));
	check(&opts, flags, dir, args);
	cli_options_release(&opts);
}

/* ---- git's tar output, to check extra files against ---------------- */

struct tar_entry {
	char name[512];
	unsigned mode;
	const char *data;
	size_t size;
};

static unsigned long octal(const char *p, size_t n)
{
	unsigned long v = 0;

	while (n-- && *p >= '0' && *p <= '7')
		v = v * 8 + (unsigned long)(*p++ - '0');
	return v;
}

static size_t tar_entries(const char *buf, size_t len, struct tar_entry *e,
			  size_t max)
{
	size_t off = 0, n = 0;

	while (off + 512 <= len && buf[off] && n < max) {
		const char *h = buf + off;
		size_t size = octal(h + 124, 12);

		if (h[156] != 'g' && h[156] != 'x') {
			if (h[345])
				snprintf(e[n].name, sizeof(e[n].name),
					 "%.155s/%.100s", h + 345, h);
			else
				snprintf(e[n].name, sizeof(e[n].name),
					 "%.100s", h);
			e[n].mode = (unsigned)octal(h + 100, 8);
			e[n].data = h + 512;
			e[n].size = size;
			n++;
		}
		off += 512 + (size + 511) / 512 * 512;
	}
	return n;
}

/*
 * The extra files are the last entries of git's tar; their names, exec
 * bits and (virtual) contents must be what cli.c recorded.
 */
static void check_extras_with_git(const struct archive_options *opts,
				  const char *dir, const char *const *args)
{
	const char *argv[64];
	struct tar_entry e[64];
	struct git_run g;
	size_t n, i, first;
	int k, m = 0;

	argv[m++] = "archive";
	for (k = 0; args[k] && m < 62; k++)
		argv[m++] = args[k];
	argv[m] = NULL;
	run_git(&g, dir, argv);
	n = tar_entries(g.out, g.out_len, e, 64);
	if (!ok(g.rc == 0 && n >= opts->nr_extras,
		"  ... git wrote %zu entries for %zu extra files", n,
		opts->nr_extras))
		goto done;
	first = n - opts->nr_extras;
	for (i = 0; i < opts->nr_extras; i++) {
		const struct extra_file *x = &opts->extras[i];
		const struct tar_entry *t = &e[first + i];

		is_str(x->path, t->name, "  ... extra file path as git's");
		ok(!!(t->mode & 0100) == x->executable,
		   "  ... executable bit of extra file %zu as git's (%o)",
		   i + 1, t->mode);
		if (!x->disk_path)
			is_mem(x->content, x->content_len, t->data, t->size,
			       "  ... virtual content as git's");
	}
done:
	git_run_release(&g);
}

/* ---- the cases ------------------------------------------------------ */

static void test_usage_and_help(void)
{
	same_as_git(0, NULL, A("-h"));
	same_as_git(0, NULL, A("HEAD", "-h"));
	same_as_git(0, NULL, A("-vh"));
	same_as_git(0, NULL, A("-hv"));
	same_as_git(0, NULL, A("-hel"));
	same_as_git(0, NULL, A("-9h"));
	same_as_git(0, NULL, A("-v", "--help"));
	same_as_git(0, NULL, A("HEAD", "--help-all"));
	same_as_git(0, NULL, A("--he"));
	same_as_git(0, NULL, A("--help=x"));
	same_as_git(LATER, NULL, A("HEAD", "--end-of-options", "-h"));
	same_as_git(0, NULL, NOARGS);
	same_as_git(0, NULL, A("-v"));
	same_as_git(0, NULL, A("--format=bogus"));
	same_as_git(0, NULL, A("--"));
	same_as_git(0, "sub", A("-h"));
	is_mem(cli_usage() + strlen(cli_usage()) - 2, 2, "\n\n", 2,
	       "usage text ends with an empty line");
}

static void test_unknown_and_typos(void)
{
	same_as_git(0, NULL, A("--bogus", "HEAD"));
	same_as_git(0, NULL, A("--bogus=1", "HEAD"));
	same_as_git(0, NULL, A("-q", "HEAD"));
	same_as_git(0, NULL, A("-vq", "HEAD"));
	same_as_git(0, NULL, A("-v-x", "HEAD"));
	same_as_git(0, NULL, A("-\xc3\xa9"));
	same_as_git(0, NULL, A("-v\xc3\xa9"));
	same_as_git(0, NULL, A("-list"));
	same_as_git(0, NULL, A("-lis"));
	same_as_git(0, NULL, A("-li"));
	same_as_git(0, NULL, A("-vlist"));
	same_as_git(0, NULL, A("-form=zip"));
	same_as_git(0, NULL, A("-for"));
	same_as_git(0, NULL, A("-prefix"));
	same_as_git(0, NULL, A("-prefix=x"));
	same_as_git(0, NULL, A("-worktree"));
	same_as_git(0, NULL, A("-remote"));
	same_as_git(0, NULL, A("-rem"));
	same_as_git(0, NULL, A("-exec"));
	same_as_git(0, NULL, A("-ex"));
	same_as_git(0, NULL, A("-no-foo"));
	same_as_git(0, NULL, A("-no"));
	same_as_git(0, NULL, A("-no-h"));
	same_as_git(0, NULL, A("-help"));
	/* garchive's extensions stay invisible to git's typo hints */
	same_as_git(0, NULL, A("-mtime"));
	same_as_git(0, NULL, A("-threads"));
	same_as_git(0, NULL, A("-thr"));
	same_as_git(0, NULL, A("--no-mtime", "HEAD"));
	same_as_git(0, NULL, A("--no-threads", "HEAD"));
	same_as_git(0, NULL, A("--bogus", "--add-file=nosuch", "HEAD"));
	same_as_git(0, NULL, A("--add-file=nosuch", "--bogus", "HEAD"));
}

static void test_values_and_abbreviations(void)
{
	same_as_git(0, NULL, A("--format"));
	same_as_git(0, NULL, A("--prefix"));
	same_as_git(0, NULL, A("--add-file"));
	same_as_git(0, NULL, A("--add-virtual-file"));
	same_as_git(0, NULL, A("HEAD", "--form"));
	same_as_git(0, NULL, A("--verbose=3"));
	same_as_git(0, NULL, A("--verb=3"));
	same_as_git(0, NULL, A("--no-verbose=3"));
	same_as_git(0, NULL, A("--no-verb=3"));
	same_as_git(0, NULL, A("--list=1"));
	same_as_git(0, NULL, A("--worktree-attributes=yes"));
	same_as_git(0, NULL, A("--no-format=zip", "HEAD"));
	same_as_git(0, NULL, A("--no-form=zip", "HEAD"));
	same_as_git(0, NULL, A("--no-add-file=x", "HEAD"));
	same_as_git(0, NULL, A("--add=x"));
	same_as_git(0, NULL, A("--add", "x", "HEAD"));
	same_as_git(0, NULL, A("--no-add", "HEAD"));
	same_as_git(0, NULL, A("--no-no-format", "HEAD"));
	same_as_git(0, NULL, A("--=x"));
	same_as_git(0, NULL, A("--="));
	same_as_git(0, NULL, A("--n=x"));
	same_as_git(0, NULL, A("--formatx=zip", "HEAD"));
	same_as_git(0, NULL, A("-vo"));
	same_as_git(0, NULL, A("-vo", "vo.tar", "HEAD"));
	same_as_git(0, NULL, A("-vovo.tar", "HEAD"));
	same_as_git(0, NULL, A("--rem=x", "HEAD"));
	same_as_git(0, NULL, A("--exe=x", "HEAD"));
	same_as_git(0, NULL, A("--out=x", "HEAD"));
	same_as_git(0, NULL, A("--out=x", "--no-out", "HEAD"));
	same_as_git(0, NULL, A("--outp", "x", "HEAD"));
	same_as_git(0, NULL, A("--rem=x", "--exe=y", "--out=z", "HEAD"));
	same_as_git(0, NULL, A("--exe=y", "--out=z", "HEAD"));
	same_as_git(0, NULL, A("--add-file=u", "--rem=x", "HEAD"));
	same_as_git(0, NULL, A("--rem=x", "--add-file=nosuch", "HEAD"));
	same_as_git(0, NULL, A("--format=bogus", "HEAD"));
	same_as_git(0, NULL, A("--format=", "HEAD"));
	same_as_git(0, NULL, A("--format=bogus", "-l"));
}

/* Pass 1: only -o, --remote and --exec, exact names only. */
static void test_pass1(void)
{
	struct archive_options opts;

	same_as_git(0, NULL, A("-o"));
	same_as_git(0, NULL, A("--output"));
	same_as_git(0, NULL, A("--remote"));
	same_as_git(0, NULL, A("--exec"));
	same_as_git(0, NULL, A("--n"));
	same_as_git(0, NULL, A("--no"));
	same_as_git(0, NULL, A("--no-"));
	same_as_git(0, NULL, A("--no-output=x"));
	same_as_git(0, NULL, A("--no-o", "HEAD"));
	same_as_git(0, NULL, A("--no-rem", "HEAD"));
	same_as_git(0, NULL, A("--no-exec", "HEAD"));
	same_as_git(0, NULL, A("--exec=foo", "HEAD"));
	same_as_git(0, NULL, A("--exec", "foo", "HEAD"));

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, NULL, A("-out", "HEAD")))
		is_str(opts.output, "ut", "-out is -o ut");
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, LATER, NULL, A("-v", "--output", "o1.tar", "HEAD",
				     "-oo2.tar", "--", "-o", "x"))) {
		is_str(opts.output, "o2.tar", "last -o wins");
		ok(opts.nr_pass1_args == 5, "pass 1 kept %zu arguments",
		   opts.nr_pass1_args);
		if (opts.nr_pass1_args == 5) {
			is_str(opts.pass1_args[0], "-v", "  ... -v kept");
			is_str(opts.pass1_args[1], "HEAD", "  ... HEAD kept");
			is_str(opts.pass1_args[2], "--", "  ... -- kept");
			is_str(opts.pass1_args[3], "-o", "  ... -o after --");
		}
		ok(opts.nr_pathspecs == 2 &&
		   !strcmp(opts.pathspecs[0], "-o"),
		   "-o after -- is a pathspec");
	}
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, LATER, NULL, A("--end-of-options", "-o", "x"))) {
		ok(!opts.output, "--end-of-options stops pass 1");
		is_str(opts.treeish, "-o", "  ... -o is the tree-ish");
	}
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, NULL, A("-o", "p.tar", "--no-output", "HEAD")))
		ok(!opts.output, "--no-output forgets -o");
	cli_options_release(&opts);

	/* pass 1 on its own, for what git archive sends with --remote */
	{
		char *argv[] = { "git-archive", "--remote=r", "-vo", "f",
				 "--exec", "e", "--rem=x", "--", "--remote=y",
				 NULL };

		memset(&opts, 0, sizeof(opts));
		ok(!cli_parse_pass1(&opts, 9, argv), "pass 1 with --remote");
		is_str(opts.remote, "r", "  ... remote");
		is_str(opts.exec, "e", "  ... exec");
		ok(!opts.output, "  ... -vo left for pass 2");
		ok(opts.nr_pass1_args == 5, "  ... %zu arguments kept",
		   opts.nr_pass1_args);
		if (opts.nr_pass1_args == 5) {
			is_str(opts.pass1_args[0], "-vo", "  ... -vo");
			is_str(opts.pass1_args[1], "f", "  ... f");
			is_str(opts.pass1_args[2], "--rem=x", "  ... --rem=x");
			is_str(opts.pass1_args[4], "--remote=y",
			       "  ... --remote=y after --");
		}
		cli_options_release(&opts);
	}
}

static void test_completion(void)
{
	struct archive_options opts;
	struct git_run g;
	char *text;

	memset(&opts, 0, sizeof(opts));
	run_git(&g, NULL, A("archive", "--git-completion-helper"));
	ok(!garchive_parse(&opts, NULL, A("--git-completion-helper")) &&
	   opts.completion, "pass 1 completion helper");
	is_str(opts.completion, g.out, "  ... same text as git's");
	git_run_release(&g);
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	run_git(&g, NULL, A("archive", "-o", "comp.txt",
			    "--git-completion-helper-all"));
	ref_side_file("comp.txt");
	text = read_file("comp.txt", NULL);
	ok(g.rc == 0 && !garchive_parse(&opts, NULL,
		A("-o", "comp.txt", "--git-completion-helper-all")) &&
	   opts.completion, "pass 2 completion helper");
	is_str(opts.completion, text, "  ... same text as git's -o file");
	free(text);
	git_run_release(&g);
	cli_options_release(&opts);

	same_as_git(0, NULL, A("--git-completion-helper", "HEAD"));
	same_as_git(LATER, NULL, A("--", "--git-completion-helper"));
}

static void test_formats(void)
{
	struct archive_options opts;
	static const struct {
		const char *want;
		const char *args[8];
	} cases[] = {
		{ "zip", { "--form=zip", "HEAD" } },
		{ "zip", { "--format", "zip", "HEAD" } },
		{ "tar", { "--format", "zip", "--format", "tar", "HEAD" } },
		{ "zip", { "--no-format", "-o", "x.zip", "HEAD" } },
		{ "zip", { "--format=zip", "--no-format", "-o", "x.zip",
			   "HEAD" } },
		{ "zip", { "-o", "x.zip", "HEAD" } },
		{ "zip", { "HEAD", "-o", "x.zip" } },
		{ "tar", { "-o", "x.ZIP", "HEAD" } },
		{ "tar", { "-o", ".zip", "HEAD" } },
		{ "tar", { "-o", "x.gz", "HEAD" } },
		{ "tgz", { "-o", "x.tgz", "HEAD" } },
		{ "tar.gz", { "-o", "x.tar.gz", "HEAD" } },
		{ "tar.gz", { "--format=tar.gz", "-o", "x.zip", "HEAD" } },
		{ "zip", { "--format=tar", "--format=zip", "-o", "x.tgz",
			   "HEAD" } },
		{ "tar", { "HEAD" } },
		{ "tar", { "--no-format", "HEAD" } },
		{ "foo", { "-o", "x.foo", "HEAD" } },
	};
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(cases); i++) {
		memset(&opts, 0, sizeof(opts));
		if (!check(&opts, 0, NULL, cases[i].args) &&
		    ok(opts.format != NULL, "  ... format chosen"))
			is_str(opts.format->name, cases[i].want,
			       "  ... format as git's");
		cli_options_release(&opts);
	}

	/* git infers from the cwd-prefixed -o name */
	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, "sub", A("-o", ".zip", "HEAD")) && opts.format)
		is_str(opts.format->name, "zip", "'.zip' in sub/ is a zip");
	cli_options_release(&opts);
	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, "sub", A("-o", "-", "HEAD")) && opts.format)
		is_str(opts.format->name, "tar", "'-o -' infers nothing");
	cli_options_release(&opts);
}

static void test_levels(void)
{
	struct archive_options opts;
	static const struct {
		unsigned flags;
		int level;
		const char *args[8];
	} cases[] = {
		{ 0, 9, { "-v9", "--format", "zip", "HEAD" } },
		{ 0, 9, { "-9v", "--format", "zip", "HEAD" } },
		{ 0, 0, { "-0", "--format=zip", "HEAD" } },
		{ 0, 3, { "-12", "-3", "--format=zip", "HEAD" } },
		{ 0, 9, { "--format=tgz", "-9", "HEAD" } },
		{ 0, -1, { "HEAD" } },
		{ 0, -1, { "-99999999999999999999", "HEAD" } },
		{ 0, 1, { "--format=zip", "-4294967297", "HEAD" } },
		{ 0, 5, { "--format=foo", "-5", "HEAD" } },
		{ LATER, 12, { "--format=tgz", "-12", "HEAD" } },
		{ LATER, 12, { "--format=tar.gz", "-12", "HEAD" } },
		{ LATER, -2147483647, { "--format=zip", "-2147483649",
					"HEAD" } },
		{ 0, 0, { "-9", "HEAD" } },
		{ 0, 0, { "--format=tar", "-0", "HEAD" } },
		{ 0, 0, { "--format=zip", "-10", "HEAD" } },
		{ 0, 0, { "-4294967297", "HEAD" } },
		{ 0, 0, { "-2147483649", "HEAD" } },
		{ 0, 0, { "-10", "-v", "-o", "x.zip", "HEAD" } },
	};
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(cases); i++) {
		memset(&opts, 0, sizeof(opts));
		if (!check(&opts, cases[i].flags, NULL, cases[i].args))
			ok(opts.level == cases[i].level,
			   "  ... level %d (want %d)", opts.level,
			   cases[i].level);
		cli_options_release(&opts);
	}
}

static void test_list(void)
{
	const char *const *cases[] = {
		A("-l"), A("--list"), A("--lis", "HEAD"),
		A("-l", "nosuch", "extra"), A("-lv"), A("-l9", "--format=tar"),
		A("--format=bogus", "--list", "HEAD"),
		A("--list", "--no-list", "-l"),
	};
	struct archive_options opts;
	struct ga_buf names = GA_BUF_INIT;
	struct git_run g;
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(cases); i++) {
		memset(&opts, 0, sizeof(opts));
		if (!check(&opts, 0, NULL, cases[i]))
			ok(opts.list, "  ... list set");
		cli_options_release(&opts);
	}
	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, NULL, A("--list", "--no-list", "HEAD")))
		ok(!opts.list && opts.treeish, "--no-list undoes --list");
	cli_options_release(&opts);
	same_as_git(0, NULL, A("--add-file=nosuch", "-l"));
	same_as_git(0, NULL, A("-l", "--out=x"));

	/* the table main prints is git's list */
	for (i = 0; i < formats.nr; i++)
		ga_buf_printf(&names, "%s\n", formats.items[i].name);
	run_git(&g, NULL, A("archive", "--list"));
	is_mem(names.ptr, names.len, g.out, g.out_len,
	       "format table lists what git lists");
	git_run_release(&g);
	ga_buf_release(&names);
}

static void test_flags(void)
{
	struct archive_options opts;

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, NULL, A("-v", "-v", "HEAD")))
		ok(opts.verbose == 0, "-v -v is no -v: git keeps one bit");
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, NULL, A("-vv", "--no-verbose", "-v", "HEAD")))
		ok(opts.verbose == 1, "--no-verbose resets the count");
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, NULL, A("--worktree", "HEAD")))
		ok(opts.worktree_attributes, "--worktree abbreviates");
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, NULL, A("--worktree-attributes",
				     "--no-worktree-attributes", "HEAD")))
		ok(!opts.worktree_attributes, "--no-worktree-attributes");
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, NULL, A("--prefix=p/", "HEAD", "--pre", "q/")))
		is_str(opts.prefix, "q/", "last --prefix wins");
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, NULL, A("--prefix=p/", "--no-prefix", "HEAD")))
		is_str(opts.prefix, "", "--no-prefix is no prefix");
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, NULL, A("HEAD", "sub", "-v", "a"))) {
		is_str(opts.treeish, "HEAD", "tree-ish first");
		ok(opts.nr_pathspecs == 2 && !strcmp(opts.pathspecs[0], "sub")
		   && !strcmp(opts.pathspecs[1], "a"),
		   "options between paths");
		ok(opts.verbose == 1, "  ... and still parsed");
	}
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, LATER, NULL, A("--", "-v"))) {
		is_str(opts.treeish, "-v", "-v after -- is the tree-ish");
		ok(!opts.verbose, "  ... not an option");
	}
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, LATER, NULL, A("HEAD", "--", "-v", "--", "-l"))) {
		ok(opts.nr_pathspecs == 3 && !strcmp(opts.pathspecs[0], "-v")
		   && !strcmp(opts.pathspecs[1], "--"),
		   "everything after -- is positional");
		ok(!opts.list, "  ... -l too");
	}
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, LATER, NULL, A("HEAD", "--end-of-options", "-l")))
		ok(opts.nr_pathspecs == 1 && !opts.list,
		   "--end-of-options acts as --");
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, LATER, NULL, A("-", "HEAD")))
		is_str(opts.treeish, "-", "a lone - is positional");
	cli_options_release(&opts);

	/* a value is taken even when it looks like an option */
	same_as_git(0, NULL, A("--format", "--", "HEAD"));
	same_as_git(0, NULL, A("--format", "-v", "HEAD"));
}

static void test_extra_files(void)
{
	static const struct {
		const char *dir;
		const char *args[10];
	} good[] = {
		{ NULL, { "--prefix=one/", "--add-file=u", "--prefix=two/",
			  "--add-file=u", "--prefix=", "HEAD" } },
		{ NULL, { "--prefix=one", "--add-file=./u", "HEAD" } },
		{ NULL, { "--add-file", "x.sh", "--add-file=sub/f", "HEAD" } },
		{ NULL, { "--add-file=u", "--no-add-virtual-file",
			  "--add-virtual-file=v:x", "HEAD" } },
		{ NULL, { "--add-virtual-file=v:x", "--no-add-file",
			  "--add-file=u", "HEAD" } },
		{ NULL, { "--add-virtual-file=\"a:b\":c", "HEAD" } },
		{ NULL, { "--add-virtual-file=\"\\t\":x", "HEAD" } },
		{ NULL, { "--add-virtual-file=\"\\101\\\"c\\\\\":y",
			  "HEAD" } },
		{ NULL, { "--add-virtual-file=\"\\a\\b\\f\\n\\r\\v\":z",
			  "HEAD" } },
		{ NULL, { "--add-virtual-file=\"\":x", "HEAD" } },
		{ NULL, { "--add-virtual-file=a:b:c", "HEAD" } },
		{ NULL, { "--add-virtual-file=d:", "HEAD" } },
		{ NULL, { "--add-virtual-file=a\"b:x", "HEAD" } },
		{ NULL, { "--prefix=p/", "--add-virtual-file=v:x", "HEAD" } },
		{ NULL, { "--add-v=w:1", "--add-f=u", "HEAD" } },
		{ "sub", { "--add-file=f", "--add-file=../u",
			   "--add-virtual-file=v:hi", "--prefix=p/",
			   "--add-file=f", "HEAD" } },
		{ "sub", { "--add-virtual-file=\"q\":x", "HEAD" } },
		{ "sub", { "--add-file=../sub/f", "HEAD" } },
	};
	struct archive_options opts;
	char cwd[512];
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(good); i++) {
		memset(&opts, 0, sizeof(opts));
		if (!check(&opts, 0, good[i].dir, good[i].args))
			check_extras_with_git(&opts, good[i].dir,
					      good[i].args);
		cli_options_release(&opts);
	}

	/* names: where to open, how to show */
	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, "sub", A("--add-file=f", "--add-file=../u",
				      "--add-virtual-file=v:x", "HEAD")) &&
	    opts.nr_extras == 3) {
		is_str(opts.extras[0].disk_path, "f", "disk path as given");
		is_str(opts.extras[0].display_path, "sub/f",
		       "display path cwd-prefixed");
		is_str(opts.extras[1].display_path, "sub/../u",
		       "  ... not normalised");
		ok(!opts.extras[2].disk_path && !opts.extras[2].display_path,
		   "virtual files have no disk path");
	}
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (getcwd(cwd, sizeof(cwd)) && strlen(cwd) < sizeof(cwd) - 8) {
		strcat(cwd, "/u");
		if (!check(&opts, 0, "sub",
			   A("--add-file", cwd, "HEAD")) && opts.nr_extras)
			is_str(opts.extras[0].display_path, cwd,
			       "absolute path not prefixed");
	}
	cli_options_release(&opts);

	/* errors, all fatal and raised while parsing */
	same_as_git(0, NULL, A("--add-file=nosuch", "HEAD"));
	same_as_git(0, NULL, A("--add-file=sub", "HEAD"));
	same_as_git(0, NULL, A("--add-file=", "HEAD"));
	same_as_git(0, NULL, A("--add-file=u/", "HEAD"));
	same_as_git(0, NULL, A("--add-file=/nonexistent/x", "HEAD"));
	same_as_git(0, NULL, A("--add-file=dangling", "HEAD"));
	same_as_git(0, "sub", A("--add-file=nosuch", "HEAD"));
	same_as_git(0, "sub", A("--add-file=../nosuch", "HEAD"));
	same_as_git(0, "sub", A("--add-file=./nosuch", "HEAD"));
	same_as_git(0, "sub", A("--add-file=", "HEAD"));
	same_as_git(0, "sub", A("--add-file=.", "HEAD"));
	same_as_git(0, NULL, A("--add-virtual-file=\"a:b", "HEAD"));
	same_as_git(0, NULL, A("--add-virtual-file=\"a\\q\":x", "HEAD"));
	same_as_git(0, NULL, A("--add-virtual-file=\"\\400\":x", "HEAD"));
	same_as_git(0, NULL, A("--add-virtual-file=\"\\01\":x", "HEAD"));
	same_as_git(0, NULL, A("--add-virtual-file=\"a\\", "HEAD"));
	same_as_git(0, NULL, A("--add-virtual-file=ab", "HEAD"));
	same_as_git(0, NULL, A("--add-virtual-file=\"a\"b:x", "HEAD"));
	same_as_git(0, NULL, A("--add-virtual-file=\"a\"", "HEAD"));
	same_as_git(0, NULL, A("--add-virtual-file=:x", "HEAD"));
	same_as_git(0, NULL, A("--add-virtual-file=", "HEAD"));
	same_as_git(0, NULL, A("--add-virtual-file=:x", "-l"));
	same_as_git(0, NULL, A("-l", "--add-virtual-file=ab"));
	same_as_git(0, NULL, A("--add-file=nosuch", "--out=x", "HEAD"));
	same_as_git(0, NULL, A("--add-file=u", "--no-add-file",
			       "--add-file=nosuch", "HEAD"));

	/* a NUL in the unquoted name ends it (checked without git's tar) */
	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, "sub", A("--add-virtual-file=\"\\000\":x",
				      "HEAD")) && opts.nr_extras == 1)
		is_str(opts.extras[0].path, "sub/", "\\000 name is empty");
	cli_options_release(&opts);
}

/* garchive's extensions: no reference git, so plain assertions. */
static void test_extensions(void)
{
	struct archive_options opts;
	static const struct {
		const char *args[6];
		int code;
		const char *msg;
		const char *mtime;
		int threads;
	} cases[] = {
		{ { "--mtime=now", "HEAD" }, 0, NULL, "now", -1 },
		{ { "--mtime", "2020-01-01", "HEAD" }, 0, NULL, "2020-01-01",
		  -1 },
		{ { "--mt=@0", "--threads=3", "HEAD" }, 0, NULL, "@0", 3 },
		{ { "--t=2", "HEAD" }, 0, NULL, NULL, 2 },
		{ { "--threads", "0", "HEAD" }, 0, NULL, NULL, 0 },
		{ { "--threads=x", "HEAD" }, GA_EUSAGE,
		  "option `threads' expects a numerical value", NULL, 0 },
		{ { "--threads=", "HEAD" }, GA_EUSAGE,
		  "option `threads' expects a numerical value", NULL, 0 },
		{ { "--threads=99999999999", "HEAD" }, GA_EUSAGE,
		  "option `threads' expects a numerical value", NULL, 0 },
		{ { "--threads=-1", "HEAD" }, GA_EUSAGE,
		  "option `threads' expects a non-negative integer value",
		  NULL, 0 },
		{ { "HEAD", "--threads" }, GA_EUSAGE,
		  "option `threads' requires a value", NULL, 0 },
		{ { "HEAD", "--mtime" }, GA_EUSAGE,
		  "option `mtime' requires a value", NULL, 0 },
		{ { "--no-mtime", "HEAD" }, GA_EUSAGE,
		  "unknown option `no-mtime'", NULL, 0 },
	};
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(cases); i++) {
		char *what = describe(NULL, cases[i].args);
		int code;

		memset(&opts, 0, sizeof(opts));
		code = garchive_parse(&opts, NULL, cases[i].args);
		ok(code == cases[i].code, "%s: code %d", what, code);
		if (cases[i].msg)
			is_str(ga_error_message(), cases[i].msg,
			       "  ... message");
		if (!code) {
			ok(cases[i].mtime ? opts.mtime &&
			   !strcmp(opts.mtime, cases[i].mtime) : !opts.mtime,
			   "  ... mtime");
			ok(opts.threads == cases[i].threads, "  ... threads");
		}
		cli_options_release(&opts);
		free(what);
	}
}

/* The server side of --remote: git's client prints "remote: ..." lines. */
static void test_remote_server(void)
{
	struct archive_options opts;

	same_as_git(0, NULL, A("--remote=.", "--add-file=HEAD", "HEAD"));
	same_as_git(0, NULL, A("--remote=.", "--add-file=nosuch", "HEAD"));
	same_as_git(0, NULL, A("--remote=.", "--add-virtual-file=a",
			       "HEAD"));
	same_as_git(0, NULL, A("--remote=.", "--add-virtual-file=a:b",
			       "HEAD"));
	same_as_git(0, NULL, A("--remote=.", "--format=foo", "HEAD"));
	same_as_git(0, NULL, A("--remote=.", "--format=bogus", "HEAD"));
	same_as_git(0, NULL, A("--remote=.", "--exe=x", "HEAD"));
	same_as_git(0, NULL, A("--remote=.", "--bogus", "HEAD"));
	same_as_git(0, NULL, A("--remote=.", "--format=tar", "-9", "HEAD"));

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, NULL, A("--remote=.", "--format=bar", "HEAD")))
		ok(opts.format && !strcmp(opts.format->name, "bar"),
		   "remote-enabled user format");
	cli_options_release(&opts);

	memset(&opts, 0, sizeof(opts));
	if (!check(&opts, 0, NULL, A("--remote=.", "-l")))
		ok(opts.list, "--list on the server");
	cli_options_release(&opts);
}

static void test_global(void)
{
	struct cli_global g;
	struct git_run r;

	{
		char *argv[] = { "garchive", "-c", "a.b=c", "-c", "d.e",
				 "--format=zip", "HEAD", NULL };

		ok(!cli_parse_global(&g, 7, argv), "-c twice");
		ok(g.command == CLI_ARCHIVE, "  ... archive");
		ok(g.nr_config == 2 && !strcmp(g.config[0], "a.b=c") &&
		   !strcmp(g.config[1], "d.e"), "  ... config in order");
		ok(g.argc == 3 && !strcmp(g.argv[0], "garchive") &&
		   !strcmp(g.argv[1], "--format=zip") &&
		   !strcmp(g.argv[2], "HEAD") && !g.argv[3],
		   "  ... argv[0] kept, rest follows");
		cli_global_release(&g);
	}
	{
		char *argv[] = { "garchive", "-c", "a.b=c", "-c", NULL };

		run_git(&r, NULL, A("-c"));
		ok(cli_parse_global(&g, 4, argv) == GA_EUSAGE,
		   "-c without a value");
		ok(r.rc == 129, "  ... git -c exits 129 too");
		ok(starts_with(r.err, ga_error_message()) &&
		   r.err[strlen(ga_error_message())] == '\n',
		   "  ... git's wording: %s", ga_error_message());
		ok(ga_error_usage_dest() == GA_USAGE_NONE, "  ... no usage");
		cli_global_release(&g);
		git_run_release(&r);
	}
	{
		char *argv[] = { "garchive", NULL };

		ok(!cli_parse_global(&g, 1, argv) &&
		   g.command == CLI_ARCHIVE && g.argc == 1 &&
		   !strcmp(g.argv[0], "garchive"), "no arguments: archive");
		cli_global_release(&g);
	}
	{
		static const struct {
			const char *arg;
			enum cli_command command;
		} cmds[] = {
			{ "--version", CLI_VERSION },
			{ "--help", CLI_HELP },
			{ "help", CLI_HELP },
			{ "upload-archive", CLI_UPLOAD_ARCHIVE },
			{ "get-tar-commit-id", CLI_GET_TAR_COMMIT_ID },
		};
		size_t i;

		for (i = 0; i < GA_ARRAY_SIZE(cmds); i++) {
			char *argv[] = { "garchive", "-c", "x.y=z",
					 (char *)cmds[i].arg, "dir", NULL };

			ok(!cli_parse_global(&g, 5, argv) &&
			   g.command == cmds[i].command && g.argc == 2 &&
			   !strcmp(g.argv[0], cmds[i].arg) &&
			   !strcmp(g.argv[1], "dir") && g.nr_config == 1,
			   "%s is a command", cmds[i].arg);
			cli_global_release(&g);
		}
	}
	{
		char *argv[] = { "garchive", "HEAD", "--version", "help",
				 NULL };

		ok(!cli_parse_global(&g, 4, argv) &&
		   g.command == CLI_ARCHIVE && g.argc == 4,
		   "commands only come first");
		cli_global_release(&g);
	}
	{
		/* git 2.41's --attr-source (2.39 has none to compare). */
		char *argv[] = { "garchive", "--attr-source=HEAD~1", "-c",
				 "a.b=c", "--attr-source", "v1", "HEAD", NULL };
		char *bare[] = { "garchive", "-c", "a.b=c", "--attr-source",
				 NULL };

		ok(!cli_parse_global(&g, 7, argv) &&
		   g.command == CLI_ARCHIVE && g.nr_config == 1 &&
		   g.attr_source && !strcmp(g.attr_source, "v1") &&
		   g.argc == 2 && !strcmp(g.argv[1], "HEAD"),
		   "--attr-source, both spellings, among -c; the last wins");
		cli_global_release(&g);
		ok(cli_parse_global(&g, 4, bare) == GA_EUSAGE &&
		   !strcmp(ga_error_message(), "no attribute source given "
			   "for --attr-source") &&
		   ga_error_usage_dest() == GA_USAGE_NONE,
		   "--attr-source without a value");
		cli_global_release(&g);
	}
	{
		char *argv[] = { "garchive", "-cx=y", "HEAD", NULL };

		ok(!cli_parse_global(&g, 3, argv) &&
		   g.command == CLI_ARCHIVE && !g.nr_config,
		   "-cx=y is not a global option");
		cli_global_release(&g);
	}
	cli_global_release(&g);	/* twice is fine */
}

/* ---- scratch repository --------------------------------------------- */

static int setup(void)
{
	static const char script[] =
		"git init -q repo && cd repo && "
		"echo hi >a && mkdir sub && echo x >sub/f && "
		"git add a sub/f && git commit -q -m init && "
		"echo untracked >u && printf '#!/bin/sh\\n' >x.sh && "
		"chmod +x x.sh && ln -s nowhere dangling && "
		"git config tar.foo.command 'gzip -cn' && "
		"git config tar.bar.command 'gzip -cn' && "
		"git config tar.bar.remote true";
	char cmd[1024];
	git_repository *repo = NULL;
	struct ga_config *cfg = NULL;
	int error;

	snprintf(root, sizeof(root), "%s/garchive-cli-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return -1;
	snprintf(out_path, sizeof(out_path), "%s/git.out", root);
	snprintf(err_path, sizeof(err_path), "%s/git.err", root);

	/* Seal git off from the host, as t/lib.sh does. */
	scratch_seal_env(root);
	umask(022);

	snprintf(cmd, sizeof(cmd), "cd '%s' && %s", root, script);
	if (system(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/repo", root);
	if (chdir(cmd))
		return -1;

	git_libgit2_init();
	if (git_repository_open(&repo, ".") < 0)
		return -1;
	error = config_load(&cfg, repo, NULL, 0);
	if (!error)
		error = format_list_load(&formats, cfg, 022);
	config_free(cfg);
	git_repository_free(repo);
	return error;
}

static void cleanup(void)
{
	char cmd[512];

	if (chdir("/") == 0 && root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			diag("could not remove %s", root);
	}
	if (ref_file)
		gzclose(ref_file);
	format_list_release(&formats);
	git_libgit2_shutdown();
	ga_error_clear();
}

static void die_oom(size_t size)
{
	fprintf(stderr, "out of memory (%zu bytes)\n", size);
	abort();
}

int main(void)
{
	ref_open();
	ga_set_oom_handler(die_oom);
	if (setup() < 0) {
		ok(0, "set up a scratch repository: %s", ga_error_message());
		cleanup();
		return tap_done();
	}
	test_usage_and_help();
	test_unknown_and_typos();
	test_values_and_abbreviations();
	test_pass1();
	test_completion();
	test_formats();
	test_levels();
	test_list();
	test_flags();
	test_extra_files();
	test_extensions();
	test_remote_server();
	test_global();
	cleanup();
	return tap_done();
}

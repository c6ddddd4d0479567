/*
 * config.c: git's configuration stack, read the way git 2.39 reads it.
 *
 * garchive parses the files itself rather than through libgit2's file
 * backend: git's messages name the file and line of a bad entry, report
 * the origin of included entries, and follow git's parser quirks, and
 * libgit2 1.5 knows neither the GIT_CONFIG_* variables nor
 * includeIf.hasconfig.  The result is one flat list of entries in git's
 * order, immutable after config_load().
 *
 * Here: the stack of files (do_git_config_sequence()), includes and
 * includeIf, the command-line overrides, and lookups.  The grammar of
 * files and keys is config-parse.c's, GIT_CONFIG_PARAMETERS and
 * GIT_CONFIG_COUNT config-env.c's, typed values parse.c's.
 */
#include "garchive/config.h"
#include "repo-open.h"
#include "config-env.h"
#include "config-parse.h"
#include "garchive/common.h"
#include "sane-ctype.h"
#include "wildmatch.h"
#include "refdb.h"
#include "refs/refs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libgit2.h"

#define CONFIG_MAX_INCLUDE_DEPTH 10
#define CONFIG_SYSTEM_FILE "/etc/gitconfig"

struct entry {
	char *name;		/* canonical: section and key lower case */
	char *value;		/* NULL for an implicit true */
	const char *file;	/* display path, NULL for the command line */
	const char *origin;	/* " in file <file>" or "" */
	int line;
	int include_depth;	/* 0: in a top-level file */
	enum config_scope scope;
};

struct table {
	struct entry *items;
	size_t nr, alloc;
	char **strings;		/* interned file names and origins */
	size_t strings_nr, strings_alloc;
};

struct ga_config {
	struct table *tab;
};

/* ------------------------------------------------------------------ */
/* The table */

static struct table *table_new(void)
{
	return ga_xcalloc(1, sizeof(struct table));
}

static void table_free(struct table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr; i++) {
		free(t->items[i].name);
		free(t->items[i].value);
	}
	for (i = 0; i < t->strings_nr; i++)
		free(t->strings[i]);
	free(t->items);
	free(t->strings);
	free(t);
}

static const char *table_intern(struct table *t, char *s)
{
	GA_ALLOC_GROW(t->strings, t->strings_nr + 1, t->strings_alloc);
	t->strings[t->strings_nr++] = s;
	return s;
}

/* ------------------------------------------------------------------ */
/* Loading */

/* One file (or the command line) being read. */
struct source {
	const char *display;	/* git's name for it; NULL: command line */
	const char *fspath;	/* what to open and resolve against */
	const char *file;	/* interned display path */
	const char *origin;	/* interned " in file ..." */
};

struct loader {
	struct table *tab;
	git_repository *repo;
	char *git_dir;		/* for includeIf gitdir: absolute, no '/' */
	char *branch;		/* HEAD's branch for onbranch, or NULL */
	int branch_known;
	enum config_scope scope;
	int depth;
	int read_failed;	/* a top-level file could not be read */

	/*
	 * includeIf.hasconfig:remote.*.url: the URLs are gathered by a
	 * second loader over the whole stack, which takes every hasconfig
	 * include as true and forbids remote URLs inside them.
	 */
	int collect;		/* this loader only gathers URLs */
	int forbid_urls;	/* inside a hasconfig include */
	char **urls;
	size_t urls_nr, urls_alloc;
	int urls_known;
};

static int on_entry(struct loader *ld, const struct source *src,
		    const char *name, const char *value, int line);

static void add_entry(struct loader *ld, const struct source *src,
		      const char *name, const char *value, int line)
{
	struct table *t = ld->tab;
	struct entry *e;

	GA_ALLOC_GROW(t->items, t->nr + 1, t->alloc);
	e = &t->items[t->nr++];
	memset(e, 0, sizeof(*e));
	e->name = ga_xstrdup(name);
	e->value = value ? ga_xstrdup(value) : NULL;
	e->file = src->file;
	e->origin = src->origin ? src->origin : "";
	e->line = src->display ? line : -1;
	e->include_depth = ld->depth;
	e->scope = ld->scope;
}

/* The directory part of `path` with its slash ("" if none). */
static char *dir_with_slash(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? ga_xstrndup(path, (size_t)(slash - path + 1))
		     : ga_xstrdup("");
}

/*
 * git's access_or_die(): 0 when readable, 1 when absent (or unreadable
 * and `eacces_ok`), else a fatal error.
 */
static int check_access(const char *fspath, const char *display,
			int eacces_ok)
{
	if (!access(fspath, R_OK))
		return 0;
	if (errno == ENOENT || errno == ENOTDIR ||
	    (eacces_ok && errno == EACCES))
		return 1;
	return ga_error_errno(errno, "unable to access '%s'", display);
}

static int read_whole(struct ga_buf *out, const char *path)
{
	FILE *f = fopen(path, "r");
	char chunk[8192];
	size_t n;
	int err = 0;

	if (!f)
		return errno;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ga_buf_put(out, chunk, n);
	if (ferror(f))
		err = errno ? errno : EIO;
	fclose(f);
	return err;
}

static void source_init(struct loader *ld, struct source *src,
			const char *display, const char *fspath)
{
	memset(src, 0, sizeof(*src));
	src->display = display;
	src->fspath = fspath;
	if (display) {
		src->file = table_intern(ld->tab, ga_xstrdup(display));
		src->origin = table_intern(ld->tab,
					   ga_xstrfmt(" in file %s", display));
	}
}

struct file_entry_ctx {
	struct loader *ld;
	const struct source *src;
};

static int file_entry(const char *name, const char *value, int line,
		      void *payload)
{
	struct file_entry_ctx *fe = payload;

	return on_entry(fe->ld, fe->src, name, value, line);
}

/*
 * git_config_from_file(): returns 0, 1 when the file could not be read
 * (after git's warning), or an error code.
 */
static int read_file(struct loader *ld, const char *display,
		     const char *fspath)
{
	struct ga_buf data = GA_BUF_INIT;
	struct source src;
	struct file_entry_ctx fe;
	int err, error;

	if ((err = read_whole(&data, fspath))) {
		ga_buf_release(&data);
		if (err != ENOENT && err != ENOTDIR)
			ga_warning("unable to access '%s': %s", display,
				   strerror(err));
		return 1;
	}
	source_init(ld, &src, display, fspath);
	fe.ld = ld;
	fe.src = &src;
	error = config_parse_source(data.ptr, data.len, display, file_entry,
				    &fe);
	ga_buf_release(&data);
	return error;
}

/* A top-level file of the stack, as do_git_config_sequence() reads it. */
static int read_level(struct loader *ld, enum config_scope scope,
		      const char *display, const char *fspath, int eacces_ok)
{
	int ret;

	ld->scope = scope;
	if ((ret = check_access(fspath, display, eacces_ok)))
		return ret < 0 ? ret : 0;
	ret = read_file(ld, display, fspath);
	if (ret == 1)
		ld->read_failed = 1;
	return ret < 0 ? ret : 0;
}

/* --- includes --- */

/* include.path and includeIf.<cond>.path */
static int include_file(struct loader *ld, const struct source *src,
			const char *value)
{
	char *expanded, *display = NULL, *fspath = NULL, *dir;
	int ret = 0;

	if (!value) {
		ga_report(GA_REPORT_ERROR, "missing value for '%s'",
			  "include.path");
		return CONFIG_ENTRY_BAD;
	}
	if (!(expanded = ga_interpolate_path(value, 0))) {
		ga_report(GA_REPORT_ERROR,
			  "could not expand include path '%s'", value);
		return CONFIG_ENTRY_BAD;
	}
	if (expanded[0] == '/') {
		display = ga_xstrdup(expanded);
		fspath = ga_xstrdup(expanded);
	} else if (!src->display) {
		ga_report(GA_REPORT_ERROR,
			  "relative config includes must come from files");
		ret = CONFIG_ENTRY_BAD;
		goto done;
	} else {
		/*
		 * Relative to the including file: by name for messages
		 * (git's own cwd makes that name valid), by the path we
		 * opened for reading.
		 */
		dir = dir_with_slash(src->display);
		display = ga_xstrfmt("%s%s", dir, expanded);
		free(dir);
		dir = dir_with_slash(src->fspath);
		fspath = ga_xstrfmt("%s%s", dir, expanded);
		free(dir);
	}

	if ((ret = check_access(fspath, display, 0))) {
		if (ret > 0)
			ret = 0;
		goto done;
	}
	if (++ld->depth > CONFIG_MAX_INCLUDE_DEPTH) {
		ret = ga_error_set("exceeded maximum include depth (%d) "
				   "while including\n\t%s\nfrom\n\t%s\n"
				   "This might be due to circular includes.",
				   CONFIG_MAX_INCLUDE_DEPTH, display,
				   src->display ? src->display :
				   "the command line");
		goto done;
	}
	ret = read_file(ld, display, fspath);
	ld->depth--;

done:
	free(expanded);
	free(display);
	free(fspath);
	return ret;
}

static void add_trailing_starstar(struct ga_buf *pat)
{
	if (pat->len && pat->ptr[pat->len - 1] == '/')
		ga_buf_puts(pat, "**");
}

static int include_by_gitdir(struct loader *ld, const struct source *src,
			     const char *cond, size_t len, int icase)
{
	struct ga_buf pat = GA_BUF_INIT;
	char *expanded, *real = NULL;
	const char *texts[2];
	size_t prefix = 0, i;
	int ret = 0;

	if (!ld->git_dir)
		return 0;
	ga_buf_put(&pat, cond, len);
	if ((expanded = ga_interpolate_path(pat.ptr, 1))) {
		ga_buf_setlen(&pat, 0);
		ga_buf_puts(&pat, expanded);
		free(expanded);
	}
	if (pat.ptr[0] == '.' && pat.ptr[1] == '/') {
		char *file, *slash;
		struct ga_buf tmp = GA_BUF_INIT;

		if (!src->fspath) {
			ga_report(GA_REPORT_ERROR, "relative config include "
				  "conditionals must come from files");
			goto done;
		}
		if (!(file = realpath(src->fspath, NULL))) {
			ret = ga_error_errno(errno, "Invalid path '%s'",
					     src->fspath);
			goto done;
		}
		slash = strrchr(file, '/');
		ga_buf_put(&tmp, file, (size_t)(slash - file));
		ga_buf_puts(&tmp, pat.ptr + 1);
		prefix = (size_t)(slash - file) + 1;
		free(file);
		ga_buf_release(&pat);
		pat = tmp;
	} else if (pat.ptr[0] != '/') {
		struct ga_buf tmp = GA_BUF_INIT;

		ga_buf_puts(&tmp, "**/");
		ga_buf_puts(&tmp, pat.ptr);
		ga_buf_release(&pat);
		pat = tmp;
	}
	add_trailing_starstar(&pat);

	/* The real path first, then the path as given (symlinked homes). */
	real = realpath(ld->git_dir, NULL);
	texts[0] = real ? real : ld->git_dir;
	texts[1] = ld->git_dir;
	for (i = 0; i < 2 && !ret; i++) {
		const char *t = texts[i];

		if (prefix) {
			if (strlen(t) < prefix)
				continue;
			if (icase ? strncasecmp(pat.ptr, t, prefix)
				  : strncmp(pat.ptr, t, prefix))
				continue;
		}
		ret = !wildmatch(pat.ptr + prefix, t + prefix,
				 WM_PATHNAME | (icase ? WM_CASEFOLD : 0));
	}
done:
	free(real);
	ga_buf_release(&pat);
	return ret;
}

/*
 * The branch HEAD names ("main" for refs/heads/main), read from the ref
 * store; NULL when HEAD is detached, names no branch or cannot be read.
 */
static char *head_branch(git_repository *repo)
{
	struct refs_store *refs = NULL;
	struct ga_buf target = GA_BUF_INIT;
	char *branch = NULL;

	if (repo && !refdb_open_store(&refs, repo) &&
	    !refs_read_symref(&target, refs, "HEAD") &&
	    !strncmp(target.ptr, "refs/heads/", 11))
		branch = ga_xstrdup(target.ptr + 11);
	ga_error_clear();
	ga_buf_release(&target);
	refs_free(refs);
	return branch;
}

static int include_by_branch(struct loader *ld, const char *cond,
			     size_t len)
{
	struct ga_buf pat = GA_BUF_INIT;
	int ret;

	if (!ld->branch_known) {
		ld->branch_known = 1;
		ld->branch = head_branch(ld->repo);
	}
	if (!ld->branch)
		return 0;
	ga_buf_put(&pat, cond, len);
	add_trailing_starstar(&pat);
	ret = !wildmatch(pat.ptr, ld->branch, WM_PATHNAME);
	ga_buf_release(&pat);
	return ret;
}

static int load_stack(struct loader *ld);

static int include_by_remote_url(struct loader *ld, const char *cond,
				 size_t len)
{
	struct ga_buf pat = GA_BUF_INIT;
	size_t i;
	int ret = 0;

	if (ld->collect)
		return 1;
	if (!ld->urls_known) {
		struct loader sub = { 0 };

		sub.tab = table_new();
		sub.repo = ld->repo;
		sub.git_dir = ld->git_dir;
		sub.collect = 1;
		ret = load_stack(&sub);
		table_free(sub.tab);
		free(sub.branch);
		ld->urls = sub.urls;
		ld->urls_nr = sub.urls_nr;
		ld->urls_alloc = sub.urls_alloc;
		ld->urls_known = 1;
		if (ret < 0)
			return ret;
	}
	ga_buf_put(&pat, cond, len);
	for (i = 0; i < ld->urls_nr && !ret; i++)
		ret = !wildmatch(pat.ptr, ld->urls[i], WM_PATHNAME);
	ga_buf_release(&pat);
	return ret;
}

/* git's parse_config_key(): "<section>.<subsection>.<key>". */
static int split_key(const char *name, const char *section,
		     const char **sub, size_t *sub_len, const char **key)
{
	size_t n = strlen(section);
	const char *dot;

	if (strncmp(name, section, n) || name[n] != '.')
		return -1;
	name += n + 1;
	dot = strrchr(name, '.');
	*key = dot ? dot + 1 : name;
	*sub = dot ? name : NULL;
	*sub_len = dot ? (size_t)(dot - name) : 0;
	return 0;
}

static int condition_is_true(struct loader *ld, const struct source *src,
			     const char *cond, size_t len)
{
	static const struct {
		const char *prefix;
		int kind;
	} kinds[] = {
		{ "gitdir:", 0 }, { "gitdir/i:", 1 }, { "onbranch:", 2 },
		{ "hasconfig:remote.*.url:", 3 },
	};
	size_t i, n;

	for (i = 0; i < GA_ARRAY_SIZE(kinds); i++) {
		n = strlen(kinds[i].prefix);
		if (len < n || strncmp(cond, kinds[i].prefix, n))
			continue;
		switch (kinds[i].kind) {
		case 0:
		case 1:
			return include_by_gitdir(ld, src, cond + n, len - n,
						 kinds[i].kind);
		case 2:
			return include_by_branch(ld, cond + n, len - n);
		default:
			return include_by_remote_url(ld, cond + n, len - n);
		}
	}
	/* Unknown conditions are false. */
	return 0;
}

/* git_config_include(): store the entry, then follow it if it includes. */
static int on_entry(struct loader *ld, const struct source *src,
		    const char *name, const char *value, int line)
{
	const char *sub, *key;
	size_t sub_len;
	int ret;

	if (ld->collect) {
		if (!split_key(name, "remote", &sub, &sub_len, &key) && sub &&
		    !strcmp(key, "url")) {
			if (ld->forbid_urls)
				return ga_error_set("remote URLs cannot be "
					"configured in file directly or "
					"indirectly included by "
					"includeIf.hasconfig:remote.*.url");
			GA_ALLOC_GROW(ld->urls, ld->urls_nr + 1,
				      ld->urls_alloc);
			ld->urls[ld->urls_nr++] =
				ga_xstrdup(value ? value : "");
		}
	} else {
		add_entry(ld, src, name, value, line);
	}

	if (!strcmp(name, "include.path"))
		return include_file(ld, src, value);

	if (!split_key(name, "includeif", &sub, &sub_len, &key) && sub) {
		int forbid = ld->forbid_urls;

		if ((ret = condition_is_true(ld, src, sub, sub_len)) <= 0)
			return ret;
		if (strcmp(key, "path"))
			return 0;
		if (ld->collect && sub_len >= 23 &&
		    !strncmp(sub, "hasconfig:remote.*.url:", 23))
			ld->forbid_urls = 1;
		ret = include_file(ld, src, value);
		ld->forbid_urls = forbid;
		return ret;
	}
	return 0;
}

/* --- the command line --- */

/* config_parse_pair(): 0, CONFIG_ENTRY_BAD, or a fatal code. */
static int cmdline_pair(const char *key, const char *value, void *payload)
{
	struct loader *ld = payload;
	struct source src = { 0 };
	char *name;
	int ret;

	if (!*key) {
		ga_report(GA_REPORT_ERROR, "empty config key");
		return CONFIG_ENTRY_BAD;
	}
	if (!(name = config_parse_key(key)))
		return CONFIG_ENTRY_BAD;
	ret = on_entry(ld, &src, name, value, -1);
	free(name);
	return ret;
}

/* --- the stack --- */

static char *strip_slash(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return ga_xstrndup(path, n);
}

static int same_file(const char *a, const char *b)
{
	char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
	int same = ra && rb && !strcmp(ra, rb);

	free(ra);
	free(rb);
	return same;
}

/* Whether the current directory is `dir` or below it. */
static int cwd_within(const char *dir)
{
	char *cwd = getcwd(NULL, 0), *rcwd, *rdir;
	int within = 0;

	if (!cwd)
		return 0;
	rcwd = realpath(cwd, NULL);
	rdir = realpath(dir, NULL);
	if (rcwd && rdir) {
		size_t n = strlen(rdir);

		within = !strncmp(rcwd, rdir, n) &&
			 (rcwd[n] == '/' || !rcwd[n] || !strcmp(rdir, "/"));
	}
	free(cwd);
	free(rcwd);
	free(rdir);
	return within;
}

/*
 * The repository's config files, named as git names them: git runs from
 * the top of the work tree with GIT_DIR ".git", or from the git
 * directory itself as ".", and otherwise uses absolute paths.
 */
static int read_repo_levels(struct loader *ld)
{
	git_repository *repo = ld->repo;
	char *gitdir = strip_slash(git_repository_path(repo));
	char *common_slash = repo_commondir(repo);
	char *common = strip_slash(common_slash);
	const char *workdir = git_repository_workdir(repo);
	const char *env_dir = getenv("GIT_DIR");
	char *shown_common = NULL, *shown_gitdir = NULL;
	char *display = NULL, *fspath = NULL;
	int linked = git_repository_is_worktree(repo);
	int wtconfig = 0, error = 0;
	size_t first, i;

	if (env_dir && *env_dir && !linked) {
		shown_common = strip_slash(env_dir);
		shown_gitdir = ga_xstrdup(shown_common);
	} else if (!linked && same_file(gitdir, ".")) {
		shown_common = ga_xstrdup("");
		shown_gitdir = ga_xstrdup("");
	} else if (!linked && workdir && cwd_within(workdir) &&
		   !cwd_within(gitdir)) {
		char *dotgit = ga_xstrfmt("%s.git", workdir);

		if (!strcmp(dotgit, gitdir)) {
			shown_common = ga_xstrdup(".git");
			shown_gitdir = ga_xstrdup(".git");
		}
		free(dotgit);
	}
	if (!shown_common) {
		shown_common = ga_xstrdup(common);
		shown_gitdir = ga_xstrdup(gitdir);
	}

#define JOIN(dir, file) (*(dir) ? ga_xstrfmt("%s/%s", dir, file) \
				: ga_xstrdup(file))
	display = JOIN(shown_common, "config");
	fspath = ga_xstrfmt("%s/config", common);
	first = ld->tab->nr;
	if ((error = read_level(ld, CONFIG_SCOPE_LOCAL, display, fspath, 0)))
		goto done;

	/*
	 * extensions.worktreeConfig counts only when set in the file
	 * itself, as git reads it for the repository format.
	 */
	for (i = first; i < ld->tab->nr; i++) {
		struct entry *e = &ld->tab->items[i];

		if (!e->include_depth &&
		    !strcmp(e->name, "extensions.worktreeconfig") &&
		    (error = config_parse_bool(&wtconfig, e->name,
					       e->value)) < 0)
			goto done;
	}
	if (wtconfig) {
		free(display);
		free(fspath);
		display = JOIN(shown_gitdir, "config.worktree");
		fspath = ga_xstrfmt("%s/config.worktree", gitdir);
		error = read_level(ld, CONFIG_SCOPE_WORKTREE, display, fspath,
				   0);
	}
#undef JOIN

done:
	free(display);
	free(fspath);
	free(shown_common);
	free(shown_gitdir);
	free(gitdir);
	free(common);
	free(common_slash);
	return error;
}

/* do_git_config_sequence() without the overrides of config_load(). */
static int load_stack(struct loader *ld)
{
	const char *home = getenv("HOME");
	const char *env;
	char *path = NULL, *user = NULL, *xdg = NULL;
	int nosystem = 0, error, ret;

	if ((error = config_env_bool(&nosystem, "GIT_CONFIG_NOSYSTEM", 0)) < 0)
		return error;
	if (!nosystem) {
		env = getenv("GIT_CONFIG_SYSTEM");
		path = ga_xstrdup(env ? env : CONFIG_SYSTEM_FILE);
		/* git ignores a ".." above the start, keeping what it has. */
		(void)ga_normalize_path(path, path);
		error = read_level(ld, CONFIG_SCOPE_SYSTEM, path, path, 0);
		free(path);
		if (error)
			return error;
	}

	if ((env = getenv("GIT_CONFIG_GLOBAL"))) {
		user = ga_xstrdup(env);
	} else {
		if (home)
			user = ga_xstrfmt("%s/.gitconfig", home);
		xdg = ga_xdg_config_home("config");
	}
	if (xdg)
		error = read_level(ld, CONFIG_SCOPE_XDG, xdg, xdg, 1);
	if (!error && user)
		error = read_level(ld, CONFIG_SCOPE_GLOBAL, user, user, 1);
	free(xdg);
	free(user);
	if (error)
		return error;

	if (ld->repo && (error = read_repo_levels(ld)))
		return error;

	ld->scope = CONFIG_SCOPE_COMMAND;
	if ((ret = config_from_parameters(cmdline_pair, ld)))
		return ret < 0 ? ret : ga_error_set("unable to parse "
						    "command-line config");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Lookups */

/* The canonical form of a lookup name; NULL when it has no dot. */
static char *canonical_name(const char *name)
{
	const char *first = strchr(name, '.'), *last = strrchr(name, '.');
	size_t i, lo, hi;
	char *out;

	if (!first)
		return NULL;
	out = ga_xstrdup(name);
	lo = (size_t)(first - name);
	hi = (size_t)(last - name);
	/* Section and key fold case; a subsection does not. */
	for (i = 0; out[i]; i++)
		if (i < lo || i > hi)
			out[i] = (char)ga_tolower((unsigned char)out[i]);
	return out;
}

static const struct entry *table_find(const struct table *t,
				      const char *name)
{
	char *key = canonical_name(name);
	const struct entry *found = NULL;
	size_t i;

	if (!key)
		return NULL;
	for (i = t->nr; i > 0; i--) {
		if (!strcmp(t->items[i - 1].name, key)) {
			found = &t->items[i - 1];
			break;
		}
	}
	free(key);
	return found;
}

/* ------------------------------------------------------------------ */
/* Public functions */

int config_load(struct ga_config **out, git_repository *repo,
		const char *const *overrides, size_t nr_overrides)
{
	struct ga_config *cfg = ga_xcalloc(1, sizeof(*cfg));
	struct loader ld = { 0 };
	size_t i;
	int error = 0, ret;

	*out = NULL;
	cfg->tab = table_new();
	ld.tab = cfg->tab;
	ld.repo = repo;
	if (repo)
		ld.git_dir = strip_slash(git_repository_path(repo));

	if ((error = load_stack(&ld)) < 0)
		goto done;

	/* -c name=value, split at the first '=' as git's -c does. */
	ld.scope = CONFIG_SCOPE_COMMAND;
	for (i = 0; i < nr_overrides; i++) {
		const char *eq = strchr(overrides[i], '=');
		char *key = eq ? ga_xstrndup(overrides[i],
					     (size_t)(eq - overrides[i]))
			       : ga_xstrdup(overrides[i]);

		ret = cmdline_pair(key, eq ? eq + 1 : NULL, &ld);
		free(key);
		if (ret) {
			error = ret < 0 ? ret : ga_error_set("unable to parse "
						"command-line config");
			goto done;
		}
	}

	if (ld.read_failed)
		error = ga_error_set("unknown error occurred while reading "
				     "the configuration files");

done:
	for (i = 0; i < ld.urls_nr; i++)
		free(ld.urls[i]);
	free(ld.urls);
	free(ld.branch);
	free(ld.git_dir);
	if (error < 0)
		config_free(cfg);
	else
		*out = cfg;
	return error;
}

void config_free(struct ga_config *cfg)
{
	if (!cfg)
		return;
	table_free(cfg->tab);
	free(cfg);
}

int config_get_string(const char **out, const struct ga_config *cfg,
		      const char *name)
{
	const struct entry *e = table_find(cfg->tab, name);

	if (!e)
		return GA_ENOTFOUND;
	*out = e->value;
	return 0;
}

int config_get_bool(int *out, const struct ga_config *cfg, const char *name)
{
	const struct entry *e = table_find(cfg->tab, name);

	return e ? config_parse_bool(out, e->name, e->value) : GA_ENOTFOUND;
}

int config_get_int64(int64_t *out, const struct ga_config *cfg,
		     const char *name)
{
	const struct entry *e = table_find(cfg->tab, name);

	return e ? config_parse_int64(out, e->name, e->value) : GA_ENOTFOUND;
}

const char *config_origin(const struct ga_config *cfg, const char *name)
{
	const struct entry *e = table_find(cfg->tab, name);

	return e ? e->origin : "";
}

int config_foreach(const struct ga_config *cfg, config_foreach_fn fn,
		   void *payload)
{
	size_t i;
	int ret;

	for (i = 0; i < cfg->tab->nr; i++) {
		const struct entry *e = &cfg->tab->items[i];

		if ((ret = fn(e->name, e->value, e->origin, payload)))
			return ret;
	}
	return 0;
}

int config_foreach_entry(const struct ga_config *cfg, config_entry_fn fn,
			 void *payload)
{
	struct config_entry ce;
	size_t i;
	int ret;

	for (i = 0; i < cfg->tab->nr; i++) {
		const struct entry *e = &cfg->tab->items[i];

		ce.name = e->name;
		ce.value = e->value;
		ce.file = e->file;
		ce.line = e->line;
		ce.scope = e->scope;
		if ((ret = fn(&ce, payload)))
			return ret;
	}
	return 0;
}

int config_error_entry(const struct config_entry *e)
{
	if (!e->file)
		return ga_error_set("unable to parse '%s' from command-line "
				    "config", e->name);
	return ga_error_set("bad config variable '%s' in file '%s' at line %d",
			    e->name, e->file, e->line);
}

int config_error_nonbool(const struct config_entry *e)
{
	ga_report(GA_REPORT_ERROR, "missing value for '%s'", e->name);
	return config_error_entry(e);
}

int config_safe_directory(int *out, const struct ga_config *cfg,
			  const char *path)
{
	size_t i;

	*out = 0;
	for (i = 0; i < cfg->tab->nr; i++) {
		const struct entry *e = &cfg->tab->items[i];
		char *expanded;

		/* A repository cannot vouch for itself. */
		if (e->scope == CONFIG_SCOPE_LOCAL ||
		    e->scope == CONFIG_SCOPE_WORKTREE ||
		    strcmp(e->name, "safe.directory"))
			continue;
		/* An empty value forgets the entries before it. */
		if (!e->value || !*e->value) {
			*out = 0;
			continue;
		}
		if (!strcmp(e->value, "*")) {
			*out = 1;
			continue;
		}
		/* Compared as written, after "~" (no realpath, no "/"). */
		if (!(expanded = ga_interpolate_path(e->value, 0)))
			return ga_error_set("failed to expand user dir in: "
					    "'%s'", e->value);
		if (!strcmp(expanded, path))
			*out = 1;
		free(expanded);
	}
	return 0;
}

/*
 * submodule.c: finding the repository behind a gitlink, and walking its
 * tree in place (see submodule.h).
 */
#include "submodule.h"
#include "commit.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "garchive/treeish.h"
#include "garchive/walk.h"
#include "promisor.h"
#include "repo-open.h"
#include "repofmt.h"
#include "rawtree.h"
#include "safedir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "libgit2.h"
#include "sane-ctype.h"
#include "odb/odb.h"

/* A repository whose tree is archived: the top one or a submodule. */
struct level {
	git_repository *repo;
	int owns_repo;
	git_odb *odb;
	struct ga_oid tree_id;
	char *path;		/* in the superproject: "" or "a/sub/" */
	int depth;		/* 0 for the top, 1 for its submodules... */

	/* Its .gitmodules: names and paths, read once. */
	char **names, **paths;
	size_t nr_modules, alloc_modules;
	int modules_read;

	/* For a submodule: what its walk needs, kept as long as it runs. */
	struct treeish treeish;
	struct ga_config *config;
	char *attr_info;
	char *prefix;
	struct walk_options wo;
};

/* The answer for one gitlink, so that it is found (or warned) once. */
struct answer {
	char *path;		/* in the superproject */
	struct ga_oid commit;
	struct level *level;	/* NULL: not found (skip-missing) */
};

struct submodules {
	struct submodules_options opts;
	struct walk_submodules hooks;
	struct level top;
	struct level **levels;
	size_t nr_levels, alloc_levels;
	struct answer *answers;
	size_t nr_answers, alloc_answers;
};

/* ---- .gitmodules ---- */

/*
 * git's check_submodule_name(): a name becomes a path under
 * $GIT_DIR/modules, so one with a ".." component (or empty) could point
 * anywhere and is refused.
 */
static int name_is_safe(const char *name)
{
	const char *p = name;

	if (!*name)
		return 0;
	while (*p) {
		size_t len = strcspn(p, "/\\");

		if (len == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		p += len;
		if (*p)
			p++;
	}
	return 1;
}

/* Skip blanks; a comment runs to the end of the line. */
static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && (*p == '#' || *p == ';'))
		while (p < end && *p != '\n')
			p++;
	return p;
}

/*
 * A value as git's config parser reads it: quotes removed, escapes
 * \" \\ \n \t \b honoured, a trailing backslash continuing the line,
 * blanks around it dropped, comments outside quotes ended.
 */
static const char *parse_value(struct ga_buf *out, const char *p,
			       const char *end)
{
	int quoted = 0;
	size_t keep = 0;

	ga_buf_setlen(out, 0);
	p = skip_blank(p, end);
	while (p < end && *p != '\n') {
		char c = *p++;

		if (c == '\\' && p < end) {
			c = *p++;
			if (c == '\n')
				continue;
			ga_buf_putc(out, c == 'n' ? '\n' : c == 't' ? '\t'
				    : c == 'b' ? '\b' : c);
			keep = out->len;
			continue;
		}
		if (c == '"') {
			quoted = !quoted;
			keep = out->len;
			continue;
		}
		if (!quoted && (c == '#' || c == ';')) {
			while (p < end && *p != '\n')
				p++;
			break;
		}
		ga_buf_putc(out, c);
		if (quoted || (c != ' ' && c != '\t'))
			keep = out->len;
	}
	ga_buf_setlen(out, keep);
	return p;
}

static void add_module(struct level *l, const char *name, const char *path)
{
	size_t i;

	/* A later path of the same name wins, as in git's config. */
	for (i = 0; i < l->nr_modules; i++) {
		if (strcmp(l->names[i], name))
			continue;
		free(l->paths[i]);
		l->paths[i] = ga_xstrdup(path);
		return;
	}
	GA_ALLOC_GROW(l->names, l->nr_modules + 1, l->alloc_modules);
	l->paths = ga_xrealloc(l->paths, l->alloc_modules * sizeof(char *));
	l->names[l->nr_modules] = ga_xstrdup(name);
	l->paths[l->nr_modules++] = ga_xstrdup(path);
}

/* [submodule "<name>"] sections and their `path` keys. */
static void parse_gitmodules(struct level *l, const char *p, size_t len)
{
	const char *end = p + len;
	struct ga_buf section = GA_BUF_INIT, value = GA_BUF_INIT;
	int in_submodule = 0;

	while (p < end) {
		p = skip_blank(p, end);
		if (p < end && *p == '[') {
			const char *q = ++p;

			in_submodule = 0;
			while (q < end && *q != ']' && *q != '"' && *q != '\n')
				q++;
			if (q < end && *q == '"' && q - p >= 9 &&
			    !strncasecmp(p, "submodule", 9) &&
			    skip_blank(p + 9, q) == q) {
				ga_buf_setlen(&section, 0);
				for (q++; q < end && *q != '"' && *q != '\n';
				     q++) {
					if (*q == '\\' && q + 1 < end)
						q++;
					ga_buf_putc(&section, *q);
				}
				in_submodule = q < end && *q == '"';
			}
		} else if (p < end && *p != '\n' && in_submodule) {
			const char *key = p;

			while (p < end && (ga_isalnum((unsigned char)*p) ||
					   *p == '-'))
				p++;
			if ((size_t)(p - key) == 4 &&
			    !strncasecmp(key, "path", 4)) {
				p = skip_blank(p, end);
				if (p < end && *p == '=') {
					p = parse_value(&value, p + 1, end);
					if (name_is_safe(section.ptr))
						add_module(l, section.ptr,
							   value.ptr);
				}
			}
		}
		while (p < end && *p != '\n')
			p++;
		if (p < end)
			p++;
	}
	ga_buf_release(&section);
	ga_buf_release(&value);
}

/* The name of the submodule at `path` of level `l`, or NULL. */
static const char *module_name(struct level *l, const char *path)
{
	struct rawtree_entry te;
	struct odb_object *blob = NULL;
	size_t i;

	if (!l->modules_read) {
		l->modules_read = 1;
		if (rawtree_lookup(&te, l->odb, &l->tree_id, ".gitmodules",
				   ga_oid_rawsz(&l->tree_id)) == 0 &&
		    (te.mode == 0100644 || te.mode == 0100755) &&
		    odb_read(&blob, l->odb, &te.id) == 0)
			parse_gitmodules(l, odb_object_data(blob),
					 odb_object_size(blob));
		odb_object_free(blob);
		ga_error_clear();
		git_error_clear();
	}
	for (i = l->nr_modules; i-- > 0;)
		if (!strcmp(l->paths[i], path))
			return l->names[i];
	return NULL;
}

/* ---- finding the repository ---- */

/*
 * git has no limit of its own here (git archive does not recurse), but
 * each level keeps its repository, object databases and read-ahead
 * until the levels inside it are done: a chain of gitlinks (a submodule
 * can be its own grand-child) must not take the machine's memory.
 * Real projects nest a few levels.
 */
#define SUBMODULE_MAX_DEPTH	64

/* Open `dir` as a repository holding `commit`; NULL otherwise. */
static git_repository *open_with_commit(const char *dir,
					const struct ga_oid *commit)
{
	git_repository *repo = NULL;
	git_odb *odb = NULL;
	size_t size;
	git_object_t type;
	int ok;

	if (repo_open(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0) {
		git_error_clear();
		return NULL;
	}
	/*
	 * libgit2's own object database reads SHA-1 only: the
	 * submodule's, like the superproject's, is ours, with the hash
	 * its format names (a SHA-256 superproject has SHA-256 gitlinks).
	 */
	ok = odb_install(repo, NULL, 0) == 0 &&
	     git_repository_odb(&odb, repo) == 0 &&
	     odb_read_header(&size, &type, odb, commit) == 0 &&
	     type == GIT_OBJECT_COMMIT;
	git_odb_free(odb);
	git_error_clear();
	if (!ok) {
		git_repository_free(repo);
		return NULL;
	}
	return repo;
}

/* ---- ownership ---- */

/*
 * The git directory that `worktree`/.git leads to (a directory, or a
 * ".git" file's "gitdir: <path>", relative to the work tree), resolved;
 * NULL when there is none.  *is_file says which.
 */
static char *worktree_gitdir(const char *worktree, int *is_file)
{
	char *dotgit = ga_xstrfmt("%s/.git", worktree), *target = NULL;
	char *real = NULL;
	struct ga_buf data = GA_BUF_INIT;
	struct stat st;

	*is_file = 0;
	if (lstat(dotgit, &st) < 0)
		goto done;
	if (S_ISREG(st.st_mode)) {
		*is_file = 1;
		if (ga_buf_read_file(&data, dotgit) < 0 || data.len < 8 ||
		    memcmp(data.ptr, "gitdir: ", 8)) {
			ga_error_clear();
			goto done;
		}
		target = ga_xstrndup(data.ptr + 8, data.len - 8);
		target[strcspn(target, "\r\n")] = '\0';
		if (*target != '/') {
			char *rel = target;

			target = ga_xstrfmt("%s/%s", worktree, rel);
			free(rel);
		}
	} else {
		target = ga_xstrdup(dotgit);
	}
	real = realpath(target, NULL);
done:
	free(target);
	free(dotgit);
	ga_buf_release(&data);
	return real;
}

/*
 * A submodule's repository is trusted as git trusts it when run in it
 * (safedir.h): through its work tree <path> in the superproject's work
 * tree when that leads to it - what git's discovery there checks and
 * names - else as a bare repository.  Its configuration (filters) must
 * not be read before, so a foreign one is refused with git's words.
 */
static int check_owner(struct submodules *s, struct level *l,
		       const char *path, git_repository *repo)
{
	const char *workdir = git_repository_workdir(l->repo);
	char *gitdir = realpath(git_repository_path(repo), NULL);
	char *worktree = NULL, *found = NULL, *gitfile = NULL;
	int is_file = 0, ok = 0, error;

	if (!gitdir)
		return ga_error_errno(errno, "cannot resolve '%s'",
				      git_repository_path(repo));
	if (workdir) {
		char *dir = ga_xstrfmt("%s%s", workdir, path);

		worktree = realpath(dir, NULL);
		free(dir);
	}
	if (worktree)
		found = worktree_gitdir(worktree, &is_file);
	if (found && !strcmp(found, gitdir)) {
		if (is_file)
			gitfile = ga_xstrfmt("%s/.git", worktree);
	} else {
		free(worktree);
		worktree = NULL;
	}
	error = safedir_check(&ok, s->opts.config_overrides,
			      s->opts.nr_config_overrides, gitfile, worktree,
			      gitdir);
	if (!error && !ok)
		error = safedir_refuse(worktree ? worktree : gitdir);
	free(gitdir);
	free(worktree);
	free(found);
	free(gitfile);
	return error;
}

/*
 * The repository of the submodule at `path` holding `commit`, in *out
 * (NULL when none has it).  Returns 0 or an error: a repository that
 * belongs to someone else is refused.
 */
static int find_repo(git_repository **out, struct submodules *s,
		     struct level *l, const char *path, const struct ga_oid *commit)
{
	const char *name = module_name(l, path);
	const char *workdir = git_repository_workdir(l->repo);
	git_repository *repo = NULL;
	char *dir;
	int error;

	*out = NULL;
	if (name) {
		char *common = repo_commondir(l->repo);

		dir = ga_xstrfmt("%smodules/%s", common, name);
		free(common);
		repo = open_with_commit(dir, commit);
		free(dir);
	}
	if (!repo && workdir) {
		dir = ga_xstrfmt("%s%s/.git", workdir, path);
		repo = open_with_commit(dir, commit);
		free(dir);
	}
	if (repo && (error = check_owner(s, l, path, repo)) < 0) {
		git_repository_free(repo);
		return error;
	}
	*out = repo;
	return 0;
}

static struct level *new_level(struct submodules *s, git_repository *repo,
			       const struct ga_oid *commit, const char *full_path)
{
	struct level *l = ga_xcalloc(1, sizeof(*l));
	struct ga_commit *c = NULL;
	char *common;
	int error;

	l->repo = repo;
	l->owns_repo = 1;
	l->path = ga_xstrfmt("%s/", full_path);
	if (git_repository_odb(&l->odb, repo) < 0) {
		error = ga_error_from_git(NULL);
		goto fail;
	}
	if ((error = ga_commit_read(&c, l->odb, commit)) < 0)
		goto fail;
	ga_oid_cpy(&l->tree_id, &c->tree_id);
	l->treeish.commit = c;
	ga_oid_cpy(&l->treeish.commit_id, commit);
	ga_oid_cpy(&l->treeish.tree_id, &l->tree_id);
	l->treeish.hexsz = ga_oid_hexsz(commit);
	ga_oid_cpy(&l->treeish.root_tree_id, &l->tree_id);
	if ((error = config_load(&l->config, repo, s->opts.config_overrides,
				 s->opts.nr_config_overrides)) < 0)
		goto fail;
	/* A partial clone: the blobs it lacks, as for the superproject. */
	if ((error = promisor_prefetch_tree(repo, l->config,
					    &l->tree_id)) < 0)
		goto fail;
	common = repo_commondir(repo);
	l->attr_info = ga_xstrfmt("%sinfo/attributes", common);
	free(common);
	GA_ALLOC_GROW(s->levels, s->nr_levels + 1, s->alloc_levels);
	s->levels[s->nr_levels++] = l;
	return l;
fail:
	config_free(l->config);
	ga_commit_free(c);
	git_odb_free(l->odb);
	free(l->path);
	free(l);
	git_repository_free(repo);
	return NULL;
}

static int find(struct walk_gitlink *out, void *level, const char *path,
		const struct ga_oid *commit, void *payload)
{
	struct submodules *s = payload;
	struct level *l = level ? level : &s->top;
	struct answer *a;
	git_repository *repo;
	char *full = ga_xstrfmt("%s%s", l->path, path);
	char hex[GA_OID_MAX_HEXSZ + 1];
	size_t i;
	int error;

	for (i = 0; i < s->nr_answers; i++) {
		a = &s->answers[i];
		if (strcmp(a->path, full) || !ga_oid_equal(&a->commit, commit))
			continue;
		free(full);
		if (!a->level)
			return GA_ENOTFOUND;
		out->odb = a->level->odb;
		ga_oid_cpy(&out->tree_id, &a->level->tree_id);
		out->level = a->level;
		return 0;
	}

	ga_oid_fmt(hex, commit);
	if (l->depth >= SUBMODULE_MAX_DEPTH) {
		error = ga_error_set("submodule '%s': more than %d levels of "
				     "nested submodules", full,
				     SUBMODULE_MAX_DEPTH);
		free(full);
		return error;
	}
	if ((error = find_repo(&repo, s, l, path, commit)) < 0) {
		free(full);
		return error;
	}
	GA_ALLOC_GROW(s->answers, s->nr_answers + 1, s->alloc_answers);
	a = &s->answers[s->nr_answers++];
	a->path = full;
	ga_oid_cpy(&a->commit, commit);
	a->level = NULL;
	if (!repo) {
		if (!s->opts.skip_missing)
			return ga_error_set("submodule '%s': commit %s not "
					    "found", full, hex);
		ga_warning("submodule '%s': commit %s not found, archived as "
			   "an empty directory", full, hex);
		return GA_ENOTFOUND;
	}
	if (!(a->level = new_level(s, repo, commit, full)))
		return GA_ERROR;
	a->level->depth = l->depth + 1;
	out->odb = a->level->odb;
	ga_oid_cpy(&out->tree_id, &a->level->tree_id);
	out->level = a->level;
	return 0;
}

/*
 * The submodule's walk: the superproject's options, with the
 * submodule's tree, configuration, attributes and place.
 */
static int walk(struct walk **out, const struct walk_gitlink *found,
		const struct walk_options *parent, void *payload)
{
	struct level *l = found->level;
	struct walk_options *wo = &l->wo;
	const char *top_prefix;
	size_t top_len;

	(void)payload;
	/* Paths are the superproject's prefix, then the submodule's path. */
	top_prefix = parent->prefix ? parent->prefix : "";
	top_len = strlen(top_prefix);
	if (parent->nested && parent->rel_base)
		top_len -= strlen(parent->rel_base);
	free(l->prefix);
	l->prefix = ga_xstrfmt("%.*s%s", (int)top_len, top_prefix, l->path);

	*wo = *parent;
	wo->treeish = &l->treeish;
	wo->config = l->config;
	wo->prefix = l->prefix;
	wo->cwd_prefix = "";
	wo->extras = NULL;
	wo->nr_extras = 0;
	wo->nested = 1;
	wo->rel_base = l->path;
	wo->submodule_level = l;
	wo->attr_info_file = l->attr_info;
	wo->attr_info_file_shown = NULL;
	/* The source names a tree of the superproject. */
	wo->attr_source = NULL;
	/*
	 * Its large blobs are read at once (a deferred one would outlive
	 * this walk), and the prefetch scout would prune by pathspecs
	 * without the submodule's path in front.
	 */
	wo->defer_above = 0;
	if (wo->nr_pathspecs)
		wo->threads = 1;
	return walk_new(out, l->repo, wo);
}

void submodules_new(struct submodules **out,
		    const struct submodules_options *opts)
{
	struct submodules *s = ga_xcalloc(1, sizeof(*s));

	s->opts = *opts;
	s->top.repo = opts->repo;
	s->top.path = ga_xstrdup("");
	ga_oid_cpy(&s->top.tree_id, opts->tree_id);
	if (git_repository_odb(&s->top.odb, opts->repo) < 0)
		git_error_clear();
	s->hooks.find = find;
	s->hooks.walk = walk;
	s->hooks.payload = s;
	*out = s;
}

const struct walk_submodules *submodules_hooks(struct submodules *s)
{
	return &s->hooks;
}

static void level_release(struct level *l)
{
	size_t i;

	for (i = 0; i < l->nr_modules; i++) {
		free(l->names[i]);
		free(l->paths[i]);
	}
	free(l->names);
	free(l->paths);
	ga_commit_free(l->treeish.commit);
	config_free(l->config);
	git_odb_free(l->odb);
	if (l->owns_repo)
		git_repository_free(l->repo);
	free(l->attr_info);
	free(l->prefix);
	free(l->path);
}

void submodules_free(struct submodules *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_levels; i++) {
		level_release(s->levels[i]);
		free(s->levels[i]);
	}
	free(s->levels);
	for (i = 0; i < s->nr_answers; i++)
		free(s->answers[i].path);
	free(s->answers);
	level_release(&s->top);
	free(s);
}

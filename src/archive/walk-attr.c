/*
 * walk-attr.c: the attributes the walk looks up.  git parses the
 * attribute files once per "attribute check" (see enum
 * attr_check_kind); each check has its own stack here, reading the
 * .gitattributes of the archived tree, or of the work tree with
 * --worktree-attributes.
 */
#include "walk-int.h"
#include "garchive/config.h"
#include "garchive/treeish.h"
#include "attr.h"
#include "odb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"

static const char *const diff_attr_names[1] = { "diff" };

/*
 * The tree of directory `dir` below `root` when the walk holds it open:
 * the walk holds the trees of the directories down to the entry at
 * hand, whose attribute files are the ones looked up while it walks.
 * Its first tree is the archived one, which with git 2.41's cwd prefix
 * kept is the one at that prefix ("sub/") of the whole tree.  NULL for
 * any other directory.  In a tree whose entries are out of order (fsck
 * refuses it) a search from the root may stop short of a directory the
 * walk is in; git reads the files from its index, which holds what the
 * walk finds.
 */
static const struct odb_object *held_tree(const struct walk *w,
					  const struct ga_oid *root,
					  const char *dir)
{
	size_t len = strlen(dir), base = w->cwd_base_len, i;

	if (!w->depth)
		return NULL;
	if (ga_oid_equal(root, &w->treeish->tree_id)) {
		base = 0;
	} else if (!base || !ga_oid_equal(root, &w->treeish->root_tree_id) ||
		   len + 1 < base || memcmp(dir, w->opts->cwd_base, base - 1)) {
		return NULL;
	} else if (len + 1 == base) {
		return w->frames[0].obj;
	} else if (dir[base - 1] != '/') {
		return NULL;
	} else {
		dir += base;
		len -= base;
	}
	if (!len)
		return w->frames[0].obj;
	for (i = w->depth - 1; i > 0; i--) {
		const struct frame *f = &w->frames[i];

		if (f->rel_len < len + 1)
			break;
		if (f->rel_len == len + 1 && w->rel.len >= f->rel_len &&
		    !memcmp(w->rel.ptr, dir, len))
			return f->obj;
	}
	return NULL;
}

/* "<dir>/.gitattributes" of `tree`. */
static int read_attrs_in(struct ga_buf *out, struct walk *w,
			 const struct ga_oid *tree, const char *dir)
{
	const struct odb_object *held = held_tree(w, tree, dir);
	struct rawtree_entry te;
	struct odb_object *obj = NULL;
	char *path;
	int error;

	if (held) {
		error = rawtree_find(&te, held, ".gitattributes", w->hashsz);
	} else {
		path = *dir ? ga_xstrfmt("%s/.gitattributes", dir)
			    : ga_xstrdup(".gitattributes");
		error = rawtree_cursor_lookup(&te, &w->attr_trees, tree,
					      path);
		free(path);
	}
	if (error == GA_ECORRUPT)
		return error;
	if (error < 0) {
		ga_error_clear();
		return GA_ENOTFOUND;
	}
	if (te.mode == 0040000 || te.mode == ARCHIVE_MODE_GITLINK)
		return GA_ENOTFOUND;
	if ((error = odb_read(&obj, w->odb, &te.id)) < 0) {
		if (odb_corrupt_error(error) < 0)
			return GA_ECORRUPT;
		git_error_clear();
		return GA_ENOTFOUND;
	}
	ga_buf_put(out, odb_object_data(obj), odb_object_size(obj));
	odb_object_free(obj);
	return 0;
}

/*
 * The tree git loads into its index: the archived one, or with git
 * 2.41's cwd prefix kept, the whole tree it is a subtree of.
 */
static const struct ga_oid *attr_tree(const struct walk *w)
{
	return w->cwd_base_len ? &w->treeish->root_tree_id
			       : &w->treeish->tree_id;
}

/*
 * Read "<dir>/.gitattributes" from the archived tree: what git's
 * in-memory index holds when --worktree-attributes is not given.
 */
static int read_tree_attrs(struct ga_buf *out, const char *dir, void *payload)
{
	struct walk *w = payload;

	return read_attrs_in(out, w, attr_tree(w), dir);
}

/*
 * With an attribute source, git reads what it would have read from the
 * work tree from that tree instead (in a bare repository too).
 */
static int read_source_attrs(struct ga_buf *out, const char *dir,
			     void *payload)
{
	struct walk *w = payload;

	if (w->attr_source != ATTR_SOURCE_TREE)
		return GA_ENOTFOUND;
	return read_attrs_in(out, w, &w->attr_source_id, dir);
}

/*
 * With --worktree-attributes git reads the files of the work tree.  It
 * has changed to the top of the work tree, so the paths it asks for are
 * taken from there even when the archived tree is a subdirectory.
 */
static int read_worktree_attrs(struct ga_buf *out, const char *dir,
			       void *payload)
{
	struct walk *w = payload;
	const char *top = git_repository_workdir(w->repo);
	char *path;
	int error;

	if (!top)
		return GA_ENOTFOUND;
	path = *dir ? ga_xstrfmt("%s%s/.gitattributes", top, dir)
		    : ga_xstrfmt("%s.gitattributes", top);
	error = attr_read_file_as(out, path, path + strlen(top), 1);
	free(path);
	return error;
}

static int new_stack(struct walk *w, enum attr_check_kind kind,
		     attr_read_fn read_dir, int worktree)
{
	const struct walk_options *o = w->opts;
	struct attr_stack_options ao = { 0 };
	int ignore_case = 0;

	ao.system_file = o->attr_system_file;
	ao.global_file = o->attr_global_file;
	ao.info_file = o->attr_info_file;
	ao.info_file_shown = o->attr_info_file_shown;
	ao.read_dir = read_dir;
	ao.worktree = worktree;
	ao.payload = w;
	if (config_get_bool(&ignore_case, o->config, "core.ignorecase") < 0) {
		ga_error_clear();
		ignore_case = 0;
	}
	ao.ignore_case = ignore_case;
	return attr_stack_new(&w->attrs[kind], &ao);
}

/*
 * Resolve walk_options.attr_source.  git does it at its first attribute
 * lookup and dies there on a bad name; the error waits for that lookup
 * here too, so an archive without entries does not fail.
 */
static int resolve_attr_source(struct walk *w)
{
	const struct walk_options *o = w->opts;
	int found;

	w->attr_source = ATTR_SOURCE_NONE;
	if (!o->attr_source)
		return 0;
	found = treeish_attr_source(&w->attr_source_id, w->repo,
				    o->attr_source, o->cwd_prefix);
	if (found == GA_ENOTFOUND) {
		ga_error_clear();
		if (!o->attr_source_lenient)
			w->attr_source = ATTR_SOURCE_BAD;
		return 0;
	}
	if (found < 0)
		return found;
	w->attr_source = found ? ATTR_SOURCE_TREE : ATTR_SOURCE_EMPTY;
	return 0;
}

int walk_attr_setup(struct walk *w)
{
	int wt = w->opts->worktree_attributes;
	attr_read_fn reader = wt ? read_worktree_attrs : read_tree_attrs;
	int error, kind;

	rawtree_cursor_init(&w->attr_trees, w->odb, w->hashsz);
	if ((error = resolve_attr_source(w)) < 0)
		return error;
	/* A source stands in for the work tree's files, as blobs. */
	if (wt && w->attr_source != ATTR_SOURCE_NONE) {
		reader = read_source_attrs;
		wt = 0;
	}
	/*
	 * git 2.39 validated pathspecs before it pointed attribute lookups
	 * at the archived tree, so that :(attr:) items saw the work tree's
	 * files; git 2.47 loads the tree first and validates with the
	 * attributes the walk uses.  CHECK_VALIDATE keeps its own stack
	 * because git parses the files again for it.
	 */
	for (kind = 0; kind < CHECK_NR; kind++)
		if ((error = new_stack(w, kind, reader, wt)) < 0)
			return error;
	return 0;
}

int walk_attr_lookup(struct attr_value *out, struct walk *w,
		     enum attr_check_kind kind, const char *path, int is_dir,
		     const char *const *names, size_t nr)
{
	if (w->attr_source == ATTR_SOURCE_BAD)
		return ga_error_set("bad --attr-source or GIT_ATTR_SOURCE");
	return attr_check(out, w->attrs[kind], path, is_dir, names, nr);
}



/*
 * git's canon_mode(), as the value of builtin_objectmode: the mode the
 * index would give the entry.  The strings outlive every lookup.
 */
static const char *mode_string(uint32_t mode)
{
	switch (mode & 0170000) {
	case ARCHIVE_MODE_DIR:
		return "040000";
	case ARCHIVE_MODE_SYMLINK:
		return "120000";
	case ARCHIVE_MODE_GITLINK:
		return "160000";
	default:
		return mode & 0100 ? "100755" : "100644";
	}
}

/*
 * builtin_objectmode from the work tree, as git 2.44 computes it for
 * --worktree-attributes (attributes read "for check-in"): lstat() the
 * path below the top of the work tree, whatever tree is archived, and
 * die when it is not there.  A directory holding a repository counts as
 * a submodule (git asks whether its HEAD resolves).
 */
static int worktree_mode(const char **out, struct walk *w, const char *path)
{
	const char *top = git_repository_workdir(w->repo);
	char *full = ga_xstrfmt("%s%s", top ? top : "", path);
	struct stat st;
	int error = 0;

	if (lstat(full, &st) < 0) {
		error = ga_error_set("unable to stat '%s': %s", path,
				     strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		char *dotgit = ga_xstrfmt("%s/.git", full);

		*out = access(dotgit, F_OK) ? "040000" : "160000";
		free(dotgit);
	} else {
		*out = mode_string(S_ISLNK(st.st_mode) ? ARCHIVE_MODE_SYMLINK
				   : (uint32_t)(0100000 | (st.st_mode & 0777)));
	}
	free(full);
	return error;
}

/*
 * builtin_objectmode from the archived tree, which git has loaded into
 * its index: an entry's mode, unspecified for a tree (the index holds
 * none) and for a path that is not there.
 */
static int tree_mode(const char **out, struct walk *w, const char *path)
{
	const char *base = w->opts->rel_base;
	size_t baselen = base ? strlen(base) : 0;
	struct rawtree_entry te;
	int error;

	if (w->have_match_mode) {
		if (w->match_mode != ARCHIVE_MODE_DIR)
			*out = mode_string(w->match_mode);
		return 0;
	}
	/* A submodule's walk sees paths below the superproject's. */
	if (baselen && !strncmp(path, base, baselen))
		path += baselen;
	error = rawtree_cursor_lookup(&te, &w->attr_trees, attr_tree(w), path);
	if (error == GA_ECORRUPT)
		return error;
	if (error < 0) {
		ga_error_clear();
		return 0;
	}
	if (te.mode != ARCHIVE_MODE_DIR)
		*out = mode_string(te.mode);
	return 0;
}

/*
 * git 2.44 computes builtin_objectmode for any name no file gives a
 * value (none can: "builtin_" names are refused there), so an
 * :(attr:builtin_objectmode=100755) pathspec selects executables.
 */
static int builtin_attrs(struct attr_value *out, struct walk *w,
			 const char *path, const char *const *names, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const char *value = NULL;
		int error;

		if (strcmp(names[i], "builtin_objectmode") ||
		    out[i].state != ATTR_UNSPECIFIED)
			continue;
		error = w->opts->worktree_attributes ?
			worktree_mode(&value, w, path) :
			tree_mode(&value, w, path);
		if (error < 0)
			return error;
		if (value) {
			out[i].state = ATTR_VALUE;
			out[i].value = value;
		}
	}
	return 0;
}

static int pathspec_attrs(struct attr_value *out, struct walk *w,
			  enum attr_check_kind kind, const char *path,
			  int is_dir, const char *const *names, size_t nr)
{
	int error = walk_attr_lookup(out, w, kind, path, is_dir, names, nr);

	return error < 0 ? error : builtin_attrs(out, w, path, names, nr);
}

/* Callbacks for :(attr:...) pathspecs, walking and validating. */
int walk_pathspec_attrs(struct attr_value *out, const char *path,
			int is_dir, const char *const *names, size_t nr,
			void *payload)
{
	return pathspec_attrs(out, payload, CHECK_PATHSPEC, path, is_dir,
			      names, nr);
}

int walk_validate_attrs(struct attr_value *out, const char *path,
			int is_dir, const char *const *names, size_t nr,
			void *payload)
{
	return pathspec_attrs(out, payload, CHECK_VALIDATE, path, is_dir,
			      names, nr);
}

static enum entry_text diff_text(struct walk *w, const struct attr_value *diff)
{
	char *key;
	int binary, error;

	switch (diff->state) {
	case ATTR_SET:
		return ENTRY_TEXT;
	case ATTR_UNSET:
		return ENTRY_BINARY;
	case ATTR_VALUE:
		key = ga_xstrfmt("diff.%s.binary", diff->value);
		error = config_get_bool(&binary, w->opts->config, key);
		free(key);
		if (error < 0) {
			ga_error_clear();
			return ENTRY_TEXT_SNIFF;
		}
		return binary ? ENTRY_BINARY : ENTRY_TEXT;
	default:
		return ENTRY_TEXT_SNIFF;
	}
}

/*
 * The zip "text" bit follows the diff attribute: set means text, unset
 * (or the binary macro) means binary, a driver decides through
 * diff.<driver>.binary, and anything else leaves it to the content.
 */
int walk_text_hint(enum entry_text *out, struct walk *w, const char *path)
{
	struct attr_value diff = { 0 };
	int error;

	*out = ENTRY_TEXT_SNIFF;
	if (!w->opts->want_text_hint)
		return 0;
	if ((error = walk_attr_lookup(&diff, w, CHECK_DIFF, path, 0, diff_attr_names,
			    1)) < 0)
		return error;
	*out = diff_text(w, &diff);
	return 0;
}

/*
 * walk.c: the archived tree as a sequence of final entries.
 *
 * Order and selection are git's (archive.c): tree entries in stored
 * order, depth-first and pre-order; a directory is held back until the
 * first non-directory entry below it is reached, so empty trees never
 * appear and a directory whose files are all export-ignored still does;
 * pathspecs select non-directory entries and their parents come along.
 * The `--prefix` directory comes first and the extra files last.
 *
 * Before the walk, git 2.39 checks every pathspec and (unless
 * --worktree-attributes) loads the whole tree into an index, which reads
 * every tree and checks every blob exists.  Both checks run here first,
 * with git's messages, so a broken repository fails the same way.
 */
#include "walk-int.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "garchive/cli.h"
#include "garchive/treeish.h"
#include "attr.h"
#include "odb.h"
#include "convert.h"
#include "pathcheck.h"
#include "pathspec.h"
#include "prefetch.h"
#include "rawtree.h"
#include "subst.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"

/* git's default core.bigFileThreshold. */
#define DEFAULT_BIG_FILE_THRESHOLD (512 * 1024 * 1024)

/*
 * Bytes of blobs read ahead of the walk (more beside a larger blob, see
 * prefetch.h), and the size above which a tar streams a blob rather than
 * hold it whole.  Every byte counts against peak memory, which must stay
 * at git's (git reads one blob at a time).  When reading is all the work
 * (a plain tar), 6 MiB keeps a worker busy while the walk inflates a
 * blob of a few MB.  Otherwise a compressor sets the pace, and 2 MiB is
 * enough.  (zip reads no blob ahead: see
 * walk_options.defer_above.)
 */
#define WALK_PREFETCH_BUDGET_READING	((size_t)6 << 20)
#define WALK_PREFETCH_BUDGET		((size_t)2 << 20)
#define WALK_MAX_THREADS	64

enum { A_EXPORT_IGNORE, A_EXPORT_SUBST, A_ARCHIVE_NR };

static const char *const archive_attr_names[A_ARCHIVE_NR] = {
	"export-ignore", "export-subst"
};

static int is_dir_mode(uint32_t mode)
{
	return mode == ARCHIVE_MODE_DIR;
}

/*
 * A path as pathspecs see it: in a submodule's walk, below the
 * submodule's path in the superproject.
 */
static const char *ps_path(struct walk *w, const char *rel)
{
	if (!*w->ps_base)
		return rel;
	ga_buf_setlen(&w->ps_buf, 0);
	ga_buf_puts(&w->ps_buf, w->ps_base);
	ga_buf_puts(&w->ps_buf, rel);
	return w->ps_buf.ptr;
}

/*
 * A path as export-ignore and export-subst see it: git 2.41 and later
 * (walk_options.cwd_base) look the whole path up in the top walk.
 */
static const char *archive_attr_path(struct walk *w, const char *rel)
{
	if (!w->cwd_base_len)
		return rel;
	ga_buf_setlen(&w->ps_buf, 0);
	ga_buf_puts(&w->ps_buf, w->opts->cwd_base);
	ga_buf_puts(&w->ps_buf, rel);
	return w->ps_buf.ptr;
}

/* What the pathspec matcher is told about an entry's type. */
static int pathspec_kind(uint32_t mode)
{
	if (mode == ARCHIVE_MODE_DIR)
		return 1;
	return mode == ARCHIVE_MODE_GITLINK ? PATHSPEC_GITLINK : 0;
}

static int attr_is_set(const struct attr_value *v)
{
	return v->state == ATTR_SET;
}

/* ---- the checks git makes before writing ---- */

struct check_state {
	struct walk *w;
	unsigned char *matched;		/* per pathspec item */
	size_t unmatched;
	pathspec_attr_fn match_attrs;	/* :(attr:) items look here */
	int index_load;			/* git would load the tree into an index */
	int have_missing;		/* first missing blob, reported at the end */
	uint32_t missing_mode;
	struct ga_oid missing_id;
	char *missing_path;
	int depth;			/* trees above the one being read */
	/*
	 * git 2.41 and later (walk_options.cwd_base): per pathspec item,
	 * whether it selects a file outside the cwd prefix.
	 */
	unsigned char *outside;
	git_odb *odb;			/* whose trees are read */
	void *level;			/* NULL, or inside a submodule */
	size_t base_len;		/* where that submodule starts in rel */
};

/*
 * How deep trees may nest.  git 2.39 recurses without a limit and dies
 * of a stack overflow near 3500 levels; later gits stop at
 * core.maxTreeDepth (first 4096) with these messages.  garchive's own
 * recursion would overflow too, so it stops there, above anything git
 * 2.39 can archive.
 */
#define WALK_MAX_TREE_DEPTH 4096

/* git 2.45 and later put the id in parentheses (2.39: without). */
static int tree_unreadable(const struct ga_oid *id)
{
	char hex[GA_OID_MAX_HEXSZ + 1];

	ga_oid_fmt(hex, id);
	return ga_error_set("unable to read tree (%s)", hex);
}

static int check_tree(struct check_state *st, const struct ga_oid *id,
		      struct ga_buf *rel);

static int match_items(struct check_state *st, const char *path, int is_dir)
{
	struct walk *w = st->w;
	size_t i;
	int error;

	for (i = 0; st->unmatched && i < pathspec_nr(w->ps); i++) {
		if (st->matched[i])
			continue;
		error = pathspec_item_match(w->ps, i, path, is_dir,
					    st->match_attrs, w);
		if (error < 0)
			return error;
		if (error) {
			st->matched[i] = 1;
			st->unmatched--;
		}
	}
	return 0;
}

/*
 * git 2.41 and later refuse an item that selects a file outside the
 * cwd prefix (archive.c's reject_outside()), `path` being one.
 */
static int match_outside(struct check_state *st, const char *path,
			 int is_dir)
{
	struct walk *w = st->w;
	size_t i;
	int error;

	for (i = 0; i < pathspec_nr(w->ps); i++) {
		if (st->outside[i])
			continue;
		error = pathspec_item_match(w->ps, i, path, is_dir,
					    st->match_attrs, w);
		if (error < 0)
			return error;
		st->outside[i] = !!error;
	}
	return 0;
}

/* find(): 1 when the submodule is found, 0 when skipped, or an error. */
static int find_submodule(struct walk_gitlink *out,
			  const struct walk_submodules *subs, void *level,
			  const char *path, const struct ga_oid *commit)
{
	int error = subs->find(out, level, path, commit, subs->payload);

	if (error == GA_ENOTFOUND) {
		ga_error_clear();
		return 0;
	}
	return error < 0 ? error : 1;
}

/*
 * --recurse-submodules: a pathspec may name paths inside a submodule,
 * so look there too while some pathspec has matched nothing (the
 * submodule's own walk checks the rest of its tree).
 */
static int check_submodule(struct check_state *st,
			   const struct rawtree_entry *te, struct ga_buf *rel)
{
	const struct walk_submodules *subs = st->w->opts->submodules;
	struct walk_gitlink found;
	git_odb *odb = st->odb;
	void *level = st->level;
	size_t base_len = st->base_len;
	int error;

	if (!subs || !st->unmatched ||
	    !pathspec_may_match_inside(st->w->ps, rel->ptr))
		return 0;
	/* Submodules are found below the archived tree only. */
	if (!st->level && strncmp(rel->ptr, st->w->opts->cwd_base ?
				  st->w->opts->cwd_base : "", st->base_len))
		return 0;
	/* find() takes the path inside the repository it belongs to. */
	if ((error = find_submodule(&found, subs, st->level,
				    rel->ptr + st->base_len, &te->id)) <= 0)
		return error;
	st->odb = found.odb;
	st->level = found.level;
	ga_buf_putc(rel, '/');
	st->base_len = rel->len;
	error = check_tree(st, &found.tree_id, rel);
	ga_buf_setlen(rel, st->base_len - 1);
	st->odb = odb;
	st->level = level;
	st->base_len = base_len;
	return error;
}

/*
 * A path git's index refuses.  Loading the tree into the index fails on
 * it: git 2.39 then ended the archive with status 255 and no more
 * words, git 2.47 and later die before writing anything, as for a tree
 * too deep.  Without an index (--worktree-attributes) git has nothing
 * to fail and archives the path; garchive refuses it still, as an
 * archive error.
 */
static int refuse_path(struct check_state *st, const char *path)
{
	char hex[GA_OID_MAX_HEXSZ + 1];

	if (!st->index_load)
		return ga_error_code(GA_EARCHIVE, "invalid path '%s'", path);
	ga_report(GA_REPORT_ERROR, "invalid path '%s'", path);
	ga_oid_fmt(hex, &st->w->treeish->tree_id);
	return ga_error_set("failed to unpack tree object %s", hex);
}

static int check_entry(struct check_state *st, const struct rawtree_entry *te,
		       struct ga_buf *rel)
{
	struct walk *w = st->w;
	size_t len = rel->len;
	int is_dir = is_dir_mode(te->mode);
	int error = 0;

	ga_buf_put(rel, te->name, te->name_len);
	if (st->outside && !is_dir && !st->level &&
	    strncmp(rel->ptr, w->opts->cwd_base, w->cwd_base_len) &&
	    (error = match_outside(st, rel->ptr, pathspec_kind(te->mode))) < 0)
		goto done;
	if (w->ps && st->unmatched) {
		w->match_mode = te->mode;
		w->have_match_mode = 1;
		error = match_items(st, rel->ptr, pathspec_kind(te->mode));
		w->have_match_mode = 0;
		if (error < 0)
			goto done;
	}
	if (is_dir) {
		ga_buf_putc(rel, '/');
		error = check_tree(st, &te->id, rel);
		goto done;
	}
	if (te->mode == ARCHIVE_MODE_GITLINK &&
	    (error = check_submodule(st, te, rel)) < 0)
		goto done;
	/* Inside a submodule only pathspecs are checked here. */
	if (st->level)
		goto done;
	/*
	 * git's index refuses these paths; a name with a slash would
	 * forge a path of another entry, so it goes too.
	 */
	if (!pathcheck_name_is_valid(te->name, te->name_len) ||
	    !pathcheck_is_safe(rel->ptr, te->mode)) {
		error = refuse_path(st, rel->ptr);
		goto done;
	}
	if (st->index_load && !st->have_missing &&
	    te->mode != ARCHIVE_MODE_GITLINK &&
	    !odb_exists(w->odb, &te->id)) {
		st->have_missing = 1;
		st->missing_mode = te->mode;
		ga_oid_cpy(&st->missing_id, &te->id);
		st->missing_path = ga_xstrdup(rel->ptr);
	}
done:
	ga_buf_setlen(rel, len);
	return error;
}

static int check_tree(struct check_state *st, const struct ga_oid *id,
		      struct ga_buf *rel)
{
	struct odb_object *obj = NULL;
	struct rawtree_iter it;
	struct rawtree_entry te;
	int error;

	if (st->depth > WALK_MAX_TREE_DEPTH) {
		char hex[GA_OID_MAX_HEXSZ + 1];

		ga_oid_fmt(hex, &st->w->treeish->tree_id);
		ga_report(GA_REPORT_ERROR,
			  "exceeded maximum allowed tree depth");
		return ga_error_set("failed to unpack tree object %s", hex);
	}
	if ((error = rawtree_read(&obj, st->odb, id)) < 0)
		return error == GA_ECORRUPT ? error : tree_unreadable(id);
	rawtree_iter_init(&it, odb_object_data(obj),
			  odb_object_size(obj), st->w->hashsz);
	st->depth++;
	while ((error = rawtree_next(&te, &it)) == 0)
		if ((error = check_entry(st, &te, rel)) < 0)
			break;
	st->depth--;
	odb_object_free(obj);
	return error == GA_ITEROVER ? 0 : error;
}

/*
 * Before writing, git loads the tree into an index unless
 * --worktree-attributes is given: every tree must be readable, every
 * path acceptable, and a missing blob is reported (reading it later
 * fails the archive); it checks that every pathspec item matches
 * something (in command-line order).  git 2.39 checked the pathspecs
 * first, git 2.47 and later load the index first, as garchive orders
 * its messages.  garchive walks the tree once for all of it and checks
 * paths in every mode.
 */
static int run_checks(struct walk *w)
{
	struct check_state st = { 0 };
	struct ga_buf rel = GA_BUF_INIT;
	size_t i, nr = w->ps ? pathspec_nr(w->ps) : 0;
	int error;

	st.w = w;
	st.odb = w->odb;
	st.index_load = !w->opts->worktree_attributes;
	/* A submodule's pathspecs were checked with its superproject. */
	if (w->opts->nested)
		nr = 0;
	if (nr) {
		st.matched = ga_xcalloc(nr, 1);
		st.unmatched = nr;
	}
	ga_buf_puts(&rel, "");
	st.match_attrs = walk_validate_attrs;
	/*
	 * git 2.41 and later load the whole tree into the index and match
	 * pathspecs against whole paths; find() takes submodules' paths
	 * below the archived subtree.
	 */
	if (w->cwd_base_len) {
		if (nr)
			st.outside = ga_xcalloc(nr, 1);
		st.base_len = w->cwd_base_len;
		error = check_tree(&st, &w->treeish->root_tree_id, &rel);
	} else {
		error = check_tree(&st, &w->treeish->tree_id, &rel);
	}
	/*
	 * git 2.47 and later load the index (which tells of a missing
	 * blob) before they check pathspecs; git 2.39 did it after, so
	 * an unmatched pathspec hid the line.
	 */
	if (!error && st.have_missing) {
		char hex[GA_OID_MAX_HEXSZ + 1];

		ga_oid_fmt(hex, &st.missing_id);
		ga_report(GA_REPORT_ERROR, "invalid object %06o %s for '%s'",
			  (unsigned int)st.missing_mode, hex, st.missing_path);
	}
	for (i = 0; !error && i < nr; i++) {
		if (st.outside && st.outside[i])
			error = ga_error_set("pathspec '%s' matches files "
					     "outside the current directory",
					     pathspec_original(w->ps, i));
		else if (!st.matched[i])
			error = ga_error_set("pathspec '%s' did not match any "
					     "files", pathspec_original(w->ps, i));
	}
	free(st.outside);
	free(st.matched);
	free(st.missing_path);
	ga_buf_release(&rel);
	return error;
}

/* ---- setup ---- */

static int read_threshold(struct walk *w)
{
	int64_t v;
	int error;

	w->big_file_threshold = DEFAULT_BIG_FILE_THRESHOLD;
	error = config_get_int64(&v, w->opts->config, "core.bigfilethreshold");
	if (error == GA_ENOTFOUND)
		return 0;
	if (error < 0)
		return error;
	if (v < 0) {
		const char *s = "";

		config_get_string(&s, w->opts->config, "core.bigfilethreshold");
		return config_bad_number("core.bigfilethreshold", s, 0);
	}
	w->big_file_threshold = (uint64_t)v;
	return 0;
}

/*
 * Threads reading blobs, the walk's included: --threads, or 0 for one
 * per CPU that no compressing process needs.
 */
static int worker_count(int wanted, int cpus_taken)
{
	long n = wanted;

	if (n <= 0) {
		n = sysconf(_SC_NPROCESSORS_ONLN) - cpus_taken;
		if (n < 1)
			n = 1;
	}
	return n > WALK_MAX_THREADS ? WALK_MAX_THREADS : (int)n;
}

/*
 * Test hook (see t/README): with GARCHIVE_TEST_TASKS=<file>, each walk
 * that starts reading ahead appends how many threads the process has,
 * so that a test sees the count at every submodule level.
 */
static void note_threads_for_tests(void)
{
	const char *file = getenv("GARCHIVE_TEST_TASKS");
	DIR *dir;
	FILE *fp;
	struct dirent *de;
	int n = 0;

	if (!file || !(dir = opendir("/proc/self/task")))
		return;
	while ((de = readdir(dir)))
		n += de->d_name[0] != '.';
	closedir(dir);
	if ((fp = fopen(file, "a"))) {
		fprintf(fp, "%d\n", n);
		fclose(fp);
	}
}

static int start_prefetch(struct walk *w)
{
	int threads = worker_count(w->opts->threads,
				   w->opts->cpus_taken_by_filter);
	size_t budget = w->opts->reading_bound ? WALK_PREFETCH_BUDGET_READING
					       : WALK_PREFETCH_BUDGET;
	int error;

	/*
	 * A tar writer takes any file as a stream: the walk streams those
	 * larger than the read-ahead rather than hold them whole.
	 */
	if (w->opts->stream_large)
		w->stream_above = budget;
	/* One thread: the walk reads each blob itself, as git does. */
	if (threads <= 1)
		return 0;
	/*
	 * The walk is one of the threads that read: it reads a blob itself
	 * when no worker has started it (see prefetch_take), so a worker
	 * per CPU would leave more threads reading than cores.
	 */
	threads--;
	w->pf_opts.tree_id = &w->treeish->tree_id;
	w->pf_opts.hashsz = w->hashsz;
	w->pf_opts.ps = w->ps;
	w->pf_opts.rel_base = w->ps_base;
	w->pf_opts.big_file_threshold = w->big_file_threshold;
	w->pf_opts.budget = budget;
	/* A submodule's walk borrows its superproject's workers. */
	w->pool = w->opts->prefetch_pool;
	if (!w->pool) {
		if ((error = prefetch_pool_new(&w->own_pool, threads)) < 0)
			return error;
		w->pool = w->own_pool;
	}
	if ((error = prefetch_new(&w->pf, w->pool, w->repo, w->odb,
				  &w->pf_opts)) < 0)
		return error;
	note_threads_for_tests();
	return 0;
}

static int push_frame(struct walk *w, const struct ga_oid *id, size_t rel_len)
{
	struct frame *f;
	struct odb_object *obj = NULL;
	int error;

	if ((error = rawtree_read(&obj, w->odb, id)) < 0) {
		char hex[GA_OID_MAX_HEXSZ + 1];

		if (error == GA_ECORRUPT)
			return error;

		ga_oid_fmt(hex, id);
		return ga_error_code(GA_EARCHIVE, "Could not read %s", hex);
	}
	GA_ALLOC_GROW(w->frames, w->depth + 1, w->alloc_frames);
	f = &w->frames[w->depth++];
	memset(f, 0, sizeof(*f));
	f->obj = obj;
	rawtree_iter_init(&f->iter, odb_object_data(obj),
			  odb_object_size(obj), w->hashsz);
	f->rel_len = rel_len;
	ga_oid_fmt(f->oid_hex, id);
	return 0;
}

/*
 * git 2.41 and later walk the whole tree and write what lies below the
 * cwd prefix: nothing when the tree-ish lacks that directory, or when
 * it or a directory above it is export-ignored.  1 when the subtree is
 * walked, 0 when not, or an error.
 */
static int subtree_wanted(struct walk *w)
{
	const char *base = w->opts->cwd_base;
	struct attr_value ignore = { 0 };
	size_t len;
	int error;

	if (!w->cwd_base_len)
		return 1;
	if (w->treeish->no_subtree)
		return 0;
	for (len = 1; len <= w->cwd_base_len; len++) {
		if (base[len - 1] != '/')
			continue;
		ga_buf_setlen(&w->ps_buf, 0);
		ga_buf_put(&w->ps_buf, base, len - 1);
		if ((error = walk_attr_lookup(&ignore, w, CHECK_ARCHIVE,
					      w->ps_buf.ptr, 1,
					      archive_attr_names, 1)) < 0)
			return error;
		if (attr_is_set(&ignore))
			return 0;
	}
	return 1;
}

int walk_new(struct walk **out, git_repository *repo,
	     const struct walk_options *opts)
{
	struct walk *w = ga_xcalloc(1, sizeof(*w));
	int error;

	w->repo = repo;
	w->opts = opts;
	w->treeish = opts->treeish;
	w->prefix_len = strlen(opts->prefix ? opts->prefix : "");
	w->phase = PHASE_PREFIX;
	w->hashsz = w->treeish->hexsz / 2;

	if (git_repository_odb(&w->odb, repo) < 0) {
		error = ga_error_from_git(NULL);
		goto fail;
	}
	if ((error = read_threshold(w)) < 0)
		goto fail;
	if ((error = walk_attr_setup(w)) < 0)
		goto fail;
	if (opts->cwd_base && !opts->nested)
		w->cwd_base_len = strlen(opts->cwd_base);
	w->ps_base = ga_xstrfmt("%s%s", opts->cwd_base ? opts->cwd_base : "",
				opts->rel_base ? opts->rel_base : "");
	if (opts->nr_pathspecs &&
	    (error = pathspec_parse_in(&w->ps, opts->pathspecs,
				       opts->nr_pathspecs, opts->toplevel,
				       opts->cwd_base ? opts->cwd_base : "",
				       opts->pathspec_env)) < 0)
		goto fail;
	if ((error = run_checks(w)) < 0)
		goto fail;
	if ((error = subtree_wanted(w)) < 0)
		goto fail;

	if (error && (error = push_frame(w, &w->treeish->tree_id, 0)) < 0)
		goto fail;
	/* The root never gets an entry, unless it is a submodule's. */
	if (w->depth)
		w->frames[0].emitted = !opts->nested;
	if (w->depth && (error = start_prefetch(w)) < 0)
		goto fail;

	/* git names the --prefix directory after the tree it walks. */
	ga_oid_fmt(w->root_hex, w->cwd_base_len ? &w->treeish->root_tree_id
						: &w->treeish->tree_id);
	ga_oid_fmt(w->treeish_hex, w->treeish->commit
				   ? &w->treeish->commit_id
				   : &w->treeish->tree_id);
	w->meta.ref = w->treeish->refname;
	w->meta.treeish = w->treeish_hex;
	*out = w;
	return 0;
fail:
	walk_free(w);
	return error;
}

/* ---- producing entries ---- */

/* Drop what the previous entry owned. */
static void reset_entry(struct walk *w)
{
	if (w->entry.data_release)
		w->entry.data_release(w->entry.data_owner);
	if (w->entry.deferred)
		w->entry.deferred->free(w->entry.deferred);
	memset(&w->entry, 0, sizeof(w->entry));
	odb_object_free(w->obj);
	w->obj = NULL;
	odb_stream_free(w->stream.odb_stream);
	odb_object_free(w->stream.obj);
	memset(&w->stream, 0, sizeof(w->stream));
	ga_buf_setlen(&w->content, 0);
}

static void set_path(struct walk *w, const char *rel, size_t len,
		     int trailing_slash)
{
	ga_buf_setlen(&w->path, 0);
	ga_buf_put(&w->path, w->opts->prefix, w->prefix_len);
	ga_buf_put(&w->path, rel, len);
	if (trailing_slash)
		ga_buf_putc(&w->path, '/');
	w->entry.path = w->path.ptr;
	w->entry.path_len = w->path.len;
}

/*
 * A stream git would have read whole failed with `error`.  zlib's
 * complaint is what git's stream says (GA_EARCHIVE); read it whole to
 * give the words of git's whole read instead.  Other damage (a cut pack,
 * a wrong size) is told alike both ways.  Returns the error.
 */
static int whole_read_error(struct blob_stream *bs, int error)
{
	struct odb_object *obj;
	int code;

	if (error != GA_EARCHIVE)
		return error;
	if ((code = odb_read(&obj, bs->whole_odb, &bs->id)) < 0)
		return prefetch_blob_unreadable(code, bs->oid_hex);
	/* Whole, it reads: the stream's own error stands. */
	odb_object_free(obj);
	return error;
}

static int stream_read(struct entry_stream *s, unsigned char *buf,
		       size_t cap, size_t *nread)
{
	struct blob_stream *bs = (struct blob_stream *)s;

	if (bs->odb_stream) {
		int error = odb_stream_read(bs->odb_stream, buf, cap, nread);

		if (error < 0 && bs->whole_odb)
			error = whole_read_error(bs, error);
		return error;
	} else {
		size_t size = odb_object_size(bs->obj);
		size_t n = size - bs->pos < cap ? size - bs->pos : cap;

		memcpy(buf, (const char *)odb_object_data(bs->obj) +
			    bs->pos, n);
		bs->pos += n;
		*nread = n;
		return 0;
	}
}

/* See prefetch_blob_unreadable(): the same words in both modes. */
static int blob_unreadable(int code, const char *oid_hex)
{
	return prefetch_blob_unreadable(code, oid_hex);
}

/*
 * A blob above core.bigFileThreshold is handed out unconverted, in
 * pieces.  Loose objects and blobs stored whole in a pack are streamed;
 * a deltified blob is inflated whole and then handed out from memory,
 * as git does.
 */
static int open_stream(struct walk *w, const struct ga_oid *oid, size_t size)
{
	git_object_t type;
	size_t len;
	int error;

	w->stream.base.read = stream_read;
	w->stream.oid_hex = w->oid_hex;
	error = odb_stream_open(&w->stream.odb_stream, &len, &type, w->odb,
				oid);
	if (error == GA_ECORRUPT)
		return error;
	if (error < 0) {
		git_error_clear();
		error = odb_read(&w->stream.obj, w->odb, oid);
		if (error < 0)
			return blob_unreadable(error, w->oid_hex);
	}
	w->entry.stream = &w->stream.base;
	w->entry.size = size;
	return 0;
}

/* The entry takes w->content, so a writer may keep it (see walk.h). */
static void give_content(struct walk *w)
{
	size_t len;

	w->entry.data = (unsigned char *)ga_buf_detach(&w->content, &len);
	w->entry.size = len;
	w->entry.data_owner = w->entry.data;
	w->entry.data_release = free;
}

static void release_object(void *obj)
{
	odb_object_free(obj);
}

/* The entry takes the object, so a writer may keep its bytes. */
static void give_object(struct walk *w)
{
	w->entry.data = (unsigned char *)odb_object_data(w->obj);
	w->entry.size = odb_object_size(w->obj);
	w->entry.data_owner = w->obj;
	w->entry.data_release = release_object;
	w->obj = NULL;
}

/* The conversion attributes of `rel`, and the converter, made once. */
static int prepare_conversion(struct attr_value *attrs, struct walk *w,
			      const char *rel)
{
	const char *workdir;
	int error;

	if ((error = walk_attr_lookup(attrs, w, CHECK_CONVERT, rel, 0,
				      convert_attr_names,
				      CONVERT_ATTR_NR)) < 0)
		return error;
	if (w->conv)
		return 0;
	workdir = git_repository_workdir(w->repo);
	if (!workdir)
		workdir = git_repository_path(w->repo);
	return convert_new(&w->conv, w->opts->config, workdir, &w->meta);
}

static int convert_content(struct walk *w, const char *rel, int subst)
{
	const unsigned char *data = odb_object_data(w->obj);
	size_t len = odb_object_size(w->obj);
	struct attr_value attrs[CONVERT_ATTR_NR] = { { 0 } };
	struct ga_buf tmp = GA_BUF_INIT;
	int changed, error;

	if ((error = prepare_conversion(attrs, w, rel)) < 0)
		return error;
	if ((error = convert_maybe(&w->content, &changed, w->conv, rel,
				   w->oid_hex, data, len, attrs)) < 0)
		return error;
	if (changed) {
		data = (const unsigned char *)w->content.ptr;
		len = w->content.len;
	}
	if (subst) {
		if (!w->subst &&
		    (error = subst_new(&w->subst, w->repo, w->treeish->commit,
				       w->opts->config)) < 0)
			return error;
		if ((error = subst_expand(&tmp, w->subst, data, len)) < 0) {
			ga_buf_release(&tmp);
			return error;
		}
		ga_buf_release(&w->content);
		w->content = tmp;
		changed = 1;
	}
	if (changed) {
		give_content(w);
	} else {
		/* Nothing applied: hand out the object's own bytes. */
		give_object(w);
	}
	return 0;
}

static int deferred_load(struct entry_deferred *base,
			 const unsigned char **data, uint64_t *len,
			 void **owner, void (**release)(void *owner))
{
	struct deferred_blob *d = (struct deferred_blob *)base;
	struct odb_object *obj;
	int error;

	if ((error = odb_read(&obj, d->odb, &d->id)) < 0)
		return blob_unreadable(error, d->oid_hex);
	*data = odb_object_data(obj);
	*len = odb_object_size(obj);
	*owner = obj;
	*release = release_object;
	return 0;
}

static void deferred_free(struct entry_deferred *base)
{
	free(base);
}

/*
 * Whether no conversion can change the content of the entry at w->rel,
 * so that it may be handed on unread or streamed: 1, 0, or an error.
 */
static int content_unconverted(struct walk *w)
{
	struct attr_value attrs[CONVERT_ATTR_NR] = { { 0 } };
	int error;

	if ((error = prepare_conversion(attrs, w, w->rel.ptr)) < 0)
		return error;
	return convert_is_identity(w->conv, attrs);
}

/*
 * Hand blob `oid` of `size` bytes on unread (see walk_options.defer_above)
 * when no conversion can change it.  Returns 1 if it did, 0 if the blob
 * is to be read, or the error converting it would give.
 */
static int defer_blob(struct walk *w, const struct ga_oid *oid, uint64_t size)
{
	struct deferred_blob *d;
	int identity;

	if ((identity = content_unconverted(w)) <= 0)
		return identity;
	d = ga_xcalloc(1, sizeof(*d));
	d->base.load = deferred_load;
	d->base.free = deferred_free;
	d->odb = w->odb;
	ga_oid_cpy(&d->id, oid);
	memcpy(d->oid_hex, w->oid_hex, sizeof(d->oid_hex));
	w->entry.deferred = &d->base;
	w->entry.size = size;
	return 1;
}

/* What a stream is read through in, to check it (see stream_reads()). */
#define WALK_CHECK_CHUNK	((size_t)64 << 10)

/*
 * Whether blob `oid` reads through to its end as a stream: 1, 0 when it
 * is to be read whole instead (it cannot be streamed, or zlib refused
 * it, which git's whole read words otherwise: see whole_read_error()),
 * or the error, in the words the whole read has for it.  Nothing is
 * held but one chunk, so memory stays bounded.
 */
static int stream_reads(struct walk *w, const struct ga_oid *oid)
{
	struct odb_stream *s = NULL;
	unsigned char *chunk;
	git_object_t type;
	size_t len, n;
	int error;

	if ((error = odb_stream_open(&s, &len, &type, w->odb, oid)) < 0) {
		if (error == GA_ECORRUPT)
			return error;
		git_error_clear();
		ga_error_clear();
		return 0;
	}
	chunk = ga_xmalloc(WALK_CHECK_CHUNK);
	do {
		error = odb_stream_read(s, chunk, WALK_CHECK_CHUNK, &n);
	} while (!error && n);
	free(chunk);
	odb_stream_free(s);
	if (error == GA_EARCHIVE) {
		ga_error_clear();
		return 0;
	}
	return error < 0 ? error : 1;
}

/*
 * Stream blob `oid` of `size` bytes (see walk_options.stream_large) when
 * no conversion can change it: the bytes are those of reading it whole.
 * Returns 1 if it did, 0 if the blob is to be read, or an error.
 *
 * git reads such a blob whole before it writes any byte of its entry,
 * so damage in it leaves the entry unwritten, header and all.  The
 * stream is read through once first, keeping nothing (see
 * stream_reads()): damage fails the entry before its header, in the
 * words of git's whole read.  A second inflate of the blob is the price
 * of bounded memory.
 */
static int stream_unconverted(struct walk *w, const struct ga_oid *oid,
			      size_t size)
{
	int identity, checked;

	if ((identity = content_unconverted(w)) <= 0)
		return identity;
	if ((checked = stream_reads(w, oid)) <= 0)
		return checked;
	/* Damage seen at once is told by the whole read that follows. */
	if (open_stream(w, oid, size) < 0) {
		ga_error_clear();
		return 0;
	}
	w->stream.whole_odb = w->odb;
	ga_oid_cpy(&w->stream.id, oid);
	/* A delta cannot be streamed: open_stream() read it whole. */
	if (w->pf)
		prefetch_reading(w->pf, size, w->stream.obj != NULL);
	return 1;
}

/*
 * Read blob `oid` for the entry as the walk's own thread does: a blob
 * above core.bigFileThreshold is streamed, one above defer_above may be
 * handed on unread, any other is read whole into w->obj.  A symlink and
 * an export-subst file are always read.
 */
static int read_blob(struct walk *w, const struct ga_oid *oid, uint32_t mode,
		     int subst)
{
	size_t size = 0;
	git_object_t type;
	int error;

	if (mode != ARCHIVE_MODE_SYMLINK && !subst &&
	    odb_read_header(&size, &type, w->odb, oid) == 0 &&
	    type == GIT_OBJECT_BLOB) {
		if (size > w->big_file_threshold)
			return open_stream(w, oid, size);
		if (w->opts->defer_above && size > w->opts->defer_above &&
		    (error = defer_blob(w, oid, size)) != 0)
			return error < 0 ? error : 0;
		if (w->stream_above && size > w->stream_above &&
		    (error = stream_unconverted(w, oid, size)) != 0)
			return error < 0 ? error : 0;
	}
	if (w->pf)
		prefetch_reading(w->pf, size, 1);
	if ((error = odb_read(&w->obj, w->odb, oid)) < 0)
		return blob_unreadable(error, w->oid_hex);
	return 0;
}

/*
 * Produce the non-directory entry `te` at relative path w->rel, or
 * return GA_ENOTFOUND when export-ignore drops it.
 */
static int file_entry(struct walk *w, const struct rawtree_entry *te)
{
	uint32_t mode = te->mode;
	struct attr_value attrs[A_ARCHIVE_NR] = { { 0 } };
	const struct ga_oid *oid = &te->id;
	struct prefetch_blob pb = { 0 };
	int gitlink = mode == ARCHIVE_MODE_GITLINK;
	int subst, error = 0;

	if ((error = walk_attr_lookup(attrs, w, CHECK_ARCHIVE,
				      archive_attr_path(w, w->rel.ptr),
				      gitlink, archive_attr_names,
				      A_ARCHIVE_NR)) < 0)
		return error;
	if (attr_is_set(&attrs[A_EXPORT_IGNORE]))
		return GA_ENOTFOUND;
	/*
	 * As in git, export-subst keeps a file from being streamed even
	 * for a tree, where nothing is expanded.
	 */
	subst = attr_is_set(&attrs[A_EXPORT_SUBST]);

	ga_oid_fmt(w->oid_hex, oid);
	w->entry.oid_hex = w->oid_hex;
	w->entry.mode = mode;
	set_path(w, w->rel.ptr, w->rel.len, gitlink);
	if (gitlink)
		return 0;

	if (w->pf && (error = prefetch_take(&pb, w->pf, oid)) < 0)
		return error;
	if (error == 1 && pb.big && !subst) {
		/* A worker found it above the threshold: stream it. */
		error = open_stream(w, oid, (size_t)pb.size);
	} else if (error == 1 && pb.obj) {
		w->obj = pb.obj;
		error = 0;
	} else {
		error = read_blob(w, oid, mode, subst);
	}
	if (error < 0)
		return error;
	if (w->entry.stream || w->entry.deferred)
		error = 0;
	else if (mode == ARCHIVE_MODE_SYMLINK)
		give_object(w);
	else
		error = convert_content(w, w->rel.ptr,
					subst && w->treeish->commit);
	if (error < 0)
		return error;
	/* zip looks "diff" up after the content is ready, as git does. */
	return walk_text_hint(&w->entry.text, w, w->rel.ptr);
}

/*
 * Whether the directory at w->rel is walked into: pathspecs may match
 * inside it and it is not export-ignored.  1, 0, or an error.
 */
static int dir_wanted(struct walk *w)
{
	struct attr_value ignore = { 0 };
	int error;

	if (w->ps && !pathspec_may_match_inside(w->ps, ps_path(w, w->rel.ptr)))
		return 0;
	if ((error = walk_attr_lookup(&ignore, w, CHECK_ARCHIVE,
				      archive_attr_path(w, w->rel.ptr),
				      1, archive_attr_names, 1)) < 0)
		return error;
	return !attr_is_set(&ignore);
}

/* Queue a subtree; git only writes it once something is found inside. */
static int enter_dir(struct walk *w, const struct rawtree_entry *te)
{
	int error;

	if ((error = dir_wanted(w)) <= 0)
		return error;
	ga_buf_putc(&w->rel, '/');
	if ((error = push_frame(w, &te->id, w->rel.len)) < 0)
		return error;
	return 1;
}

/* Hand out the outermost directory that is still held back, if any. */
static int emit_held_dir(struct walk *w)
{
	size_t i;

	/* The root has no entry, unless it is a submodule's. */
	for (i = w->opts->nested ? 0 : 1; i < w->depth; i++) {
		struct frame *f = &w->frames[i];

		if (f->emitted)
			continue;
		f->emitted = 1;
		w->entry.mode = ARCHIVE_MODE_DIR;
		w->entry.oid_hex = f->oid_hex;
		set_path(w, w->rel.ptr, f->rel_len, 0);
		return 1;
	}
	return 0;
}

static void pop_frame(struct walk *w)
{
	struct frame *f = &w->frames[--w->depth];

	free(f->gitlinks);
	odb_object_free(f->obj);
	if (w->depth)
		ga_buf_setlen(&w->rel, w->frames[w->depth - 1].rel_len);
}

/*
 * git's tree order: names compared bytewise, a tree's as if it ended in
 * '/'.  A submodule walked in place sorts as the tree it stands for.
 */
static int sorts_before(const struct rawtree_entry *a, int a_tree,
			const struct rawtree_entry *b)
{
	size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
	int c = memcmp(a->name, b->name, n);
	unsigned char ca, cb;

	if (c)
		return c < 0;
	ca = n < a->name_len ? (unsigned char)a->name[n] : a_tree ? '/' : 0;
	cb = n < b->name_len ? (unsigned char)b->name[n]
			     : is_dir_mode(b->mode) ? '/' : 0;
	return ca < cb;
}

/*
 * --recurse-submodules: a gitlink whose submodule is found is held in
 * its frame, to be walked where its tree sorts.  Returns 1 if held, 0 to
 * archive the gitlink as git does, or an error.
 */
static int hold_gitlink(struct walk *w, struct frame *f,
			const struct rawtree_entry *te)
{
	const struct walk_submodules *subs = w->opts->submodules;
	struct held_gitlink h;
	size_t i;
	int error;

	if ((error = dir_wanted(w)) <= 0 ||
	    (error = find_submodule(&h.found, subs, w->opts->submodule_level,
				    w->rel.ptr, &te->id)) <= 0)
		return error;
	h.te = *te;
	GA_ALLOC_GROW(f->gitlinks, f->nr_gitlinks + 1, f->alloc_gitlinks);
	for (i = f->nr_gitlinks; i > 0 &&
	     sorts_before(te, 1, &f->gitlinks[i - 1].te); i--)
		f->gitlinks[i] = f->gitlinks[i - 1];
	f->gitlinks[i] = h;
	f->nr_gitlinks++;
	return 1;
}

/* Start the walk of the first submodule held in `f`. */
static int enter_submodule(struct walk *w, struct frame *f)
{
	struct held_gitlink h = f->gitlinks[0];
	const struct walk_submodules *subs = w->opts->submodules;

	struct walk_options opts = *w->opts;

	memmove(f->gitlinks, f->gitlinks + 1,
		--f->nr_gitlinks * sizeof(*f->gitlinks));
	opts.prefetch_pool = w->pool;
	return subs->walk(&w->inner, &h.found, &opts, subs->payload);
}

/*
 * The next entry of the submodule being walked: the directories this
 * walk holds back go first, as for any entry found inside them.
 * Returns 0 (*out set), or GA_ITEROVER when the submodule is done.
 */
static int next_inner_entry(struct walk *w, struct archive_entry **out)
{
	int error;

	if (!w->inner_entry) {
		error = walk_next(&w->inner_entry, w->inner);
		if (error < 0) {
			w->inner_entry = NULL;
			if (error != GA_ITEROVER)
				return error;
			walk_free(w->inner);
			w->inner = NULL;
			return GA_ITEROVER;
		}
	}
	if (emit_held_dir(w)) {
		*out = &w->entry;
		return 0;
	}
	*out = w->inner_entry;
	w->inner_entry = NULL;
	return 0;
}

static int next_tree_entry(struct walk *w, struct archive_entry **out)
{
	int error;

	*out = &w->entry;
	for (;;) {
		struct frame *f;
		struct rawtree_entry te;

		if (w->inner) {
			error = next_inner_entry(w, out);
			if (error != GA_ITEROVER)
				return error;
			ga_buf_setlen(&w->rel, w->frames[w->depth - 1].rel_len);
			continue;
		}
		if (w->have_pending) {
			if (emit_held_dir(w))
				return 0;
			w->have_pending = 0;
			error = file_entry(w, &w->pending);
			ga_buf_setlen(&w->rel, w->frames[w->depth - 1].rel_len);
			if (error == GA_ENOTFOUND) {
				reset_entry(w);
				continue;
			}
			return error;
		}
		if (!w->depth)
			return GA_ITEROVER;
		f = &w->frames[w->depth - 1];
		if (f->have_ahead) {
			te = f->ahead;
			f->have_ahead = 0;
			error = 0;
		} else {
			error = rawtree_next(&te, &f->iter);
		}
		if (error < 0 && error != GA_ITEROVER)
			return error;
		if (f->nr_gitlinks && (error == GA_ITEROVER ||
				       sorts_before(&f->gitlinks[0].te, 1, &te))) {
			if (!error) {
				f->ahead = te;
				f->have_ahead = 1;
			}
			if ((error = enter_submodule(w, f)) < 0)
				return error;
			continue;
		}
		if (error == GA_ITEROVER) {
			pop_frame(w);
			continue;
		}
		ga_buf_setlen(&w->rel, f->rel_len);
		ga_buf_put(&w->rel, te.name, te.name_len);
		if (is_dir_mode(te.mode)) {
			if ((error = enter_dir(w, &te)) < 0)
				return error;
			if (!error)
				ga_buf_setlen(&w->rel, f->rel_len);
			continue;
		}
		if (te.mode == ARCHIVE_MODE_GITLINK && w->opts->submodules) {
			if ((error = hold_gitlink(w, f, &te)) < 0)
				return error;
			if (error) {
				ga_buf_setlen(&w->rel, f->rel_len);
				continue;
			}
		}
		if (w->ps) {
			w->match_mode = te.mode;
			w->have_match_mode = 1;
			error = pathspec_match(w->ps, ps_path(w, w->rel.ptr),
					       pathspec_kind(te.mode),
					       walk_pathspec_attrs, w);
			w->have_match_mode = 0;
			if (error < 0)
				return error;
			if (!error)
				continue;
		}
		w->pending = te;
		w->have_pending = 1;
	}
}

/* ---- extra files ---- */

/* git names the i-th extra file (from 1) after a fake object id. */
static void fake_oid_hex(char *out, size_t hexsz, size_t index)
{
	size_t i;

	snprintf(out, 17, "%016llx", (unsigned long long)index);
	for (i = 16; i < hexsz; i++)
		out[i] = '0';
	out[hexsz] = '\0';
}

static int extra_entry(struct walk *w)
{
	const struct extra_file *x = &w->opts->extras[w->extra_next++];
	const char *attr_path;

	fake_oid_hex(w->oid_hex, w->treeish->hexsz, w->extra_next);
	w->entry.oid_hex = w->oid_hex;
	w->entry.is_extra = 1;
	w->entry.mode = x->executable ? ARCHIVE_MODE_EXEC : ARCHIVE_MODE_FILE;
	ga_buf_setlen(&w->path, 0);
	ga_buf_puts(&w->path, x->path);
	w->entry.path = w->path.ptr;
	w->entry.path_len = w->path.len;

	if (x->disk_path) {
		if (ga_buf_read_file(&w->content, x->disk_path) < 0)
			return ga_error_code(GA_EARCHIVE, "cannot read '%s': %s",
					     x->display_path, strerror(errno));
		give_content(w);
	} else {
		w->entry.data = (unsigned char *)x->content;
		w->entry.size = x->content_len;
	}

	/*
	 * zip's text bit comes from the diff attribute of the path with
	 * the final --prefix length cut off, whatever the path is.
	 */
	attr_path = w->path.len > w->prefix_len ? w->path.ptr + w->prefix_len
						: "";
	return walk_text_hint(&w->entry.text, w, attr_path);
}

int walk_next(struct archive_entry **out, struct walk *w)
{
	int error;

	reset_entry(w);
	switch (w->phase) {
	case PHASE_PREFIX:
		w->phase = PHASE_TREE;
		/* A submodule's prefix is its root, written lazily. */
		if (!w->opts->nested && w->prefix_len &&
		    w->opts->prefix[w->prefix_len - 1] == '/') {
			/* "p//" gives the entry "p/"; "/" stays "/". */
			size_t len = w->prefix_len;

			while (len > 1 && w->opts->prefix[len - 2] == '/')
				len--;
			ga_buf_setlen(&w->path, 0);
			ga_buf_put(&w->path, w->opts->prefix, len);
			w->entry.path = w->path.ptr;
			w->entry.path_len = len;
			w->entry.mode = ARCHIVE_MODE_DIR;
			w->entry.oid_hex = w->root_hex;
			*out = &w->entry;
			return 0;
		}
		/* fall through */
	case PHASE_TREE:
		error = next_tree_entry(w, out);
		if (error != GA_ITEROVER)
			return error;
		w->phase = PHASE_EXTRAS;
		/* fall through */
	case PHASE_EXTRAS:
		if (w->extra_next < w->opts->nr_extras) {
			*out = &w->entry;
			return extra_entry(w);
		}
		w->phase = PHASE_DONE;
		/* fall through */
	case PHASE_DONE:
		break;
	}
	return GA_ITEROVER;
}

void walk_free(struct walk *w)
{
	size_t i;

	if (!w)
		return;
	reset_entry(w);
	walk_free(w->inner);
	for (i = 0; i < w->depth; i++) {
		free(w->frames[i].gitlinks);
		odb_object_free(w->frames[i].obj);
	}
	free(w->frames);
	ga_buf_release(&w->rel);
	ga_buf_release(&w->ps_buf);
	free(w->ps_base);
	ga_buf_release(&w->path);
	ga_buf_release(&w->content);
	prefetch_free(w->pf);
	prefetch_pool_free(w->own_pool);
	convert_free(w->conv);
	subst_free(w->subst);
	pathspec_free(w->ps);
	for (i = 0; i < CHECK_NR; i++)
		attr_stack_free(w->attrs[i]);
	rawtree_cursor_release(&w->attr_trees);
	git_odb_free(w->odb);
	free(w);
}

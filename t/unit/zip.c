/*
 * Unit tests for the zip writer (src/archive/zip.c).
 *
 * The reference is the system git: scratch repositories are archived
 * with `git archive --format=zip`, the same trees are walked here with
 * libgit2 into archive entries, and the writer's output must match git's
 * byte for byte, with one worker thread and with several.  Every archive
 * written is also checked with `unzip -t`.
 *
 * GARCHIVE_TEST_LONG=1 adds a test that streams more than 4 GiB through
 * the writer (zip64 sizes and offsets); it takes a few seconds.
 */
#include "garchive/archive.h"
#include "garchive/common.h"
#include "garchive/sink.h"

#include "gitscratch.h"
#include "memsink.h"
#include "tap.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>
#include <zlib.h>

#define REPO_DATE	1112911993	/* t/lib.sh's fixed date */
#define OLD_DATE	157766400	/* 1975-01-01: before the DOS epoch */

/* --- small helpers --- */

struct ctx {
	char scratch[PATH_MAX];
	struct ga_buf warnings;		/* what git would print on stderr */
	int have_unzip;
};

static char *fmt_str(const char *fmt, ...) GA_PRINTF(1, 2);
static char *fmt_str(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

/* Run a shell command; returns its exit status (-1 if it did not exit). */
static int run(const char *fmt, ...) GA_PRINTF(1, 2);
static int run(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int rc;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		diag("command failed (%d): %s", rc, cmd);
	free(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int slurp(struct ga_buf *buf, const char *path)
{
	ga_buf_setlen(buf, 0);
	ga_buf_put(buf, "", 0);
	return ga_buf_read_file(buf, path);
}

static void spew(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "cannot write %s: %s\n", path,
			strerror(errno));
		exit(1);
	}
}

static void mkdirs(const char *path)
{
	char *p = ga_xstrdup(path), *s;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0777);
		*s = '/';
	}
	mkdir(p, 0777);
	free(p);
}

/* Write `len` bytes to repo-relative `name`, creating parent dirs. */
static void put_file(const char *repo, const char *name, const void *data,
		     size_t len, int exec)
{
	char *path = fmt_str("%s/%s", repo, name);
	char *slash = strrchr(path, '/');

	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	spew(path, data, len);
	if (exec)
		chmod(path, 0755);
	free(path);
}

/* Deterministic incompressible bytes. */
static void fill_random(unsigned char *p, size_t len, uint64_t seed)
{
	uint64_t x = seed | 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)(x >> 24);
	}
}

static uint16_t get_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)get_le16(p) | (uint32_t)get_le16(p + 2) << 16;
}

static uint64_t get_le64(const unsigned char *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static void collect_report(enum ga_report_kind kind, const char *msg,
			   void *payload)
{
	struct ga_buf *buf = payload;

	ga_buf_puts(buf, kind == GA_REPORT_WARNING ? "warning: " : "error: ");
	ga_buf_puts(buf, msg);
	ga_buf_putc(buf, '\n');
}

static void oom(size_t size)
{
	fprintf(stderr, "out of memory (%zu bytes)\n", size);
	abort();
}

/* --- entries --- */

struct fx_entry {
	char *path;
	size_t path_len;
	uint32_t mode;
	char oid[GIT_OID_HEXSZ + 1];
	unsigned char *data;
	size_t size;
	int streamed;
	int deferred;		/* 1: handed over unread; 2: and unreadable */
	int shared;		/* data is borrowed, not freed */
	enum entry_text text;
};

struct fixture {
	struct fx_entry *items;
	size_t nr, alloc;
};

static struct fx_entry *fx_add(struct fixture *fx, const char *path,
			       size_t path_len, uint32_t mode,
			       const void *data, size_t size)
{
	struct fx_entry *e;

	GA_ALLOC_GROW(fx->items, fx->nr + 1, fx->alloc);
	e = &fx->items[fx->nr++];
	memset(e, 0, sizeof(*e));
	e->path = ga_xstrndup(path, path_len);
	e->path_len = path_len;
	e->mode = mode;
	strcpy(e->oid, "0000000000000000000000000000000000000000");
	if (size) {
		e->data = ga_xmalloc(size);
		memcpy(e->data, data, size);
	}
	e->size = size;
	return e;
}

/* An entry whose content stays owned by the caller. */
static void fx_add_shared(struct fixture *fx, const char *path, uint32_t mode,
			  unsigned char *data, size_t size)
{
	struct fx_entry *e = fx_add(fx, path, strlen(path), mode, NULL, 0);

	e->data = data;
	e->size = size;
	e->shared = 1;
}

static void fx_release(struct fixture *fx)
{
	size_t i;

	for (i = 0; i < fx->nr; i++) {
		free(fx->items[i].path);
		if (!fx->items[i].shared)
			free(fx->items[i].data);
	}
	free(fx->items);
	memset(fx, 0, sizeof(*fx));
}

/* A stream that hands out its bytes in uneven pieces. */
struct mem_stream {
	struct entry_stream base;
	const unsigned char *p;
	uint64_t len, pos;
	size_t piece;
	int fail;		/* fail once this many bytes were read */
};

static int mem_stream_read(struct entry_stream *s, unsigned char *buf,
			   size_t cap, size_t *nread)
{
	struct mem_stream *m = (struct mem_stream *)s;
	uint64_t n = m->len - m->pos;

	if (m->fail && m->pos >= (uint64_t)m->fail)
		return ga_error_code(GA_EARCHIVE, "cannot read 'stream'");
	if (n > cap)
		n = cap;
	if (n > m->piece)
		n = m->piece;
	if (m->p)
		memcpy(buf, m->p + m->pos, (size_t)n);
	else
		memset(buf, 0, (size_t)n);
	m->pos += n;
	*nread = (size_t)n;
	return 0;
}

/* A buffer handed to the writer, and the count of those released. */
struct handed {
	unsigned char *data;
	size_t *released;
};

/* Workers release buffers too: the counts are atomic. */
static void count_one(size_t *counter)
{
	__atomic_add_fetch(counter, 1, __ATOMIC_SEQ_CST);
}

static void release_handed(void *owner)
{
	struct handed *h = owner;

	count_one(h->released);
	free(h->data);
	free(h);
}

/* A member handed over unread, as the walk defers a large blob. */
struct fake_deferred {
	struct entry_deferred base;
	const struct fx_entry *f;
	size_t *loaded, *freed, *released;
};

static int fake_load(struct entry_deferred *d, const unsigned char **data,
		     uint64_t *len, void **owner, void (**release)(void *))
{
	struct fake_deferred *fd = (struct fake_deferred *)d;
	struct handed *h;

	if (fd->f->deferred == 2)
		return ga_error_code(GA_ERROR, "unable to read %s: broken",
				     fd->f->oid);
	h = ga_xmalloc(sizeof(*h));
	h->data = ga_xmalloc(fd->f->size);
	memcpy(h->data, fd->f->data, fd->f->size);
	h->released = fd->released;
	count_one(fd->loaded);
	*data = h->data;
	*len = fd->f->size;
	*owner = h;
	*release = release_handed;
	return 0;
}

static void fake_free(struct entry_deferred *d)
{
	struct fake_deferred *fd = (struct fake_deferred *)d;

	count_one(fd->freed);
	free(fd);
}

/*
 * Feed the fixture to a new writer writing into `out`.  Every other
 * entry hands its buffer over (data_release), the rest lend theirs;
 * each handed buffer must be released exactly once, by the writer or
 * here.  Returns the first error, with the writer freed.
 */
static int feed(struct ga_buf *out, const struct fixture *fx,
		const struct archive_args *args, struct mem_sink *sink_in)
{
	struct mem_sink local, *sink = sink_in ? sink_in : &local;
	struct archive_writer *w = NULL;
	size_t i, handed = 0, released = 0;
	size_t deferred = 0, loaded = 0, freed = 0;
	int error;

	if (!sink_in)
		mem_sink_init(&local, out);
	ga_buf_setlen(out, 0);
	if ((error = zip_writer_new(&w, &sink->base, args)) < 0)
		return error;
	for (i = 0; i < fx->nr; i++) {
		const struct fx_entry *f = &fx->items[i];
		struct archive_entry e = { 0 };
		struct mem_stream ms = { { mem_stream_read }, NULL, 0, 0, 0,
					 0 };

		e.path = f->path;
		e.path_len = f->path_len;
		e.mode = f->mode;
		e.oid_hex = f->oid;
		e.size = f->size;
		e.text = f->text;
		if (f->streamed) {
			ms.p = f->data;
			ms.len = f->size;
			ms.piece = 5000 + i % 7;
			e.stream = &ms.base;
		} else if (f->deferred) {
			struct fake_deferred *fd = ga_xcalloc(1, sizeof(*fd));

			fd->base.load = fake_load;
			fd->base.free = fake_free;
			fd->f = f;
			fd->loaded = &loaded;
			fd->freed = &freed;
			fd->released = &released;
			e.deferred = &fd->base;
			deferred++;
		} else if (f->size && (i % 2)) {
			struct handed *h = ga_xmalloc(sizeof(*h));

			h->data = ga_xmalloc(f->size);
			memcpy(h->data, f->data, f->size);
			h->released = &released;
			e.data = h->data;
			e.data_owner = h;
			e.data_release = release_handed;
			handed++;
		} else {
			e.data = f->data;
		}
		error = w->add(w, &e);
		if (e.data_release)	/* the writer did not keep it */
			e.data_release(e.data_owner);
		if (e.deferred)
			e.deferred->free(e.deferred);
		if (error < 0)
			goto done;
	}
	error = w->finish(w);
done:
	w->free(w);
	if (released != handed + loaded) {
		fprintf(stderr, "zip: %zu buffers handed over, %zu released\n",
			handed + loaded, released);
		abort();
	}
	if (freed != deferred) {
		fprintf(stderr, "zip: %zu members deferred, %zu freed\n",
			deferred, freed);
		abort();
	}
	return error;
}

/* --- walking a git tree the way git archive does --- */

struct walker {
	git_repository *repo;
	struct fixture *fx;
	uint64_t stream_above;		/* 0: never stream */
	char **pending;			/* directories not yet written */
	size_t nr_pending, alloc_pending, nr_written;
	struct ga_buf path;
};

static void flush_pending_dirs(struct walker *wk)
{
	for (; wk->nr_written < wk->nr_pending; wk->nr_written++) {
		const char *p = wk->pending[wk->nr_written];
		struct fx_entry *e = fx_add(wk->fx, p, strlen(p),
					    ARCHIVE_MODE_DIR, NULL, 0);
		(void)e;
	}
}

static int walk_tree(struct walker *wk, const git_tree *tree)
{
	size_t i, n = git_tree_entrycount(tree);

	for (i = 0; i < n; i++) {
		const git_tree_entry *te = git_tree_entry_byindex(tree, i);
		git_filemode_t mode = git_tree_entry_filemode(te);
		size_t base = wk->path.len;
		struct fx_entry *e;

		ga_buf_puts(&wk->path, git_tree_entry_name(te));
		if (mode == GIT_FILEMODE_TREE) {
			git_tree *sub;

			ga_buf_putc(&wk->path, '/');
			if (git_tree_lookup(&sub, wk->repo,
					    git_tree_entry_id(te)) < 0)
				return -1;
			GA_ALLOC_GROW(wk->pending, wk->nr_pending + 1,
				      wk->alloc_pending);
			wk->pending[wk->nr_pending++] =
				ga_xstrdup(wk->path.ptr);
			if (walk_tree(wk, sub) < 0)
				return -1;
			git_tree_free(sub);
			free(wk->pending[--wk->nr_pending]);
			if (wk->nr_written > wk->nr_pending)
				wk->nr_written = wk->nr_pending;
		} else if (mode == GIT_FILEMODE_COMMIT) {
			ga_buf_putc(&wk->path, '/');
			flush_pending_dirs(wk);
			e = fx_add(wk->fx, wk->path.ptr, wk->path.len,
				   ARCHIVE_MODE_GITLINK, NULL, 0);
			git_oid_tostr(e->oid, sizeof(e->oid),
				      git_tree_entry_id(te));
		} else {
			git_blob *blob;

			flush_pending_dirs(wk);
			if (git_blob_lookup(&blob, wk->repo,
					    git_tree_entry_id(te)) < 0)
				return -1;
			e = fx_add(wk->fx, wk->path.ptr, wk->path.len,
				   (uint32_t)mode, git_blob_rawcontent(blob),
				   (size_t)git_blob_rawsize(blob));
			git_oid_tostr(e->oid, sizeof(e->oid),
				      git_tree_entry_id(te));
			e->streamed = mode != GIT_FILEMODE_LINK &&
				wk->stream_above && e->size > wk->stream_above;
			git_blob_free(blob);
		}
		ga_buf_setlen(&wk->path, base);
	}
	return 0;
}

/*
 * Walk `rev` of `repo_dir` into `fx`; sets *mtime and commit_hex (empty
 * for a tree).
 */
static int walk_rev(struct fixture *fx, int64_t *mtime, char *commit_hex,
		    const char *repo_dir, const char *rev, const char *prefix,
		    uint64_t stream_above)
{
	struct walker wk = { 0 };
	git_object *obj = NULL;
	git_tree *tree = NULL;
	int error = -1;

	wk.fx = fx;
	wk.stream_above = stream_above;
	commit_hex[0] = '\0';
	if (git_repository_open(&wk.repo, repo_dir) < 0 ||
	    git_revparse_single(&obj, wk.repo, rev) < 0)
		goto done;
	if (git_object_type(obj) == GIT_OBJECT_COMMIT) {
		git_commit *c = (git_commit *)obj;

		*mtime = git_commit_time(c);
		git_oid_tostr(commit_hex, GIT_OID_HEXSZ + 1,
			      git_commit_id(c));
	}
	if (git_object_peel((git_object **)&tree, obj, GIT_OBJECT_TREE) < 0)
		goto done;
	ga_buf_puts(&wk.path, prefix);
	if (*prefix && prefix[strlen(prefix) - 1] == '/') {
		struct fx_entry *e = fx_add(fx, prefix, strlen(prefix),
					    ARCHIVE_MODE_DIR, NULL, 0);

		git_oid_tostr(e->oid, sizeof(e->oid), git_tree_id(tree));
	}
	error = walk_tree(&wk, tree);
done:
	if (error < 0)
		diag("libgit2: %s", git_error_last() ?
		     git_error_last()->message : "?");
	while (wk.nr_pending)
		free(wk.pending[--wk.nr_pending]);
	free(wk.pending);
	ga_buf_release(&wk.path);
	git_tree_free(tree);
	git_object_free(obj);
	git_repository_free(wk.repo);
	return error;
}

static void set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static void init_args(struct archive_args *args, int64_t mtime,
		      const char *commit_hex, int level, int threads)
{
	time_t t = (time_t)mtime;

	memset(args, 0, sizeof(*args));
	args->mtime = mtime;
	args->commit_hex = commit_hex && *commit_hex ? commit_hex : NULL;
	args->level = level;
	args->threads = threads;
	localtime_r(&t, &args->mtime_local);
}

/*
 * Whether `unzip -t` is happy with the archive.  For an archive without
 * members it can only warn ("zipfile is empty", exit 1), as it does for
 * git's.
 */
static void check_unzip(struct ctx *cx, const struct ga_buf *zip,
			const char *title)
{
	char *path, *log, *cmd;
	struct ga_buf out = GA_BUF_INIT;
	int rc, empty;

	if (!cx->have_unzip) {
		ok(1, "%s: unzip -t # SKIP unzip is not installed", title);
		return;
	}
	path = fmt_str("%s/ours.zip", cx->scratch);
	log = fmt_str("%s/unzip.log", cx->scratch);
	spew(path, zip->ptr, zip->len);
	cmd = fmt_str("unzip -tq '%s' >'%s' 2>&1", path, log);
	rc = system(cmd);
	rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	slurp(&out, log);
	empty = zip->len >= 22 && get_le32((unsigned char *)zip->ptr) ==
		0x06054b50;
	if (rc == 1 && empty && strstr(out.ptr, "zipfile is empty"))
		rc = 0;
	if (!ok(rc == 0, "%s: unzip -t accepts it", title))
		diag("unzip -t: exit %d: %s", rc, out.ptr);
	ga_buf_release(&out);
	free(cmd);
	free(log);
	free(path);
}

/*
 * Archive `rev` with git (extra `git_opts` before `archive`, `arch_opts`
 * after it) and with the writer at 1 and 4 threads; all must agree,
 * warnings included.
 */
static void check_git(struct ctx *cx, const char *title, const char *repo,
		      const char *rev, const char *git_opts,
		      const char *arch_opts, const char *prefix, int level,
		      uint64_t stream_above, const char *tz)
{
	struct fixture fx = { 0 };
	struct ga_buf want = GA_BUF_INIT, got = GA_BUF_INIT;
	struct ga_buf err = GA_BUF_INIT;
	char commit_hex[GIT_OID_HEXSZ + 1];
	char *zip_path = fmt_str("%s/git.zip", cx->scratch);
	char *err_path = fmt_str("%s/git.err", cx->scratch);
	struct archive_args args;
	int64_t mtime = 0;
	int threads[] = { 1, 4 };
	char name[256];
	size_t i;

	set_tz(tz);
	if (run("cd '%s' && git %s archive --format=zip %s %s >'%s' 2>'%s'",
		repo, git_opts, arch_opts, rev, zip_path, err_path) ||
	    slurp(&want, zip_path) || slurp(&err, err_path)) {
		ok(0, "%s: git archive", title);
		goto done;
	}
	if (walk_rev(&fx, &mtime, commit_hex, repo, rev, prefix,
		     stream_above) < 0) {
		ok(0, "%s: walk", title);
		goto done;
	}
	if (!*commit_hex && want.len >= 30) {
		/* A tree is archived at "now": take git's from its output. */
		size_t name_len = get_le16((unsigned char *)want.ptr + 26);

		mtime = get_le32((unsigned char *)want.ptr + 30 + name_len +
				 5);
	}
	for (i = 0; i < GA_ARRAY_SIZE(threads); i++) {
		init_args(&args, mtime, commit_hex, level, threads[i]);
		ga_buf_setlen(&cx->warnings, 0);
		if (feed(&got, &fx, &args, NULL) < 0) {
			ok(0, "%s (threads=%d): %s", title, threads[i],
			   ga_error_message());
			continue;
		}
		snprintf(name, sizeof(name),
			 "%s (threads=%d): same bytes as git", title,
			 threads[i]);
		is_mem(got.ptr, got.len, want.ptr, want.len, name);
		snprintf(name, sizeof(name),
			 "%s (threads=%d): same warnings as git", title,
			 threads[i]);
		is_str(cx->warnings.ptr ? cx->warnings.ptr : "", err.ptr,
		       name);
	}
	check_unzip(cx, &got, title);
done:
	fx_release(&fx);
	ga_buf_release(&want);
	ga_buf_release(&got);
	ga_buf_release(&err);
	free(zip_path);
	free(err_path);
	set_tz("UTC");
}

/* Raw deflate at `level` as git does it: one shot, ample room. */
static uint64_t deflated_size(const unsigned char *p, size_t len, int level)
{
	z_stream zs;
	unsigned char *out;
	uLong bound;
	uint64_t n;

	memset(&zs, 0, sizeof(zs));
	deflateInit2(&zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
	bound = deflateBound(&zs, len);
	out = ga_xmalloc(bound);
	zs.next_in = (Bytef *)p;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)bound;
	deflate(&zs, Z_FINISH);
	n = zs.total_out;
	deflateEnd(&zs);
	free(out);
	return n;
}

/*
 * Find content whose deflated size at the default level is its own size
 * plus `delta`: random bytes followed by a run of one byte, the run
 * grown until deflate just breaks even.  Returns the length, or 0.
 */
static size_t find_break_even(unsigned char *buf, size_t max, int delta)
{
	uint64_t seed;
	size_t rnd, run;

	for (seed = 1; seed < 50; seed++) {
		for (rnd = 100; rnd < 400; rnd += 37) {
			fill_random(buf, rnd, seed);
			for (run = 0; rnd + run < max; run++) {
				size_t len = rnd + run;
				uint64_t n;

				buf[len - 1] = run ? 'r' : buf[len - 1];
				n = deflated_size(buf, len,
						  Z_DEFAULT_COMPRESSION);
				if (n == len + delta)
					return len;
				if (n + 8 < len)
					break;
			}
		}
	}
	return 0;
}

/* --- the scratch repositories --- */

static int make_kinds_repo(const char *repo)
{
	static const char *const invalid_names[] = {
		"bad\xff.txt",			/* not UTF-8 at all */
		"over\xc0\xaf.txt",		/* overlong '/' */
		"surr\xed\xa0\x80.txt",		/* a surrogate */
		"nonchar\xef\xbf\xbf.txt",	/* U+FFFF */
		"big\xf4\x90\x80\x80.txt",	/* above U+10FFFF */
		"cut\xe2\x82.txt",		/* truncated sequence */
	};
	unsigned char *buf = ga_xmalloc(300 * 1024);
	struct ga_buf text = GA_BUF_INIT;
	size_t i;
	int rc;

	if (run("git init -q '%s'", repo))
		return -1;
	put_file(repo, "empty", "", 0, 0);
	put_file(repo, "one", "x", 1, 0);
	put_file(repo, "text.txt", "hello world\n", 12, 0);
	for (i = 0; i < 6000; i++)
		ga_buf_printf(&text, "line %zu of a compressible file\n", i);
	put_file(repo, "compress.txt", text.ptr, text.len, 0);
	put_file(repo, "exec-big.sh", text.ptr, text.len / 3, 1);
	put_file(repo, "exec.sh", "#!/bin/sh\necho hi\n", 18, 1);
	fill_random(buf, 100 * 1024, 42);
	put_file(repo, "random.bin", buf, 100 * 1024, 0);
	put_file(repo, "nul-early.bin", "ab\0cd efgh efgh efgh efgh\n", 27, 0);
	memset(buf, 'a', 20000);
	buf[7999] = '\0';
	put_file(repo, "nul-7999.txt", buf, 9000, 0);
	buf[7999] = 'a';
	buf[8000] = '\0';
	put_file(repo, "nul-8000.txt", buf, 9000, 0);
	buf[8000] = 'a';
	buf[12000] = '\0';
	put_file(repo, "nul-12000.txt", buf, 20000, 0);
	/* Random at first, then compressible: deflate wins overall. */
	fill_random(buf, 20000, 7);
	memset(buf + 20000, 'z', 60000);
	put_file(repo, "mixed.bin", buf, 80000, 0);
	/* Order: a subtree sorts as if its name ended in '/'. */
	put_file(repo, "A", "A\n", 2, 0);
	put_file(repo, "a b", "ab\n", 3, 0);
	put_file(repo, "a-b", "a-b\n", 4, 0);
	put_file(repo, "a.c", "a.c\n", 4, 0);
	put_file(repo, "a/x", "x\n", 2, 0);
	put_file(repo, "a0", "a0\n", 3, 0);
	put_file(repo, "dir/a.txt", text.ptr, 5000, 0);
	put_file(repo, "dir/sub/b.txt", "b\n", 2, 0);
	put_file(repo, "dir/sub/deeper/c.txt", text.ptr, 3000, 1);
	put_file(repo, "deep/x/y/z.txt", "z\n", 2, 0);
	put_file(repo, "\xc3\xbcn\xc3\xaf" "c\xc3\xb6" "d\xc3\xa9.txt",
		 "utf8\n", 5, 0);
	put_file(repo, "emoji-\xf0\x9f\x98\x80.txt", "smile\n", 6, 0);
	put_file(repo, "utf8dir-\xc3\xa9/f", "f\n", 2, 0);
	for (i = 0; i < GA_ARRAY_SIZE(invalid_names); i++)
		put_file(repo, invalid_names[i], "bad\n", 4, 0);
	/* Deflate to exactly the input size (stored) and one less. */
	if (!(i = find_break_even(buf, 2000, 0)))
		return -1;
	put_file(repo, "even.bin", buf, i, 0);
	if (!(i = find_break_even(buf, 2000, -1)))
		return -1;
	put_file(repo, "one-less.bin", buf, i, 0);
	ga_buf_release(&text);
	free(buf);

	rc = run("cd '%s' && ln -s text.txt link && "
		 "ln -s does/not/exist dangling && "
		 "ln -s ../compress.txt dir/uplink && "
		 "git add -A && "
		 "git update-index --add --cacheinfo "
		 "160000,0123456789abcdef0123456789abcdef01234567,mods/m1 && "
		 "git update-index --add --cacheinfo "
		 "160000,89abcdef0123456789abcdef0123456789abcdef,gitlink && "
		 "git commit -q -m kinds && "
		 "GIT_COMMITTER_DATE='%d +0000' git commit -q --allow-empty "
		 "-m old && git branch old && git reset -q --hard HEAD^ && "
		 "git branch empty $(git commit-tree -m empty "
		 "$(git hash-object -w -t tree /dev/null))",
		 repo, OLD_DATE);
	return rc ? -1 : 0;
}

/* --- tests that need no git --- */

static void test_dos_time(struct ctx *cx)
{
	struct fixture fx = { 0 };
	struct ga_buf out = GA_BUF_INIT;
	struct archive_args args;
	const unsigned char *p;

	(void)cx;
	fx_add(&fx, "f", 1, ARCHIVE_MODE_FILE, "x", 1);
	/* git writes 2021-07-04 13:14:15 as time 0x69c7, date 0x52e4. */
	init_args(&args, 1625404455, NULL, -1, 1);
	args.mtime_local.tm_year = 121;
	args.mtime_local.tm_mon = 6;
	args.mtime_local.tm_mday = 4;
	args.mtime_local.tm_hour = 13;
	args.mtime_local.tm_min = 14;
	args.mtime_local.tm_sec = 15;
	feed(&out, &fx, &args, NULL);
	p = (const unsigned char *)out.ptr;
	ok(get_le16(p + 10) == 0x69c7 && get_le16(p + 12) == 0x52e4,
	   "DOS time and date from mtime_local");
	ok(!memcmp(p + 31, "\x55\x54\x05\x00\x01\x27\xb4\xe1\x60", 9),
	   "UT extra field holds the UTC time");
	ok(out.len == 30 + 1 + 9 + 1 + 46 + 1 + 9 + 22,
	   "one stored member, no comment: %zu bytes", out.len);

	/* 1970-01-01 00:00:00: no clamping, the low 16 bits of a negative. */
	memset(&args.mtime_local, 0, sizeof(args.mtime_local));
	args.mtime_local.tm_year = 70;
	args.mtime_local.tm_mday = 1;
	args.mtime = 0;
	feed(&out, &fx, &args, NULL);
	p = (const unsigned char *)out.ptr;
	ok(get_le16(p + 12) == 0xec21 && get_le16(p + 10) == 0,
	   "dates before 1980 wrap as in git");
	fx_release(&fx);
	ga_buf_release(&out);
}

/* Find the central directory record of member `idx` (0-based). */
static const unsigned char *central_record(const struct ga_buf *zip,
					   size_t idx)
{
	const unsigned char *p = (const unsigned char *)zip->ptr;
	const unsigned char *eocd = p + zip->len - 22;
	uint32_t off;

	while (eocd > p && get_le32(eocd) != 0x06054b50)
		eocd--;
	off = get_le32(eocd + 16);
	p += off;
	while (idx--)
		p += 46 + get_le16(p + 28) + get_le16(p + 30) +
			get_le16(p + 32);
	return p;
}

static void test_text_bit(struct ctx *cx)
{
	struct fixture fx = { 0 };
	struct ga_buf out = GA_BUF_INIT;
	struct archive_args args;
	struct fx_entry *e;

	(void)cx;
	fx_add(&fx, "sniffed-bin", 11, ARCHIVE_MODE_FILE, "a\0b", 3);
	e = fx_add(&fx, "forced-text", 11, ARCHIVE_MODE_FILE, "a\0b", 3);
	e->text = ENTRY_TEXT;
	e = fx_add(&fx, "forced-bin", 10, ARCHIVE_MODE_FILE, "abc", 3);
	e->text = ENTRY_BINARY;
	fx_add(&fx, "sniffed-text", 12, ARCHIVE_MODE_FILE, "abc", 3);
	fx_add(&fx, "empty", 5, ARCHIVE_MODE_FILE, "", 0);
	e = fx_add(&fx, "empty-bin", 9, ARCHIVE_MODE_FILE, "", 0);
	e->text = ENTRY_BINARY;
	fx_add(&fx, "dir/", 4, ARCHIVE_MODE_DIR, NULL, 0);
	e = fx_add(&fx, "dir-text/", 9, ARCHIVE_MODE_DIR, NULL, 0);
	e->text = ENTRY_TEXT;
	init_args(&args, REPO_DATE, NULL, -1, 1);
	feed(&out, &fx, &args, NULL);
	ok(get_le16(central_record(&out, 0) + 36) == 0,
	   "NUL in the content: binary");
	ok(get_le16(central_record(&out, 1) + 36) == 1,
	   "ENTRY_TEXT wins over a NUL");
	ok(get_le16(central_record(&out, 2) + 36) == 0,
	   "ENTRY_BINARY wins over text content");
	ok(get_le16(central_record(&out, 3) + 36) == 1, "plain text: text");
	ok(get_le16(central_record(&out, 4) + 36) == 1, "empty file: text");
	ok(get_le16(central_record(&out, 5) + 36) == 0,
	   "empty file marked binary: binary");
	ok(get_le16(central_record(&out, 6) + 36) == 0 &&
	   get_le16(central_record(&out, 7) + 36) == 0,
	   "directories never get the text bit");
	fx_release(&fx);
	ga_buf_release(&out);
}

/*
 * 70000 tiny members: zip64 end records.  Each member takes 30 + 6 + 9
 * + 1 bytes (local header, name, extended timestamp field, stored data)
 * and 46 + 6 + 9 in the central directory.
 */
static void build_many(struct fixture *fx, size_t n)
{
	char name[16];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%05zu", i);
		fx_add(fx, name, 6, i ? ARCHIVE_MODE_FILE : ARCHIVE_MODE_EXEC,
		       "x", 1);
	}
}

static void test_many_entries(struct ctx *cx)
{
	const size_t n = 70000;
	const uint64_t cd_off = n * 46, cd_size = n * 61;
	struct fixture fx = { 0 };
	struct ga_buf out = GA_BUF_INIT, one = GA_BUF_INIT;
	struct ga_buf want = GA_BUF_INIT;
	struct archive_args args;
	const unsigned char *z64, *loc, *eocd;
	const char *hex = "0123456789abcdef0123456789abcdef01234567";
	char *list_path, *repo, *zip_path;
	FILE *f;
	size_t i;
	char rev[64];

	build_many(&fx, n);
	init_args(&args, REPO_DATE, hex, -1, 4);
	if (!ok(feed(&out, &fx, &args, NULL) == 0, "70000 entries"))
		goto done;
	ok(out.len == cd_off + cd_size + 56 + 20 + 22 + 40,
	   "70000 entries: archive size");
	z64 = (const unsigned char *)out.ptr + cd_off + cd_size;
	loc = z64 + 56;
	eocd = loc + 20;
	ok(get_le32(z64) == 0x06064b50 && get_le64(z64 + 4) == 44 &&
	   get_le16(z64 + 12) == 0x0317 && get_le16(z64 + 14) == 45 &&
	   get_le32(z64 + 16) == 0 && get_le32(z64 + 20) == 0 &&
	   get_le64(z64 + 24) == n && get_le64(z64 + 32) == n &&
	   get_le64(z64 + 40) == cd_size && get_le64(z64 + 48) == cd_off,
	   "zip64 end of central directory record");
	ok(get_le32(loc) == 0x07064b50 && get_le32(loc + 4) == 0 &&
	   get_le64(loc + 8) == cd_off + cd_size && get_le32(loc + 16) == 1,
	   "zip64 locator");
	ok(get_le32(eocd) == 0x06054b50 && get_le16(eocd + 4) == 0 &&
	   get_le16(eocd + 6) == 0 && get_le16(eocd + 8) == 0xffff &&
	   get_le16(eocd + 10) == 0xffff && get_le32(eocd + 12) == cd_size &&
	   get_le32(eocd + 16) == cd_off && get_le16(eocd + 20) == 40 &&
	   !memcmp(eocd + 22, hex, 40),
	   "classic end record: only the entry counts overflow");
	args.threads = 1;
	feed(&one, &fx, &args, NULL);
	is_mem(one.ptr, one.len, out.ptr, out.len,
	       "70000 entries: threads=1 and threads=4 agree");
	check_unzip(cx, &out, "70000 entries");

	/* The same tree made by git mktree, archived by git. */
	repo = fmt_str("%s/many", cx->scratch);
	list_path = fmt_str("%s/many.list", cx->scratch);
	zip_path = fmt_str("%s/many.zip", cx->scratch);
	f = fopen(list_path, "w");
	for (i = 0; i < n; i++)
		fprintf(f, "%s blob BLOB\tf%05zu\n", i ? "100644" : "100755",
			i);
	fclose(f);
	if (run("git init -q '%s' && cd '%s' && "
		"b=$(printf x | git hash-object -w --stdin) && "
		"t=$(sed \"s/BLOB/$b/\" '%s' | git mktree) && "
		"c=$(git commit-tree -m many $t) && "
		"git archive --format=zip $c >'%s' && echo $c >'%s.rev'",
		repo, repo, list_path, zip_path, zip_path) ||
	    slurp(&want, zip_path)) {
		ok(0, "70000 entries: git fast-import and archive");
	} else {
		char *rev_path = fmt_str("%s.rev", zip_path);
		struct ga_buf r = GA_BUF_INIT;

		slurp(&r, rev_path);
		snprintf(rev, sizeof(rev), "%.40s", r.ptr);
		args.commit_hex = rev;
		args.threads = 0;
		feed(&out, &fx, &args, NULL);
		is_mem(out.ptr, out.len, want.ptr, want.len,
		       "70000 entries: same bytes as git");
		ga_buf_release(&r);
		free(rev_path);
	}
	free(repo);
	free(list_path);
	free(zip_path);
done:
	fx_release(&fx);
	ga_buf_release(&out);
	ga_buf_release(&one);
	ga_buf_release(&want);
}

/* More than the in-flight budget, in members of a few MiB each. */
static void test_budget(struct ctx *cx)
{
	struct fixture fx = { 0 };
	struct ga_buf a = GA_BUF_INIT, b = GA_BUF_INIT;
	struct archive_args args;
	unsigned char *buf = ga_xmalloc(40u << 20);
	char name[32];
	size_t i;

	memset(buf, 'q', 40u << 20);
	for (i = 0; i < 40u << 20; i += 4096)
		buf[i] = (unsigned char)i;
	for (i = 0; i < 24; i++) {
		snprintf(name, sizeof(name), "chunk%02zu", i);
		fx_add_shared(&fx, name, ARCHIVE_MODE_FILE, buf,
			      (3u << 20) + i);
	}
	/* One member bigger than the whole budget. */
	fx_add_shared(&fx, "huge", ARCHIVE_MODE_FILE, buf, 40u << 20);
	fx_add_shared(&fx, "after", ARCHIVE_MODE_FILE, buf, 100000);
	init_args(&args, REPO_DATE, NULL, 1, 1);
	feed(&a, &fx, &args, NULL);
	args.threads = 4;
	feed(&b, &fx, &args, NULL);
	is_mem(b.ptr, b.len, a.ptr, a.len,
	       "members past the budget: threads=1 and threads=4 agree");
	check_unzip(cx, &b, "members past the budget");
	fx_release(&fx);
	free(buf);
	ga_buf_release(&a);
	ga_buf_release(&b);
}

/* Offset of the local header of member `k` (none streamed, no zip64). */
static size_t local_header_offset(const struct ga_buf *zip, size_t k)
{
	const unsigned char *p = (const unsigned char *)zip->ptr;
	size_t off = 0;

	while (k--)
		off += 30 + get_le16(p + off + 26) + get_le16(p + off + 28) +
			get_le32(p + off + 18);
	return off;
}

/*
 * Members handed over unread (entry->deferred), as the walk hands on
 * large blobs: read when a worker has room, the same bytes whatever
 * the number of threads, and a failed read reported in its place.
 */
static void test_deferred(struct ctx *cx)
{
	struct fixture fx = { 0 };
	struct ga_buf ref = GA_BUF_INIT, out = GA_BUF_INIT;
	struct archive_args args;
	size_t big = 30u << 20, i, nr_deferred = 0, failing = 0;
	unsigned char *buf = ga_xmalloc(big), *noise = ga_xmalloc(3u << 20);
	static const size_t sizes[] = { 12u << 20, 13u << 20, 50000, 3u << 20,
					70000, 30u << 20, 9000 };
	char name[32];
	int threads, error;
	uint32_t x = 1;

	for (i = 0; i < big; i++)
		buf[i] = (unsigned char)("garchive\n"[i % 9] + (i >> 16) % 3);
	for (i = 0; i < (3u << 20); i++) {
		x = x * 1103515245 + 12345;
		noise[i] = (unsigned char)(x >> 16);
	}
	fx_add(&fx, "d/", 2, ARCHIVE_MODE_DIR, NULL, 0);
	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		snprintf(name, sizeof(name), "d/m%zu", i);
		fx_add_shared(&fx, name, i % 3 ? ARCHIVE_MODE_FILE :
			      ARCHIVE_MODE_EXEC, buf, sizes[i]);
		snprintf(name, sizeof(name), "d/s%zu", i);
		fx_add_shared(&fx, name, ARCHIVE_MODE_FILE, buf + i, 4000 + i);
	}
	/* Random bytes: deflated larger, so stored. */
	fx_add_shared(&fx, "noise", ARCHIVE_MODE_FILE, noise, 3u << 20);
	fx_add_shared(&fx, "tail", ARCHIVE_MODE_FILE, buf, 100);

	init_args(&args, REPO_DATE, NULL, -1, 1);
	feed(&ref, &fx, &args, NULL);
	for (i = 0; i < fx.nr; i++)
		if (fx.items[i].size > (2u << 20)) {
			fx.items[i].deferred = 1;
			nr_deferred++;
			if (fx.items[i].size == (3u << 20) && !failing)
				failing = i;
		}
	ok(nr_deferred == 5, "five members handed over unread");
	for (threads = 1; threads <= 4; threads *= 2) {
		init_args(&args, REPO_DATE, NULL, -1, threads);
		error = feed(&out, &fx, &args, NULL);
		ok(error == 0, "deferred, threads=%d: no error", threads);
		ok(out.len == ref.len && !memcmp(out.ptr, ref.ptr, ref.len),
		   "deferred, threads=%d: the same archive", threads);
	}
	check_unzip(cx, &out, "deferred members");

	/* Stored throughout (-0): read on the writer's thread. */
	for (i = 0; i < fx.nr; i++)
		fx.items[i].deferred = 0;
	init_args(&args, REPO_DATE, NULL, 0, 1);
	feed(&ref, &fx, &args, NULL);
	for (i = 0; i < fx.nr; i++)
		fx.items[i].deferred = fx.items[i].size > (2u << 20);
	init_args(&args, REPO_DATE, NULL, 0, 4);
	feed(&out, &fx, &args, NULL);
	is_mem(out.ptr, out.len, ref.ptr, ref.len,
	       "deferred, -0, threads=4: the same archive");

	/* A member that cannot be read: the ones before it, then its error. */
	init_args(&args, REPO_DATE, NULL, -1, 1);
	feed(&ref, &fx, &args, NULL);
	fx.items[failing].deferred = 2;
	strcpy(fx.items[failing].oid,
	       "3333333333333333333333333333333333333333");
	for (threads = 1; threads <= 4; threads *= 4) {
		init_args(&args, REPO_DATE, NULL, -1, threads);
		error = feed(&out, &fx, &args, NULL);
		ok(error == GA_ERROR, "unreadable, threads=%d: fails",
		   threads);
		ok(!strcmp(ga_error_message(), "unable to read "
			   "3333333333333333333333333333333333333333: broken"),
		   "unreadable, threads=%d: the reader's message", threads);
		ok(out.len == local_header_offset(&ref, failing) &&
		   !memcmp(out.ptr, ref.ptr, out.len),
		   "unreadable, threads=%d: every member before it, no more",
		   threads);
	}
	fx_release(&fx);
	free(buf);
	free(noise);
	ga_buf_release(&ref);
	ga_buf_release(&out);
}

static void test_errors(struct ctx *cx)
{
	struct fixture fx = { 0 };
	struct ga_buf out = GA_BUF_INIT, ref = GA_BUF_INIT;
	struct archive_args args;
	struct mem_sink sink;
	char *long_path = ga_xmalloc(70000);
	char *msg, name[128];
	int threads, error;
	size_t i, locals_len;

	/* A path over 65535 bytes, after members still being deflated. */
	for (i = 0; i < 8; i++)
		fx_add(&fx, i % 2 ? "t.txt" : "d/", i % 2 ? 5 : 2,
		       i % 2 ? ARCHIVE_MODE_FILE : ARCHIVE_MODE_DIR,
		       "text text text text text text", i % 2 ? 29 : 0);
	/* What those members take, from an archive of them alone. */
	init_args(&args, REPO_DATE, NULL, 9, 1);
	feed(&out, &fx, &args, NULL);
	locals_len = get_le32((unsigned char *)out.ptr + out.len - 22 + 16);
	memset(long_path, 'p', 65536);
	long_path[0] = '\xff';
	fx_add(&fx, long_path, 65536, ARCHIVE_MODE_FILE, "x", 1);
	strcpy(fx.items[fx.nr - 1].oid,
	       "1111111111111111111111111111111111111111");
	for (threads = 1; threads <= 4; threads += 3) {
		init_args(&args, REPO_DATE, NULL, 9, threads);
		ga_buf_setlen(&cx->warnings, 0);
		error = feed(&out, &fx, &args, NULL);
		msg = fmt_str("path too long (65536 chars, SHA1: "
			      "1111111111111111111111111111111111111111): "
			      "%.65536s", long_path);
		ok(error == GA_EARCHIVE &&
		   !strcmp(ga_error_message(), msg),
		   "threads=%d: path too long is git's error (exit 255)",
		   threads);
		free(msg);
		msg = fmt_str("warning: path is not valid UTF-8: %.65536s\n",
			      long_path);
		ok(cx->warnings.ptr && !strcmp(cx->warnings.ptr, msg),
		   "threads=%d: its UTF-8 warning comes first", threads);
		free(msg);
		if (threads == 1)
			ga_buf_put(&ref, out.ptr, out.len);
		ok(out.len == locals_len,
		   "threads=%d: the members before it are written", threads);
	}
	is_mem(out.ptr, out.len, ref.ptr, ref.len,
	       "path too long: same output at 1 and 4 threads");
	fx_release(&fx);

	/* An unsupported mode, after git's warning. */
	fx_add(&fx, "fi\xff", 3, 0010644, NULL, 0);
	init_args(&args, REPO_DATE, NULL, -1, 1);
	ga_buf_setlen(&cx->warnings, 0);
	error = feed(&out, &fx, &args, NULL);
	is_str(ga_error_message(), "unsupported file mode: 010644 (SHA1: "
	       "0000000000000000000000000000000000000000)",
	       "unsupported mode: git's message");
	ok(error == GA_EARCHIVE, "unsupported mode: exit 255");
	is_str(cx->warnings.ptr, "warning: path is not valid UTF-8: fi\xff\n",
	       "unsupported mode: the UTF-8 warning comes first");
	fx_release(&fx);

	/* finish() after a failed add(): the same error, no trailer. */
	{
		struct archive_writer *w;
		struct archive_entry e = { 0 };

		init_args(&args, REPO_DATE, NULL, -1, 4);
		mem_sink_init(&sink, &out);
		ga_buf_setlen(&out, 0);
		zip_writer_new(&w, &sink.base, &args);
		e.path = "ok/";
		e.path_len = 3;
		e.mode = ARCHIVE_MODE_DIR;
		w->add(w, &e);
		e.path = "bad";
		e.mode = 0140000;
		e.oid_hex = "2222222222222222222222222222222222222222";
		error = w->add(w, &e);
		ok(error == GA_EARCHIVE && w->finish(w) == GA_EARCHIVE &&
		   !strcmp(ga_error_message(), "unsupported file mode: "
			   "0140000 (SHA1: "
			   "2222222222222222222222222222222222222222)") &&
		   out.len == 30 + 3 + 9,
		   "finish() after a failed add() repeats the failure");
		w->free(w);
	}

	/* A zlib failure in a worker travels to the writer, in order. */
	fx_add(&fx, "d/", 2, ARCHIVE_MODE_DIR, NULL, 0);
	fx_add(&fx, "d/link", 6, ARCHIVE_MODE_SYMLINK, "target", 6);
	fx_add(&fx, "d/f", 3, ARCHIVE_MODE_FILE, "data data data data", 19);
	fx_add(&fx, "d/g", 3, ARCHIVE_MODE_FILE, "data data data data", 19);
	ga_buf_setlen(&ref, 0);
	for (threads = 1; threads <= 4; threads += 3) {
		init_args(&args, REPO_DATE, NULL, 10, threads);
		error = feed(&out, &fx, &args, NULL);
		snprintf(name, sizeof(name), "threads=%d: zlib error message",
			 threads);
		is_str(ga_error_message(),
		       "deflateInit2: stream consistency error (no message)",
		       name);
		ok(error == GA_ERROR, "threads=%d: zlib error is fatal",
		   threads);
		if (threads == 1)
			ga_buf_put(&ref, out.ptr, out.len);
	}
	ok(ref.len == (30 + 2 + 9) + (30 + 6 + 9 + 6),
	   "zlib error: earlier members written");
	is_mem(out.ptr, out.len, ref.ptr, ref.len,
	       "zlib error: same output at 1 and 4 threads");

	/* A failing stream. */
	fx_release(&fx);
	fx_add(&fx, "s", 1, ARCHIVE_MODE_FILE, NULL, 0);
	{
		struct archive_writer *w;
		struct archive_entry e = { 0 };
		struct mem_stream ms = { { mem_stream_read }, NULL, 100000, 0,
					 3000, 40000 };

		mem_sink_init(&sink, &out);
		ga_buf_setlen(&out, 0);
		init_args(&args, REPO_DATE, NULL, -1, 4);
		zip_writer_new(&w, &sink.base, &args);
		e.path = "s";
		e.path_len = 1;
		e.mode = ARCHIVE_MODE_FILE;
		e.size = 100000;
		e.stream = &ms.base;
		e.oid_hex = "0000000000000000000000000000000000000000";
		error = w->add(w, &e);
		is_str(ga_error_message(), "cannot read 'stream'",
		       "stream error: its message");
		ok(error == GA_EARCHIVE, "stream error: its code");
		w->free(w);
	}
	fx_release(&fx);

	/* The sink fails: in add() and in finish(). */
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "f%02zu", i);
		fx_add(&fx, name, 3, ARCHIVE_MODE_FILE, long_path + 1, 60000);
	}
	for (threads = 1; threads <= 4; threads += 3) {
		init_args(&args, REPO_DATE, NULL, 0, threads);
		mem_sink_init(&sink, &out);
		sink.fail_at = 1000000;
		error = feed(&out, &fx, &args, &sink);
		ok(error == GA_ERROR &&
		   !strcmp(ga_error_message(),
			   "write error: No space left on device"),
		   "threads=%d: a sink error in add() is passed up", threads);
		init_args(&args, REPO_DATE, NULL, -1, threads);
		mem_sink_init(&sink, &out);
		sink.fail_at = 40 * (30 + 3 + 9) + 100;
		error = feed(&out, &fx, &args, &sink);
		ok(error == GA_ERROR && out.len < sink.fail_at &&
		   !strcmp(ga_error_message(),
			   "write error: No space left on device"),
		   "threads=%d: a sink error in finish() is passed up",
		   threads);
	}

	/* Freed with members still queued: threads joined, nothing leaks. */
	{
		struct archive_writer *w;

		init_args(&args, REPO_DATE, NULL, 9, 4);
		mem_sink_init(&sink, &out);
		zip_writer_new(&w, &sink.base, &args);
		for (i = 0; i < fx.nr; i++) {
			struct archive_entry e = { 0 };

			e.path = fx.items[i].path;
			e.path_len = fx.items[i].path_len;
			e.mode = fx.items[i].mode;
			e.size = fx.items[i].size;
			e.data = fx.items[i].data;
			w->add(w, &e);
		}
		w->free(w);
		ok(1, "free() with queued members returns");
	}
	fx_release(&fx);
	free(long_path);
	ga_buf_release(&out);
	ga_buf_release(&ref);
}

/*
 * Members past 2 GiB and 4 GiB and offsets past 4 GiB, streamed and
 * stored, through a sink that keeps only the ends of the archive.
 */
struct tail_sink {
	struct sink base;
	unsigned char head[4096];
	uint64_t win_off;		/* a window in the middle */
	unsigned char win[64];
	unsigned char *tail;		/* ring of TAIL_LEN bytes */
	uint64_t total;
};
#define TAIL_LEN (1u << 20)

static int tail_write(struct sink *s, const void *p, size_t len)
{
	struct tail_sink *t = (struct tail_sink *)s;
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len && t->total + i < sizeof(t->head); i++)
		t->head[t->total + i] = c[i];
	for (i = 0; i < sizeof(t->win); i++)
		if (t->win_off + i >= t->total &&
		    t->win_off + i < t->total + len)
			t->win[i] = c[t->win_off + i - t->total];
	if (len > TAIL_LEN) {
		c += len - TAIL_LEN;
		t->total += len - TAIL_LEN;
		len = TAIL_LEN;
	}
	for (i = 0; i < len;) {
		size_t at = (size_t)((t->total) % TAIL_LEN);
		size_t n = TAIL_LEN - at < len - i ? TAIL_LEN - at : len - i;

		memcpy(t->tail + at, c + i, n);
		i += n;
		t->total += n;
	}
	return 0;
}

/* The byte at archive offset `off`, which must be within the tail. */
static const unsigned char *tail_at(struct tail_sink *t, uint64_t off,
				    unsigned char *tmp, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		tmp[i] = t->tail[(off + i) % TAIL_LEN];
	return tmp;
}

static void test_huge(struct ctx *cx)
{
	const uint64_t big = 0x100000010ull;	/* > 4 GiB */
	const uint64_t mid = 0x80000000ull;	/* 2 GiB: > 0x7fffffff */
	struct tail_sink t = { { tail_write, mem_sink_finish, mem_sink_free } };
	struct archive_writer *w;
	struct archive_args args;
	unsigned char tmp[128];
	const unsigned char *p;
	uint64_t cd_off, off_b, off_c, z64_off;
	unsigned char *zeros = ga_xcalloc(1, 1u << 20);
	uint32_t crc = (uint32_t)crc32(0, NULL, 0);
	uint32_t crc_1m = (uint32_t)crc32(0, zeros, 1u << 20);
	int error = 0;
	size_t i;

	(void)cx;
	if (!getenv("GARCHIVE_TEST_LONG")) {
		ok(1, "# SKIP zip64 sizes (set GARCHIVE_TEST_LONG=1)");
		free(zeros);
		return;
	}
	t.tail = ga_xmalloc(TAIL_LEN);
	off_b = 30 + 3 + 29 + mid + 16;
	t.win_off = off_b - 16;
	init_args(&args, REPO_DATE, NULL, 0, 4);
	zip_writer_new(&w, &t.base, &args);
	{
		struct archive_entry e = { 0 };
		struct mem_stream ms = { { mem_stream_read }, NULL, mid, 0,
					 1u << 20, 0 };

		e.path = "mid";
		e.path_len = 3;
		e.mode = ARCHIVE_MODE_FILE;
		e.size = mid;
		e.stream = &ms.base;
		error |= w->add(w, &e);
	}
	{
		struct archive_entry e = { 0 };
		struct mem_stream ms = { { mem_stream_read }, NULL, big, 0,
					 1u << 20, 0 };

		e.path = "big";
		e.path_len = 3;
		e.mode = ARCHIVE_MODE_FILE;
		e.size = big;
		e.stream = &ms.base;
		error |= w->add(w, &e);
	}
	{
		struct archive_entry e = { 0 };

		e.path = "c";
		e.path_len = 1;
		e.mode = ARCHIVE_MODE_FILE;
		e.size = 1;
		e.data = (unsigned char *)"c";
		error |= w->add(w, &e);
	}
	error |= w->finish(w);
	w->free(w);
	ok(!error, "huge members written");

	/* mid: zip64 local extra because streamed and > 2 GiB - 1. */
	p = t.head;
	ok(get_le16(p + 4) == 45 && get_le16(p + 6) == 0x0008 &&
	   get_le32(p + 18) == 0xffffffff && get_le32(p + 22) == 0xffffffff &&
	   get_le16(p + 28) == 29 && get_le16(p + 42) == 1 &&
	   get_le64(p + 46) == mid && get_le64(p + 54) == mid,
	   "streamed member over 2 GiB: zip64 local extra");
	off_c = off_b + 30 + 3 + 29 + big + 24;
	cd_off = off_c + 30 + 1 + 9 + 1;
	for (i = 0; i < 2048; i++)
		crc = (uint32_t)crc32_combine(crc, crc_1m, 1u << 20);
	p = t.win;
	ok(get_le32(p) == 0x08074b50 && get_le32(p + 4) == crc &&
	   get_le32(p + 8) == mid && get_le32(p + 12) == mid,
	   "2 GiB member: 32-bit data descriptor");
	p = tail_at(&t, off_c - 24, tmp, 24);
	ok(get_le32(p) == 0x08074b50 && get_le64(p + 8) == big &&
	   get_le64(p + 16) == big,
	   "4 GiB member: zip64 data descriptor");
	/* Central records: mid plain, big with sizes, c with its offset. */
	p = tail_at(&t, cd_off, tmp, 46 + 3 + 9);
	ok(get_le16(p + 6) == 45 && get_le16(p + 30) == 9 &&
	   get_le32(p + 20) == mid && get_le32(p + 42) == 0,
	   "central record of the 2 GiB member");
	p = tail_at(&t, cd_off + 58, tmp, 46 + 3 + 9 + 20);
	ok(get_le16(p + 30) == 9 + 4 + 16 && get_le32(p + 20) == 0xffffffff &&
	   get_le32(p + 24) == 0xffffffff && get_le64(p + 46 + 3 + 9 + 4) ==
	   big && get_le64(p + 46 + 3 + 9 + 12) == big &&
	   get_le32(p + 42) == off_b,
	   "central record of the 4 GiB member: zip64 sizes");
	p = tail_at(&t, cd_off + 58 + 78, tmp, 46 + 1 + 9 + 12);
	ok(get_le16(p + 6) == 10 && get_le16(p + 30) == 9 + 4 + 8 &&
	   get_le32(p + 42) == 0xffffffff &&
	   get_le64(p + 46 + 1 + 9 + 4) == off_c,
	   "central record past 4 GiB: zip64 offset");
	z64_off = cd_off + 58 + 78 + 68;
	p = tail_at(&t, z64_off, tmp, 56 + 20 + 22);
	ok(get_le32(p) == 0x06064b50 && get_le64(p + 32) == 3 &&
	   get_le64(p + 40) == 204 && get_le64(p + 48) == cd_off &&
	   get_le32(p + 56) == 0x07064b50 && get_le64(p + 64) == z64_off &&
	   get_le32(p + 76) == 0x06054b50 && get_le16(p + 86) == 3 &&
	   get_le32(p + 88) == 204 && get_le32(p + 92) == 0xffffffff,
	   "end records for a central directory past 4 GiB");
	ok(t.total == z64_off + 56 + 20 + 22, "huge archive: total size");
	free(t.tail);
	free(zeros);
}

int main(void)
{
	struct ctx cx = { { 0 }, GA_BUF_INIT, 0 };
	char *kinds;

	ga_set_oom_handler(oom);
	ga_set_report_handler(collect_report, &cx.warnings);

	snprintf(cx.scratch, sizeof(cx.scratch), "%s/garchive-zip.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(cx.scratch)) {
		perror("mkdtemp");
		return 1;
	}
	/* Seal git off from the host, as t/lib.sh does. */
	scratch_seal_env(cx.scratch);
	set_tz("UTC");
	cx.have_unzip = run("unzip -v >/dev/null 2>&1") == 0;
	if (!cx.have_unzip)
		diag("unzip not found: archives are not tested with it");
	git_libgit2_init();

	test_dos_time(&cx);
	test_text_bit(&cx);

	kinds = fmt_str("%s/kinds", cx.scratch);
	if (!ok(make_kinds_repo(kinds) == 0, "scratch repository"))
		goto done;
	check_git(&cx, "default level", kinds, "HEAD", "", "", "", -1, 0,
		  "UTC");
	check_git(&cx, "-0", kinds, "HEAD", "", "-0", "", 0, 0, "UTC");
	check_git(&cx, "-1", kinds, "HEAD", "", "-1", "", 1, 0, "UTC");
	check_git(&cx, "-6", kinds, "HEAD", "", "-6", "", 6, 0, "UTC");
	check_git(&cx, "-9", kinds, "HEAD", "", "-9", "", 9, 0, "UTC");
	check_git(&cx, "--prefix=pre/", kinds, "HEAD", "", "--prefix=pre/",
		  "pre/", -1, 0, "UTC");
	check_git(&cx, "--prefix=olde-", kinds, "HEAD", "", "--prefix=olde-",
		  "olde-", -1, 0, "UTC");
	check_git(&cx, "TZ=IST-5:30", kinds, "HEAD", "", "", "", -1, 0,
		  "IST-5:30");
	check_git(&cx, "TZ=America/New_York", kinds, "HEAD", "", "-9", "", 9,
		  0, "America/New_York");
	check_git(&cx, "streamed", kinds, "HEAD",
		  "-c core.bigFileThreshold=1k", "", "", -1, 1024, "UTC");
	check_git(&cx, "streamed -0", kinds, "HEAD",
		  "-c core.bigFileThreshold=1k", "-0", "", 0, 1024, "UTC");
	check_git(&cx, "streamed -1 --prefix", kinds, "HEAD",
		  "-c core.bigFileThreshold=1k", "-1 --prefix=p/", "p/", 1,
		  1024, "UTC");
	check_git(&cx, "a tree: no comment", kinds, "HEAD^{tree}", "", "", "",
		  -1, 0, "UTC");
	check_git(&cx, "a date before 1980", kinds, "old", "", "", "", -1, 0,
		  "UTC");
	check_git(&cx, "an empty tree", kinds, "empty", "", "", "", -1, 0,
		  "UTC");
	check_git(&cx, "an empty tree with a prefix", kinds, "empty", "",
		  "--prefix=x/", "x/", -1, 0, "UTC");

	test_many_entries(&cx);
	test_budget(&cx);
	test_deferred(&cx);
	test_errors(&cx);
	test_huge(&cx);
done:
	free(kinds);
	git_libgit2_shutdown();
	if (!getenv("GARCHIVE_TEST_KEEP"))
		run("rm -rf '%s'", cx.scratch);
	ga_buf_release(&cx.warnings);
	return tap_done();
}

/*
 * odb.c: object databases assembled by garchive (see odb.h for why).
 */
#include "odb.h"
#include "garchive/common.h"
#include "loose.h"
#include "pack-stream.h"
#include "promisor.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"
#include "quote.h"
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <zlib.h>

/* libgit2's own priorities: packs are asked first. */
#define ODB_LOOSE_PRIORITY	1
#define ODB_PACK_PRIORITY	2
/* git follows alternates of alternates this deep. */
#define ODB_MAX_ALTERNATE_DEPTH	5

/* ---- packs ---- */

/*
 * A pack of the directory that git would refuse to use, and why in
 * git's words: told the first time an object its index lists is looked
 * for, where git tells it (at every such look-up).
 */
struct bad_pack {
	char *idx;			/* the index, to open */
	char *why;
	int told;
};

/*
 * libgit2's pack backend, wrapped so that a damaged pack is told as git
 * tells it: a damaged object by its cause and "fatal: packed object <id>
 * (stored in <pack>) is corrupt", under GA_ECORRUPT; an index or pack
 * that git would not use by git's error for it (libgit2 leaves out the
 * same packs, without a word).
 */
struct pack_backend {
	git_odb_backend parent;
	git_odb_backend *packs;		/* libgit2's */
	char *dir;			/* the objects directory */
	char *shown;			/* the same as messages name it */
	int report;			/* tell what git tells about packs */
	int checked;			/* the packs were looked at */
	struct bad_pack *bad;
	size_t nr_bad, alloc_bad;
};

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/*
 * git's check_packed_git_idx(): an index git would read.  Returns NULL,
 * or git's complaint (the caller frees it); *nr is its object count and
 * `trailer` the pack checksum it records.
 */
static char *check_idx(int fd, const char *shown, uint32_t *nr,
		       unsigned char trailer[GIT_OID_RAWSZ])
{
	unsigned char head[8], fan[1024];
	uint64_t size, want_min, want_max;
	uint32_t version = 1, i, prev = 0;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return ga_xstrfmt("cannot stat %s", shown);
	size = (uint64_t)st.st_size;
	if (size < sizeof(fan) + 2 * GIT_OID_RAWSZ)
		return ga_xstrfmt("index file %s is too small", shown);
	if (pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head))
		return ga_xstrfmt("index file %s is too small", shown);
	if (!memcmp(head, "\377tOc", 4)) {
		version = get_be32(head + 4);
		if (version != 2)
			return ga_xstrfmt("index file %s is version %" PRIu32
					  " and is not supported by this "
					  "binary (try upgrading GIT to a "
					  "newer version)", shown, version);
	}
	if (pread(fd, fan, sizeof(fan), version == 2 ? 8 : 0) !=
	    (ssize_t)sizeof(fan))
		return ga_xstrfmt("index file %s is too small", shown);
	for (i = 0; i < 256; i++) {
		uint32_t n = get_be32(fan + 4 * i);

		if (n < prev)
			return ga_xstrfmt("non-monotonic index %s", shown);
		prev = n;
	}
	*nr = prev;
	if (version == 1) {
		if (size != sizeof(fan) + (uint64_t)prev * (GIT_OID_RAWSZ + 4) +
			    2 * GIT_OID_RAWSZ)
			return ga_xstrfmt("wrong index v1 file size in %s",
					  shown);
	} else {
		want_min = 8 + sizeof(fan) +
			   (uint64_t)prev * (GIT_OID_RAWSZ + 8) +
			   2 * GIT_OID_RAWSZ;
		want_max = want_min + (prev ? (uint64_t)(prev - 1) * 8 : 0);
		if (size < want_min || size > want_max)
			return ga_xstrfmt("wrong index v2 file size in %s",
					  shown);
	}
	if (pread(fd, trailer, GIT_OID_RAWSZ,
		  (off_t)(size - 2 * GIT_OID_RAWSZ)) != GIT_OID_RAWSZ)
		return ga_xstrfmt("index file %s is too small", shown);
	return NULL;
}

/*
 * git's open_packed_git_1(): a pack that agrees with its index.
 * Returns NULL or git's complaint (the caller frees it).
 */
static char *check_pack(int fd, const char *shown, uint32_t nr,
			const unsigned char trailer[GIT_OID_RAWSZ])
{
	unsigned char head[12], sum[GIT_OID_RAWSZ];
	struct stat st;
	uint32_t version;

	if (fstat(fd, &st) < 0)
		return ga_xstrfmt("cannot stat %s", shown);
	if (pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head))
		return ga_xstrfmt("file %s is far too short to be a packfile",
				  shown);
	if (memcmp(head, "PACK", 4))
		return ga_xstrfmt("file %s is not a GIT packfile", shown);
	version = get_be32(head + 4);
	if (version != 2 && version != 3)
		return ga_xstrfmt("packfile %s is version %" PRIu32 " and not "
				  "supported (try upgrading GIT to a newer "
				  "version)", shown, version);
	if (get_be32(head + 8) != nr)
		return ga_xstrfmt("packfile %s claims to have %" PRIu32
				  " objects while index indicates %" PRIu32
				  " objects", shown, get_be32(head + 8), nr);
	if (st.st_size < (off_t)sizeof(sum) ||
	    pread(fd, sum, sizeof(sum), st.st_size - (off_t)sizeof(sum)) !=
	    (ssize_t)sizeof(sum))
		return ga_xstrfmt("packfile %s signature is unavailable",
				  shown);
	if (memcmp(sum, trailer, sizeof(sum)))
		return ga_xstrfmt("packfile %s does not match index", shown);
	return NULL;
}

/*
 * Look at the packs of the directory as git does before it uses them:
 * an index git would not read is told at once (git tells it at every
 * look-up), a pack that does not agree with its index is kept for the
 * first look-up of an object its index lists.  Packs whose .pack is
 * missing are not packs to git.
 */
static void check_packs(struct pack_backend *b)
{
	char *dirpath = ga_xstrfmt("%s/pack", b->dir);
	DIR *dir = opendir(dirpath);
	struct dirent *de;

	b->checked = 1;
	while (dir && (de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		char *idx, *pack, *why = NULL, *shown;
		unsigned char trailer[GIT_OID_RAWSZ];
		uint32_t nr = 0;
		struct stat st;
		int fd;

		if (len < 5 || strcmp(de->d_name + len - 4, ".idx"))
			continue;
		idx = ga_xstrfmt("%s/%s", dirpath, de->d_name);
		pack = ga_xstrfmt("%s/%.*s.pack", dirpath, (int)(len - 4),
				  de->d_name);
		if (stat(pack, &st) < 0 || !S_ISREG(st.st_mode) ||
		    (fd = open(idx, O_RDONLY | O_CLOEXEC)) < 0)
			goto next;
		shown = ga_xstrfmt("%s/pack/%s", b->shown, de->d_name);
		why = check_idx(fd, shown, &nr, trailer);
		close(fd);
		free(shown);
		if (why) {
			ga_report(GA_REPORT_ERROR, "%s", why);
			free(why);
			goto next;
		}
		if ((fd = open(pack, O_RDONLY | O_CLOEXEC)) < 0)
			goto next;
		shown = ga_xstrfmt("%s/pack/%.*s.pack", b->shown,
				   (int)(len - 4), de->d_name);
		why = check_pack(fd, shown, nr, trailer);
		close(fd);
		free(shown);
		if (why) {
			GA_ALLOC_GROW(b->bad, b->nr_bad + 1, b->alloc_bad);
			b->bad[b->nr_bad].idx = idx;
			b->bad[b->nr_bad].why = why;
			b->bad[b->nr_bad++].told = 0;
			idx = NULL;
		}
next:
		free(idx);
		free(pack);
	}
	if (dir)
		closedir(dir);
	free(dirpath);
}

static int idx_lists(const char *path, const git_oid *id);

/*
 * Before a look-up of `id`: git looks at the packs first.  After one
 * that found nothing (`error`): tell why a pack that lists `id` was
 * not used.  Returns `error`.
 */
static int pack_lookup(struct pack_backend *b, const git_oid *id, int error)
{
	size_t i;

	if (!b->report)
		return error;
	if (!b->checked)
		check_packs(b);
	if (error != GIT_ENOTFOUND || !id)
		return error;
	for (i = 0; i < b->nr_bad; i++) {
		if (b->bad[i].told || !idx_lists(b->bad[i].idx, id))
			continue;
		ga_report(GA_REPORT_ERROR, "%s", b->bad[i].why);
		b->bad[i].told = 1;
	}
	return error;
}

/*
 * Whether the pack index at `path` (version 1 or 2) lists `id`: the
 * fan-out table gives the range of its first byte, searched by halves.
 */
static int idx_lists(const char *path, const git_oid *id)
{
	unsigned char head[8], fan[1024], sha[GIT_OID_RAWSZ];
	uint32_t lo, hi, first = id->id[0];
	off_t table, width, at;
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, head, sizeof(head), 0) != sizeof(head))
		goto done;
	if (!memcmp(head, "\377tOc", 4) && get_be32(head + 4) == 2) {
		if (pread(fd, fan, sizeof(fan), 8) != sizeof(fan))
			goto done;
		table = 8 + sizeof(fan);
		width = GIT_OID_RAWSZ;
		at = 0;
	} else {
		if (pread(fd, fan, sizeof(fan), 0) != sizeof(fan))
			goto done;
		table = sizeof(fan);
		width = 4 + GIT_OID_RAWSZ;
		at = 4;
	}
	lo = first ? get_be32(fan + 4 * (first - 1)) : 0;
	hi = get_be32(fan + 4 * first);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int cmp;

		if (pread(fd, sha, sizeof(sha), table + (off_t)mid * width + at)
		    != sizeof(sha))
			break;
		cmp = memcmp(id->id, sha, sizeof(sha));
		if (!cmp) {
			found = 1;
			break;
		}
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
done:
	close(fd);
	return found;
}

/* The pack that holds `id`, as messages name it (the caller frees it). */
static char *pack_of(const struct pack_backend *b, const git_oid *id)
{
	char *dirpath = ga_xstrfmt("%s/pack", b->dir), *found = NULL;
	DIR *dir = opendir(dirpath);
	struct dirent *de;

	while (dir && !found && (de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		char *idx;

		if (len < 5 || strcmp(de->d_name + len - 4, ".idx"))
			continue;
		idx = ga_xstrfmt("%s/%s", dirpath, de->d_name);
		if (idx_lists(idx, id))
			found = ga_xstrfmt("%s/pack/%.*s.pack", b->shown,
					   (int)(len - 4), de->d_name);
		free(idx);
	}
	if (dir)
		closedir(dir);
	free(dirpath);
	return found ? found : ga_xstrfmt("%s/pack", b->shown);
}

/*
 * A read of `id` from libgit2's packs failed with `error`: damage (a
 * zlib error or anything but a missing object or a lack of memory or
 * files) becomes GA_ECORRUPT with git's lines.
 */
static int pack_error(const struct pack_backend *b, const git_oid *id,
		      int error)
{
	const git_error *e = git_error_last();
	char hex[GIT_OID_HEXSZ + 1];
	struct ga_buf msg = GA_BUF_INIT;
	char *pack;

	if (error >= 0 || error == GIT_ENOTFOUND || error == GIT_PASSTHROUGH ||
	    error == GIT_EAMBIGUOUS || error == GA_ECORRUPT ||
	    (e && (e->klass == GIT_ERROR_OS || e->klass == GIT_ERROR_NOMEMORY)))
		return error;
	git_oid_tostr(hex, sizeof(hex), id);
	pack = pack_of(b, id);
	/*
	 * zlib's own complaints are told as git's inflate tells them.
	 * libgit2 says "error inflating zlib stream" of a stream that
	 * ends early or at the wrong size, where zlib (and git) see no
	 * error: git says nothing but the "fatal:" line then.
	 */
	if (e && e->klass == GIT_ERROR_ZLIB &&
	    !strcmp(e->message, "error inflating zlib stream"))
		;
	else if (e && e->klass == GIT_ERROR_ZLIB)
		ga_buf_printf(&msg, "inflate: %s (%s)\n",
			      ga_zlib_strerror(Z_DATA_ERROR), e->message);
	else if (e && e->message)
		ga_buf_printf(&msg, "%s\n", e->message);
	error = object_corrupt(&msg, "packed", hex, pack);
	free(pack);
	return error;
}

static git_odb_backend *inner(git_odb_backend *backend)
{
	struct pack_backend *b = (struct pack_backend *)backend;

	b->packs->odb = backend->odb;
	return b->packs;
}

static int pack_read(void **data, size_t *len, git_object_t *type,
		     git_odb_backend *backend, const git_oid *id)
{
	struct pack_backend *b = (struct pack_backend *)backend;
	git_odb_backend *in = inner(backend);
	int error = in->read(data, len, type, in, id);

	return pack_error(b, id, pack_lookup(b, id, error));
}

static int pack_read_header(size_t *len, git_object_t *type,
			    git_odb_backend *backend, const git_oid *id)
{
	struct pack_backend *b = (struct pack_backend *)backend;
	git_odb_backend *in = inner(backend);
	int error = in->read_header(len, type, in, id);

	return pack_error(b, id, pack_lookup(b, id, error));
}

static int pack_read_prefix(git_oid *out, void **data, size_t *len,
			    git_object_t *type, git_odb_backend *backend,
			    const git_oid *prefix, size_t plen)
{
	struct pack_backend *b = (struct pack_backend *)backend;
	git_odb_backend *in = inner(backend);
	int error = in->read_prefix(out, data, len, type, in, prefix, plen);

	return pack_error(b, error ? prefix : out, pack_lookup(b, NULL, error));
}

static int pack_exists(git_odb_backend *backend, const git_oid *id)
{
	struct pack_backend *b = (struct pack_backend *)backend;
	git_odb_backend *in = inner(backend);
	int found = in->exists(in, id);

	pack_lookup(b, id, found ? 0 : GIT_ENOTFOUND);
	return found;
}

static int pack_exists_prefix(git_oid *out, git_odb_backend *backend,
			      const git_oid *prefix, size_t len)
{
	struct pack_backend *b = (struct pack_backend *)backend;
	git_odb_backend *in = inner(backend);

	return pack_lookup(b, NULL, in->exists_prefix(out, in, prefix, len));
}

static int pack_refresh(git_odb_backend *backend)
{
	git_odb_backend *in = inner(backend);

	return in->refresh(in);
}

static void pack_free(git_odb_backend *backend)
{
	struct pack_backend *b = (struct pack_backend *)backend;
	size_t i;

	b->packs->free(b->packs);
	for (i = 0; i < b->nr_bad; i++) {
		free(b->bad[i].idx);
		free(b->bad[i].why);
	}
	free(b->bad);
	free(b->dir);
	free(b->shown);
	free(b);
}

/*
 * The packs of `dir`.  libgit2 refuses a pack directory it cannot
 * list; git reads on without those packs, and so does garchive: then
 * *out is NULL.
 */
static int pack_backend_new(git_odb_backend **out, const char *dir,
			    const char *shown, int report)
{
	struct pack_backend *b;
	git_odb_backend *packs = NULL;
	size_t len;

	*out = NULL;
	if (git_odb_backend_pack(&packs, dir) < 0) {
		git_error_clear();
		return 0;
	}
	b = ga_xcalloc(1, sizeof(*b));
	if (git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION) < 0) {
		packs->free(packs);
		free(b);
		return ga_error_from_git(NULL);
	}
	b->packs = packs;
	b->dir = ga_xstrdup(dir);
	b->shown = ga_xstrdup(shown);
	b->report = report;
	len = strlen(b->shown);
	while (len > 1 && b->shown[len - 1] == '/')
		b->shown[--len] = '\0';
	b->parent.read = pack_read;
	b->parent.read_header = pack_read_header;
	b->parent.read_prefix = pack_read_prefix;
	b->parent.exists = pack_exists;
	b->parent.exists_prefix = pack_exists_prefix;
	if (packs->refresh)
		b->parent.refresh = pack_refresh;
	b->parent.free = pack_free;
	*out = &b->parent;
	return 0;
}

/*
 * The backends of one objects directory: the one place a backend is
 * added.  `shown` names the directory in messages (NULL: as it is);
 * with `report` git's complaints about its packs are told.
 */
static int add_objects_dir(git_odb *odb, const char *dir, const char *shown,
			   int alternate, int report)
{
	int (*add)(git_odb *, git_odb_backend *, int) =
		alternate ? git_odb_add_alternate : git_odb_add_backend;
	git_odb_backend *loose = NULL, *pack = NULL;
	int error;

	if ((error = loose_backend_new(&loose, dir, shown)) < 0)
		return error;
	if (add(odb, loose, ODB_LOOSE_PRIORITY) < 0) {
		loose->free(loose);
		return ga_error_from_git("cannot open the object database");
	}
	if ((error = pack_backend_new(&pack, dir, shown ? shown : dir,
				      report)) < 0)
		return error;
	if (pack && add(odb, pack, ODB_PACK_PRIORITY) < 0) {
		pack->free(pack);
		return ga_error_from_git("cannot open the object database");
	}
	return 0;
}

/* Alternates as git's link_alt_odb_entries() follows them. */
struct alternates {
	git_odb *odb;
	char *main_dir;			/* the main objects directory, real */
	char **dirs;			/* directories added, normalized */
	size_t nr, alloc;
	int report;
};

static void alternates_release(struct alternates *alt)
{
	size_t i;

	for (i = 0; i < alt->nr; i++)
		free(alt->dirs[i]);
	free(alt->dirs);
	free(alt->main_dir);
}

static void complain(const struct alternates *alt, const char *fmt,
		     const char *arg)
{
	if (alt->report)
		ga_report(GA_REPORT_ERROR, fmt, arg);
}

static int read_alternates(struct alternates *alt, const char *base,
			   int depth);

/* Whether `dir` is new: neither the main directory nor one added. */
static int is_new_dir(const struct alternates *alt, const char *dir)
{
	size_t i;

	if (!strcmp(dir, alt->main_dir))
		return 0;
	for (i = 0; i < alt->nr; i++)
		if (!strcmp(dir, alt->dirs[i]))
			return 0;
	return 1;
}

/*
 * git's strbuf_realpath(): links resolved, where the last component
 * may be missing.  Returns 0 or -1.
 */
static int resolve_path(char out[PATH_MAX], const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ok;

	if (realpath(path, out))
		return 0;
	if (errno != ENOENT || !slash || !slash[1])
		return -1;
	dir = slash == path ? ga_xstrdup("/")
			    : ga_xstrndup(path, (size_t)(slash - path));
	ok = realpath(dir, out) != NULL &&
	     strlen(out) + strlen(slash) < PATH_MAX;
	free(dir);
	if (!ok)
		return -1;
	if (strcmp(out, "/"))
		strcat(out, slash);
	else
		strcpy(out, slash);
	return 0;
}

/*
 * One entry of `base`/info/alternates: a relative one is taken from
 * `base`, and links are resolved.
 */
static int link_alternate(struct alternates *alt, const char *entry,
			  const char *base, int depth)
{
	struct ga_buf joined = GA_BUF_INIT;
	char real[PATH_MAX], path[PATH_MAX];
	struct stat st;
	int error = 0;

	if (entry[0] != '/' && realpath(base, real)) {
		ga_buf_puts(&joined, real);
		ga_buf_putc(&joined, '/');
	}
	ga_buf_puts(&joined, entry);
	if (resolve_path(path, joined.ptr) < 0) {
		complain(alt, "unable to normalize alternate object path: %s",
			 joined.ptr);
		goto done;
	}
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		complain(alt, "object directory %s does not exist; check "
			 ".git/objects/info/alternates", path);
		goto done;
	}
	if (!is_new_dir(alt, path))
		goto done;
	if ((error = add_objects_dir(alt->odb, path, NULL, 1, alt->report)) < 0)
		goto done;
	GA_ALLOC_GROW(alt->dirs, alt->nr + 1, alt->alloc);
	alt->dirs[alt->nr++] = ga_xstrdup(path);
	error = read_alternates(alt, path, depth + 1);
done:
	ga_buf_release(&joined);
	return error;
}

/*
 * The entries of `base`/info/alternates, one a line: "#" starts a
 * comment, a line starting with '"' is C-quoted (taken as it is when
 * the quoting is broken), and empty lines are skipped.
 */
static int read_alternates(struct alternates *alt, const char *base,
			   int depth)
{
	struct ga_buf file = GA_BUF_INIT, entry = GA_BUF_INIT;
	char *name = ga_xstrfmt("%s/info/alternates", base);
	const char *p;
	int error = 0;

	if (ga_buf_read_file(&file, name) < 0 || !file.len)
		goto done;
	if (depth > ODB_MAX_ALTERNATE_DEPTH) {
		complain(alt, "%s: ignoring alternate object stores, nesting "
			 "too deep", base);
		goto done;
	}
	for (p = file.ptr; *p && !error; ) {
		const char *end = strchrnul(p, '\n');

		ga_buf_setlen(&entry, 0);
		if (*p == '#' ||
		    !(*p == '"' && ga_unquote_c(&entry, p, &end) == 0))
			ga_buf_put(&entry, p, (size_t)(end - p));
		if (*p != '#' && entry.len)
			error = link_alternate(alt, entry.ptr, base, depth);
		p = *end ? end + 1 : end;
	}
done:
	free(name);
	ga_buf_release(&file);
	ga_buf_release(&entry);
	return error;
}

int odb_open(git_odb **out, const char *objects_dir, const char *shown,
	     int report)
{
	struct alternates alt = { 0 };
	git_odb *odb = NULL;
	char real[PATH_MAX];
	size_t len;
	int error;

	*out = NULL;
	if (git_odb_new(&odb) < 0)
		return ga_error_from_git("cannot open the object database");
	if ((error = add_objects_dir(odb, objects_dir,
				     shown ? shown : objects_dir, 0, report)) < 0)
		goto done;
	alt.odb = odb;
	alt.report = report;
	alt.main_dir = ga_xstrdup(realpath(objects_dir, real) ? real
							      : objects_dir);
	len = strlen(alt.main_dir);
	while (len > 1 && alt.main_dir[len - 1] == '/')
		alt.main_dir[--len] = '\0';
	if ((error = read_alternates(&alt, objects_dir, 0)) < 0)
		goto done;
	*out = odb;
	odb = NULL;
done:
	alternates_release(&alt);
	git_odb_free(odb);
	return error;
}

/* git's name for `repo`'s directory when it found the repository itself. */
static char *git_dir_name(git_repository *repo)
{
	const char *common = git_repository_commondir(repo);
	const char *workdir = git_repository_workdir(repo);
	char cwd[PATH_MAX], real[PATH_MAX];
	size_t len;

	if (workdir && !strncmp(common, workdir, strlen(workdir)) &&
	    !strcmp(common + strlen(workdir), ".git/"))
		return ga_xstrdup(".git");
	if (getcwd(cwd, sizeof(cwd)) && realpath(common, real) &&
	    !strcmp(cwd, real))
		return ga_xstrdup(".");
	len = strlen(common);
	while (len > 1 && common[len - 1] == '/')
		len--;
	return ga_xstrndup(common, len);
}

int odb_install(git_repository *repo, const char *git_dir_shown, int report)
{
	char *objects = ga_xstrfmt("%sobjects", git_repository_commondir(repo));
	char *name = git_dir_shown ? ga_xstrdup(git_dir_shown)
				   : git_dir_name(repo);
	char *shown;
	size_t len = strlen(name);
	git_odb *odb = NULL;
	int error;

	while (len > 1 && name[len - 1] == '/')
		name[--len] = '\0';
	shown = ga_xstrfmt("%s/objects", name);
	if ((error = odb_open(&odb, objects, shown, report)) == 0 &&
	    (error = promisor_backend_add(odb, repo, 0)) == 0 &&
	    git_repository_set_odb(repo, odb) < 0)
		error = ga_error_from_git("cannot open the object database");
	git_odb_free(odb);
	free(shown);
	free(name);
	free(objects);
	return error;
}

const char *odb_shown(git_odb *odb)
{
	size_t i, nr = git_odb_num_backends(odb);

	for (i = 0; i < nr; i++) {
		git_odb_backend *b;
		const char *shown;

		if (git_odb_get_backend(&b, odb, i) == 0 &&
		    (shown = loose_backend_shown(b)))
			return shown;
	}
	return NULL;
}

int odb_corrupt_error(int code)
{
	const git_error *e;

	if (code != GA_ECORRUPT)
		return 0;
	e = git_error_last();
	return ga_error_code(GA_ECORRUPT, "%s",
			     e && e->message ? e->message : "corrupt object");
}

int odb_blob_corrupt_error(int code)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "";
	const char *fatal = strstr(msg, "\nfatal: ");

	if (code != GA_ECORRUPT || !fatal || !loose_damage_in_header(msg))
		return odb_corrupt_error(code);
	return ga_error_code(GA_ECORRUPT, "%.*s\nerror: %s",
			     (int)(fatal - msg), msg, msg);
}

/*
 * A stream is a loose object's (loose.h) or a packed one's
 * (pack-stream.h): exactly one of the two is set.
 */
struct odb_stream {
	struct loose_stream *loose;
	struct pack_stream *pack;
};

/* A stream on `id` from the packs of pack backend `backend`, if any. */
static int pack_stream_of(struct pack_stream **out, uint64_t *len,
			  git_object_t *type, git_odb_backend *backend,
			  const git_oid *id)
{
	struct pack_backend *b = (struct pack_backend *)backend;

	if (backend->free != pack_free)
		return GA_ENOTFOUND;
	return pack_stream_open(out, len, type, b->dir, b->shown, id);
}

int odb_stream_open(struct odb_stream **out, size_t *size, git_object_t *type,
		    git_odb *odb, const git_oid *id)
{
	struct odb_stream *s = ga_xcalloc(1, sizeof(*s));
	size_t i, nr = git_odb_num_backends(odb);
	git_odb_backend *b;
	uint64_t len = 0;
	int error = GIT_ENOTFOUND;

	*out = NULL;
	for (i = 0; i < nr && error == GIT_ENOTFOUND; i++)
		if (git_odb_get_backend(&b, odb, i) == 0)
			error = loose_stream_open(&s->loose, &len, type, b, id);
	if (error == GA_ECORRUPT)
		error = odb_blob_corrupt_error(error);
	if (error == GIT_ENOTFOUND) {
		/* Not loose: a blob stored whole in a pack, as git streams. */
		git_error_clear();
		error = GA_ENOTFOUND;
		for (i = 0; i < nr && error == GA_ENOTFOUND; i++)
			if (git_odb_get_backend(&b, odb, i) == 0)
				error = pack_stream_of(&s->pack, &len, type, b,
						       id);
		if (error == GA_ENOTFOUND)
			error = GIT_ENOTFOUND;
	}
	if (error < 0) {
		odb_stream_free(s);
		return error;
	}
	*size = (size_t)len;
	*out = s;
	return 0;
}

int odb_stream_read(struct odb_stream *s, unsigned char *buf, size_t cap,
		    size_t *nread)
{
	int error;

	if (s->pack)
		return pack_stream_read(s->pack, buf, cap, nread);
	error = loose_stream_read(s->loose, buf, cap, nread);
	if (error == GA_ECORRUPT)
		return odb_corrupt_error(error);
	return error < 0 ? ga_error_from_git(NULL) : 0;
}

void odb_stream_free(struct odb_stream *s)
{
	if (!s)
		return;
	loose_stream_free(s->loose);
	pack_stream_free(s->pack);
	free(s);
}

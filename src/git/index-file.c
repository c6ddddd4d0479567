/*
 * index-file.c: the index file, read as git 2.39 reads it (see
 * index-file.h for what is matched and what is refused).
 */
#include "index-file.h"
#include "garchive/common.h"
#include "odb.h"
#include "pathcheck.h"
#include "rawtree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"

#define INDEX_FILE_HEADER_SIZE	12
/* ctime, mtime (seconds and nanoseconds), dev, ino, mode, uid, gid, size. */
#define INDEX_FILE_STAT_SIZE	40
#define INDEX_FILE_MODE_OFFSET	24
#define INDEX_FILE_NAME_MASK	0x0fffu
/* The extended flags git 2.39 knows; any other bit is refused. */
#define INDEX_FILE_KNOWN_EXTENDED \
	(INDEX_FILE_INTENT_TO_ADD | INDEX_FILE_SKIP_WORKTREE)

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint32_t get_be16(const unsigned char *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/* The error line git prints before it dies with "index file corrupt". */
static int corrupt(const char *fmt, const char *arg, uint32_t n)
{
	if (fmt && arg)
		ga_report(GA_REPORT_ERROR, fmt, arg);
	else if (fmt)
		ga_report(GA_REPORT_ERROR, fmt, n);
	return ga_error_set("index file corrupt");
}

/*
 * git's decode_varint() for the v4 strip length, within [*p, end): on
 * an overflow git returns 0 and leaves *p where it was, and so does
 * this.  Returns 0, or -1 when the number runs past the end.
 */
static int decode_varint(uint64_t *out, const unsigned char **p,
			 const unsigned char *end)
{
	const unsigned char *q = *p;
	uint64_t val;
	unsigned char c;

	if (q >= end)
		return -1;
	c = *q++;
	val = c & 127;
	while (c & 128) {
		val += 1;
		if (!val || (val >> 57)) {
			*out = 0;
			return 0;
		}
		if (q >= end)
			return -1;
		c = *q++;
		val = (val << 7) + (c & 127);
	}
	*out = val;
	*p = q;
	return 0;
}

/*
 * One entry at `p` (git's create_from_disk()), the bytes up to `end`
 * being all there is before the trailing hash; `prev` is the entry
 * before it, for v4's prefix.  Returns 0 with the entry in *e and its
 * size on disk in *used, or GA_ERROR.
 */
static int parse_entry(struct index_file_entry *e, size_t *used,
		       const struct index_file *ix, const unsigned char *p,
		       const unsigned char *end,
		       const struct index_file_entry *prev)
{
	size_t rawsz = ga_hash_rawsz(ix->algo), len, copy_len = 0;
	size_t avail = (size_t)(end - p), suffix_len;
	const unsigned char *name, *nul;
	uint32_t flags;

	if (avail < INDEX_FILE_STAT_SIZE + rawsz + 2)
		return corrupt(NULL, NULL, 0);
	e->mode = get_be32(p + INDEX_FILE_MODE_OFFSET);
	ga_oid_from_raw(&e->id, ix->algo, p + INDEX_FILE_STAT_SIZE);
	flags = get_be16(p + INDEX_FILE_STAT_SIZE + rawsz);
	name = p + INDEX_FILE_STAT_SIZE + rawsz + 2;
	if (flags & INDEX_FILE_EXTENDED) {
		uint32_t ext;

		if ((size_t)(end - name) < 2)
			return corrupt(NULL, NULL, 0);
		ext = get_be16(name) << 16;
		if (ext & ~INDEX_FILE_KNOWN_EXTENDED)
			return ga_error_set("unknown index entry format 0x%08x",
					    ext);
		flags |= ext;
		name += 2;
	}
	len = flags & INDEX_FILE_NAME_MASK;
	e->flags = flags & ~INDEX_FILE_NAME_MASK;

	if (ix->version == 4) {
		uint64_t strip;

		if (decode_varint(&strip, &name, end) < 0)
			return corrupt(NULL, NULL, 0);
		/* The first entry has no previous name to strip. */
		if (prev) {
			if (prev->name_len < strip)
				return ga_error_set("malformed name field in "
						    "the index, near path '%s'",
						    prev->name);
			copy_len = prev->name_len - (size_t)strip;
		}
	}
	if (!(nul = memchr(name, '\0', (size_t)(end - name))))
		return corrupt(NULL, NULL, 0);
	suffix_len = (size_t)(nul - name);
	/* A length of 0xfff means "this long or longer": count it. */
	if (len == INDEX_FILE_NAME_MASK)
		len = copy_len + suffix_len;
	/*
	 * git takes `len` on trust and copies that many bytes whatever the
	 * name holds; a name of another length is damage it would read
	 * past or cut, so it is refused here.
	 */
	if (len < copy_len || len - copy_len != suffix_len)
		return corrupt(NULL, NULL, 0);

	e->name = ga_xmalloc(len + 1);
	if (copy_len)
		memcpy(e->name, prev->name, copy_len);
	memcpy(e->name + copy_len, name, suffix_len);
	e->name[len] = '\0';
	e->name_len = len;

	if (ix->version == 4) {
		*used = (size_t)(nul - p) + 1;
	} else {
		/* Padded with 1 to 8 NULs to a multiple of 8 bytes. */
		size_t fixed = (size_t)(name - p);

		*used = (fixed + len + 8) & ~(size_t)7;
		if (*used > avail) {
			free(e->name);
			e->name = NULL;
			return corrupt(NULL, NULL, 0);
		}
	}
	return 0;
}

/*
 * git's read_link_extension(): the shared index's id, then optionally
 * the delete and the replace bitmap, which must fill the rest.  A link
 * without bitmaps keeps those of an earlier one, as in git.
 */
static int parse_link(struct index_file *ix, const unsigned char *data,
		      uint64_t size, uint64_t avail)
{
	size_t rawsz = ga_hash_rawsz(ix->algo), used, len;

	if (size < rawsz)
		return corrupt("corrupt link extension (too short)", NULL, 0);
	/* git reads the extension past the end of the file here. */
	if (size > avail)
		return corrupt(NULL, NULL, 0);
	/* git's init_split_index() */
	if (ix->sparse)
		return ga_error_set("cannot use split index with a sparse "
				    "index");
	/* A null shared index is no split index (git's check). */
	ga_oid_from_raw(&ix->shared, ix->algo, data);
	ix->split = !ga_oid_is_null(&ix->shared);
	data += rawsz;
	len = (size_t)size - rawsz;
	if (!len)
		return 0;
	if (ewah_read(&ix->delete_bm, &used, data, len) < 0)
		return corrupt("corrupt delete bitmap in link extension",
			       NULL, 0);
	data += used;
	len -= used;
	if (ewah_read(&ix->replace_bm, &used, data, len) < 0)
		return corrupt("corrupt replace bitmap in link extension",
			       NULL, 0);
	if (used != len)
		return corrupt("garbage at the end of link extension",
			       NULL, 0);
	return 0;
}

/* git's read_index_extension(): one extension, `size` bytes at `data`. */
static int parse_extension(struct index_file *ix, const unsigned char *sig,
			   const unsigned char *data, uint64_t size,
			   uint64_t avail)
{
	char name[5];

	memcpy(name, sig, 4);
	name[4] = '\0';
	if (!memcmp(sig, "link", 4))
		return parse_link(ix, data, size, avail);
	if (!memcmp(sig, "sdir", 4)) {
		ix->sparse = 1;
		return 0;
	}
	/*
	 * The cache tree, resolve-undo, untracked cache and fsmonitor data
	 * tell nothing about entries; git parses them within their size,
	 * which must then fit in the file.  The end-of-entries marker and
	 * the offset table matter only to git's threaded read.
	 */
	if (!memcmp(sig, "TREE", 4) || !memcmp(sig, "REUC", 4) ||
	    !memcmp(sig, "UNTR", 4) || !memcmp(sig, "FSMN", 4))
		return size <= avail ? 0 : corrupt(NULL, NULL, 0);
	if (!memcmp(sig, "EOIE", 4) || !memcmp(sig, "IEOT", 4))
		return 0;
	if (sig[0] < 'A' || sig[0] > 'Z')
		return corrupt("index uses %.4s extension, which we do not "
			       "understand", name, 0);
	ga_report(GA_REPORT_PLAIN, "ignoring %.4s extension", name);
	return 0;
}

int index_file_parse(struct index_file *ix, const void *data, size_t size,
		     const char *shown, enum ga_hash_algo algo)
{
	const unsigned char *buf = data, *p, *end;
	size_t rawsz = ga_hash_rawsz(algo), i, used = 0, min_entry;
	uint32_t version, count, sig;
	int error;

	memset(ix, 0, sizeof(*ix));
	ix->algo = algo;
	if (size < INDEX_FILE_HEADER_SIZE + rawsz)
		return ga_error_set("%s: index file smaller than expected",
				    shown);
	if (memcmp(buf, "DIRC", 4)) {
		/*
		 * git prints the signature as the host reads its four
		 * bytes; garchive's hosts are little-endian.
		 */
		sig = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 |
		      (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 24;
		return corrupt("bad signature 0x%08x", NULL, sig);
	}
	version = get_be32(buf + 4);
	if (version < 2 || version > 4)
		return corrupt("bad index version %d", NULL, version);
	ix->version = version;
	count = get_be32(buf + 8);

	/*
	 * The trailing hash is not checked: git 2.39 checks it only in
	 * fsck.  Entries and extensions come before it.
	 */
	p = buf + INDEX_FILE_HEADER_SIZE;
	end = buf + size - rawsz;
	/* What git compares with a split index's link. */
	ga_oid_from_raw(&ix->checksum, algo, end);
	/* No entry is shorter than this: count cannot ask for more. */
	min_entry = INDEX_FILE_STAT_SIZE + rawsz + 4;
	if (count > (size_t)(end - p) / min_entry)
		return corrupt(NULL, NULL, 0);
	ix->alloc = count;
	ix->entries = ga_xcalloc(count ? count : 1, sizeof(*ix->entries));
	for (i = 0; i < count; i++) {
		if ((error = parse_entry(&ix->entries[i], &used, ix, p, end,
					 i ? &ix->entries[i - 1] : NULL)) < 0)
			return error;
		ix->nr++;
		p += used;
	}

	/* git reads extensions while eight bytes are left for a header. */
	while ((size_t)(end - p) >= 8) {
		uint64_t ext_size = get_be32(p + 4);
		uint64_t avail = (uint64_t)(end - p) - 8;

		if ((error = parse_extension(ix, p, p + 8, ext_size,
					     avail)) < 0)
			return error;
		if (ext_size > avail)
			break;
		p += 8 + ext_size;
	}
	return 0;
}

/*
 * git's do_read_index() on one file, without the merge: a missing file
 * is an empty index unless `must_exist`; *missing tells which.
 */
static int read_one(struct index_file *ix, int *missing, const char *path,
		    const char *shown, enum ga_hash_algo algo, int must_exist)
{
	struct ga_buf buf = GA_BUF_INIT;
	int fd, error;

	memset(ix, 0, sizeof(*ix));
	ix->algo = algo;
	*missing = 0;
	if ((fd = open(path, O_RDONLY)) < 0) {
		if (errno == ENOENT && !must_exist) {
			*missing = 1;
			return 0;
		}
		return ga_error_errno(errno, "%s: index file open failed",
				      shown);
	}
	if (ga_buf_read_fd(&buf, fd) < 0) {
		/* git maps the file; a directory cannot be mapped. */
		int err = errno == EISDIR ? ENODEV : errno;

		close(fd);
		ga_buf_release(&buf);
		return ga_error_errno(err, "%s: unable to map index file",
				      shown);
	}
	close(fd);
	error = index_file_parse(ix, buf.ptr ? buf.ptr : "", buf.len, shown,
				 algo);
	ga_buf_release(&buf);
	return error;
}

/* POSIX dirname() of `path`, as git's read_index_from() takes it. */
static char *dir_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t len;

	if (!slash)
		return ga_xstrdup(".");
	len = (size_t)(slash - path);
	while (len && path[len - 1] == '/')
		len--;
	return len ? ga_xstrndup(path, len) : ga_xstrdup("/");
}

/*
 * git's read_index_from() for a split index: the shared index from the
 * git dir, else (when git finds no entries there because there is no
 * file) from beside the index, where it must be; its trailing hash
 * must be the link's id.
 */
static int read_shared(struct index_file *base, const struct index_file *ix,
		       const char *path, const char *shown,
		       const char *gitdir, const char *gitdir_shown)
{
	char hex[GA_OID_MAX_HEXSZ + 1], got[GA_OID_MAX_HEXSZ + 1];
	char *file, *file_shown, *dir = NULL, *dir_shown = NULL;
	int missing, error;

	ga_oid_fmt(hex, &ix->shared);
	file = ga_xstrfmt("%ssharedindex.%s", gitdir, hex);
	file_shown = ga_xstrfmt("%s/sharedindex.%s", gitdir_shown, hex);
	error = read_one(base, &missing, file, file_shown, ix->algo, 0);
	if (!error && missing) {
		char *other, *other_shown;

		dir = dir_name(path);
		dir_shown = dir_name(shown);
		other = ga_xstrfmt("%s/sharedindex.%s", dir, hex);
		other_shown = ga_xstrfmt("%s/sharedindex.%s", dir_shown, hex);
		error = read_one(base, &missing, other, other_shown, ix->algo,
				 1);
		free(other_shown);
		free(other);
	}
	if (!error && !ga_oid_equal(&base->checksum, &ix->shared))
		error = ga_error_set("broken index, expect %s in %s, got %s",
				     hex, file_shown,
				     ga_oid_fmt(got, &base->checksum));
	free(dir_shown);
	free(dir);
	free(file_shown);
	free(file);
	return error;
}

int index_file_read(struct index_file *ix, const char *path,
		    const char *shown, const char *gitdir,
		    const char *gitdir_shown, enum ga_hash_algo algo)
{
	struct index_file base;
	int missing, error;

	if ((error = read_one(ix, &missing, path, shown, algo, 0)) < 0 ||
	    !ix->split)
		return error;
	if ((error = read_shared(&base, ix, path, shown, gitdir,
				 gitdir_shown)) == 0)
		error = index_file_merge(ix, &base);
	index_file_release(&base);
	return error;
}

/* The state of git's merge_base_index() while the bitmaps are walked. */
struct merge {
	struct index_file *out;		/* the shared index's entries */
	struct index_file_entry *saved;	/* the split index's */
	size_t saved_nr, replaced;
	unsigned char *deleted;		/* one flag per entry of out */
};

/* git's replace_entry(): the next nameless entry takes base entry pos. */
static int replace_entry(uint64_t pos, void *payload)
{
	struct merge *m = payload;
	struct index_file_entry *dst, *src;

	if (pos >= m->out->nr)
		return ga_error_set("position for replacement %d exceeds "
				    "base index size %d", (int)pos,
				    (int)m->out->nr);
	if (m->replaced >= m->saved_nr)
		return ga_error_set("too many replacements (%d vs %d)",
				    (int)m->replaced, (int)m->saved_nr);
	dst = &m->out->entries[pos];
	src = &m->saved[m->replaced];
	if (src->name_len)
		return ga_error_set("corrupt link extension, entry %d should "
				    "have zero length name", (int)pos);
	/* git's copy_cache_entry(): all but the name. */
	dst->mode = src->mode;
	dst->flags = src->flags;
	ga_oid_cpy(&dst->id, &src->id);
	m->replaced++;
	return 0;
}

/* git's mark_entry_for_delete() */
static int mark_deleted(uint64_t pos, void *payload)
{
	struct merge *m = payload;

	if (pos >= m->out->nr)
		return ga_error_set("position for delete %d exceeds base "
				    "index size %d", (int)pos,
				    (int)m->out->nr);
	m->deleted[pos] = 1;
	return 0;
}

static int stage_of(const struct index_file_entry *e)
{
	return (int)((e->flags & INDEX_FILE_STAGE_MASK) >>
		     INDEX_FILE_STAGE_SHIFT);
}

static int compare(const char *name, size_t len, int stage,
		   const struct index_file_entry *e);

/*
 * git's add_index_entry() with ADD_CACHE_OK_TO_ADD,
 * ADD_CACHE_KEEP_CACHE_TREE and ADD_CACHE_SKIP_DFCHECK: `e` replaces
 * the entry of its name and stage, else goes where git's binary search
 * puts it, a stage-0 entry first removing the other stages of its
 * name.  Takes e's name in every case.  verify_path() is
 * pathcheck_is_safe(), which also refuses the HFS+ aliases of ".git"
 * that git refuses by default only on macOS.
 */
static void merge_add(struct index_file *out, struct index_file_entry *e)
{
	size_t first = 0, last = out->nr, pos;
	int stage = stage_of(e);

	/* git's shortcut for a path after the last one. */
	if (out->nr && strcmp(e->name, out->entries[out->nr - 1].name) > 0)
		first = out->nr;
	while (last > first) {
		size_t next = first + ((last - first) >> 1);
		int cmp = compare(e->name, e->name_len, stage,
				  &out->entries[next]);

		if (!cmp) {
			free(out->entries[next].name);
			out->entries[next] = *e;
			return;
		}
		if (cmp < 0)
			last = next;
		else
			first = next + 1;
	}
	pos = first;
	if (!stage)
		while (pos < out->nr && out->entries[pos].name_len ==
		       e->name_len && !memcmp(out->entries[pos].name,
					      e->name, e->name_len)) {
			free(out->entries[pos].name);
			memmove(&out->entries[pos], &out->entries[pos + 1],
				(out->nr - pos - 1) * sizeof(*out->entries));
			out->nr--;
		}
	if (!pathcheck_is_safe(e->name, e->mode)) {
		ga_report(GA_REPORT_ERROR, "invalid path '%s'", e->name);
		free(e->name);
		return;
	}
	GA_ALLOC_GROW(out->entries, out->nr + 1, out->alloc);
	memmove(&out->entries[pos + 1], &out->entries[pos],
		(out->nr - pos) * sizeof(*out->entries));
	out->entries[pos] = *e;
	out->nr++;
}

static int nameless(size_t i)
{
	return ga_error_set("corrupt link extension, entry %d should have "
			    "non-zero length name", (int)i);
}

/* 1 if every entry sorts after the one before it, by name and stage. */
static int is_sorted(const struct index_file_entry *v, size_t nr)
{
	size_t i;

	for (i = 1; i < nr; i++)
		if (compare(v[i].name, v[i].name_len, stage_of(&v[i]),
			    &v[i - 1]) <= 0)
			return 0;
	return 1;
}

/*
 * merge_add() for each remaining split entry in one pass, when both
 * lists are sorted (as git writes them): git's binary searches then
 * find the places a merge walk reaches, and this avoids moving the
 * entries after each insertion, quadratic in a large index.  Takes
 * the split entries' names.  Returns 0 or git's error for a nameless
 * entry, whose entries before it are added as git adds them.
 */
static int add_sorted(struct index_file *out, struct merge *m)
{
	struct index_file_entry *res;
	size_t b = 0, k = 0, i, cap = out->nr + (m->saved_nr - m->replaced);
	int error = 0;

	res = ga_xcalloc(cap ? cap : 1, sizeof(*res));
	for (i = m->replaced; i < m->saved_nr; i++) {
		struct index_file_entry *e = &m->saved[i];
		int stage = stage_of(e), cmp = 1;

		if (!e->name_len) {
			error = nameless(i);
			break;
		}
		while (b < out->nr && (cmp = compare(e->name, e->name_len,
						     stage,
						     &out->entries[b])) > 0)
			res[k++] = out->entries[b++];
		if (b < out->nr && !cmp) {
			free(out->entries[b++].name);
			res[k++] = *e;
			e->name = NULL;
			continue;
		}
		/* A stage-0 entry ends the other stages of its path. */
		while (!stage && b < out->nr &&
		       out->entries[b].name_len == e->name_len &&
		       !memcmp(out->entries[b].name, e->name, e->name_len))
			free(out->entries[b++].name);
		if (!pathcheck_is_safe(e->name, e->mode)) {
			ga_report(GA_REPORT_ERROR, "invalid path '%s'",
				  e->name);
			free(e->name);
		} else {
			res[k++] = *e;
		}
		e->name = NULL;
	}
	while (b < out->nr)
		res[k++] = out->entries[b++];
	free(out->entries);
	out->entries = res;
	out->nr = k;
	out->alloc = cap;
	return error;
}

int index_file_merge(struct index_file *ix, struct index_file *base)
{
	struct index_file out;
	struct merge m = { 0 };
	size_t i, kept;
	int error = 0;

	/*
	 * out owns the shared entries, ix->entries the split ones; the
	 * rest of base (its own bitmaps, if any) stays for its release.
	 */
	memset(&out, 0, sizeof(out));
	out.algo = base->algo;
	out.entries = base->entries;
	out.nr = base->nr;
	out.alloc = base->alloc;
	base->entries = NULL;
	base->nr = base->alloc = 0;
	m.out = &out;
	m.saved = ix->entries;
	m.saved_nr = ix->nr;
	m.deleted = ga_xcalloc(out.nr ? out.nr : 1, 1);

	if ((error = ewah_each_bit(&ix->replace_bm, replace_entry, &m)) ||
	    (error = ewah_each_bit(&ix->delete_bm, mark_deleted, &m)))
		goto done;
	for (i = kept = 0; i < out.nr; i++) {
		if (m.deleted[i]) {
			free(out.entries[i].name);
			continue;
		}
		out.entries[kept++] = out.entries[i];
	}
	out.nr = kept;
	for (i = 0; i < m.replaced; i++) {
		free(m.saved[i].name);
		m.saved[i].name = NULL;
	}
	if (is_sorted(out.entries, out.nr) &&
	    is_sorted(m.saved + m.replaced, m.saved_nr - m.replaced)) {
		error = add_sorted(&out, &m);
		goto done;
	}
	for (i = m.replaced; i < m.saved_nr; i++) {
		if (!m.saved[i].name_len) {
			error = nameless(i);
			goto done;
		}
		merge_add(&out, &m.saved[i]);
		m.saved[i].name = NULL;
	}
done:
	if (error > 0)
		error = corrupt(NULL, NULL, 0);
	free(m.deleted);
	/* ix keeps what it read but the entries, which out replaces. */
	for (i = 0; i < ix->nr; i++)
		free(ix->entries[i].name);
	free(ix->entries);
	ix->entries = out.entries;
	ix->nr = out.nr;
	ix->alloc = out.alloc;
	return error;
}

static void add_entry(struct index_file *ix, const struct index_file_entry *e)
{
	GA_ALLOC_GROW(ix->entries, ix->nr + 1, ix->alloc);
	ix->entries[ix->nr++] = *e;
}

/*
 * git's read_tree_at() with add_path_to_index(): every file, link and
 * gitlink below tree `id`, under `base` ("dir/").  Returns 0, 1 when a
 * tree could not be read (git's walk stops there, with its error
 * line), or an error.
 */
static int add_tree(struct index_file *out, git_odb *odb,
		    const struct ga_oid *id, struct ga_buf *base)
{
	struct odb_object *obj = NULL;
	struct rawtree_iter it;
	struct rawtree_entry te;
	char hex[GA_OID_MAX_HEXSZ + 1];
	size_t baselen = base->len;
	int error;

	if ((error = odb_read(&obj, odb, id)) < 0) {
		if (odb_corrupt_error(error) < 0)
			return GA_ECORRUPT;
		git_error_clear();
		ga_report(GA_REPORT_ERROR, "Could not read %s",
			  ga_oid_fmt(hex, id));
		return 1;
	}
	if (odb_object_type(obj) != GIT_OBJECT_TREE) {
		odb_object_free(obj);
		ga_report(GA_REPORT_ERROR, "Object %s not a tree",
			  ga_oid_fmt(hex, id));
		return 1;
	}
	rawtree_iter_init(&it, odb_object_data(obj), odb_object_size(obj),
			  ga_hash_rawsz(out->algo));
	while ((error = rawtree_next(&te, &it)) == 0) {
		ga_buf_put(base, te.name, te.name_len);
		if (te.mode == 0040000) {
			ga_buf_putc(base, '/');
			error = add_tree(out, odb, &te.id, base);
		} else {
			struct index_file_entry e;

			e.name = ga_xstrndup(base->ptr, base->len);
			e.name_len = base->len;
			e.mode = te.mode;
			e.flags = INDEX_FILE_SKIP_WORKTREE |
				  INDEX_FILE_EXTENDED;
			ga_oid_cpy(&e.id, &te.id);
			add_entry(out, &e);
		}
		ga_buf_setlen(base, baselen);
		if (error)
			break;
	}
	odb_object_free(obj);
	return error == GA_ITEROVER ? 0 : error;
}

/* A subtree met by check_tree(): its name below the base and size. */
struct subtree {
	const char *name;
	size_t len;
	size_t count;
};

struct subtrees {
	struct subtree *v;
	size_t nr, alloc;
};

/* git's find_subtree(..., create): the last one of that name wins. */
static struct subtree *find_subtree(struct subtrees *subs, const char *name,
				    size_t len, int create)
{
	size_t i;

	for (i = 0; i < subs->nr; i++)
		if (subs->v[i].len == len &&
		    !memcmp(subs->v[i].name, name, len))
			return &subs->v[i];
	if (!create)
		return NULL;
	GA_ALLOC_GROW(subs->v, subs->nr + 1, subs->alloc);
	subs->v[subs->nr].name = name;
	subs->v[subs->nr].len = len;
	subs->v[subs->nr].count = 0;
	return &subs->v[subs->nr++];
}

/*
 * The error lines of git's update_one() (cache-tree.c), which git's
 * expansion of a sparse index runs on the whole index before and after
 * it: the entries from `first` below `base` (`baselen` bytes), their
 * subtrees first, each entry's object checked.  git also writes the
 * trees it builds; nothing is written here, and a tree git would build
 * is taken to exist.  Returns the entries taken, or -1 after the first
 * "invalid object" line.
 */
static long check_tree(const struct index_file *ix, git_odb *odb, size_t first,
		       const char *base, size_t baselen, int *fatal)
{
	struct subtrees subs = { 0 };
	size_t i, n = ix->nr - first;
	long ret = -1;

	if (n) {
		const struct index_file_entry *e = &ix->entries[first];

		if (e->mode == INDEX_FILE_SPARSE_DIR_MODE &&
		    e->name_len == baselen && !memcmp(e->name, base, baselen))
			return 1;
	}
	for (i = 0; i < n;) {
		const struct index_file_entry *e = &ix->entries[first + i];
		const char *slash;
		struct subtree *sub;
		long cnt;

		if (e->name_len <= baselen || memcmp(base, e->name, baselen))
			break;
		if (!(slash = strchr(e->name + baselen, '/'))) {
			i++;
			continue;
		}
		sub = find_subtree(&subs, e->name + baselen,
				   (size_t)(slash - e->name) - baselen, 1);
		cnt = check_tree(ix, odb, first + i, e->name,
				 (size_t)(slash - e->name) + 1, fatal);
		if (cnt < 0)
			goto done;
		if (!cnt) {
			*fatal = ga_error_set("index cache-tree records empty "
					      "sub-tree");
			goto done;
		}
		/* The table may have moved in the call. */
		sub = find_subtree(&subs, e->name + baselen,
				   (size_t)(slash - e->name) - baselen, 1);
		sub->count = (size_t)cnt;
		i += (size_t)cnt;
	}
	for (i = 0; i < n;) {
		const struct index_file_entry *e = &ix->entries[first + i];
		const struct ga_oid *id = &e->id;
		char hex[GA_OID_MAX_HEXSZ + 1];
		const char *slash;
		uint32_t mode = e->mode;
		size_t entlen;

		if (e->name_len <= baselen || memcmp(base, e->name, baselen))
			break;
		if ((slash = strchr(e->name + baselen, '/'))) {
			struct subtree *sub;

			entlen = (size_t)(slash - e->name) - baselen;
			sub = find_subtree(&subs, e->name + baselen, entlen, 0);
			if (!sub) {
				*fatal = ga_error_set("cache-tree.c: '%.*s' in "
						      "'%s' not found",
						      (int)entlen,
						      e->name + baselen,
						      e->name);
				goto done;
			}
			i += sub->count;
			mode = 0040000;
			/* A tree git builds exists; a sparse one may not. */
			if (e->mode != INDEX_FILE_SPARSE_DIR_MODE ||
			    e->name_len != baselen + entlen + 1)
				continue;
		} else {
			entlen = e->name_len - baselen;
			i++;
		}
		if (ga_oid_is_null(id) ||
		    (mode != 0160000 && odb_exists(odb, id) != 1)) {
			git_error_clear();
			ga_report(GA_REPORT_ERROR,
				  "invalid object %06o %s for '%.*s'",
				  (unsigned)mode, ga_oid_fmt(hex, id),
				  (int)(entlen + baselen), e->name);
			goto done;
		}
	}
	ret = (long)i;
done:
	free(subs.v);
	return ret;
}

/*
 * git's verify_cache(), as cache_tree_update() runs it around the
 * expansion: its lines on stderr, nothing else (git only gives up
 * building the cache tree).  Returns 1 when it found something.
 */
static int verify_cache(const struct index_file *ix)
{
	char hex[GA_OID_MAX_HEXSZ + 1];
	size_t i, funny = 0;

	for (i = 0; i < ix->nr; i++) {
		const struct index_file_entry *e = &ix->entries[i];

		if (!(e->flags & INDEX_FILE_STAGE_MASK))
			continue;
		if (10 < ++funny) {
			ga_report(GA_REPORT_PLAIN, "...");
			break;
		}
		ga_report(GA_REPORT_PLAIN, "%s: unmerged (%s)", e->name,
			  ga_oid_fmt(hex, &e->id));
	}
	if (funny)
		return 1;
	for (i = 0; i + 1 < ix->nr; i++) {
		const struct index_file_entry *a = &ix->entries[i];
		const struct index_file_entry *b = &ix->entries[i + 1];

		if (a->name_len < b->name_len && b->name[a->name_len] == '/' &&
		    !memcmp(a->name, b->name, a->name_len)) {
			if (10 < ++funny) {
				ga_report(GA_REPORT_PLAIN, "...");
				break;
			}
			ga_report(GA_REPORT_PLAIN, "You have both %s and %s",
				  a->name, b->name);
		}
	}
	return funny != 0;
}

/*
 * git's cache_tree_update() on a fresh cache tree, for its lines only:
 * git carries on whatever it finds.  Returns 0 or a fatal error.
 */
static int cache_tree_update(const struct index_file *ix, git_odb *odb)
{
	int fatal = 0;

	if (verify_cache(ix))
		return 0;
	check_tree(ix, odb, 0, "", 0, &fatal);
	return fatal;
}

int index_file_expand(struct index_file *ix, git_odb *odb)
{
	struct index_file full;
	struct ga_buf base = GA_BUF_INIT;
	size_t i;
	int error = 0;

	if (!ix->sparse)
		return 0;
	if ((error = cache_tree_update(ix, odb)) < 0)
		return error;
	memset(&full, 0, sizeof(full));
	full.version = ix->version;
	full.algo = ix->algo;
	for (i = 0; i < ix->nr; i++) {
		struct index_file_entry *e = &ix->entries[i];

		if (error < 0 || e->mode != INDEX_FILE_SPARSE_DIR_MODE) {
			add_entry(&full, e);
			e->name = NULL;
			continue;
		}
		if (!(e->flags & INDEX_FILE_SKIP_WORKTREE))
			ga_warning("index entry is a directory, but not "
				   "sparse (%08x)", e->flags);
		ga_buf_setlen(&base, 0);
		ga_buf_put(&base, e->name, e->name_len);
		error = add_tree(&full, odb, &e->id, &base);
		if (error > 0)
			error = 0;
	}
	ga_buf_release(&base);
	index_file_release(ix);
	*ix = full;
	if (error < 0)
		return error;
	return cache_tree_update(ix, odb);
}

/* git's cache_name_stage_compare(). */
static int compare(const char *name, size_t len, int stage,
		   const struct index_file_entry *e)
{
	size_t min = len < e->name_len ? len : e->name_len;
	int estage = (int)((e->flags & INDEX_FILE_STAGE_MASK) >>
			   INDEX_FILE_STAGE_SHIFT);
	int cmp = memcmp(name, e->name, min);

	if (cmp)
		return cmp;
	if (len != e->name_len)
		return len < e->name_len ? -1 : 1;
	return stage < estage ? -1 : stage > estage;
}

const struct index_file_entry *index_file_find(const struct index_file *ix,
					       const char *path, size_t len,
					       int stage)
{
	size_t first = 0, last = ix->nr, pos;

	/* git's index_name_pos(): where (path, stage 0) is or would go. */
	while (last > first) {
		size_t next = first + ((last - first) >> 1);
		int cmp = compare(path, len, 0, &ix->entries[next]);

		if (!cmp) {
			first = next;
			break;
		}
		if (cmp < 0)
			last = next;
		else
			first = next + 1;
	}
	for (pos = first; pos < ix->nr; pos++) {
		const struct index_file_entry *e = &ix->entries[pos];

		if (e->name_len != len || memcmp(e->name, path, len))
			break;
		if ((int)((e->flags & INDEX_FILE_STAGE_MASK) >>
			  INDEX_FILE_STAGE_SHIFT) != stage)
			continue;
		/* git's reject_tree_in_index(). */
		return e->mode == INDEX_FILE_SPARSE_DIR_MODE ? NULL : e;
	}
	return NULL;
}

void index_file_release(struct index_file *ix)
{
	size_t i;

	if (!ix)
		return;
	for (i = 0; i < ix->nr; i++)
		free(ix->entries[i].name);
	free(ix->entries);
	ix->entries = NULL;
	ix->nr = ix->alloc = 0;
	ewah_release(&ix->delete_bm);
	ewah_release(&ix->replace_bm);
}

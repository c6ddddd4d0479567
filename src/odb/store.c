/*
 * store.c: the object store and its look-up order (see store.h).
 */
#include "odb/store.h"
#include "garchive/common.h"
#include "loose.h"
#include "pack-stream.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"
#include <git2/sys/odb_backend.h>

/*
 * Bytes of delta bases kept for the next delta (git: 96 MiB; libgit2,
 * the reader before the store: 16 MiB, as fast on libarchive's tree
 * with 2.5 MB less private memory than 32 MiB).
 */
#define DELTA_BASE_CACHE_LIMIT	(16u << 20)
/*
 * Buckets of the delta base cache's hash (git's is a hashmap too): it
 * holds thousands of small bases, and is looked up for every object.
 */
#define CACHE_BUCKET_BITS	12
#define CACHE_BUCKETS		(1u << CACHE_BUCKET_BITS)
/* Deltas deeper than this are damage, not a chain git would write. */
#define MAX_DELTA_DEPTH		10000

enum pack_state { PACK_UNCHECKED = 0, PACK_OK, PACK_BAD };

struct pack {
	char *path;			/* the .pack */
	char *shown;			/* the same, as messages name it */
	size_t dir;			/* its objects directory */
	int local;
	time_t mtime;
	unsigned char *idx_map;
	size_t idx_size;
	struct ga_pack_idx idx;
	enum pack_state state;
	char *why;			/* PACK_BAD: git's complaint */
	unsigned char *map;		/* the .pack, once checked */
	size_t size;
	unsigned char *bad;		/* ids of copies found damaged */
	size_t nr_bad, alloc_bad;
};

struct objdir {
	char *dir, *shown;
	git_odb_backend *loose;
};

/*
 * A list of packs a refresh replaced: readers may still walk it, so it
 * lives as long as the store.
 */
struct retired_packs {
	struct pack **packs;
	struct retired_packs *next;
};

struct cache_ent {
	struct pack *pack;
	uint64_t offset;
	unsigned char *data;
	size_t len;
	enum ga_obj_type type;
	struct cache_ent *prev, *next;	/* least recently used first */
	struct cache_ent *hnext;	/* the next in its bucket */
};

struct ga_store {
	enum ga_hash_algo algo;
	size_t rawsz;
	int report;
	struct objdir *dirs;
	size_t nr_dirs, alloc_dirs;
	struct pack **packs;
	size_t nr_packs, alloc_packs;
	struct retired_packs *retired;	/* lists a refresh replaced */
	int scanned;
	pthread_mutex_t lock;		/* the packs list and the cache */
	struct cache_ent *lru, *mru;
	struct cache_ent *buckets[CACHE_BUCKETS];
	size_t cached;
};

/* ---- the delta base cache ---- */

static struct cache_ent **cache_bucket(struct ga_store *s,
				       const struct pack *p, uint64_t offset)
{
	uint64_t h = (offset ^ (uint64_t)(uintptr_t)p) *
		     UINT64_C(0x9e3779b97f4a7c15);

	return &s->buckets[h >> (64 - CACHE_BUCKET_BITS)];
}

static struct cache_ent *cache_find(struct ga_store *s, struct pack *p,
				    uint64_t offset)
{
	struct cache_ent *e;

	for (e = *cache_bucket(s, p, offset); e; e = e->hnext)
		if (e->pack == p && e->offset == offset)
			return e;
	return NULL;
}

static void cache_unlink(struct ga_store *s, struct cache_ent *e)
{
	struct cache_ent **slot = cache_bucket(s, e->pack, e->offset);

	while (*slot != e)
		slot = &(*slot)->hnext;
	*slot = e->hnext;
	if (e->prev)
		e->prev->next = e->next;
	else
		s->lru = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		s->mru = e->prev;
	s->cached -= e->len;
}

/* Take the base at `offset` out of the cache: the caller owns it. */
static int cache_take(struct ga_store *s, struct pack *p, uint64_t offset,
		      unsigned char **data, size_t *len,
		      enum ga_obj_type *type)
{
	struct cache_ent *e;

	pthread_mutex_lock(&s->lock);
	e = cache_find(s, p, offset);
	if (e)
		cache_unlink(s, e);
	pthread_mutex_unlock(&s->lock);
	if (!e)
		return 0;
	*data = e->data;
	*len = e->len;
	*type = e->type;
	free(e);
	return 1;
}

/* Give a base to the cache, which frees the oldest beyond its limit. */
static void cache_put(struct ga_store *s, struct pack *p, uint64_t offset,
		      unsigned char *data, size_t len, enum ga_obj_type type)
{
	struct cache_ent *e;

	if (len > DELTA_BASE_CACHE_LIMIT / 4) {
		free(data);
		return;
	}
	e = ga_xcalloc(1, sizeof(*e));
	e->pack = p;
	e->offset = offset;
	e->data = data;
	e->len = len;
	e->type = type;
	pthread_mutex_lock(&s->lock);
	if (cache_find(s, p, offset)) {
		pthread_mutex_unlock(&s->lock);
		free(data);
		free(e);
		return;
	}
	e->hnext = *cache_bucket(s, p, offset);
	*cache_bucket(s, p, offset) = e;
	e->prev = s->mru;
	if (s->mru)
		s->mru->next = e;
	else
		s->lru = e;
	s->mru = e;
	s->cached += len;
	while (s->cached > DELTA_BASE_CACHE_LIMIT && s->lru != e) {
		struct cache_ent *old = s->lru;

		cache_unlink(s, old);
		free(old->data);
		free(old);
	}
	pthread_mutex_unlock(&s->lock);
}

/* ---- packs ---- */

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static char *idx_complaint(enum ga_idx_error err, uint32_t version,
			   const char *shown)
{
	switch (err) {
	case GA_IDX_VERSION:
		return ga_xstrfmt("index file %s is version %" PRIu32
				  " and is not supported by this binary "
				  "(try upgrading GIT to a newer version)",
				  shown, version);
	case GA_IDX_NON_MONOTONIC:
		return ga_xstrfmt("non-monotonic index %s", shown);
	case GA_IDX_V1_SIZE:
		return ga_xstrfmt("wrong index v1 file size in %s", shown);
	case GA_IDX_V2_SIZE:
		return ga_xstrfmt("wrong index v2 file size in %s", shown);
	default:
		return ga_xstrfmt("index file %s is too small", shown);
	}
}

/* Map a whole file read-only; an empty one maps to nothing. */
static int map_file(unsigned char **map, size_t *size, int fd)
{
	struct stat st;
	void *m;

	*map = NULL;
	*size = 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	if (!st.st_size)
		return 0;
	if ((uint64_t)st.st_size > SIZE_MAX)
		return -1;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	*map = m;
	*size = (size_t)st.st_size;
	return 0;
}

/*
 * Open the index `name` of `dir`, as git's add_packed_git() and
 * check_packed_git_idx(): an index git would not read is told at once
 * (with `report`) and left out.
 */
static void add_pack(struct ga_store *s, size_t dir, const char *name,
		     int report)
{
	const struct objdir *d = &s->dirs[dir];
	int local = dir == 0;
	size_t len = strlen(name);
	char *idx_path = ga_xstrfmt("%s/pack/%s", d->dir, name);
	char *idx_shown = ga_xstrfmt("%s/pack/%s", d->shown, name);
	struct pack *p = ga_xcalloc(1, sizeof(*p));
	enum ga_idx_error err = GA_IDX_TOO_SMALL;
	uint32_t version = 0;
	struct stat st;
	int fd;

	p->path = ga_xstrfmt("%s/pack/%.*s.pack", d->dir, (int)(len - 4), name);
	p->shown = ga_xstrfmt("%s/pack/%.*s.pack", d->shown, (int)(len - 4),
			      name);
	p->local = local;
	p->dir = dir;
	if (stat(p->path, &st) < 0 || !S_ISREG(st.st_mode))
		goto drop;
	p->mtime = st.st_mtime;
	if ((fd = open(idx_path, O_RDONLY | O_CLOEXEC)) < 0)
		goto drop;
	if (map_file(&p->idx_map, &p->idx_size, fd) == 0 && p->idx_map)
		err = ga_pack_idx_parse(&p->idx, p->idx_map, p->idx_size,
					s->rawsz, &version);
	close(fd);
	if (err != GA_IDX_OK) {
		if (report) {
			char *why = idx_complaint(err, version, idx_shown);

			ga_report(GA_REPORT_ERROR, "%s", why);
			free(why);
		}
		goto drop;
	}
	GA_ALLOC_GROW(s->packs, s->nr_packs + 1, s->alloc_packs);
	s->packs[s->nr_packs++] = p;
	p = NULL;
drop:
	if (p) {
		if (p->idx_map)
			munmap(p->idx_map, p->idx_size);
		free(p->path);
		free(p->shown);
		free(p);
	}
	free(idx_path);
	free(idx_shown);
}

/* git's sort_pack(): local packs first, then the newest. */
static int pack_order(const void *a_, const void *b_)
{
	const struct pack *a = *(struct pack *const *)a_;
	const struct pack *b = *(struct pack *const *)b_;

	if (a->local != b->local)
		return a->local ? -1 : 1;
	if (a->mtime != b->mtime)
		return a->mtime > b->mtime ? -1 : 1;
	return strcmp(a->path, b->path);
}

/* Whether the index `name` of directory `dir` is one of the packs. */
static int has_pack(const struct ga_store *s, size_t dir, const char *name)
{
	size_t i, len = strlen(name) - 4, at = strlen(s->dirs[dir].dir) + 6;

	for (i = 0; i < s->nr_packs; i++) {
		const struct pack *p = s->packs[i];

		if (p->dir == dir && strlen(p->path) == at + len + 5 &&
		    !strncmp(p->path + at, name, len))
			return 1;
	}
	return 0;
}

/*
 * Add the indexes of the pack directories not among the packs yet,
 * telling those git would not use with `report`.
 */
static void add_new_packs(struct ga_store *s, int report)
{
	size_t i;

	for (i = 0; i < s->nr_dirs; i++) {
		char *dirpath = ga_xstrfmt("%s/pack", s->dirs[i].dir);
		DIR *dir = opendir(dirpath);
		struct dirent *de;

		while (dir && (de = readdir(dir))) {
			size_t len = strlen(de->d_name);

			if (len > 4 && !strcmp(de->d_name + len - 4, ".idx") &&
			    !has_pack(s, i, de->d_name))
				add_pack(s, i, de->d_name, report);
		}
		if (dir)
			closedir(dir);
		free(dirpath);
	}
	if (s->nr_packs > 1)
		qsort(s->packs, s->nr_packs, sizeof(*s->packs), pack_order);
}

static void scan_packs(struct ga_store *s)
{
	pthread_mutex_lock(&s->lock);
	if (!s->scanned)
		add_new_packs(s, s->report);
	s->scanned = 1;
	pthread_mutex_unlock(&s->lock);
}

/*
 * The packs as a reader walks them: a refresh never changes a list
 * handed out, it puts a new one in its place.
 */
static size_t packs_of(struct ga_store *s, struct pack ***packs)
{
	size_t nr;

	scan_packs(s);
	pthread_mutex_lock(&s->lock);
	*packs = s->packs;
	nr = s->nr_packs;
	pthread_mutex_unlock(&s->lock);
	return nr;
}

void ga_store_refresh(struct ga_store *s)
{
	struct retired_packs *r = ga_xcalloc(1, sizeof(*r));
	size_t nr, alloc;

	scan_packs(s);
	pthread_mutex_lock(&s->lock);
	r->packs = s->packs;
	nr = s->nr_packs;
	alloc = s->alloc_packs;
	s->packs = ga_xcalloc(nr + 1, sizeof(*s->packs));
	s->alloc_packs = nr + 1;
	if (nr)
		memcpy(s->packs, r->packs, nr * sizeof(*s->packs));
	/* Indexes git would not use were told at the first scan. */
	add_new_packs(s, 0);
	if (s->nr_packs == nr) {
		/* Nothing new (a look-up that found nothing): as it was. */
		free(s->packs);
		s->packs = r->packs;
		s->alloc_packs = alloc;
		free(r);
	} else {
		r->next = s->retired;
		s->retired = r;
	}
	pthread_mutex_unlock(&s->lock);
}

/* git's open_packed_git_1(): a pack that agrees with its index. */
static char *check_pack(struct pack *p, const struct ga_store *s)
{
	const unsigned char *m = p->map;

	if (p->size < 12)
		return ga_xstrfmt("file %s is far too short to be a packfile",
				  p->shown);
	if (memcmp(m, "PACK", 4))
		return ga_xstrfmt("file %s is not a GIT packfile", p->shown);
	if (get_be32(m + 4) != 2 && get_be32(m + 4) != 3)
		return ga_xstrfmt("packfile %s is version %" PRIu32 " and not "
				  "supported (try upgrading GIT to a newer "
				  "version)", p->shown, get_be32(m + 4));
	if (get_be32(m + 8) != p->idx.nr)
		return ga_xstrfmt("packfile %s claims to have %" PRIu32
				  " objects while index indicates %" PRIu32
				  " objects", p->shown, get_be32(m + 8),
				  p->idx.nr);
	if (p->size < 12 + s->rawsz)
		return ga_xstrfmt("packfile %s signature is unavailable",
				  p->shown);
	if (memcmp(m + p->size - s->rawsz, ga_pack_idx_pack_checksum(&p->idx),
		   s->rawsz))
		return ga_xstrfmt("packfile %s does not match index",
				  p->shown);
	return NULL;
}

/* Open and check the pack on its first use; 1 when it can be read. */
static int pack_usable(struct ga_store *s, struct pack *p)
{
	int fd;

	pthread_mutex_lock(&s->lock);
	if (p->state == PACK_UNCHECKED) {
		fd = open(p->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || map_file(&p->map, &p->size, fd) < 0)
			p->why = ga_xstrfmt("packfile %s cannot be accessed",
					    p->shown);
		else
			p->why = check_pack(p, s);
		if (fd >= 0)
			close(fd);
		p->state = p->why ? PACK_BAD : PACK_OK;
		/* git tells it at every look-up; once is enough here. */
		if (p->why && s->report)
			ga_report(GA_REPORT_ERROR, "%s", p->why);
	}
	pthread_mutex_unlock(&s->lock);
	return p->state == PACK_OK;
}

static int is_bad_copy(struct ga_store *s, const struct pack *p,
		       const unsigned char *raw)
{
	size_t i;
	int bad = 0;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < p->nr_bad && !bad; i++)
		bad = !memcmp(p->bad + i * s->rawsz, raw, s->rawsz);
	pthread_mutex_unlock(&s->lock);
	return bad;
}

static void mark_bad_copy(struct ga_store *s, struct pack *p,
			  const unsigned char *raw)
{
	pthread_mutex_lock(&s->lock);
	if (p->alloc_bad < (p->nr_bad + 1) * s->rawsz) {
		p->alloc_bad = (p->nr_bad + 8) * 2 * s->rawsz;
		p->bad = ga_xrealloc(p->bad, p->alloc_bad);
	}
	memcpy(p->bad + p->nr_bad++ * s->rawsz, raw, s->rawsz);
	pthread_mutex_unlock(&s->lock);
}

/* A copy of an object in a pack. */
struct entry {
	struct pack *pack;
	uint64_t offset;
};

/*
 * git's find_pack_entry(): the first pack that lists `raw`, whose copy
 * is not known to be damaged and which can be read.  Returns 1, 0 when
 * there is none, or GA_ECORRUPT when git would die of the index.
 */
static int find_entry(struct ga_store *s, const unsigned char *raw,
		      struct entry *e, struct ga_buf *why)
{
	struct pack **packs;
	size_t i, nr = packs_of(s, &packs);

	for (i = 0; i < nr; i++) {
		struct pack *p = packs[i];
		uint32_t pos;

		if (!ga_pack_idx_find(&p->idx, raw, &pos) ||
		    is_bad_copy(s, p, raw) || !pack_usable(s, p))
			continue;
		e->pack = p;
		if (ga_pack_idx_offset(&p->idx, pos, &e->offset) < 0) {
			ga_buf_printf(why, "fatal: offset beyond end of pack "
				      "index for %s (truncated index?)",
				      p->shown);
			return GA_ECORRUPT;
		}
		return 1;
	}
	return 0;
}

/*
 * The bytes of pack `p` at `offset`, as git's use_pack(): git dies of an
 * offset into the trailing checksum or beyond.
 */
static int use_pack(const struct ga_store *s, const struct pack *p,
		    uint64_t offset, const unsigned char **at, size_t *left,
		    struct ga_buf *why)
{
	if (offset >= ((uint64_t)1 << 63)) {
		ga_buf_puts(why, "fatal: offset before end of packfile "
			    "(broken .idx?)");
		return GA_ECORRUPT;
	}
	if (offset > p->size - s->rawsz) {
		ga_buf_puts(why, "fatal: offset beyond end of packfile "
			    "(truncated pack?)");
		return GA_ECORRUPT;
	}
	*at = p->map + offset;
	*left = p->size - (size_t)offset;
	return 0;
}

/* A parsed entry header: where its data (or delta base info) starts. */
struct entry_head {
	enum ga_obj_type type;
	uint64_t size;
	uint64_t data;			/* offset of the zlib stream */
	uint64_t base;			/* deltas: the base entry, 0 if bad */
};

/*
 * Parse the entry at `offset`.  Returns 0; 1 when it is damaged (git's
 * line in `why`); GA_ECORRUPT when git dies of it.
 */
static int read_head(struct ga_store *s, struct pack *p, uint64_t offset,
		     struct entry_head *h, struct ga_buf *why)
{
	const unsigned char *at;
	size_t left, used;
	int error;

	if ((error = use_pack(s, p, offset, &at, &left, why)) < 0)
		return error;
	used = ga_pack_entry_header(at, left, &h->type, &h->size);
	if (!used) {
		ga_buf_puts(why, "error: bad object header\n");
		return 1;
	}
	h->data = offset + used;
	h->base = 0;
	if (h->type == GA_OBJ_OFS_DELTA) {
		size_t n = 0;

		h->base = ga_pack_ofs_base(at + used, left - used, offset, &n);
		h->data += n;
	} else if (h->type == GA_OBJ_REF_DELTA) {
		uint32_t pos;

		if (left - used >= s->rawsz &&
		    ga_pack_idx_find(&p->idx, at + used, &pos) &&
		    ga_pack_idx_offset(&p->idx, pos, &h->base) < 0)
			h->base = 0;
		h->data += s->rawsz;
	} else if (h->type < GA_OBJ_COMMIT || h->type > GA_OBJ_TAG) {
		ga_buf_printf(why, "error: unknown object type %d at offset "
			      "%" PRIu64 " in %s\n", (int)h->type, offset,
			      p->shown);
		return 1;
	}
	if (h->type >= GA_OBJ_OFS_DELTA && !h->base) {
		ga_buf_printf(why, "error: failed to validate delta base "
			      "reference at offset %" PRIu64 " from %s\n",
			      h->data, p->shown);
		return 1;
	}
	return 0;
}

/*
 * Inflate `size` bytes of the stream at `data` into `out`.  Returns 0,
 * 1 when the copy is damaged, GA_ECORRUPT when git dies.
 */
static int inflate_entry(struct ga_store *s, struct pack *p, uint64_t data,
			 unsigned char *out, uint64_t size, struct ga_buf *why)
{
	const unsigned char *at;
	const char *zmsg = NULL;
	size_t left;
	int error, zstatus = 0;

	if ((error = use_pack(s, p, data, &at, &left, why)) < 0)
		return error;
	switch (ga_pack_inflate(out, size, at, left, &zstatus, &zmsg)) {
	case GA_INFLATE_OK:
		return 0;
	case GA_INFLATE_ZLIB:
		ga_buf_printf(why, "error: inflate: %s (%s)\n",
			      ga_zlib_strerror(zstatus),
			      zmsg ? zmsg : "no message");
		return 1;
	case GA_INFLATE_TRUNCATED:
		ga_buf_puts(why, "fatal: offset beyond end of packfile "
			    "(truncated pack?)");
		return GA_ECORRUPT;
	default:
		return 1;
	}
}

/* Whether a stream of the bytes from `data` to the end could make `size`. */
static int size_possible(const struct pack *p, uint64_t data, uint64_t size)
{
	return data < p->size &&
	       loose_size_possible(size, p->size - data) &&
	       size < SIZE_MAX - 1;
}

/*
 * The object of the entry at `offset` whole, as git's unpack_entry():
 * down the chain of deltas to its base (or one in the cache), then the
 * deltas applied in turn.  Returns 0 with *out (from `a`: the last
 * delta is applied right into it), 1 when the copy is damaged, with
 * git's lines in *out (malloc'd), GA_ECORRUPT when git dies.
 */
static int unpack_entry(struct ga_store *s, struct pack *p, uint64_t offset,
			const struct ga_store_alloc *a, unsigned char **out,
			size_t *len, enum ga_obj_type *type)
{
	struct entry_head *chain = NULL;
	size_t nr = 0, alloc = 0;
	unsigned char *data = NULL;
	size_t data_len = 0;
	uint64_t at = offset;
	int error = 0;
	struct ga_buf why_lines = GA_BUF_INIT;

	for (;;) {
		struct entry_head h;

		if (cache_take(s, p, at, &data, &data_len, type))
			break;
		if ((error = read_head(s, p, at, &h, &why_lines)) != 0)
			goto done;
		if (h.type < GA_OBJ_OFS_DELTA) {
			if (!size_possible(p, h.data, h.size)) {
				error = 1;
				goto done;
			}
			data = ga_xmalloc((size_t)h.size + 1);
			if ((error = inflate_entry(s, p, h.data, data, h.size,
						   &why_lines)) != 0)
				goto done;
			data[h.size] = '\0';
			data_len = (size_t)h.size;
			*type = h.type;
			break;
		}
		if (nr >= MAX_DELTA_DEPTH) {
			error = 1;
			goto done;
		}
		GA_ALLOC_GROW(chain, nr + 1, alloc);
		chain[nr++] = h;
		chain[nr - 1].base = at;	/* remember the delta's own offset */
		at = h.base;
	}
	if (!nr) {
		/* The object itself was a cached base. */
		unsigned char *copy = a->alloc(a->ctx, data_len + 1);

		memcpy(copy, data, data_len + 1);
		free(data);
		data = copy;
	}
	while (nr) {
		struct entry_head *d = &chain[--nr];
		unsigned char *delta, *result = NULL;
		size_t result_len = 0;
		int applied;

		if (!size_possible(p, d->data, d->size)) {
			error = 1;
			goto done;
		}
		delta = ga_xmalloc((size_t)d->size + 1);
		error = inflate_entry(s, p, d->data, delta, d->size, &why_lines);
		if (error) {
			free(delta);
			if (error == 1)
				ga_buf_printf(&why_lines, "error: failed to "
					      "unpack compressed delta at "
					      "offset %" PRIu64 " from %s\n",
					      d->data, p->shown);
			goto done;
		}
		if (nr)
			applied = ga_delta_apply(&result, &result_len, data,
						 data_len, delta,
						 (size_t)d->size);
		else
			applied = ga_delta_apply_alloc(&result, &result_len,
						       data, data_len, delta,
						       (size_t)d->size,
						       a->alloc, a->ctx);
		free(delta);
		if (applied < 0) {
			if (applied == GA_DELTA_WILD)
				ga_buf_puts(&why_lines, "error: delta replay "
					    "has gone wild\n");
			else if (applied == GA_DELTA_OPCODE_0)
				ga_buf_puts(&why_lines, "error: unexpected "
					    "delta opcode 0\n");
			ga_buf_puts(&why_lines, "error: failed to apply delta\n");
			error = 1;
			goto done;
		}
		cache_put(s, p, at, data, data_len, *type);
		data = result;
		data_len = result_len;
		at = d->base;
	}
	*out = data;
	*len = data_len;
	data = NULL;
done:
	free(data);
	free(chain);
	if (error) {
		/* Hand the lines over; the caller words the result. */
		*out = (unsigned char *)ga_buf_detach(&why_lines, len);
		if (!*out) {
			*out = (unsigned char *)ga_xstrdup("");
			*len = 0;
		}
	}
	ga_buf_release(&why_lines);
	return error;
}

/* ---- loose objects ---- */

/*
 * The loose copy, as git's open_loose_object(): the first directory
 * whose file opens serves it.  Returns its backend, or NULL.
 */
static git_odb_backend *loose_dir_of(struct ga_store *s,
				     const struct ga_oid *id)
{
	size_t i;

	for (i = 0; i < s->nr_dirs; i++) {
		git_odb_backend *b = s->dirs[i].loose;

		if (loose_has(b, id))
			return b;
	}
	return NULL;
}

/* ---- look-ups ---- */

/*
 * Report the lines kept for damaged copies, one call a line.  A store
 * without `report` (a prefetch worker's second handle) prints nothing:
 * the walk's own store meets the same damage and prints it once, in
 * git's order, whatever the threads' timing.
 */
static void report_lines(const struct ga_store *s, struct ga_buf *why)
{
	const char *p = s->report ? why->ptr : NULL;

	while (p && *p) {
		const char *nl = strchrnul(p, '\n');

		if (!strncmp(p, "error: ", 7))
			p += 7;
		ga_report(GA_REPORT_ERROR, "%.*s", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
	ga_buf_setlen(why, 0);
}

/*
 * No copy served: git dies, naming the object's damaged copy, after the
 * lines of the copies it tried (printed as it met them).  With
 * GA_ECORRUPT git died at once: the lines end in its fatal line.
 */
static int all_copies_failed(struct ga_store *s, const struct ga_oid *id,
			     struct ga_buf *why, int error)
{
	char hex[GA_OID_MAX_HEXSZ + 1];
	struct pack **packs;
	size_t i, nr;

	if (error == GA_ECORRUPT) {
		const char *fatal = why->ptr ? strrchr(why->ptr, '\n') : NULL;
		char *last = ga_xstrdup(fatal ? fatal + 1 : why->ptr ? why->ptr
								   : "");

		ga_buf_setlen(why, fatal ? (size_t)(fatal - why->ptr) + 1 : 0);
		report_lines(s, why);
		ga_buf_release(why);
		git_error_set_str(GIT_ERROR_ODB, last);
		free(last);
		return GA_ECORRUPT;
	}
	report_lines(s, why);
	ga_buf_release(why);
	ga_oid_fmt(hex, id);
	nr = packs_of(s, &packs);
	for (i = 0; i < nr; i++)
		if (is_bad_copy(s, packs[i], id->id)) {
			struct ga_buf lines = GA_BUF_INIT;

			return object_corrupt(&lines, "packed", hex,
					      packs[i]->shown);
		}
	return GA_ENOTFOUND;
}

/*
 * A store without `report` that met a damaged copy on its way to a good
 * one fails the look-up (GA_ERROR) rather than serve it: git's lines
 * for the damage would be lost, so the reader is to ask the reporting
 * store, which prints them.  Returns 0 otherwise.
 */
static int damage_unreported(const struct ga_store *s, struct ga_buf *why)
{
	if (s->report || !why->ptr || !*why->ptr)
		return 0;
	ga_buf_release(why);
	return ga_error_set("damaged copy met without report");
}

/*
 * One look-up in git's order (see store.h): `packed` tries a copy in a
 * pack (0: it served, 1: damaged, with git's lines in `why`, or an
 * error git dies of), `loose` the loose copy, which decides.
 */
struct lookup {
	int (*packed)(struct lookup *l, struct ga_store *s, struct pack *p,
		      uint64_t offset, struct ga_buf *why);
	int (*loose)(struct lookup *l, git_odb_backend *b,
		     const struct ga_oid *id);
};

static int look_up(struct ga_store *s, const struct ga_oid *id,
		   struct lookup *l)
{
	struct ga_buf why = GA_BUF_INIT;
	git_odb_backend *b;
	struct entry e;
	int found, error;

	while ((found = find_entry(s, id->id, &e, &why)) == 1) {
		error = l->packed(l, s, e.pack, e.offset, &why);
		if (error <= 0) {
			if (error < 0)
				return all_copies_failed(s, id, &why, error);
			if ((error = damage_unreported(s, &why)) < 0)
				return error;
			report_lines(s, &why);
			ga_buf_release(&why);
			return 0;
		}
		/*
		 * Not marked in a store without `report`: a later look-up
		 * there would skip the copy and serve the next one, and
		 * the lines for the damage would never be printed.
		 */
		if ((error = damage_unreported(s, &why)) < 0)
			return error;
		mark_bad_copy(s, e.pack, id->id);
	}
	if (found < 0)
		return all_copies_failed(s, id, &why, found);
	if ((b = loose_dir_of(s, id))) {
		if ((error = damage_unreported(s, &why)) < 0)
			return error;
		report_lines(s, &why);
		ga_buf_release(&why);
		return l->loose(l, b, id);
	}
	return all_copies_failed(s, id, &why, 0);
}

struct whole_read {
	struct lookup l;
	const struct ga_store_alloc *a;
	void **data;
	size_t *len;
	enum ga_obj_type *type;
};

/*
 * An object stored whole (most blobs of a tree git packed) is inflated
 * right into the caller's buffer.  Returns 0, 1 when damaged, an error
 * git dies of, or 2 when the entry is a delta or a cached base.
 */
static int whole_entry(struct whole_read *r, struct ga_store *s,
		       struct pack *p, uint64_t offset, struct ga_buf *why)
{
	struct entry_head h;
	unsigned char *data;
	int error;

	pthread_mutex_lock(&s->lock);
	error = cache_find(s, p, offset) != NULL;
	pthread_mutex_unlock(&s->lock);
	if (error)
		return 2;
	if ((error = read_head(s, p, offset, &h, why)) != 0)
		return error;
	if (h.type >= GA_OBJ_OFS_DELTA)
		return 2;
	if (!size_possible(p, h.data, h.size))
		return 1;
	data = r->a->alloc(r->a->ctx, (size_t)h.size + 1);
	if ((error = inflate_entry(s, p, h.data, data, h.size, why)) != 0) {
		r->a->release(r->a->ctx, data);
		return error;
	}
	data[h.size] = '\0';
	*r->data = data;
	*r->len = (size_t)h.size;
	*r->type = h.type;
	return 0;
}

static int whole_packed(struct lookup *l, struct ga_store *s, struct pack *p,
			uint64_t offset, struct ga_buf *why)
{
	struct whole_read *r = (struct whole_read *)l;
	unsigned char *obj;
	size_t obj_len;
	int error = whole_entry(r, s, p, offset, why);

	if (error != 2)
		return error;
	error = unpack_entry(s, p, offset, r->a, &obj, &obj_len, r->type);
	if (error) {
		ga_buf_put(why, obj, obj_len);
		free(obj);
		return error;
	}
	*r->data = obj;
	*r->len = obj_len;
	return 0;
}

static int whole_loose(struct lookup *l, git_odb_backend *b,
		       const struct ga_oid *id)
{
	struct whole_read *r = (struct whole_read *)l;
	git_object_t t = GIT_OBJECT_INVALID;
	int error = loose_read_object(b, id, r->a, r->data, r->len, &t);

	*r->type = (enum ga_obj_type)t;
	return error;
}

int ga_store_read(struct ga_store *s, const struct ga_oid *id,
		  const struct ga_store_alloc *a, void **data, size_t *len,
		  enum ga_obj_type *type)
{
	struct whole_read r = { { whole_packed, whole_loose }, a, data, len,
				type };

	return look_up(s, id, &r.l);
}

/*
 * git's packed_object_info() for type and size: the header, for a delta
 * the size its data names and the type of the base at the end of the
 * chain.  Returns 0, 1 when damaged, GA_ECORRUPT.
 */
static int entry_info(struct ga_store *s, struct pack *p, uint64_t offset,
		      size_t *len, enum ga_obj_type *type, struct ga_buf *why)
{
	struct entry_head h;
	unsigned char head[20];
	const unsigned char *at, *dp, *end;
	uint64_t size;
	size_t left, depth = 0;
	long got;
	int error;

	if ((error = read_head(s, p, offset, &h, why)) != 0)
		return error;
	if (h.type < GA_OBJ_OFS_DELTA) {
		*len = (size_t)h.size;
		*type = h.type;
		return 0;
	}
	if ((error = use_pack(s, p, h.data, &at, &left, why)) < 0)
		return error;
	got = ga_pack_inflate_head(head, sizeof(head), at, left);
	dp = head;
	end = head + (got > 0 ? got : 0);
	if (got < 0 || ga_delta_size(&dp, end, &size) < 0 ||
	    ga_delta_size(&dp, end, &size) < 0) {
		ga_buf_puts(why, "error: delta data unpack-initial failed\n");
		return 1;
	}
	if (!size)
		return 1;
	*len = (size_t)size;
	while (h.type >= GA_OBJ_OFS_DELTA) {
		if (++depth > MAX_DELTA_DEPTH)
			return 1;
		if ((error = read_head(s, p, h.base, &h, why)) != 0)
			return error;
	}
	*type = h.type;
	return 0;
}

struct header_read {
	struct lookup l;
	size_t *len;
	enum ga_obj_type *type;
};

static int header_packed(struct lookup *l, struct ga_store *s,
			 struct pack *p, uint64_t offset, struct ga_buf *why)
{
	struct header_read *r = (struct header_read *)l;

	return entry_info(s, p, offset, r->len, r->type, why);
}

static int header_loose(struct lookup *l, git_odb_backend *b,
			const struct ga_oid *id)
{
	struct header_read *r = (struct header_read *)l;
	git_object_t t = GIT_OBJECT_INVALID;
	int error = loose_read_object_header(b, id, r->len, &t);

	*r->type = (enum ga_obj_type)t;
	return error;
}

int ga_store_read_header(struct ga_store *s, const struct ga_oid *id,
			 size_t *len, enum ga_obj_type *type)
{
	struct header_read r = { { header_packed, header_loose }, len, type };

	return look_up(s, id, &r.l);
}

int ga_store_exists(struct ga_store *s, const struct ga_oid *id)
{
	struct pack **packs;
	size_t i, nr = packs_of(s, &packs);

	for (i = 0; i < nr; i++) {
		uint32_t pos;

		if (ga_pack_idx_find(&packs[i]->idx, id->id, &pos) &&
		    pack_usable(s, packs[i]))
			return 1;
	}
	return loose_dir_of(s, id) != NULL;
}

/* Note `cand` as a match; GA_EAMBIGUOUS_ID on a second, different one. */
static int one_match(struct ga_oid *out, int *have, const struct ga_oid *cand)
{
	if (*have && !ga_oid_equal(out, cand))
		return GA_EAMBIGUOUS_ID;
	*out = *cand;
	*have = 1;
	return 0;
}

int ga_store_find_prefix(struct ga_store *s, const struct ga_oid *prefix,
			 size_t nibbles, struct ga_oid *out)
{
	int have = 0, error;
	struct pack **packs;
	size_t i, nr = packs_of(s, &packs);

	for (i = 0; i < nr; i++) {
		struct pack *p = packs[i];
		struct ga_oid cand;
		uint32_t pos;

		if (!ga_pack_idx_find_prefix(&p->idx, prefix->id, nibbles, &pos)
		    || !pack_usable(s, p))
			continue;
		for (; ga_pack_idx_matches(&p->idx, pos, prefix->id, nibbles);
		     pos++) {
			ga_oid_from_raw(&cand, s->algo,
					ga_pack_idx_name(&p->idx, pos));
			if ((error = one_match(out, &have, &cand)) < 0)
				return error;
		}
	}
	for (i = 0; i < s->nr_dirs; i++) {
		struct ga_oid cand;

		error = loose_find_prefix(s->dirs[i].loose, prefix, nibbles,
					  &cand);
		if (error == GIT_EAMBIGUOUS)
			return GA_EAMBIGUOUS_ID;
		if (error < 0)
			continue;
		if ((error = one_match(out, &have, &cand)) < 0)
			return error;
	}
	return have ? 0 : GA_ENOTFOUND;
}

/* ---- streams ---- */

struct ga_store_stream {
	struct loose_stream *loose;
	struct pack_stream *pack;
};

struct stream_open {
	struct lookup l;
	const struct ga_oid *id;
	struct ga_store_stream *st;
	uint64_t *size;
	git_object_t type;
	int delta;			/* the copy is a delta: read it whole */
};

/*
 * A copy stored whole is streamed from its pack (pack-stream.h), from
 * the offset its index gave, whatever the hash.
 */
static int stream_packed(struct lookup *l, struct ga_store *s,
			 struct pack *p, uint64_t offset, struct ga_buf *why)
{
	struct stream_open *r = (struct stream_open *)l;
	char hex[GA_OID_MAX_HEXSZ + 1];
	struct pack_stream_entry at;
	struct entry_head h;
	int error = read_head(s, p, offset, &h, why);

	if (error)
		return error;
	if (h.type >= GA_OBJ_OFS_DELTA) {
		r->delta = 1;
		return 0;
	}
	at.path = p->path;
	at.shown = p->shown;
	at.pack_size = p->size;
	at.checksum = ga_pack_idx_pack_checksum(&p->idx);
	at.rawsz = s->rawsz;
	at.offset = offset;
	at.hex = ga_oid_fmt(hex, r->id);
	r->st = ga_xcalloc(1, sizeof(*r->st));
	error = pack_stream_open(&r->st->pack, r->size, &r->type, &at);
	if (error == GA_ENOTFOUND)
		r->delta = 1;
	return error == GA_ENOTFOUND ? 0 : error;
}

static int stream_loose(struct lookup *l, git_odb_backend *b,
			const struct ga_oid *id)
{
	struct stream_open *r = (struct stream_open *)l;
	int error;

	r->st = ga_xcalloc(1, sizeof(*r->st));
	error = loose_stream_open(&r->st->loose, r->size, &r->type, b, id);
	return error == GIT_ENOTFOUND ? GA_ENOTFOUND : error;
}

/*
 * git's open_istream(): the copy oid_object_info() finds, streamed when
 * it is loose or stored whole in a pack.
 */
int ga_store_stream_open(struct ga_store_stream **out, struct ga_store *s,
			 const struct ga_oid *id, uint64_t *size,
			 enum ga_obj_type *type)
{
	struct stream_open r = { { stream_packed, stream_loose } };
	int error;

	*out = NULL;
	r.id = id;
	r.size = size;
	error = look_up(s, id, &r.l);
	if (error < 0 || r.delta) {
		ga_store_stream_free(r.st);
		return error < 0 ? error : GA_ENOTFOUND;
	}
	*type = (enum ga_obj_type)r.type;
	*out = r.st;
	return 0;
}

int ga_store_stream_packed(const struct ga_store_stream *st)
{
	return st->pack != NULL;
}

int ga_store_stream_read(struct ga_store_stream *st, unsigned char *buf,
			 size_t cap, size_t *nread)
{
	if (st->pack)
		return pack_stream_read(st->pack, buf, cap, nread);
	return loose_stream_read(st->loose, buf, cap, nread);
}

void ga_store_stream_free(struct ga_store_stream *st)
{
	if (!st)
		return;
	loose_stream_free(st->loose);
	pack_stream_free(st->pack);
	free(st);
}

/* ---- the store ---- */

struct ga_store *ga_store_new(enum ga_hash_algo algo, int report)
{
	struct ga_store *s = ga_xcalloc(1, sizeof(*s));

	s->algo = algo;
	s->rawsz = ga_hash_rawsz(algo);
	s->report = report;
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

int ga_store_add_dir(struct ga_store *s, const char *dir, const char *shown)
{
	struct objdir d = { 0 };
	size_t len;
	int error;

	if ((error = loose_backend_new(&d.loose, dir, shown)) < 0)
		return error;
	d.dir = ga_xstrdup(dir);
	d.shown = ga_xstrdup(shown ? shown : dir);
	len = strlen(d.shown);
	while (len > 1 && d.shown[len - 1] == '/')
		d.shown[--len] = '\0';
	GA_ALLOC_GROW(s->dirs, s->nr_dirs + 1, s->alloc_dirs);
	s->dirs[s->nr_dirs++] = d;
	return 0;
}

enum ga_hash_algo ga_store_algo(const struct ga_store *s)
{
	return s->algo;
}

const char *ga_store_shown(const struct ga_store *s)
{
	return s->nr_dirs ? loose_backend_shown(s->dirs[0].loose) : NULL;
}

static void pack_free(struct pack *p)
{
	if (p->idx_map)
		munmap(p->idx_map, p->idx_size);
	if (p->map)
		munmap(p->map, p->size);
	free(p->path);
	free(p->shown);
	free(p->why);
	free(p->bad);
	free(p);
}

void ga_store_free(struct ga_store *s)
{
	size_t i;

	if (!s)
		return;
	while (s->lru) {
		struct cache_ent *e = s->lru;

		cache_unlink(s, e);
		free(e->data);
		free(e);
	}
	for (i = 0; i < s->nr_packs; i++)
		pack_free(s->packs[i]);
	for (i = 0; i < s->nr_dirs; i++) {
		s->dirs[i].loose->free(s->dirs[i].loose);
		free(s->dirs[i].dir);
		free(s->dirs[i].shown);
	}
	free(s->packs);
	while (s->retired) {
		struct retired_packs *r = s->retired;

		s->retired = r->next;
		free(r->packs);
		free(r);
	}
	free(s->dirs);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/*
 * packed.c: the packed-refs file (see packed.h).
 */
#include "refs/packed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "garchive/common.h"
#include "sane-ctype.h"

static int unterminated(const struct packed_refs *p, const char *at,
			size_t len)
{
	if (len < 80)
		return ga_error_set("unterminated line in %s: %.*s", p->path,
				    (int)len, at);
	return ga_error_set("unterminated line in %s: %.75s...", p->path, at);
}

/* git's die_invalid_line(): the line at `at`, of the `len` bytes left. */
static int invalid_line(const struct packed_refs *p, const char *at,
			size_t len)
{
	const char *eol = memchr(at, '\n', len);

	if (!eol)
		return unterminated(p, at, len);
	if (eol - at < 80)
		return ga_error_set("unexpected line in %s: %.*s", p->path,
				    (int)(eol - at), at);
	return ga_error_set("unexpected line in %s: %.75s...", p->path, at);
}

static size_t hexsz(const struct packed_refs *p)
{
	return ga_hash_hexsz(p->algo);
}

static int has_trait(const char *traits, size_t len, const char *want)
{
	size_t n = strlen(want), i = 0;

	while (i < len) {
		size_t j = i;

		while (j < len && traits[j] != ' ')
			j++;
		if (j - i == n && !memcmp(traits + i, want, n))
			return 1;
		i = j + 1;
	}
	return 0;
}

/* The header line, if any: its traits, and where the records start. */
static int parse_header(struct packed_refs *p, size_t *start)
{
	static const char with[] = "# pack-refs with:";
	const char *eol;
	size_t n = sizeof(with) - 1;

	*start = 0;
	if (!p->len || p->buf[0] != '#')
		return 0;
	eol = memchr(p->buf, '\n', p->len);
	if (!eol)
		return unterminated(p, p->buf, p->len);
	if ((size_t)(eol - p->buf) < n || memcmp(p->buf, with, n))
		return invalid_line(p, p->buf, p->len);
	if (has_trait(p->buf + n, (size_t)(eol - p->buf) - n, "fully-peeled"))
		p->peeled = PACKED_PEELED_FULLY;
	else if (has_trait(p->buf + n, (size_t)(eol - p->buf) - n, "peeled"))
		p->peeled = PACKED_PEELED_TAGS;
	*start = (size_t)(eol - p->buf) + 1;
	return 0;
}

/*
 * git's verify_buffer_safe(): the last record ends with LF and is long
 * enough to hold an id, a space and a name.
 */
static int verify_end(const struct packed_refs *p, size_t start)
{
	size_t last = p->len - 1;

	if (start == p->len)
		return 0;
	while (last > start && (p->buf[last - 1] != '\n' ||
				p->buf[last] == '^'))
		last--;
	if (p->buf[p->len - 1] != '\n' || p->len - last < hexsz(p) + 2)
		return invalid_line(p, p->buf + last, p->len - last);
	return 0;
}

/* A record's name: from after its id and space to its first LF. */
static const char *rec_name(const struct packed_refs *p,
			    const struct packed_record *r, size_t *len)
{
	const char *name = p->buf + r->start + hexsz(p) + 1;
	const char *eol = memchr(name, '\n', r->len - hexsz(p) - 1);

	*len = eol ? (size_t)(eol - name) : r->len - hexsz(p) - 1;
	return name;
}

static int cmp_name(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

/* qsort() has no context argument: the buffer rides in each record. */
struct sort_item {
	struct packed_record rec;
	const struct packed_refs *p;
};

static int cmp_items(const void *va, const void *vb)
{
	const struct sort_item *a = va, *b = vb;
	size_t alen, blen;
	const char *an = rec_name(a->p, &a->rec, &alen);
	const char *bn = rec_name(b->p, &b->rec, &blen);
	int c = cmp_name(an, alen, bn, blen);

	/* Keep file order among equal names, as a stable sort would. */
	if (!c)
		c = a->rec.start < b->rec.start ? -1 : 1;
	return c;
}

static void sort_records(struct packed_refs *p)
{
	struct sort_item *items = ga_xcalloc(p->nr, sizeof(*items));
	size_t i;

	for (i = 0; i < p->nr; i++) {
		items[i].rec = p->recs[i];
		items[i].p = p;
	}
	qsort(items, p->nr, sizeof(*items), cmp_items);
	for (i = 0; i < p->nr; i++)
		p->recs[i] = items[i].rec;
	free(items);
}

/*
 * Split the records: a line, with the "^" line after it if any.  Each
 * first line must hold an id, a space and a name (git checks this while
 * sorting); the check here, sorted or not, keeps every later read in
 * bounds.
 */
static int split_records(struct packed_refs *p, size_t pos, int *sorted)
{
	size_t alloc = 0;
	int in_order = 1;

	while (pos < p->len) {
		const char *eol = memchr(p->buf + pos, '\n', p->len - pos);
		size_t end;

		/* verify_end() made the last byte a LF. */
		if ((size_t)(eol - (p->buf + pos)) < hexsz(p) + 2)
			return invalid_line(p, p->buf + pos, p->len - pos);
		end = (size_t)(eol - p->buf) + 1;
		/* "^" lines go with the ref before (find_start_of_record()). */
		while (end < p->len && p->buf[end] == '^')
			end = (size_t)((const char *)memchr(p->buf + end, '\n',
					p->len - end) - p->buf) + 1;
		GA_ALLOC_GROW(p->recs, p->nr + 1, alloc);
		p->recs[p->nr].start = pos;
		p->recs[p->nr].len = end - pos;
		if (p->nr && in_order) {
			size_t alen, blen;
			const char *a = rec_name(p, &p->recs[p->nr - 1], &alen);
			const char *b = rec_name(p, &p->recs[p->nr], &blen);

			in_order = cmp_name(a, alen, b, blen) < 0;
		}
		p->nr++;
		pos = end;
	}
	/*
	 * git trusts the "sorted" trait; records out of order are sorted
	 * here whatever the header says, so that a lying file cannot hide
	 * refs from the binary search.
	 */
	*sorted = in_order;
	return 0;
}

int packed_parse(struct packed_refs *p, char *buf, size_t len,
		 const char *path, enum ga_hash_algo algo)
{
	size_t start;
	int sorted = 0, error;

	memset(p, 0, sizeof(*p));
	p->path = ga_xstrdup(path);
	p->buf = buf;
	p->len = len;
	p->buf[len] = '\0';
	p->algo = algo;
	if ((error = parse_header(p, &start)) < 0 ||
	    (error = verify_end(p, start)) < 0 ||
	    (error = split_records(p, start, &sorted)) < 0)
		return error;
	if (!sorted)
		sort_records(p);
	return 0;
}

int packed_load(struct packed_refs *p, const char *path,
		enum ga_hash_algo algo)
{
	struct ga_buf buf = GA_BUF_INIT;
	size_t len;
	char *data;

	if (ga_buf_read_file(&buf, path) < 0 && errno != ENOENT) {
		int errnum = errno;

		ga_buf_release(&buf);
		memset(p, 0, sizeof(*p));
		return ga_error_errno(errnum, "couldn't read %s", path);
	}
	ga_buf_grow(&buf, 1);
	data = ga_buf_detach(&buf, &len);
	return packed_parse(p, data, len, path, algo);
}

void packed_release(struct packed_refs *p)
{
	free(p->path);
	free(p->buf);
	free(p->recs);
	memset(p, 0, sizeof(*p));
}

size_t packed_seek(const struct packed_refs *p, const char *name)
{
	size_t lo = 0, hi = p->nr, n = strlen(name);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, len;
		const char *r = rec_name(p, &p->recs[mid], &len);

		if (cmp_name(r, len, name, n) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int rec_is(const struct packed_refs *p, size_t i, const char *name)
{
	size_t len;
	const char *r;

	if (i >= p->nr)
		return 0;
	r = rec_name(p, &p->recs[i], &len);
	return len == strlen(name) && !memcmp(r, name, len);
}

int packed_read(struct refs_raw *out, const struct packed_refs *p,
		const char *refname)
{
	size_t i = packed_seek(p, refname);
	const char *rec;

	if (!rec_is(p, i, refname))
		return GA_ENOTFOUND;
	rec = p->buf + p->recs[i].start;
	if (ga_oid_from_hex(&out->oid, p->algo, rec) < 0)
		return invalid_line(p, rec, p->len - p->recs[i].start);
	out->flags = REFS_ISPACKED;
	return 0;
}

/* The "^<id>" line of record `r`, if any (git's next_record()). */
static int read_peeled(struct refs_raw *out, const struct packed_refs *p,
		       const struct packed_record *r, const char *pos)
{
	const char *end = p->buf + r->start + r->len;

	if (pos == end || *pos != '^')
		return 0;
	if ((size_t)(end - pos - 1) < hexsz(p) + 1 ||
	    ga_oid_from_hex(&out->peeled, p->algo, pos + 1) < 0 ||
	    pos[1 + hexsz(p)] != '\n')
		return invalid_line(p, pos, (size_t)(p->buf + p->len - pos));
	/* A second "^" line is where git's next record would start. */
	if (pos + hexsz(p) + 2 < end)
		return invalid_line(p, pos + hexsz(p) + 2,
				    (size_t)(p->buf + p->len - pos) -
				    hexsz(p) - 2);
	/* Whatever the header said, this ref's peeled value is known. */
	if (out->flags & REFS_ISBROKEN) {
		ga_oid_clear(&out->peeled, p->algo);
		out->flags &= ~(unsigned)REFS_PEELED;
	} else {
		out->flags |= REFS_PEELED;
	}
	return 0;
}

int packed_record(struct refs_raw *out, const struct packed_refs *p,
		  size_t i)
{
	const struct packed_record *r = &p->recs[i];
	const char *rec = p->buf + r->start, *name;
	size_t len;

	out->flags = REFS_ISPACKED;
	ga_buf_setlen(&out->target, 0);
	if (ga_oid_from_hex(&out->oid, p->algo, rec) < 0 ||
	    !ga_isspace((unsigned char)rec[hexsz(p)]))
		return invalid_line(p, rec, p->len - r->start);
	name = rec_name(p, r, &len);
	ga_buf_setlen(&out->name, 0);
	ga_buf_put(&out->name, name, len);
	if (refs_check_name(out->name.ptr, REFS_NAME_ALLOW_ONELEVEL)) {
		if (!refname_is_safe(out->name.ptr))
			return ga_error_set("packed refname is dangerous: %s",
					    out->name.ptr);
		ga_oid_clear(&out->oid, p->algo);
		out->flags |= REFS_BAD_NAME | REFS_ISBROKEN;
	}
	ga_oid_clear(&out->peeled, p->algo);
	if (p->peeled == PACKED_PEELED_FULLY ||
	    (p->peeled == PACKED_PEELED_TAGS &&
	     ga_starts_with(out->name.ptr, "refs/tags/")))
		out->flags |= REFS_PEELED;
	return read_peeled(out, p, r, name + len + 1);
}

struct packed_iter {
	struct refs_iter base;
	const struct packed_refs *p;
	char *prefix;
	size_t i;
};

static int packed_iter_next(struct refs_iter *it)
{
	struct packed_iter *pi = (struct packed_iter *)it;
	size_t len, n = strlen(pi->prefix);
	const char *name;
	int error;

	if (pi->i >= pi->p->nr)
		return 1;
	/* Records past the prefix are not read, as git's are not. */
	name = rec_name(pi->p, &pi->p->recs[pi->i], &len);
	if (len < n || memcmp(name, pi->prefix, n))
		return 1;
	if ((error = packed_record(&it->cur, pi->p, pi->i)) < 0)
		return error;
	pi->i++;
	return 0;
}

static void packed_iter_free(struct refs_iter *it)
{
	struct packed_iter *pi = (struct packed_iter *)it;

	refs_raw_release(&it->cur);
	free(pi->prefix);
	free(pi);
}

struct refs_iter *packed_iter_new(const struct packed_refs *p,
				  const char *prefix)
{
	struct packed_iter *pi = ga_xcalloc(1, sizeof(*pi));

	pi->base.next = packed_iter_next;
	pi->base.free = packed_iter_free;
	pi->p = p;
	pi->prefix = ga_xstrdup(prefix);
	pi->i = packed_seek(p, prefix);
	return &pi->base;
}

/*
 * reftable.c: one reftable file (see reftable.h).
 */
#include "refs/reftable.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "garchive/common.h"

#define HASH_ID_SHA1	0x73686131u	/* "sha1" */
#define HASH_ID_SHA256	0x73323536u	/* "s256" */

#define REFTABLE_MAX_INDEX_LEVELS 32

static int corrupt(const char *name)
{
	return ga_error_set("%s: corrupt reftable file", name);
}

static uint32_t get_be16(const unsigned char *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get_be24(const unsigned char *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t get_be32(const unsigned char *p)
{
	return get_be16(p) << 16 | get_be16(p + 2);
}

static uint64_t get_be64(const unsigned char *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

int reftable_key_cmp(const unsigned char *a, size_t alen,
		     const unsigned char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

/*
 * The format's varint (that of OFS_DELTA): each continuation adds one
 * before shifting.  Returns the bytes it takes, or 0 when it runs past
 * `len` or past 64 bits.
 */
static size_t get_varint(uint64_t *out, const unsigned char *p, size_t len)
{
	uint64_t val;
	size_t i = 0;

	if (!len)
		return 0;
	val = p[0] & 0x7f;
	while (p[i] & 0x80) {
		if (++i >= len || val >= (UINT64_MAX >> 7))
			return 0;
		val = ((val + 1) << 7) | (p[i] & 0x7f);
	}
	*out = val;
	return i + 1;
}

static size_t footer_size(unsigned version)
{
	return version == 1 ? 68 : 72;
}

static size_t header_size(unsigned version)
{
	return version == 1 ? 24 : 28;
}

static int check_hash(struct reftable_table *t, const unsigned char *hdr)
{
	enum ga_hash_algo algo = GA_HASH_SHA1;

	if (t->version == 2) {
		uint32_t id = get_be32(hdr + 24);

		if (id == HASH_ID_SHA256)
			algo = GA_HASH_SHA256;
		else if (id != HASH_ID_SHA1)
			return corrupt(t->name);
	}
	/* git refuses a stack whose tables name another hash. */
	return algo == t->algo ? 0 : corrupt(t->name);
}

static int check_position(const struct reftable_table *t, uint64_t pos)
{
	return pos < t->end ? 0 : corrupt(t->name);
}

int reftable_table_init(struct reftable_table *t, const unsigned char *data,
			uint64_t size, enum ga_hash_algo algo,
			const char *name)
{
	const unsigned char *f;
	uint64_t obj;

	memset(t, 0, sizeof(*t));
	t->data = data;
	t->size = size;
	t->name = name;
	t->algo = algo;
	t->hash_size = ga_hash_rawsz(algo);
	if (size < 5 || memcmp(data, "REFT", 4) ||
	    (data[4] != 1 && data[4] != 2))
		return corrupt(name);
	t->version = data[4];
	t->header_size = header_size(t->version);
	if (size < t->header_size + footer_size(t->version))
		return corrupt(name);
	t->end = size - footer_size(t->version);
	f = data + t->end;
	if (memcmp(f, data, t->header_size) ||
	    crc32(0, f, (uInt)footer_size(t->version) - 4) !=
	    get_be32(f + footer_size(t->version) - 4) ||
	    check_hash(t, data) < 0)
		return corrupt(name);
	t->block_size = get_be24(data + 5);
	t->min_update_index = get_be64(data + 8);
	t->max_update_index = get_be64(data + 16);
	f += t->header_size;
	t->ref_index_pos = get_be64(f);
	obj = get_be64(f + 8);
	t->log_pos = get_be64(f + 24);
	t->log_index_pos = get_be64(f + 32);
	/* Obj blocks are not read, but git refuses ids of no length. */
	if ((obj >> 5) && !(obj & 0x1f))
		return corrupt(name);
	/* An empty table: the footer follows the header. */
	t->has_refs = t->end > t->header_size &&
		      data[t->header_size] == REFTABLE_BLOCK_REF;
	t->has_logs = (t->end > t->header_size &&
		       data[t->header_size] == REFTABLE_BLOCK_LOG) ||
		      t->log_pos > 0;
	if ((t->ref_index_pos && check_position(t, t->ref_index_pos) < 0) ||
	    (t->log_pos && check_position(t, t->log_pos) < 0) ||
	    (t->log_index_pos && check_position(t, t->log_index_pos) < 0))
		return GA_ERROR;
	return 0;
}

static int valid_type(unsigned char type)
{
	return type == REFTABLE_BLOCK_REF || type == REFTABLE_BLOCK_LOG ||
	       type == REFTABLE_BLOCK_INDEX || type == REFTABLE_BLOCK_OBJ;
}

/*
 * Inflate a log block's records after its header.  The output grows as
 * zlib fills it, up to the size the header says (a 24-bit number, so at
 * most 16 MiB), and must end exactly there with the zlib stream.
 */
static int inflate_log(struct reftable_block *b, const unsigned char *data,
		       size_t avail, size_t sz)
{
	size_t skip = b->header_off + 4;
	z_stream zs;
	int status, error = 0;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return ga_error_set("%s: zlib failure", b->name);
	ga_buf_setlen(&b->inflated, 0);
	ga_buf_put(&b->inflated, data, skip);
	zs.next_in = (unsigned char *)data + skip;
	zs.avail_in = avail - skip > UINT32_MAX ? UINT32_MAX
						: (uInt)(avail - skip);
	for (;;) {
		/* One byte more than wanted: a block that says too little. */
		size_t step = sz - b->inflated.len + 1;

		if (step > 65536)
			step = 65536;
		ga_buf_grow(&b->inflated, step);
		zs.next_out = (unsigned char *)b->inflated.ptr +
			      b->inflated.len;
		zs.avail_out = (uInt)step;
		status = inflate(&zs, Z_NO_FLUSH);
		b->inflated.len += step - zs.avail_out;
		/* Z_OK always made progress; anything else ends it. */
		if (status != Z_OK || b->inflated.len > sz ||
		    (!zs.avail_in && zs.avail_out))
			break;
	}
	if (status != Z_STREAM_END || b->inflated.len != sz)
		error = corrupt(b->name);
	b->full_len = skip + (size_t)(zs.next_in - (data + skip));
	inflateEnd(&zs);
	if (!error)
		b->inflated.ptr[b->inflated.len] = '\0';
	return error;
}

int reftable_block_parse(struct reftable_block *b, const unsigned char *data,
			 size_t avail, size_t header_off, uint32_t block_size,
			 const char *name)
{
	size_t sz;
	int error;

	b->name = name;
	b->header_off = header_off;
	if (avail < header_off + 4 || !valid_type(data[header_off]))
		return corrupt(name);
	b->type = data[header_off];
	sz = get_be24(data + header_off + 1);
	if (sz < header_off + 4 + 2)
		return corrupt(name);
	if (b->type == REFTABLE_BLOCK_LOG) {
		if ((error = inflate_log(b, data, avail, sz)) < 0)
			return error;
		b->data = (const unsigned char *)b->inflated.ptr;
	} else {
		if (sz > avail)
			return corrupt(name);
		b->data = data;
		/*
		 * A block shorter than the block size is padded with NULs,
		 * unless it ends its section: then the next block, or the
		 * footer, follows at once.
		 */
		if (!block_size || sz >= block_size ||
		    (sz < avail && data[sz] != 0))
			b->full_len = sz;
		else
			b->full_len = block_size;
	}
	b->len = sz;
	b->restart_count = get_be16(b->data + sz - 2);
	if (sz - 2 < header_off + 4 + 3 * b->restart_count)
		return corrupt(name);
	b->restart_off = sz - 2 - 3 * b->restart_count;
	return 0;
}

void reftable_block_release(struct reftable_block *b)
{
	ga_buf_release(&b->inflated);
	memset(b, 0, sizeof(*b));
}

void reftable_record_release(struct reftable_record *rec)
{
	ga_buf_release(&rec->key);
	ga_buf_release(&rec->target);
	ga_buf_release(&rec->who_name);
	ga_buf_release(&rec->who_email);
	ga_buf_release(&rec->message);
	memset(rec, 0, sizeof(*rec));
}

size_t reftable_log_name_len(const struct reftable_record *rec)
{
	return rec->key.len - 9;
}

/* A varint-prefixed string. */
static size_t get_string(struct ga_buf *out, const unsigned char *p,
			 size_t len)
{
	uint64_t n;
	size_t used = get_varint(&n, p, len);

	if (!used || n > len - used)
		return 0;
	ga_buf_setlen(out, 0);
	ga_buf_put(out, p + used, (size_t)n);
	return used + (size_t)n;
}

struct input {
	const unsigned char *p;
	size_t left;
	int bad;
};

static uint64_t take_varint(struct input *in)
{
	uint64_t v = 0;
	size_t n = in->bad ? 0 : get_varint(&v, in->p, in->left);

	if (!n)
		in->bad = 1;
	in->p += n;
	in->left -= n;
	return v;
}

static void take_bytes(unsigned char *out, struct input *in, size_t n)
{
	if (in->bad || in->left < n) {
		in->bad = 1;
		return;
	}
	memcpy(out, in->p, n);
	in->p += n;
	in->left -= n;
}

static void take_string(struct ga_buf *out, struct input *in)
{
	size_t n = in->bad ? 0 : get_string(out, in->p, in->left);

	if (!n)
		in->bad = 1;
	in->p += n;
	in->left -= n;
}

static void decode_ref(struct reftable_record *rec, struct input *in,
		       size_t hash_size)
{
	rec->update_index = take_varint(in);
	switch (rec->value_type) {
	case REFTABLE_REF_DELETION:
		break;
	case REFTABLE_REF_VAL1:
		take_bytes(rec->id1, in, hash_size);
		break;
	case REFTABLE_REF_VAL2:
		take_bytes(rec->id1, in, hash_size);
		take_bytes(rec->id2, in, hash_size);
		break;
	case REFTABLE_REF_SYMREF:
		take_string(&rec->target, in);
		break;
	default:
		/* Types 4 to 7 are reserved. */
		in->bad = 1;
	}
}

static void decode_log(struct reftable_record *rec, struct input *in,
		       size_t hash_size)
{
	unsigned char tz[2];
	size_t n = rec->key.len;

	if (n <= 9 || rec->key.ptr[n - 9] != '\0') {
		in->bad = 1;
		return;
	}
	/* The key ends with the update index, reversed: newest first. */
	rec->update_index = ~get_be64((unsigned char *)rec->key.ptr + n - 8);
	if (rec->value_type == REFTABLE_LOG_DELETION)
		return;
	take_bytes(rec->id1, in, hash_size);
	take_bytes(rec->id2, in, hash_size);
	take_string(&rec->who_name, in);
	take_string(&rec->who_email, in);
	rec->time = take_varint(in);
	take_bytes(tz, in, 2);
	rec->tz = (int16_t)(uint16_t)get_be16(tz);
	take_string(&rec->message, in);
}

int reftable_block_next(struct reftable_record *rec,
			const struct reftable_block *b, size_t *next,
			size_t hash_size)
{
	struct input in;
	uint64_t prefix, suffix;

	if (*next >= b->restart_off)
		return 1;
	in.p = b->data + *next;
	in.left = b->restart_off - *next;
	in.bad = 0;
	prefix = take_varint(&in);
	suffix = take_varint(&in);
	if (in.bad || prefix > rec->key.len || (suffix >> 3) > in.left)
		return corrupt(b->name);
	rec->value_type = (unsigned char)(suffix & 7);
	ga_buf_setlen(&rec->key, (size_t)prefix);
	ga_buf_put(&rec->key, in.p, (size_t)(suffix >> 3));
	in.p += suffix >> 3;
	in.left -= (size_t)(suffix >> 3);
	switch (b->type) {
	case REFTABLE_BLOCK_REF:
		decode_ref(rec, &in, hash_size);
		break;
	case REFTABLE_BLOCK_LOG:
		decode_log(rec, &in, hash_size);
		break;
	case REFTABLE_BLOCK_INDEX:
		rec->position = take_varint(&in);
		break;
	default:
		in.bad = 1;
	}
	if (in.bad)
		return corrupt(b->name);
	*next = b->restart_off - in.left;
	return 0;
}

/*
 * Compare the key of the record at restart point `i` with `want`: such
 * a record is stored whole (no prefix).  Sets *cmp; returns 0 or
 * GA_ERROR.
 */
static int restart_cmp(int *cmp, const struct reftable_block *b, size_t i,
		       const unsigned char *want, size_t len)
{
	size_t off = get_be24(b->data + b->restart_off + 3 * i), n;
	uint64_t prefix, suffix;

	if (off < b->header_off + 4 || off >= b->restart_off)
		return corrupt(b->name);
	n = get_varint(&prefix, b->data + off, b->restart_off - off);
	if (!n || prefix)
		return corrupt(b->name);
	off += n;
	n = get_varint(&suffix, b->data + off, b->restart_off - off);
	if (!n || (suffix >> 3) > b->restart_off - off - n)
		return corrupt(b->name);
	*cmp = reftable_key_cmp(b->data + off + n, (size_t)(suffix >> 3),
				want, len);
	return 0;
}

int reftable_block_seek(struct reftable_record *rec,
			const struct reftable_block *b, size_t *next,
			size_t hash_size, const unsigned char *want,
			size_t len)
{
	size_t lo = 0, hi = b->restart_count;
	int cmp = 0, ret;

	/* The first restart point whose key is above `want`. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((ret = restart_cmp(&cmp, b, mid, want, len)) < 0)
			return ret;
		if (cmp > 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*next = lo ? get_be24(b->data + b->restart_off + 3 * (lo - 1))
		   : b->header_off + 4;
	ga_buf_setlen(&rec->key, 0);
	while ((ret = reftable_block_next(rec, b, next, hash_size)) == 0)
		if (reftable_key_cmp((unsigned char *)rec->key.ptr,
				     rec->key.len, want, len) >= 0)
			return 0;
	return ret;
}

/* Read the block at `pos` into c->block. */
static int read_block(struct reftable_cursor *c, uint64_t pos)
{
	const struct reftable_table *t = c->t;

	size_t header_off = pos ? 0 : t->header_size;

	if (pos >= t->end)
		return corrupt(t->name);
	c->block_pos = pos;
	c->next = header_off + 4;
	ga_buf_setlen(&c->rec.key, 0);
	return reftable_block_parse(&c->block, t->data + pos,
				    (size_t)(t->end - pos), header_off,
				    t->block_size, t->name);
}

/*
 * The next block of the section after c->block: 0, or 1 when the
 * section ends (the file ends, or a block of another type follows).
 */
static int next_block(struct reftable_cursor *c, unsigned char type)
{
	uint64_t pos = c->block_pos + c->block.full_len;

	if (pos >= c->t->end || !valid_type(c->t->data[pos]) ||
	    c->t->data[pos] != type)
		return 1;
	return read_block(c, pos);
}

/*
 * The first key of the block at c->block_pos + full_len, if that block
 * continues the section: git's linear seek reads ahead one block to
 * learn whether `want` is in the current one.
 */
static int next_block_above(int *above, struct reftable_cursor *c,
			    unsigned char type, const unsigned char *want,
			    size_t len)
{
	struct reftable_cursor ahead;
	int ret;

	memset(&ahead, 0, sizeof(ahead));
	ahead.t = c->t;
	ahead.block_pos = c->block_pos;
	ahead.block.full_len = c->block.full_len;
	*above = 1;
	ret = next_block(&ahead, type);
	if (!ret)
		ret = reftable_block_next(&ahead.rec, &ahead.block,
					  &ahead.next, c->t->hash_size);
	if (!ret)
		*above = reftable_key_cmp((unsigned char *)ahead.rec.key.ptr,
					  ahead.rec.key.len, want, len) > 0;
	reftable_cursor_release(&ahead);
	return ret < 0 ? ret : 0;
}

/*
 * From the block at `pos`, the last block of the same type whose first
 * key is not above `want`; then the first record not below it.
 */
static int seek_linear(struct reftable_cursor *c, uint64_t pos,
		       unsigned char type, const unsigned char *want,
		       size_t len)
{
	int above, ret;

	if ((ret = read_block(c, pos)) < 0)
		return ret;
	if (c->block.type != type) {
		c->done = 1;
		return 0;
	}
	for (;;) {
		if ((ret = next_block_above(&above, c, type, want, len)) < 0)
			return ret;
		if (above)
			break;
		if ((ret = next_block(c, type)) != 0)
			return ret < 0 ? ret : 0;
	}
	ret = reftable_block_seek(&c->rec, &c->block, &c->next,
				  c->t->hash_size, want, len);
	c->pending = !ret;
	return ret < 0 ? ret : 0;
}

/*
 * Down the index from its top level (at the end of the index section,
 * pointing backwards) to the block of `type` that holds `want`.
 */
static int seek_indexed(struct reftable_cursor *c, uint64_t index_pos,
			unsigned char type, const unsigned char *want,
			size_t len)
{
	int ret, levels;

	if ((ret = seek_linear(c, index_pos, REFTABLE_BLOCK_INDEX, want,
			       len)) < 0)
		return ret;
	if (c->done)
		return corrupt(c->t->name);
	c->type = REFTABLE_BLOCK_INDEX;
	for (levels = 0; ; levels++) {
		if ((ret = reftable_cursor_next(c)) != 0) {
			/* `want` is above every key: nothing to find. */
			c->done = 1;
			return ret < 0 ? ret : 0;
		}
		/*
		 * Each level points back at blocks written before it; no
		 * real index has many levels (each multiplies the blocks
		 * it reaches by a block's worth of records).
		 */
		if (c->rec.position >= c->block_pos ||
		    levels >= REFTABLE_MAX_INDEX_LEVELS)
			return corrupt(c->t->name);
		if ((ret = read_block(c, c->rec.position)) < 0)
			return ret;
		ret = reftable_block_seek(&c->rec, &c->block, &c->next,
					  c->t->hash_size, want, len);
		if (ret < 0)
			return ret;
		c->pending = !ret;
		if (c->block.type == type) {
			c->type = type;
			return 0;
		}
		if (c->block.type != REFTABLE_BLOCK_INDEX)
			return corrupt(c->t->name);
	}
}

int reftable_cursor_seek(struct reftable_cursor *c,
			 const struct reftable_table *t, unsigned char type,
			 const unsigned char *want, size_t len)
{
	uint64_t start, index;

	reftable_cursor_release(c);
	c->t = t;
	c->type = type;
	if (type == REFTABLE_BLOCK_REF) {
		c->done = !t->has_refs;
		start = 0;
		index = t->ref_index_pos;
	} else {
		c->done = !t->has_logs;
		start = t->log_pos;
		index = t->log_index_pos;
	}
	if (c->done)
		return 0;
	if (index)
		return seek_indexed(c, index, type, want, len);
	return seek_linear(c, start, type, want, len);
}

int reftable_cursor_next(struct reftable_cursor *c)
{
	int ret;

	if (c->done)
		return 1;
	if (c->pending) {
		c->pending = 0;
		ret = 0;
	} else {
		while ((ret = reftable_block_next(&c->rec, &c->block, &c->next,
						  c->t->hash_size)) == 1) {
			if ((ret = next_block(c, c->type)) != 0)
				break;
		}
	}
	if (ret) {
		c->done = 1;
		return ret;
	}
	if (c->type == REFTABLE_BLOCK_REF)
		c->rec.update_index += c->t->min_update_index;
	return 0;
}

void reftable_cursor_release(struct reftable_cursor *c)
{
	reftable_block_release(&c->block);
	reftable_record_release(&c->rec);
	memset(c, 0, sizeof(*c));
}

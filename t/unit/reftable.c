/*
 * reftable.c: the reftable reader on tables built here byte by byte
 * (Documentation/technical/reftable): records with prefix compression
 * and restart points, the first block's offsets counted from the file's
 * start, padding, deletions, symbolic refs, peeled values, log blocks
 * (deflated), version 2 hash ids, and damage of every kind: a footer
 * whose CRC or header does not match, varints past 64 bits or past the
 * block, prefixes longer than the key before, restart points outside
 * their block, reserved value types, an index that points forwards (no
 * loop), log blocks that inflate to more or less than they say; then
 * tables.list, and a stack whose newer tables shadow and delete.
 */
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "garchive/common.h"
#include "refs/reftable.h"
#include "refs/rtstack.h"

#define SHA1SZ 20

struct bytes {
	unsigned char *p;
	size_t len;
};

static void put(struct bytes *b, const void *data, size_t len)
{
	b->p = realloc(b->p, b->len + len + 1);
	if (!b->p)
		abort();
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void put_be(struct bytes *b, uint64_t v, int n)
{
	unsigned char buf[8];
	int i;

	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
	put(b, buf, (size_t)n);
}

static void set_be(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

/* The format's varint: each continuation byte adds one. */
static void put_varint(struct bytes *b, uint64_t v)
{
	unsigned char buf[10];
	int i = 9;

	buf[i] = v & 0x7f;
	while (v >>= 7) {
		v--;
		buf[--i] = 0x80 | (v & 0x7f);
	}
	put(b, buf + i, (size_t)(10 - i));
}

static void put_key(struct bytes *b, size_t prefix, const char *suffix,
		    size_t len, int type)
{
	put_varint(b, prefix);
	put_varint(b, (uint64_t)len << 3 | (uint64_t)type);
	put(b, suffix, len);
}

static void put_id(struct bytes *b, int c)
{
	unsigned char id[SHA1SZ];

	memset(id, c, sizeof(id));
	put(b, id, sizeof(id));
}

static void header(struct bytes *b, int version, uint32_t block_size,
		   uint64_t min, uint64_t max, const char *hash)
{
	put(b, "REFT", 4);
	put_be(b, (uint64_t)version, 1);
	put_be(b, block_size, 3);
	put_be(b, min, 8);
	put_be(b, max, 8);
	if (version == 2)
		put(b, hash, 4);
}

/* The footer: the header again, the positions, the CRC. */
static void footer(struct bytes *b, size_t header_len, uint64_t ref_index,
		   uint64_t log_pos, uint64_t log_index)
{
	size_t start = b->len;
	unsigned char head[28];

	memcpy(head, b->p, header_len);
	put(b, head, header_len);
	put_be(b, ref_index, 8);
	put_be(b, 0, 8);
	put_be(b, 0, 8);
	put_be(b, log_pos, 8);
	put_be(b, log_index, 8);
	put_be(b, crc32(0, b->p + start, (uInt)(b->len - start)), 4);
}

/*
 * Finish a block started at `start` (its type byte at start + off):
 * restart points, count, and its length in the header.
 */
static void end_block(struct bytes *b, size_t start, size_t off,
		      const uint32_t *restarts, int n)
{
	int i;

	for (i = 0; i < n; i++)
		put_be(b, restarts[i], 3);
	put_be(b, (uint64_t)n, 2);
	set_be(b->p + start + off + 1, b->len - start, 3);
}

/*
 * A table of refs: "refs/heads/a" (id 0xaa), "refs/heads/b" (a
 * deletion), "refs/heads/c" (symbolic, to refs/heads/a),
 * "refs/tags/t" (0x11, peeled 0x22); restart points at a and c.
 * `block_size` pads the block (0: unaligned).
 */
static void ref_table(struct bytes *b, uint32_t block_size)
{
	uint32_t restarts[2];

	header(b, 1, block_size, 5, 9, NULL);
	put(b, "r\0\0\0", 4);
	restarts[0] = (uint32_t)b->len;
	put_key(b, 0, "refs/heads/a", 12, 1);
	put_varint(b, 0);
	put_id(b, 0xaa);
	put_key(b, 11, "b", 1, 0);
	put_varint(b, 1);
	restarts[1] = (uint32_t)b->len;
	put_key(b, 0, "refs/heads/c", 12, 3);
	put_varint(b, 2);
	put_varint(b, 12);
	put(b, "refs/heads/a", 12);
	put_key(b, 5, "tags/t", 6, 2);
	put_varint(b, 4);
	put_id(b, 0x11);
	put_id(b, 0x22);
	end_block(b, 0, 24, restarts, 2);
	while (block_size && b->len < block_size)
		put(b, "", 1);
	footer(b, 24, 0, 0, 0);
}

static int open_table(struct reftable_table *t, const struct bytes *b,
		      enum ga_hash_algo algo)
{
	ga_error_clear();
	return reftable_table_init(t, b->p, b->len, algo, "t.ref");
}

/* Every ref of a table from `from`, as "name type update [value]". */
static int list(struct ga_buf *out, const struct reftable_table *t,
		const char *from)
{
	struct reftable_cursor c;
	int ret;

	memset(&c, 0, sizeof(c));
	ret = reftable_cursor_seek(&c, t, REFTABLE_BLOCK_REF,
				   (const unsigned char *)from, strlen(from));
	while (!ret && !(ret = reftable_cursor_next(&c))) {
		ga_buf_printf(out, "%.*s %d %llu", (int)c.rec.key.len,
			      c.rec.key.ptr, c.rec.value_type,
			      (unsigned long long)c.rec.update_index);
		if (c.rec.value_type == REFTABLE_REF_SYMREF)
			ga_buf_printf(out, " %s", c.rec.target.ptr);
		if (c.rec.value_type == REFTABLE_REF_VAL1 ||
		    c.rec.value_type == REFTABLE_REF_VAL2)
			ga_buf_printf(out, " %02x", c.rec.id1[0]);
		if (c.rec.value_type == REFTABLE_REF_VAL2)
			ga_buf_printf(out, "^%02x", c.rec.id2[0]);
		ga_buf_putc(out, ';');
	}
	reftable_cursor_release(&c);
	return ret == 1 ? 0 : ret;
}

static const char all_refs[] = "refs/heads/a 1 5 aa;refs/heads/b 0 6;"
	"refs/heads/c 3 7 refs/heads/a;refs/tags/t 2 9 11^22;";

static void test_refs(void)
{
	struct bytes b = { NULL, 0 };
	struct reftable_table t;
	struct ga_buf out = GA_BUF_INIT;

	ref_table(&b, 0);
	ok(!open_table(&t, &b, GA_HASH_SHA1) && t.has_refs && !t.has_logs,
	   "an unaligned table of refs");
	ok(!list(&out, &t, ""), "every record");
	is_str(ga_buf_str(&out, 0), all_refs, "values, deletions, update "
	       "indices from the table's minimum");
	ga_buf_setlen(&out, 0);
	ok(!list(&out, &t, "refs/heads/b"), "from a key");
	is_str(ga_buf_str(&out, 0), "refs/heads/b 0 6;refs/heads/c 3 7 "
	       "refs/heads/a;refs/tags/t 2 9 11^22;", "a seek lands on it");
	ga_buf_setlen(&out, 0);
	ok(!list(&out, &t, "refs/heads/bb"), "from between keys");
	is_str(ga_buf_str(&out, 0), "refs/heads/c 3 7 refs/heads/a;"
	       "refs/tags/t 2 9 11^22;", "a seek goes to the next key");
	ga_buf_setlen(&out, 0);
	ok(!list(&out, &t, "refs/z") && !out.len, "past the last key");
	free(b.p);

	memset(&b, 0, sizeof(b));
	ref_table(&b, 256);
	ga_buf_setlen(&out, 0);
	ok(!open_table(&t, &b, GA_HASH_SHA1) && !list(&out, &t, "") &&
	   !strcmp(ga_buf_str(&out, 0), all_refs), "a padded block");
	ok(open_table(&t, &b, GA_HASH_SHA256) < 0 &&
	   !strcmp(ga_error_message(), "t.ref: corrupt reftable file"),
	   "a version 1 table in a SHA-256 stack: git's words");
	free(b.p);
	ga_buf_release(&out);
}

/* Damage `b` at `off` with `n` bytes of `val`; the footer fixed. */
static int damaged(struct bytes *b, size_t off, const void *val, size_t n,
		   int fix_crc)
{
	struct bytes copy = { NULL, 0 };
	struct reftable_table t;
	struct ga_buf out = GA_BUF_INIT;
	int ret;

	put(&copy, b->p, b->len);
	memcpy(copy.p + off, val, n);
	if (fix_crc) {
		size_t f = copy.len - 68;

		memcpy(copy.p + f, copy.p, 24);
		set_be(copy.p + copy.len - 4,
		       crc32(0, copy.p + f, 64), 4);
	}
	ret = open_table(&t, &copy, GA_HASH_SHA1);
	if (!ret)
		ret = list(&out, &t, "");
	if (!ret)
		ret = list(&out, &t, "refs/heads/c");
	ga_buf_release(&out);
	free(copy.p);
	return ret;
}

static void test_damage(void)
{
	struct bytes b = { NULL, 0 };
	static const unsigned char ff[10] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	unsigned char c;
	size_t end;

	ref_table(&b, 0);
	end = b.len - 68;
	c = 3;
	ok(damaged(&b, 4, &c, 1, 1) < 0, "version 3");
	c = 'X';
	ok(damaged(&b, b.len - 10, &c, 1, 0) < 0, "a CRC that does not match");
	ok(damaged(&b, 0, "XEFT", 4, 1) < 0, "bad magic");
	c = 5;
	ok(damaged(&b, 28, &c, 1, 0) < 0,
	   "a prefix longer than the key before");
	ok(damaged(&b, 28, ff, 10, 0) < 0, "a varint past 64 bits");
	ok(damaged(&b, 29, "\xff\x7f", 2, 0) < 0, "a suffix past the block");
	c = 12 << 3 | 5;
	ok(damaged(&b, 29, &c, 1, 0) < 0 &&
	   !strcmp(ga_error_message(), "t.ref: corrupt reftable file"),
	   "a reserved value type: git's words");
	ok(damaged(&b, end - 2 - 6, "\xff\xff\xff", 3, 0) < 0,
	   "a restart point outside its block");
	/* The second record, "b", is stored against the first. */
	ok(damaged(&b, end - 2 - 3, "\0\0\x3f", 3, 0) < 0,
	   "a restart point at a compressed key");
	ok(damaged(&b, end - 2, "\xff\xff", 2, 0) < 0,
	   "more restart points than the block holds");
	ok(damaged(&b, 25, "\xff\xff\xff", 3, 0) < 0,
	   "a block longer than the file");
	ok(damaged(&b, 24, "x", 1, 0) == 0,
	   "a first block of no known type: no refs, as git reads it");
	free(b.p);

	memset(&b, 0, sizeof(b));
	header(&b, 1, 0, 1, 1, NULL);
	footer(&b, 24, 0, 0, 0);
	{
		struct reftable_table t;
		struct ga_buf out = GA_BUF_INIT;

		ok(!open_table(&t, &b, GA_HASH_SHA1) && !t.has_refs &&
		   !list(&out, &t, "") && !out.len, "an empty table");
		b.len -= 1;
		ok(open_table(&t, &b, GA_HASH_SHA1) < 0, "a table cut short");
		b.len = 30;
		ok(open_table(&t, &b, GA_HASH_SHA1) < 0, "a header alone");
		ga_buf_release(&out);
	}
	free(b.p);
}

static void test_version2(void)
{
	struct bytes b = { NULL, 0 };
	struct reftable_table t;
	uint32_t restart;
	unsigned char id[32];

	header(&b, 2, 0, 1, 1, "s256");
	put(&b, "r\0\0\0", 4);
	restart = (uint32_t)b.len;
	put_key(&b, 0, "HEAD", 4, 1);
	put_varint(&b, 0);
	memset(id, 0x5a, sizeof(id));
	put(&b, id, sizeof(id));
	end_block(&b, 0, 28, &restart, 1);
	footer(&b, 28, 0, 0, 0);
	ok(!open_table(&t, &b, GA_HASH_SHA256) && t.version == 2 &&
	   t.hash_size == 32, "a version 2 SHA-256 table");
	{
		struct reftable_cursor c;

		memset(&c, 0, sizeof(c));
		ok(!reftable_cursor_seek(&c, &t, REFTABLE_BLOCK_REF,
					 (const unsigned char *)"HEAD", 4) &&
		   !reftable_cursor_next(&c) && c.rec.id1[31] == 0x5a,
		   "32-byte ids");
		reftable_cursor_release(&c);
	}
	ok(open_table(&t, &b, GA_HASH_SHA1) < 0, "read as SHA-1: refused");
	memcpy(b.p + 24, "md5!", 4);
	ok(open_table(&t, &b, GA_HASH_SHA256) < 0, "an unknown hash id");
	free(b.p);
}

/*
 * A table whose refs span `nblocks` unaligned ref blocks of one ref
 * each ("refs/heads/r<i>", id i), with an index block: good, or
 * pointing at itself (`loop`).
 */
static void indexed_table(struct bytes *b, int nblocks, int loop)
{
	uint64_t pos[64], index;
	uint32_t restart;
	int i;

	header(b, 1, 0, 1, 1, NULL);
	for (i = 0; i < nblocks; i++) {
		char name[32];
		size_t start = b->len;
		int off = i ? 0 : 24;

		pos[i] = i ? start : 0;
		if (!i)
			start = 0;
		snprintf(name, sizeof(name), "refs/heads/r%02d", i);
		put(b, "r\0\0\0", 4);
		restart = (uint32_t)(b->len - start);
		put_key(b, 0, name, strlen(name), 1);
		put_varint(b, 0);
		put_id(b, i);
		end_block(b, start, (size_t)off, &restart, 1);
	}
	index = b->len;
	put(b, "i\0\0\0", 4);
	restart = 4;
	for (i = 0; i < nblocks; i++) {
		char name[32];

		snprintf(name, sizeof(name), "refs/heads/r%02d", i);
		put_key(b, 0, name, strlen(name), 0);
		put_varint(b, loop && i == nblocks - 1 ? index : pos[i]);
	}
	end_block(b, index, 0, &restart, 1);
	footer(b, 24, index, 0, 0);
}

static void test_index(void)
{
	struct bytes b = { NULL, 0 };
	struct reftable_table t;
	struct reftable_cursor c;
	struct ga_buf out = GA_BUF_INIT;

	memset(&c, 0, sizeof(c));
	indexed_table(&b, 6, 0);
	ok(!open_table(&t, &b, GA_HASH_SHA1) && t.ref_index_pos,
	   "a table with a ref index");
	ok(!reftable_cursor_seek(&c, &t, REFTABLE_BLOCK_REF,
				 (const unsigned char *)"refs/heads/r04", 14) &&
	   !reftable_cursor_next(&c) && c.rec.id1[0] == 4,
	   "a look-up through the index");
	ok(!reftable_cursor_next(&c) && c.rec.id1[0] == 5 &&
	   reftable_cursor_next(&c) == 1, "then on to the next block, "
	   "and no further than the ref section");
	ok(!list(&out, &t, "") && strstr(out.ptr, "r00") &&
	   strstr(out.ptr, "r05"), "every block");
	ok(!reftable_cursor_seek(&c, &t, REFTABLE_BLOCK_REF,
				 (const unsigned char *)"refs/z", 6) &&
	   reftable_cursor_next(&c) == 1, "past the last key");
	free(b.p);

	memset(&b, 0, sizeof(b));
	indexed_table(&b, 6, 1);
	ok(!open_table(&t, &b, GA_HASH_SHA1) &&
	   reftable_cursor_seek(&c, &t, REFTABLE_BLOCK_REF,
				(const unsigned char *)"refs/heads/r05",
				14) < 0, "an index that points at itself: "
	   "damage, not a loop");
	reftable_cursor_release(&c);
	free(b.p);
	ga_buf_release(&out);
}

/*
 * A log-only table: one log block of `refname`'s entries with update
 * indices 3 (newest), 2 (a deletion) and 1, deflated; `says` is added
 * to the inflated size the block claims.
 */
static void log_table(struct bytes *b, int says, int cut)
{
	struct bytes raw = { NULL, 0 };
	unsigned char key[64], *z;
	uLongf zlen;
	uint32_t restart;
	int idx;

	header(b, 1, 0, 1, 3, NULL);
	put(&raw, "g\0\0\0", 4);
	restart = 24 + 4;
	for (idx = 3; idx >= 1; idx--) {
		memcpy(key, "HEAD\0", 5);
		set_be(key + 5, ~(uint64_t)idx, 8);
		put_key(&raw, 0, (const char *)key, 13, idx == 2 ? 0 : 1);
		if (idx == 2)
			continue;
		put_id(&raw, idx - 1);
		put_id(&raw, idx);
		put_varint(&raw, 1);
		put(&raw, "A", 1);
		put_varint(&raw, 3);
		put(&raw, "a@b", 3);
		put_varint(&raw, 1112911993 + (uint64_t)idx);
		put_be(&raw, (uint64_t)(int64_t)-700 & 0xffff, 2);
		put_varint(&raw, 4);
		put(&raw, idx == 3 ? "new\n" : "old\n", 4);
	}
	put_be(&raw, restart, 3);
	put_be(&raw, 1, 2);
	zlen = compressBound(raw.len);
	z = malloc(zlen);
	if (!z || compress(z, &zlen, raw.p + 4, (uLong)raw.len - 4) != Z_OK)
		abort();
	put(b, "g", 1);
	put_be(b, 24 + raw.len + (uint64_t)(int64_t)says, 3);
	put(b, z, zlen - (uLongf)cut);
	footer(b, 24, 0, 0, 0);
	free(z);
	free(raw.p);
}

static int read_logs(struct ga_buf *out, const struct bytes *b)
{
	struct reftable_table t;
	struct reftable_cursor c;
	int ret;

	memset(&c, 0, sizeof(c));
	if ((ret = open_table(&t, b, GA_HASH_SHA1)) < 0)
		return ret;
	ret = reftable_cursor_seek(&c, &t, REFTABLE_BLOCK_LOG,
				   (const unsigned char *)"HEAD", 5);
	while (!ret && !(ret = reftable_cursor_next(&c)))
		if (c.rec.value_type == REFTABLE_LOG_DELETION)
			ga_buf_printf(out, "%llu deleted\n",
				      (unsigned long long)c.rec.update_index);
		else
			ga_buf_printf(out, "%llu %d %02x %02x %s %s %llu %d %s",
			      (unsigned long long)c.rec.update_index,
			      c.rec.value_type, c.rec.id1[0], c.rec.id2[0],
			      ga_buf_str(&c.rec.who_name, 0),
			      ga_buf_str(&c.rec.who_email, 0),
			      (unsigned long long)c.rec.time, c.rec.tz,
			      ga_buf_str(&c.rec.message, 0));
	reftable_cursor_release(&c);
	return ret == 1 ? 0 : ret;
}

static void test_logs(void)
{
	struct bytes b = { NULL, 0 };
	struct ga_buf out = GA_BUF_INIT;

	log_table(&b, 0, 0);
	ok(!read_logs(&out, &b), "a log-only table");
	is_str(ga_buf_str(&out, 0),
	       "3 1 02 03 A a@b 1112911996 -700 new\n"
	       "2 deleted\n"
	       "1 1 00 01 A a@b 1112911994 -700 old\n",
	       "log records newest first, a deletion among them");
	free(b.p);
	memset(&b, 0, sizeof(b));
	log_table(&b, -1, 0);
	ok(read_logs(&out, &b) < 0, "a block that inflates to more than "
	   "it says");
	free(b.p);
	memset(&b, 0, sizeof(b));
	log_table(&b, 1, 0);
	ok(read_logs(&out, &b) < 0, "a block that inflates to less");
	free(b.p);
	memset(&b, 0, sizeof(b));
	log_table(&b, 0, 6);
	ok(read_logs(&out, &b) < 0, "a deflate stream cut short");
	free(b.p);
	ga_buf_release(&out);
}

static void test_list(void)
{
	struct ga_strvec names = GA_STRVEC_INIT;
	static const char good[] = "a.ref\n\nb.ref\nc.ref";

	ok(!rtstack_parse_list(&names, good, sizeof(good) - 1, "l") &&
	   names.nr == 3 && !strcmp(names.v[2], "c.ref"),
	   "names, empty lines skipped, the last without LF");
	ga_strvec_clear(&names);
	ok(rtstack_parse_list(&names, "a.ref\n../x.ref\n", 15, "l") < 0,
	   "a name outside the directory");
	ga_strvec_clear(&names);
	ok(rtstack_parse_list(&names, "..\n", 3, "l") < 0, "'..'");
	ga_strvec_clear(&names);
	ok(rtstack_parse_list(&names, "a\0b\n", 4, "l") < 0, "a NUL");
	ga_strvec_clear(&names);
	ok(!rtstack_parse_list(&names, "", 0, "l") && !names.nr,
	   "an empty list");
	ga_strvec_clear(&names);
}

static void write_bytes(const char *path, const struct bytes *b)
{
	FILE *fp = fopen(path, "wb");

	if (!fp || fwrite(b->p, 1, b->len, fp) != b->len || fclose(fp))
		abort();
}

/*
 * A stack of two tables: the older one is ref_table(); the newer one
 * deletes refs/heads/a and sets refs/tags/t anew.
 */
static void test_stack(void)
{
	char dir[] = "/tmp/ga-reftable-XXXXXX";
	struct bytes old = { NULL, 0 }, new = { NULL, 0 };
	struct rtstack st;
	struct reftable_record rec;
	struct refs_iter *it;
	struct ga_buf out = GA_BUF_INIT, path = GA_BUF_INIT;
	uint32_t restart;
	FILE *fp;

	if (!mkdtemp(dir))
		abort();
	ref_table(&old, 0);
	header(&new, 1, 0, 10, 10, NULL);
	put(&new, "r\0\0\0", 4);
	restart = 28;
	put_key(&new, 0, "refs/heads/a", 12, 0);
	put_varint(&new, 0);
	put_key(&new, 5, "tags/t", 6, 1);
	put_varint(&new, 0);
	put_id(&new, 0x33);
	end_block(&new, 0, 24, &restart, 1);
	footer(&new, 24, 0, 0, 0);
	ga_buf_printf(&path, "%s/1.ref", dir);
	write_bytes(path.ptr, &old);
	ga_buf_setlen(&path, 0);
	ga_buf_printf(&path, "%s/2.ref", dir);
	write_bytes(path.ptr, &new);
	ga_buf_setlen(&path, 0);
	ga_buf_printf(&path, "%s/tables.list", dir);
	fp = fopen(path.ptr, "w");
	if (!fp || fputs("1.ref\n2.ref\n", fp) < 0 || fclose(fp))
		abort();

	memset(&rec, 0, sizeof(rec));
	rtstack_init(&st, dir, GA_HASH_SHA1);
	ok(!rtstack_load(&st) && st.nr == 2, "a stack of two tables");
	ok(rtstack_read_ref(&rec, &st, "refs/heads/a") == GA_ENOTFOUND,
	   "a newer deletion hides a ref");
	ok(!rtstack_read_ref(&rec, &st, "refs/tags/t") && rec.id1[0] == 0x33 &&
	   rec.value_type == REFTABLE_REF_VAL1, "a newer value shadows");
	ok(!rtstack_read_ref(&rec, &st, "refs/heads/c") &&
	   rec.value_type == REFTABLE_REF_SYMREF, "an older value stays");
	ok(rtstack_read_ref(&rec, &st, "refs/heads/b") == GA_ENOTFOUND,
	   "an older deletion");
	it = rtstack_ref_iter_new(&st, "refs/");
	while (it && !it->next(it))
		ga_buf_printf(&out, "%s;", it->cur.name.ptr);
	refs_iter_free(it);
	is_str(ga_buf_str(&out, 0), "refs/heads/c;refs/tags/t;",
	       "the merged refs");
	rtstack_release(&st);

	/* A table the list names is gone, and the list stays: an error. */
	unlink(path.ptr);
	fp = fopen(path.ptr, "w");
	if (!fp || fputs("1.ref\n3.ref\n", fp) < 0 || fclose(fp))
		abort();
	rtstack_init(&st, dir, GA_HASH_SHA1);
	ok(rtstack_load(&st) < 0 && strstr(ga_error_message(),
					    "3.ref: file does not exist"),
	   "a missing table: git's words");
	rtstack_release(&st);
	unlink(path.ptr);
	rtstack_init(&st, dir, GA_HASH_SHA1);
	ok(!rtstack_load(&st) && !st.nr, "no tables.list: no refs");
	rtstack_release(&st);

	reftable_record_release(&rec);
	ga_buf_release(&out);
	ga_buf_release(&path);
	free(old.p);
	free(new.p);
	{
		char *cmd = ga_xstrfmt("rm -rf %s", dir);

		if (system(cmd))
			diag("could not remove %s", dir);
		free(cmd);
	}
}

int main(void)
{
	test_refs();
	test_damage();
	test_version2();
	test_index();
	test_logs();
	test_list();
	test_stack();
	return tap_done();
}

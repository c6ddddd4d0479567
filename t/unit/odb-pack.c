/*
 * odb-pack.c: the object store's parsers (src/odb/pack.c) and its
 * reads, against packs git wrote.
 *
 * Deltas and indexes are first made by hand for the malformed cases
 * (each must be refused with the code git's reader would take, never a
 * crash); then git packs a repository with deep delta chains, in a
 * SHA-1 and a SHA-256 repository, and every object the store reads must
 * be what `git cat-file` prints.
 */
#include "tap.h"
#include "gitscratch.h"
#include "odb/pack.h"
#include "odb/store.h"
#include "garchive/common.h"

#include <stdint.h>

static void test_delta_apply(void)
{
	static const unsigned char base[] = "hello world";
	/* base 11, result 17: copy 0+5, insert " there", copy 5+6 */
	static const unsigned char delta[] = {
		11, 17, 0x91, 0, 5, 6, ' ', 't', 'h', 'e', 'r', 'e',
		0x91, 5, 6
	};
	unsigned char d2[sizeof(delta)];
	unsigned char *out = NULL;
	size_t len = 0;

	ok(ga_delta_apply(&out, &len, base, 11, delta, sizeof(delta)) == 0,
	   "a delta of copies and inserts applies");
	is_mem(out, len, "hello there world", 17, "to the bytes it names");
	free(out);
	ok(ga_delta_apply(&out, &len, base, 10, delta, sizeof(delta)) ==
	   GA_DELTA_BAD_SIZE, "a delta for a base of another size is refused");
	memcpy(d2, delta, sizeof(d2));
	d2[4] = 12;		/* copy 0+12 from a base of 11 */
	ok(ga_delta_apply(&out, &len, base, 11, d2, sizeof(d2)) ==
	   GA_DELTA_WILD, "a copy beyond the base has gone wild");
	memcpy(d2, delta, sizeof(d2));
	d2[5] = 0;		/* opcode 0 */
	ok(ga_delta_apply(&out, &len, base, 11, d2, sizeof(d2)) ==
	   GA_DELTA_OPCODE_0, "opcode 0 is refused");
	memcpy(d2, delta, sizeof(d2));
	d2[1] = 18;		/* one byte more than the ops make */
	ok(ga_delta_apply(&out, &len, base, 11, d2, sizeof(d2)) ==
	   GA_DELTA_WILD, "a result shorter than named has gone wild");
	memcpy(d2, delta, sizeof(d2));
	d2[1] = 16;
	ok(ga_delta_apply(&out, &len, base, 11, d2, sizeof(d2)) ==
	   GA_DELTA_WILD, "ops making more than named have gone wild");
	ok(ga_delta_apply(&out, &len, base, 11, delta, 9) == GA_DELTA_WILD,
	   "an insert cut short has gone wild");
	{
		/* A result size of 2^60 with one insert: no allocation of it. */
		static const unsigned char huge[] = {
			11, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
			0x10, 1, 'x'
		};
		ok(ga_delta_apply(&out, &len, base, 11, huge, sizeof(huge)) ==
		   GA_DELTA_WILD, "a huge result size is refused after its ops");
	}
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* A v2 index of `nr` ids (0x10, 0x20, ...), offsets 12, 24, ... */
static unsigned char *make_idx(size_t *size, uint32_t nr, size_t rawsz,
			       size_t nr_large)
{
	size_t n = 8 + 1024 + nr * (rawsz + 8) + nr_large * 8 + 2 * rawsz;
	unsigned char *m = calloc(1, n);
	uint32_t i, f;

	memcpy(m, "\377tOc", 4);
	put32(m + 4, 2);
	for (f = 0; f < 256; f++) {
		uint32_t count = 0;

		for (i = 0; i < nr; i++)
			count += (uint32_t)(0x10 * (i + 1)) <= f;
		put32(m + 8 + 4 * f, count);
	}
	for (i = 0; i < nr; i++) {
		m[8 + 1024 + i * rawsz] = (unsigned char)(0x10 * (i + 1));
		m[8 + 1024 + i * rawsz + 1] = 0xab;
		put32(m + 8 + 1024 + nr * (rawsz + 4) + 4 * i, 12 * (i + 1));
	}
	*size = n;
	return m;
}

static void test_idx(size_t rawsz)
{
	struct ga_pack_idx idx;
	unsigned char want[32] = { 0x20, 0xab };
	unsigned char *m;
	uint32_t version, pos = 99;
	uint64_t off = 0;
	size_t size;

	m = make_idx(&size, 3, rawsz, 0);
	ok(ga_pack_idx_parse(&idx, m, size, rawsz, &version) == GA_IDX_OK &&
	   idx.nr == 3, "a v2 index of %zu-byte ids parses", rawsz);
	ok(ga_pack_idx_find(&idx, want, &pos) && pos == 1 &&
	   ga_pack_idx_offset(&idx, pos, &off) == 0 && off == 24,
	   "an id is found with its offset");
	want[1] = 0xac;
	ok(!ga_pack_idx_find(&idx, want, &pos), "an id not listed is not found");
	ok(ga_pack_idx_find_prefix(&idx, want, 2, &pos) && pos == 1 &&
	   !ga_pack_idx_matches(&idx, 2, want, 2),
	   "a prefix finds its one id");
	/*
	 * No table: as git, an entry is read from the pack checksum after
	 * it, unless it reaches the last 8 bytes of the file.
	 */
	m[size - 2 * rawsz + 7] = 0x42;
	put32(m + 8 + 1024 + 3 * (rawsz + 4) + 4, 0x80000000);
	ok(ga_pack_idx_offset(&idx, 1, &off) == 0 && off == 0x42,
	   "a large offset past the table is read from the checksum");
	put32(m + 8 + 1024 + 3 * (rawsz + 4) + 4,
	      0x80000000 | (uint32_t)(2 * rawsz / 8 - 2));
	ok(ga_pack_idx_offset(&idx, 1, &off) == 0,
	   "up to the one before the last 8 bytes");
	put32(m + 8 + 1024 + 3 * (rawsz + 4) + 4,
	      0x80000000 | (uint32_t)(2 * rawsz / 8 - 1));
	ok(ga_pack_idx_offset(&idx, 1, &off) < 0,
	   "a large offset in the last 8 bytes of the index is refused");
	put32(m + 8 + 1024 + 3 * (rawsz + 4) + 4, 0xffffffff);
	ok(ga_pack_idx_offset(&idx, 1, &off) < 0,
	   "and one far beyond");
	put32(m + 8 + 4 * 255, 0x7fffffff);
	ok(ga_pack_idx_parse(&idx, m, size, rawsz, &version) == GA_IDX_V2_SIZE,
	   "a count of 0x7fffffff: wrong index v2 file size");
	put32(m + 8 + 4 * 255, 3);
	put32(m + 8 + 4 * 200, 1);
	ok(ga_pack_idx_parse(&idx, m, size, rawsz, &version) ==
	   GA_IDX_NON_MONOTONIC, "a fan-out that goes down is refused");
	put32(m + 4, 3);
	ok(ga_pack_idx_parse(&idx, m, size, rawsz, &version) ==
	   GA_IDX_VERSION && version == 3, "version 3 is refused");
	ok(ga_pack_idx_parse(&idx, m, 100, rawsz, &version) ==
	   GA_IDX_TOO_SMALL, "a short index is too small");
	free(m);
	m = make_idx(&size, 3, rawsz, 3);
	ok(ga_pack_idx_parse(&idx, m, size, rawsz, &version) ==
	   GA_IDX_V2_SIZE, "more large offsets than objects but one: refused");
	free(m);
}

static void test_entry_header(void)
{
	static const unsigned char h[] = { 0xb5, 0x80, 0x80, 0x01 };
	static const unsigned char long_h[] = {
		0xb0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f
	};
	enum ga_obj_type type;
	uint64_t size;
	size_t used;

	ok(ga_pack_entry_header(h, sizeof(h), &type, &size) == 4 &&
	   type == GA_OBJ_BLOB && size == (5 | (1u << 18)),
	   "an entry header gives type and size");
	ok(ga_pack_entry_header(h, 2, &type, &size) == 0,
	   "a header cut short is a bad object header");
	ok(ga_pack_entry_header(long_h, sizeof(long_h), &type, &size) == 0,
	   "a size beyond 64 bits is a bad object header");
	ok(ga_pack_ofs_base((const unsigned char *)"\x05", 1, 100, &used) ==
	   95 && used == 1, "an OFS_DELTA base offset");
	ok(ga_pack_ofs_base((const unsigned char *)"\x7f", 1, 100, &used) == 0,
	   "a base at or before the start of the pack is refused");
}

static void plain_release(void *ctx, void *data)
{
	(void)ctx;
	free(data);
}

static void *plain_alloc(void *ctx, size_t len)
{
	(void)ctx;
	return malloc(len);
}

static const struct ga_store_alloc plain = { plain_alloc, plain_release,
					     NULL };

/* Every object of the repository `r` read through the store is git's. */
static void test_store_against_git(const char *dir, const char *format)
{
	char *r = scratch_fmt("%s/%s", dir, format);
	char *list, *p, *objects = scratch_fmt("%s/.git/objects", r);
	enum ga_hash_algo algo = ga_hash_by_name(format);
	struct ga_store *s = ga_store_new(algo, 0);
	size_t len, nr = 0, good = 0, deltas = 0;
	int status;

	scratch_sh("git init -q --object-format=%s %s && cd %s && "
		   "for i in $(seq 1 25); do seq 1 $((i * 50)) >f; "
		   "echo $i >>g; git add f g; "
		   "git commit -qm c$i; done && "
		   "git repack -adq --depth=30 --window=50 && "
		   "git prune-packed", format, r, r);
	list = scratch_out(&len, &status, "cd %s && git cat-file "
			   "--batch-all-objects --batch-check='%%(objectname)"
			   " %%(deltabase)'", r);
	ga_store_add_dir(s, objects, ".git/objects");
	for (p = list; p && *p; ) {
		char *nl = strchr(p, '\n'), *want;
		struct ga_oid id, base;
		enum ga_obj_type type;
		size_t want_len, got_len = 0, hsize = 0;
		void *got = NULL;

		if (!nl)
			break;
		*nl = '\0';
		if (ga_oid_from_hex(&id, algo, p) == 0) {
			nr++;
			if (ga_oid_from_hex(&base, algo,
					    p + ga_hash_hexsz(algo) + 1) == 0 &&
			    !ga_oid_is_null(&base))
				deltas++;
			want = scratch_out(&want_len, &status,
					   "cd %s && "
					   "git cat-file $(git cat-file -t %.*s) %.*s",
					   r, (int)ga_hash_hexsz(algo), p,
					   (int)ga_hash_hexsz(algo), p);
			if (ga_store_read(s, &id, &plain, &got, &got_len,
					  &type) == 0 &&
			    ga_store_read_header(s, &id, &hsize, &type) == 0 &&
			    hsize == got_len &&
			    got_len == want_len && !memcmp(got, want, got_len))
				good++;
			else
				diag("object %s differs", p);
			free(got);
			free(want);
		}
		p = nl + 1;
	}
	ok(nr > 80 && deltas > 20 && good == nr,
	   "%s: %zu of %zu objects (%zu deltas) read as git's", format, good,
	   nr, deltas);
	ga_store_free(s);
	free(list);
	free(objects);
	free(r);
}

int main(void)
{
	char *dir;

	test_delta_apply();
	test_idx(20);
	test_idx(32);
	test_entry_header();
	dir = scratch_init("odb-pack");
	test_store_against_git(dir, "sha1");
	test_store_against_git(dir, "sha256");
	scratch_done(dir);
	return tap_done();
}

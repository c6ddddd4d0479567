/*
 * Unit tests for src/odb/pack-stream.c and the look-ups that find where
 * a stream starts: pack index look-ups on hand-built indexes through the
 * store's parser, src/odb/pack.c (fan-out boundaries, large offsets,
 * version 1, indexes git would not read), and streams on hand-built
 * packs at the offsets an index gives (an empty blob, a blob across many
 * reads, deltas left to the caller, a pack that is no longer the one
 * checked, damage), with ids of SHA-1 and of SHA-256.
 */
#include "tap.h"

#include "garchive/common.h"
#include "odb/oid.h"
#include "odb/pack.h"
#include "pack-stream.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <zlib.h>

/* Ids are this long in the tests running now: 20 (SHA-1) or 32. */
static size_t rawsz = GA_OID_SHA1_RAWSZ;
#define RAWSZ rawsz

static char dir[] = "/tmp/ga-pack-stream-XXXXXX";

struct obj {
	unsigned char id[GA_OID_MAX_RAWSZ];
	uint64_t offset;
};

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static int cmp_obj(const void *a, const void *b)
{
	return memcmp(((const struct obj *)a)->id, ((const struct obj *)b)->id,
		      RAWSZ);
}

/* A buffer that grows: the bytes of an index or a pack. */
struct bytes {
	unsigned char *p;
	size_t len;
};

static void add(struct bytes *b, const void *data, size_t len)
{
	b->p = realloc(b->p, b->len + len + 1);
	if (!b->p)
		abort();
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void add32(struct bytes *b, uint32_t v)
{
	unsigned char p[4];

	put32(p, v);
	add(b, p, 4);
}

/*
 * An index of `nr` objects (sorted here), version 2 or 1, with offsets
 * at or above 2^31 in the large offset table, and `checksum` as the
 * pack's checksum.
 */
static struct bytes make_idx(struct obj *objs, uint32_t nr, int version,
			     const unsigned char *checksum)
{
	struct bytes b = { NULL, 0 };
	unsigned char zero[GA_OID_MAX_RAWSZ] = { 0 };
	uint32_t i, n = 0, nlarge = 0;
	int c;

	qsort(objs, nr, sizeof(*objs), cmp_obj);
	if (version == 2) {
		add(&b, "\377tOc", 4);
		add32(&b, 2);
	}
	for (c = 0; c < 256; c++) {
		while (n < nr && objs[n].id[0] <= c)
			n++;
		add32(&b, n);
	}
	if (version == 1) {
		for (i = 0; i < nr; i++) {
			add32(&b, (uint32_t)objs[i].offset);
			add(&b, objs[i].id, RAWSZ);
		}
	} else {
		for (i = 0; i < nr; i++)
			add(&b, objs[i].id, RAWSZ);
		for (i = 0; i < nr; i++)
			add32(&b, 0);		/* CRCs, unused */
		for (i = 0; i < nr; i++)
			add32(&b, objs[i].offset < 0x80000000u
				  ? (uint32_t)objs[i].offset
				  : 0x80000000u | nlarge++);
		for (i = 0; i < nr; i++) {
			if (objs[i].offset < 0x80000000u)
				continue;
			add32(&b, (uint32_t)(objs[i].offset >> 32));
			add32(&b, (uint32_t)objs[i].offset);
		}
	}
	add(&b, checksum, RAWSZ);
	add(&b, zero, RAWSZ);
	return b;
}

static int write_file(const char *path, const struct bytes *b)
{
	FILE *f = fopen(path, "wb");
	int ret;

	if (!f)
		return -1;
	ret = fwrite(b->p, 1, b->len, f) == b->len ? 0 : -1;
	return fclose(f) || ret;
}

/*
 * The look-up of `id` in the index `b`, as the store does it: 1 and
 * *offset, or 0 when the index does not list it, is one git would not
 * read, or gives an offset outside its large offset table.
 */
static int find(uint64_t *offset, const struct bytes *b, const unsigned char *id)
{
	struct ga_pack_idx idx;
	uint32_t version, pos;

	return ga_pack_idx_parse(&idx, b->p, b->len, rawsz, &version) ==
	       GA_IDX_OK && ga_pack_idx_find(&idx, id, &pos) &&
	       ga_pack_idx_offset(&idx, pos, offset) == 0;
}

static void test_lookups(void)
{
	/* First bytes at the ends of the fan-out and on both sides of 0x80. */
	static const unsigned char firsts[] = { 0x00, 0x00, 0x01, 0x7f, 0x80,
						0x80, 0xfe, 0xff, 0xff };
	struct obj objs[sizeof(firsts)];
	unsigned char sum[GA_OID_MAX_RAWSZ], absent[GA_OID_MAX_RAWSZ];
	struct bytes b;
	uint64_t offset;
	size_t i;
	int version;

	memset(sum, 0xab, sizeof(sum));
	/* git writes version 1 indexes for SHA-1 only. */
	for (version = rawsz == GA_OID_SHA1_RAWSZ ? 1 : 2; version <= 2;
	     version++) {
		for (i = 0; i < GA_ARRAY_SIZE(firsts); i++) {
			memset(objs[i].id, (int)(i * 17 + 1), RAWSZ);
			objs[i].id[0] = firsts[i];
			objs[i].id[RAWSZ - 1] = (unsigned char)i;
			/* Version 2: two past 2^31, one past 2^32. */
			objs[i].offset = 12 + i * 1000;
			if (version == 2 && i == 3)
				objs[i].offset = 0x80000000u;
			if (version == 2 && i == 8)
				objs[i].offset = ((uint64_t)5 << 32) | 7;
		}
		b = make_idx(objs, GA_ARRAY_SIZE(objs), version, sum);
		for (i = 0; i < GA_ARRAY_SIZE(objs); i++) {
			offset = 0;
			ok(find(&offset, &b, objs[i].id) == 1 &&
			   offset == objs[i].offset,
			   "%zu-byte ids, v%d: object %zu (first byte %02x) "
			   "at %llu", rawsz, version, i, objs[i].id[0],
			   (unsigned long long)offset);
		}
		for (i = 0; i < GA_ARRAY_SIZE(objs); i++) {
			memcpy(absent, objs[i].id, RAWSZ);
			absent[RAWSZ - 1] ^= 0x80;
			ok(find(&offset, &b, absent) == 0,
			   "v%d: a name beside object %zu is not listed",
			   version, i);
		}
		memset(absent, 0x42, sizeof(absent));
		ok(find(&offset, &b, absent) == 0,
		   "v%d: a first byte no object has", version);
		free(b.p);
	}
}

static void test_refused(void)
{
	struct obj objs[3];
	unsigned char sum[GA_OID_MAX_RAWSZ] = { 0 };
	struct bytes b;
	uint64_t offset;
	size_t len, large;
	int i;

	for (i = 0; i < 3; i++) {
		memset(objs[i].id, 0x10 * (i + 1), RAWSZ);
		objs[i].offset = 12 + (uint64_t)i * 100;
	}
	objs[2].offset = (uint64_t)1 << 40;
	b = make_idx(objs, 3, 2, sum);
	ok(find(&offset, &b, objs[0].id) == 1, "a sound index");

	b.p[3] = 'd';
	ok(find(&offset, &b, objs[0].id) == 0, "a bad magic");
	b.p[3] = 'c';
	b.p[7] = 3;
	ok(find(&offset, &b, objs[0].id) == 0, "version 3");
	b.p[7] = 2;
	/* Fan-out entry 0x20 (at 8 + 4 * 0x20) set above entry 0x21. */
	put32(b.p + 8 + 4 * 0x20, 3);
	ok(find(&offset, &b, objs[1].id) == 0, "a fan-out table going down");
	put32(b.p + 8 + 4 * 0x20, 2);
	ok(find(&offset, &b, objs[1].id) == 1, "the table mended");

	len = b.len;
	/* 8 bytes of large offsets: git checks the size within 8 bytes. */
	b.len = len - 9;
	ok(find(&offset, &b, objs[0].id) == 0,
	   "shorter than the object count needs");
	/*
	 * git reads a large offset that starts before the last 8 bytes of
	 * the file (check_pack_index_ptr()): one byte off the trailer
	 * leaves it whole.
	 */
	b.len = len - 1;
	ok(find(&offset, &b, objs[2].id) == 1,
	   "one byte short: the large offset is still read, as by git");
	b.len = 100;
	ok(find(&offset, &b, objs[0].id) == 0, "cut inside the fan-out");
	b.len = 4;
	ok(find(&offset, &b, objs[0].id) == 0, "cut inside the header");
	b.len = len;

	/*
	 * The large offset of object 2 points past the large offset table:
	 * git reads it from the trailer, and refuses one that starts in the
	 * last 8 bytes of the file (check_pack_index_ptr()).
	 */
	put32(b.p + 8 + 1024 + 3 * (rawsz + 4) + 8, 0x80000001u);
	ok(find(&offset, &b, objs[2].id) == 1,
	   "a large offset past the table, in the trailer, as git reads it");
	large = 8 + 1024 + 3 * (rawsz + 8);
	put32(b.p + 8 + 1024 + 3 * (rawsz + 4) + 8,
	      0x80000000u | (uint32_t)((b.len - 8 - large + 7) / 8));
	ok(find(&offset, &b, objs[2].id) == 0,
	   "a large offset in the last 8 bytes of the file");
	put32(b.p + 8 + 1024 + 3 * (rawsz + 4) + 8, 0x80000000u);
	ok(find(&offset, &b, objs[2].id) == 1 && offset == (uint64_t)1 << 40,
	   "a large offset of 2^40");
	/* The fan-out says more objects than the file holds. */
	for (i = 0x30; i < 256; i++)
		put32(b.p + 8 + 4 * i, 1000);
	ok(find(&offset, &b, objs[2].id) == 0,
	   "an object count the size does not fit");
	free(b.p);
}

/* An entry header: type and size. */
static void add_entry_header(struct bytes *b, int type, uint64_t size)
{
	unsigned char c = (unsigned char)(type << 4 | (size & 15));

	size >>= 4;
	while (size) {
		add(b, (unsigned char[]){ c | 0x80 }, 1);
		c = size & 0x7f;
		size >>= 7;
	}
	add(b, &c, 1);
}

static void add_deflated(struct bytes *b, const unsigned char *data,
			 size_t len)
{
	uLongf out_len = compressBound((uLong)len);
	unsigned char *out = malloc(out_len);

	if (!out || compress2(out, &out_len, data, (uLong)len, 6) != Z_OK)
		abort();
	add(b, out, out_len);
	free(out);
}

/*
 * Write pack "t.pack" and its index under `dir`/pack with the blobs of
 * `lens` bytes (blob i at `offsets[i]`); `header_size`, when not
 * UINT64_MAX, replaces the size in blob 0's header, and `delta` makes
 * blob 0 an OFS_DELTA entry.
 */
static void make_pack(unsigned char **blobs, const size_t *lens, int nr,
		      struct obj *objs, uint64_t header_size, int delta)
{
	struct bytes pack = { NULL, 0 }, idx;
	unsigned char sum[GA_OID_MAX_RAWSZ];
	char *path;
	int i;

	memset(sum, 0x5a, sizeof(sum));
	add(&pack, "PACK", 4);
	add32(&pack, 2);
	add32(&pack, (uint32_t)nr);
	for (i = 0; i < nr; i++) {
		objs[i].offset = pack.len;
		add_entry_header(&pack, i == 0 && delta ? 6 : 3,
				 i == 0 && header_size != UINT64_MAX
				 ? header_size : lens[i]);
		add_deflated(&pack, blobs[i], lens[i]);
	}
	add(&pack, sum, RAWSZ);
	path = ga_xstrfmt("%s/pack/t.pack", dir);
	write_file(path, &pack);
	free(path);
	idx = make_idx(objs, (uint32_t)nr, 2, sum);
	path = ga_xstrfmt("%s/pack/t.idx", dir);
	write_file(path, &idx);
	free(path);
	free(pack.p);
	free(idx.p);
}

/*
 * Stream the entry at `offset` of t.pack whole in reads of `cap`, as
 * the store starts it, the pack's checksum `sum` (0x5a bytes, as
 * make_pack() writes it, when NULL): 0 and the bytes, or the error.
 */
static int stream_all(struct bytes *out, uint64_t offset, size_t cap,
		      const unsigned char *sum)
{
	static const char hex[] = "2020202020";
	unsigned char written[GA_OID_MAX_RAWSZ];
	struct pack_stream_entry at = { 0 };
	struct pack_stream *s;
	unsigned char *buf = malloc(cap);
	char *path = ga_xstrfmt("%s/pack/t.pack", dir);
	git_object_t type;
	struct stat st;
	uint64_t size;
	size_t n;
	int error;

	memset(written, 0x5a, sizeof(written));
	at.path = path;
	at.shown = ".git/objects/pack/t.pack";
	at.pack_size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
	at.checksum = sum ? sum : written;
	at.rawsz = rawsz;
	at.offset = offset;
	at.hex = hex;
	out->len = 0;
	error = pack_stream_open(&s, &size, &type, &at);
	free(path);
	if (error < 0) {
		free(buf);
		return error;
	}
	do {
		if ((error = pack_stream_read(s, buf, cap, &n)) < 0)
			break;
		add(out, buf, n);
	} while (n);
	pack_stream_free(s);
	free(buf);
	if (!error && (out->len != size || type != GIT_OBJECT_BLOB))
		error = -999;
	return error;
}

static void test_streams(void)
{
	size_t lens[4] = { 0, 65535, 65537, 1000000 };
	unsigned char *blobs[4], other[GA_OID_MAX_RAWSZ];
	struct obj objs[4];
	struct bytes out = { NULL, 0 };
	char *pack_dir = ga_xstrfmt("%s/pack", dir), *path;
	struct stat st;
	uint64_t end;
	int i, j, error;

	mkdir(pack_dir, 0777);
	for (i = 0; i < 4; i++) {
		blobs[i] = malloc(lens[i] + 1);
		for (j = 0; j < (int)lens[i]; j++)
			blobs[i][j] = (unsigned char)(j * 7 + i + j / 1000);
		/* Ids in the order of the blobs: objs[i] stays blob i's. */
		memset(objs[i].id, 0x20 + i, RAWSZ);
	}
	make_pack(blobs, lens, 4, objs, UINT64_MAX, 0);
	for (i = 0; i < 4; i++) {
		ok(stream_all(&out, objs[i].offset, 65536, NULL) == 0 &&
		   out.len == lens[i] && !memcmp(out.p, blobs[i], lens[i]),
		   "%zu-byte ids: a blob of %zu bytes, 64 KiB reads", rawsz,
		   lens[i]);
		ok(stream_all(&out, objs[i].offset, 3, NULL) == 0 &&
		   out.len == lens[i] && !memcmp(out.p, blobs[i], lens[i]),
		   "%zu-byte ids: a blob of %zu bytes, 3-byte reads", rawsz,
		   lens[i]);
	}
	ok(stream_all(&out, 5, 100, NULL) == GA_ENOTFOUND,
	   "an offset into the pack header: not streamable");
	path = ga_xstrfmt("%s/t.pack", pack_dir);
	end = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
	free(path);
	ok(end > rawsz &&
	   stream_all(&out, end - rawsz, 100, NULL) == GA_ENOTFOUND &&
	   stream_all(&out, end - 1, 100, NULL) == GA_ENOTFOUND,
	   "an offset into the checksum: not streamable");
	memset(other, 0x5b, sizeof(other));
	ok(stream_all(&out, objs[1].offset, 100, other) == GA_ENOTFOUND,
	   "a pack whose checksum is not the index's: not streamable");

	/* Blob 3 (1 MB) claims one byte less, and one byte more. */
	lens[0] = lens[3];
	blobs[0] = realloc(blobs[0], lens[0]);
	memcpy(blobs[0], blobs[3], lens[0]);
	make_pack(blobs, lens, 1, objs, lens[0] - 1, 0);
	error = stream_all(&out, objs[0].offset, 4096, NULL);
	ok(error == GA_ECORRUPT && strstr(ga_error_message(), "is corrupt"),
	   "a stream longer than its header says: %s", ga_error_message());
	make_pack(blobs, lens, 1, objs, lens[0] + 1, 0);
	error = stream_all(&out, objs[0].offset, 4096, NULL);
	ok(error == GA_ECORRUPT && strstr(ga_error_message(), "is corrupt"),
	   "a stream shorter than its header says: %s", ga_error_message());
	make_pack(blobs, lens, 1, objs, UINT64_MAX, 1);
	ok(stream_all(&out, objs[0].offset, 4096, NULL) == GA_ENOTFOUND,
	   "a delta: not streamable");
	make_pack(blobs, lens, 1, objs, UINT64_MAX, 0);
	ok(stream_all(&out, objs[0].offset, 4096, NULL) == 0 &&
	   out.len == lens[0], "the same pack, sound");

	for (i = 0; i < 4; i++)
		free(blobs[i]);
	free(out.p);
	free(pack_dir);
}

int main(void)
{
	char *rm;

	if (!mkdtemp(dir))
		return 1;
	git_libgit2_init();
	for (rawsz = GA_OID_SHA1_RAWSZ; rawsz <= GA_OID_SHA256_RAWSZ;
	     rawsz += GA_OID_SHA256_RAWSZ - GA_OID_SHA1_RAWSZ) {
		test_lookups();
		test_refused();
		test_streams();
	}
	rm = ga_xstrfmt("rm -rf '%s'", dir);
	if (system(rm) != 0)
		diag("could not remove %s", dir);
	free(rm);
	git_libgit2_shutdown();
	return tap_done();
}

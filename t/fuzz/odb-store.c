/*
 * Fuzz the object store (src/odb/store.c, src/odb/pack.c): the .idx
 * parser, pack entries with their deltas, and the look-up that falls
 * back from a damaged packed copy to a loose one.  The first byte picks
 * what the rest is:
 *
 *	0	a pack index, parsed and searched
 *	1	a delta and its base (the next byte: the base's length)
 *	2	a pack's objects: the next byte gives how many ids the index
 *		lists (1-4), then 4-byte offsets for them, then the entries;
 *		the first id also has a loose copy, the input's last 64
 *		bytes, so that every read may fall back to it
 *
 * Every read must end in success or an error code (GA_ENOTFOUND,
 * GA_ECORRUPT), never a crash, a hang or an allocation sized by a
 * number read from the input (libFuzzer's rss limit).
 */
#include "fuzz.h"

#include "odb/pack.h"
#include "odb/store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"

static void fuzz_idx(const uint8_t *data, size_t size)
{
	struct ga_pack_idx idx;
	uint32_t version, pos, i;
	uint64_t off;

	if (ga_pack_idx_parse(&idx, data, size, 20, &version) != GA_IDX_OK)
		return;
	for (i = 0; i < idx.nr && i < 64; i++) {
		const unsigned char *name = ga_pack_idx_name(&idx, i);

		FUZZ_CHECK(name + 20 <= data + size);
		if (ga_pack_idx_find(&idx, name, &pos))
			(void)ga_pack_idx_offset(&idx, pos, &off);
		(void)ga_pack_idx_find_prefix(&idx, name, 7, &pos);
	}
}

static void fuzz_delta(const uint8_t *data, size_t size)
{
	size_t base_len = size ? data[0] : 0, len;
	unsigned char *out = NULL;

	if (!size || base_len > size - 1)
		return;
	if (ga_delta_apply(&out, &len, data + 1, base_len, data + 1 + base_len,
			   size - 1 - base_len) == 0) {
		FUZZ_CHECK(out != NULL);
		free(out);
	}
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, data, len) == (ssize_t)len);
	close(fd);
}

/* The scratch objects directory of this process. */
static const char *objects_dir(void)
{
	static char dir[] = "/tmp/garchive-fuzz-store-XXXXXX";
	static int made;
	char path[64];

	if (!made) {
		git_libgit2_init();
		FUZZ_CHECK(mkdtemp(dir) != NULL);
		snprintf(path, sizeof(path), "%s/pack", dir);
		FUZZ_CHECK(mkdir(path, 0755) == 0);
		snprintf(path, sizeof(path), "%s/01", dir);
		FUZZ_CHECK(mkdir(path, 0755) == 0);
		made = 1;
	}
	return dir;
}

static void plain_release(void *ctx, void *data)
{
	(void)ctx;
	free(data);
}

static void *plain_alloc(void *ctx, size_t len)
{
	(void)ctx;
	return ga_xmalloc(len);
}

static const struct ga_store_alloc plain = { plain_alloc, plain_release,
					     NULL };

/*
 * What a look-up may end in: served, not found, git's fatal damage, or
 * (this store has no report) the damaged copy left to a reporting store.
 */
static int expected_outcome(int error)
{
	return !error || error == GA_ENOTFOUND || error == GA_ECORRUPT ||
	       (error == GA_ERROR &&
		!strcmp(ga_error_message(), "damaged copy met without report"));
}

/* Read id `i` every way the archive does. */
static void read_all_ways(struct ga_store *s, const struct ga_oid *id)
{
	struct ga_store_stream *st = NULL;
	enum ga_obj_type type;
	unsigned char buf[4096];
	void *data = NULL;
	uint64_t ssize;
	size_t len, n;
	int error;

	error = ga_store_read_header(s, id, &len, &type);
	FUZZ_CHECK(expected_outcome(error));
	error = ga_store_read(s, id, &plain, &data, &len, &type);
	FUZZ_CHECK(expected_outcome(error));
	free(data);
	error = ga_store_stream_open(&st, s, id, &ssize, &type);
	if (!error) {
		uint64_t total = 0;

		while (!(error = ga_store_stream_read(st, buf, sizeof(buf),
						      &n)) && n)
			FUZZ_CHECK((total += n) <= ssize);
		ga_store_stream_free(st);
	}
	git_error_clear();
	ga_error_clear();
}

static void fuzz_store(const uint8_t *data, size_t size)
{
	const char *dir = objects_dir();
	uint32_t nr, i;
	unsigned char *idx, *pack;
	size_t idx_len, pack_len, body;
	struct ga_store *s;
	char path[128];

	if (size < 1)
		return;
	nr = 1 + data[0] % 4;
	if (size < 1 + 4 * nr)
		return;
	body = size - 1 - 4 * nr;
	pack_len = 12 + body + 20;
	pack = ga_xcalloc(1, pack_len);
	memcpy(pack, "PACK", 4);
	put32(pack + 4, 2);
	put32(pack + 8, nr);
	memcpy(pack + 12, data + 1 + 4 * nr, body);
	idx_len = 8 + 1024 + nr * 28 + 40;
	idx = ga_xcalloc(1, idx_len);
	memcpy(idx, "\377tOc", 4);
	put32(idx + 4, 2);
	for (i = 0; i < 256; i++)
		put32(idx + 8 + 4 * i, i >= 1 ? (i < nr ? i : nr) : 0);
	for (i = 0; i < nr; i++) {
		memset(idx + 8 + 1024 + 20 * i, (int)(i + 1), 20);
		memcpy(idx + 8 + 1024 + nr * 24 + 4 * i, data + 1 + 4 * i, 4);
	}
	memcpy(idx + idx_len - 40, pack + pack_len - 20, 20);
	snprintf(path, sizeof(path), "%s/pack/pack-f.pack", dir);
	write_file(path, pack, pack_len);
	snprintf(path, sizeof(path), "%s/pack/pack-f.idx", dir);
	write_file(path, idx, idx_len);
	/* id 0101...01: the loose file 01/0101...01 (19 pairs) */
	snprintf(path, sizeof(path), "%s/01/%s", dir,
		 "01010101010101010101010101010101010101");
	write_file(path, data + (size > 64 ? size - 64 : 0),
		   size > 64 ? 64 : size);
	s = ga_store_new(GA_HASH_SHA1, 0);
	FUZZ_CHECK(ga_store_add_dir(s, dir, ".git/objects") == 0);
	for (i = 0; i < nr; i++) {
		unsigned char raw[20];
		struct ga_oid id;

		memset(raw, (int)(i + 1), sizeof(raw));
		ga_oid_from_raw(&id, GA_HASH_SHA1, raw);
		read_all_ways(s, &id);
	}
	ga_store_free(s);
	free(idx);
	free(pack);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_idx(data + 1, size - 1);
		break;
	case 1:
		fuzz_delta(data + 1, size - 1);
		break;
	default:
		fuzz_store(data + 1, size - 1);
		break;
	}
	return 0;
}

/*
 * Fuzz the packed-blob stream (src/odb/pack-stream.c): the pack index
 * look-up and the entry header and inflate loop behind it, on files
 * written to a scratch objects directory.  The first byte picks the read
 * size and the mode:
 *
 * - raw (bit 0x40 clear): the next two bytes are the length of the
 *   index, then the index, then the pack, both as they are; the id looked
 *   up is the index's first name (a version 2 index), so that look-ups
 *   can succeed.
 * - built (bit 0x40 set): the rest is the body of a pack of one object
 *   (the 12-byte pack header and the checksum are added), and a sound
 *   version 2 index is written for it, at offset 12, or at the offset in
 *   the next four bytes with bit 0x80 of the first byte; so the entry
 *   header, the zlib stream and the checks of its end are explored.
 *
 * A stream either hands out exactly the size it announced and ends, or
 * fails with GA_ECORRUPT, GA_EARCHIVE or GA_ERROR and a message; an open
 * fails only as "not streamable" or with a message.
 */
#include "fuzz.h"

#include "pack-stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define RAWSZ GIT_OID_RAWSZ

static const size_t caps[] = { 1, 7, 4096, 65536 };
static char *objects_dir, *idx_path, *pack_path;

static void setup(void)
{
	char tmpl[] = "/tmp/ga-fuzz-pack-XXXXXX";
	char *dir;

	if (objects_dir)
		return;
	FUZZ_CHECK(mkdtemp(tmpl));
	objects_dir = ga_xstrdup(tmpl);
	dir = ga_xstrfmt("%s/pack", objects_dir);
	FUZZ_CHECK(mkdir(dir, 0700) == 0);
	idx_path = ga_xstrfmt("%s/f.idx", dir);
	pack_path = ga_xstrfmt("%s/f.pack", dir);
	free(dir);
}

static void write_file(const char *path, const void *a, size_t alen,
		       const void *b, size_t blen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(ga_write_all(fd, a, alen) == 0);
	FUZZ_CHECK(ga_write_all(fd, b, blen) == 0);
	FUZZ_CHECK(close(fd) == 0);
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* Stream `id` to its end in reads of `cap` and check what comes out. */
static void stream(const git_oid *id, size_t cap, uint64_t pack_size)
{
	static unsigned char buf[65536];
	struct pack_stream *s = NULL;
	git_object_t type;
	uint64_t size = 0, total = 0, calls = 0;
	size_t n;
	int error;

	error = pack_stream_open(&s, &size, &type, objects_dir, "objects", id);
	/* GA_ECORRUPT: an entry header git calls bad, with git's lines. */
	FUZZ_CHECK(!error || error == GA_ENOTFOUND ||
		   ((error == GA_ERROR || error == GA_ECORRUPT) &&
		    *ga_error_message()));
	if (error) {
		ga_error_clear();
		return;
	}
	FUZZ_CHECK(type == GIT_OBJECT_BLOB || type == GIT_OBJECT_TREE ||
		   type == GIT_OBJECT_COMMIT || type == GIT_OBJECT_TAG);
	do {
		error = pack_stream_read(s, buf, cap, &n);
		FUZZ_CHECK(n <= cap);
		total += n;
		FUZZ_CHECK(total <= size);
		/* Each read hands out bytes, ends or fails. */
		FUZZ_CHECK(++calls <= pack_size * 1032 / cap + 2);
	} while (!error && n);
	FUZZ_CHECK(!error || error == GA_ECORRUPT || error == GA_EARCHIVE ||
		   error == GA_ERROR);
	FUZZ_CHECK(!error || *ga_error_message());
	if (!error)
		FUZZ_CHECK(total == size);
	pack_stream_free(s);
	ga_error_clear();
}

static void raw(const uint8_t *data, size_t size, size_t cap)
{
	size_t idx_len;
	git_oid id;

	if (size < 2)
		return;
	idx_len = (size_t)data[0] << 8 | data[1];
	data += 2;
	size -= 2;
	if (idx_len > size)
		idx_len = size;
	write_file(idx_path, data, idx_len, "", 0);
	write_file(pack_path, data + idx_len, size - idx_len, "", 0);
	memset(id.id, 0, sizeof(id.id));
	if (idx_len >= 8 + 1024 + RAWSZ)
		memcpy(id.id, data + 8 + 1024, RAWSZ);
	stream(&id, cap, size - idx_len);
}

static void built(const uint8_t *data, size_t size, size_t cap, int at_given)
{
	unsigned char head[12], idx[8 + 1024 + RAWSZ + 4 + 4 + 2 * RAWSZ];
	unsigned char *pack;
	uint32_t offset = 12;
	size_t plen;
	git_oid id;
	int i;

	if (at_given) {
		if (size < 4)
			return;
		offset = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
			 (uint32_t)data[2] << 8 | data[3];
		data += 4;
		size -= 4;
	}
	memcpy(head, "PACK", 4);
	put32(head + 4, 2);
	put32(head + 8, 1);
	plen = sizeof(head) + size + RAWSZ;
	pack = ga_xmalloc(plen);
	memcpy(pack, head, sizeof(head));
	memcpy(pack + sizeof(head), data, size);
	memset(pack + sizeof(head) + size, 0xc5, RAWSZ);	/* the checksum */

	memset(id.id, 0x77, sizeof(id.id));
	memset(idx, 0, sizeof(idx));
	memcpy(idx, "\377tOc", 4);
	put32(idx + 4, 2);
	for (i = 0x77; i < 256; i++)
		put32(idx + 8 + 4 * i, 1);
	memcpy(idx + 8 + 1024, id.id, RAWSZ);
	put32(idx + 8 + 1024 + RAWSZ + 4, offset);
	memset(idx + sizeof(idx) - 2 * RAWSZ, 0xc5, RAWSZ);
	write_file(idx_path, idx, sizeof(idx), "", 0);
	write_file(pack_path, pack, plen, "", 0);
	free(pack);
	stream(&id, cap, plen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap;

	if (size < 1)
		return 0;
	setup();
	cap = caps[data[0] & 3];
	if (data[0] & 0x40)
		built(data + 1, size - 1, cap, data[0] & 0x80);
	else
		raw(data + 1, size - 1, cap);
	return 0;
}

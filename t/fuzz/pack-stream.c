/*
 * Fuzz the packed-blob stream (src/odb/pack-stream.c): the entry header
 * and the inflate loop behind it, from the offset the object store found
 * in a pack index, on a pack written to a scratch directory.  The first
 * byte picks the read size (bits 0-1), the hash (bit 0x20: the 32-byte
 * checksum of a SHA-256 repository, else SHA-1's 20), and the mode:
 *
 * - raw (bit 0x40 clear): the rest is the pack, as it is;
 * - built (bit 0x40 set): the rest is the body of a pack of one object
 *   (the 12-byte pack header and the checksum are added), so that the
 *   entry header, the zlib stream and the checks of its end are explored.
 *
 * The entry is at offset 12, or at the offset in the next four bytes
 * with bit 0x80; the checksum the store would have checked is the pack's
 * last bytes.  A stream either hands out exactly the size it announced
 * and ends, or fails with GA_ECORRUPT, GA_EARCHIVE or GA_ERROR and a
 * message; an open fails only as "not streamable" or with a message.
 */
#include "fuzz.h"

#include "odb/oid.h"
#include "pack-stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static const size_t caps[] = { 1, 7, 4096, 65536 };
static char *pack_path;

static void setup(void)
{
	char tmpl[] = "/tmp/ga-fuzz-pack-XXXXXX";

	if (pack_path)
		return;
	FUZZ_CHECK(mkdtemp(tmpl));
	pack_path = ga_xstrfmt("%s/f.pack", tmpl);
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

/*
 * Stream the entry at `offset` of the pack (`pack_size` bytes, ids of
 * `rawsz` bytes) to its end in reads of `cap` and check what comes out.
 */
static void stream(uint64_t offset, size_t rawsz, size_t cap,
		   const unsigned char *pack, uint64_t pack_size)
{
	static unsigned char buf[65536];
	unsigned char sum[GA_OID_MAX_RAWSZ] = { 0 };
	struct pack_stream_entry at = { 0 };
	struct pack_stream *s = NULL;
	git_object_t type;
	uint64_t size = 0, total = 0, calls = 0;
	size_t n;
	int error;

	if (pack_size >= rawsz)
		memcpy(sum, pack + pack_size - rawsz, rawsz);
	at.path = pack_path;
	at.shown = "objects/pack/f.pack";
	at.pack_size = pack_size;
	at.checksum = sum;
	at.rawsz = rawsz;
	at.offset = offset;
	at.hex = "77777777";
	error = pack_stream_open(&s, &size, &type, &at);
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

static void raw(const uint8_t *data, size_t size, size_t rawsz, size_t cap,
		uint64_t offset)
{
	write_file(pack_path, data, size, "", 0);
	stream(offset, rawsz, cap, data, size);
}

static void built(const uint8_t *data, size_t size, size_t rawsz,
		  size_t cap, uint64_t offset)
{
	unsigned char head[12];
	unsigned char *pack;
	size_t plen;

	memcpy(head, "PACK", 4);
	put32(head + 4, 2);
	put32(head + 8, 1);
	plen = sizeof(head) + size + rawsz;
	pack = ga_xmalloc(plen);
	memcpy(pack, head, sizeof(head));
	memcpy(pack + sizeof(head), data, size);
	memset(pack + sizeof(head) + size, 0xc5, rawsz);	/* the checksum */
	write_file(pack_path, pack, plen, "", 0);
	stream(offset, rawsz, cap, pack, plen);
	free(pack);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap, rawsz;
	uint64_t offset = 12;
	uint8_t mode;

	if (size < 1)
		return 0;
	setup();
	mode = data[0];
	cap = caps[mode & 3];
	rawsz = mode & 0x20 ? GA_OID_SHA256_RAWSZ : GA_OID_SHA1_RAWSZ;
	data++;
	size--;
	if (mode & 0x80) {
		if (size < 4)
			return 0;
		offset = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
			 (uint32_t)data[2] << 8 | data[3];
		data += 4;
		size -= 4;
	}
	if (mode & 0x40)
		built(data, size, rawsz, cap, offset);
	else
		raw(data, size, rawsz, cap, offset);
	return 0;
}

/*
 * Fuzz the bounded loose-object reader (src/odb/loose.c) that every loose
 * object garchive reads goes through: the header parser, the inflate
 * loop that must make progress or stop, and the checks of the end of
 * the stream.  The first byte picks how the input is fed (bytes per
 * fill, so that streams arrive cut at every point), the size of each
 * read, and whether the rest is the compressed file as it is or an
 * object to deflate first (so that headers and bodies are explored
 * behind a valid stream), cut short or with bytes after it.
 */
#include "fuzz.h"

#include "loose.h"

#include <zlib.h>

struct chunked_input {
	struct loose_input base;
	const unsigned char *data;
	size_t size, at, step;
};

static int chunked_fill(struct loose_input *in, const unsigned char **buf,
			size_t *len)
{
	struct chunked_input *c = (struct chunked_input *)in;
	size_t n = c->size - c->at;

	if (n > c->step)
		n = c->step;
	*buf = c->data + c->at;
	*len = n;
	c->at += n;
	return 0;
}

static const size_t steps[] = { 1, 2, 3, 7, 32, 512, 4096, SIZE_MAX };
static const size_t caps[] = { 1, 5, 64, 8192 };

/*
 * Read the whole object behind `data`: a success hands out exactly the
 * header's size and ends; a failure is GA_ECORRUPT with the why lines.
 */
static void read_object(const unsigned char *data, size_t size,
			size_t step, size_t cap)
{
	struct chunked_input in = { { chunked_fill }, data, size, 0, step };
	struct loose_inflater li;
	struct ga_buf why = GA_BUF_INIT;
	unsigned char buf[8192];
	uint64_t total = 0;
	size_t n, calls = 0;
	int error;

	error = loose_begin(&li, &in.base, "0123456789abcdef", &why);
	if (!error) {
		FUZZ_CHECK(li.type == GIT_OBJECT_BLOB ||
			   li.type == GIT_OBJECT_TREE ||
			   li.type == GIT_OBJECT_COMMIT ||
			   li.type == GIT_OBJECT_TAG);
		do {
			error = loose_read(&li, buf, cap, &n, &why);
			FUZZ_CHECK(n <= cap);
			total += n;
			FUZZ_CHECK(total <= li.size);
			/*
			 * Each call hands out bytes, ends or fails: the
			 * input cannot feed more calls than deflate's
			 * expansion allows.
			 */
			FUZZ_CHECK(++calls <= size * 1032 / cap + size + 2);
		} while (!error && n);
		if (!error)
			FUZZ_CHECK(total == li.size);
	}
	FUZZ_CHECK(!error || error == GA_ECORRUPT);
	FUZZ_CHECK(!error || why.len);
	loose_end(&li);
	ga_buf_release(&why);
	ga_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *z = NULL;
	size_t step, cap;
	uLongf zlen;

	if (size < 2)
		return 0;
	step = steps[data[0] & 7];
	cap = caps[(data[0] >> 3) & 3];
	if (!(data[0] & 0x20)) {
		read_object(data + 1, size - 1, step, cap);
		return 0;
	}
	/*
	 * Deflate the rest; data[1] cuts the stream short (low bits) or
	 * adds bytes after it (0x80).
	 */
	zlen = compressBound(size - 2) + 4;
	z = ga_xmalloc(zlen);
	FUZZ_CHECK(compress(z, &zlen, data + 2, size - 2) == Z_OK);
	if (data[1] & 0x80) {
		memcpy(z + zlen, "junk", 4);
		zlen += 1 + (data[1] & 3);
	} else if (data[1] & 0x7f && (data[1] & 0x7f) < zlen) {
		zlen -= data[1] & 0x7f;
	}
	read_object(z, zlen, step, cap);
	free(z);
	return 0;
}

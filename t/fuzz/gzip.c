/*
 * Fuzz the gzip engine (garchive/gzip.h).  The input is a recipe for the
 * data to compress (literal bytes, copies from earlier, long runs, noise),
 * so that a few KiB make inputs of hundreds of KiB with the long matches,
 * runs and chunk boundaries the engine has edges at.  The first bytes
 * pick the level, a thread count and a chunk size.  The data is
 * compressed with one thread and with several (small chunks, so that
 * speculative parses are joined or fall back many times), and:
 *
 *  - both outputs must be the same bytes;
 *  - zlib must inflate them to the data, CRC and size included;
 *  - differential mode: when GNU gzip can be run (set GARCHIVE_FUZZ_GZIP
 *    to 0 to turn it off), they must be `gzip -cn -N`'s bytes.
 *
 * Statistics (runs compared with gzip, differences) go to stderr at exit.
 */
#include "fuzz.h"

#include "run-command.h"
#include "garchive/gzip.h"
#include "../unit/memsink.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_DATA	(320u << 10)

struct recipe {
	const uint8_t *p;
	size_t n, pos;
};

static unsigned next(struct recipe *r)
{
	return r->pos < r->n ? r->p[r->pos++] : 0;
}

static unsigned next16(struct recipe *r)
{
	unsigned v = next(r);

	return v | next(r) << 8;
}

/* Make the data the recipe describes, up to `cap` bytes. */
static void expand(struct ga_buf *out, struct recipe *r, size_t cap)
{
	while (r->pos < r->n && out->len < cap) {
		unsigned op = next(r), len, i;

		switch (op & 3) {
		case 0:		/* literal bytes */
			len = 1 + (op >> 2);
			for (i = 0; i < len && r->pos < r->n; i++)
				ga_buf_putc(out, (int)next(r));
			break;
		case 1: {	/* a copy from up to 40000 bytes back */
			unsigned dist = 1 + next16(r) % 40000;
			size_t from;

			len = 3 + next(r) + (op >> 2) * 16;
			if (!out->len)
				break;
			if (dist > out->len)
				dist = (unsigned)out->len;
			from = out->len - dist;
			for (i = 0; i < len; i++)
				ga_buf_putc(out, out->ptr[from + i]);
			break;
		}
		case 2: {	/* a run of one byte, up to 64 KiB */
			unsigned c = next(r);

			len = next16(r) % 65536;
			for (i = 0; i < len; i++)
				ga_buf_putc(out, (int)c);
			break;
		}
		default: {	/* noise from a small generator */
			uint32_t x = next(r) * 2654435761u + 1;

			len = 64 * (1 + (op >> 2));
			for (i = 0; i < len; i++) {
				x = x * 1103515245u + 12345u;
				ga_buf_putc(out, (int)(x >> 24));
			}
			break;
		}
		}
	}
	if (out->len > cap)
		ga_buf_setlen(out, cap);
}

/* Compress `data` with `opts`, in writes of `step` bytes. */
static void compress_with(struct ga_buf *out, const struct gzip_options *opts,
		     const struct ga_buf *data, size_t step)
{
	struct mem_sink m;
	struct sink *gz = NULL;
	size_t i;

	mem_sink_init(&m, out);
	FUZZ_CHECK(gzip_sink_open(&gz, opts, &m.base) == 0);
	for (i = 0; i < data->len; i += step) {
		size_t n = data->len - i < step ? data->len - i : step;

		FUZZ_CHECK(gz->write(gz, data->ptr + i, n) == 0);
	}
	FUZZ_CHECK(gz->finish(gz) == 0);
	gz->free(gz);
}

/* zlib must give the data back, and see nothing after the member. */
static void check_inflate(const struct ga_buf *gz, const struct ga_buf *data)
{
	z_stream zs;
	uint8_t *back = ga_xmalloc(data->len + 1);
	int status;

	memset(&zs, 0, sizeof(zs));
	FUZZ_CHECK(inflateInit2(&zs, 16 + 15) == Z_OK);
	zs.next_in = (Bytef *)gz->ptr;
	zs.avail_in = (uInt)gz->len;
	zs.next_out = back;
	zs.avail_out = (uInt)data->len + 1;
	status = inflate(&zs, Z_FINISH);
	FUZZ_CHECK(status == Z_STREAM_END);
	FUZZ_CHECK(zs.total_out == data->len);
	FUZZ_CHECK(zs.avail_in == 0);
	FUZZ_CHECK(!data->len || !memcmp(back, data->ptr, data->len));
	inflateEnd(&zs);
	free(back);
}

static int differential = -1;	/* unknown yet */
static char data_path[] = "/tmp/garchive-fuzz-gzip-XXXXXX";
static unsigned long runs, compared;

static void report_stats(void)
{
	fprintf(stderr, "gzip fuzz: %lu runs, %lu compared with gzip -cn, "
		"0 differences\n", runs, compared);
	if (differential > 0)
		unlink(data_path);
}

static int run_gzip(struct ga_buf *out, int level)
{
	char levelarg[8];
	const char *argv[5] = { "gzip", "-cn", levelarg, data_path, NULL };
	struct child c = CHILD_INIT;
	char buf[65536];
	ssize_t n;
	int code;

	snprintf(levelarg, sizeof(levelarg), "-%d", level);
	c.argv = argv;
	c.pipe_out = 1;
	c.null_in = 1;
	if (child_start(&c) < 0)
		return -1;
	while ((n = read(c.out, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		FUZZ_CHECK(n > 0);
		ga_buf_put(out, buf, (size_t)n);
	}
	FUZZ_CHECK(child_finish(&c, &code, NULL) == 0);
	return code == 0 ? 0 : -1;
}

static void setup(void)
{
	const char *env = getenv("GARCHIVE_FUZZ_GZIP");
	struct ga_buf out = GA_BUF_INIT;
	int fd;

	signal(SIGPIPE, SIG_IGN);
	atexit(report_stats);
	differential = 0;
	if (env && !strcmp(env, "0"))
		return;
	fd = mkstemp(data_path);
	FUZZ_CHECK(fd >= 0);
	close(fd);
	unsetenv("GZIP");
	/* Only when gzip runs. */
	differential = 1;
	if (run_gzip(&out, 6) < 0) {
		differential = 0;
		unlink(data_path);
	}
	ga_buf_release(&out);
}

static void compare_with_gzip(const struct ga_buf *data, int level,
			      const struct ga_buf *ours)
{
	struct ga_buf theirs = GA_BUF_INIT;
	int fd = open(data_path, O_WRONLY | O_TRUNC);

	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(!data->len || ga_write_all(fd, data->ptr, data->len) == 0);
	close(fd);
	FUZZ_CHECK(run_gzip(&theirs, level) == 0);
	if (theirs.len != ours->len ||
	    memcmp(theirs.ptr, ours->ptr, ours->len)) {
		fprintf(stderr, "gzip fuzz: differs from gzip -cn -%d "
			"(%zu bytes in, %zu vs %zu out)\n", level, data->len,
			ours->len, theirs.len);
		abort();
	}
	compared++;
	ga_buf_release(&theirs);
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	struct recipe r = { p, n, 0 };
	struct ga_buf data = GA_BUF_INIT, one = GA_BUF_INIT, many = GA_BUF_INIT;
	struct gzip_options o1 = { 6, 1, 0, NULL }, o2;
	unsigned b0 = next(&r), b1 = next(&r);
	size_t step;

	if (differential < 0)
		setup();
	o1.level = 1 + (int)(b0 % 9);
	o2 = o1;
	o2.threads = 2 + (int)(b1 % 3);
	o2.chunk_size = 32768 * (1 + (b1 >> 2) % 3);
	step = 1 + (size_t)next16(&r) * 8;
	/* Raw bytes or a recipe, by the top bit. */
	if (b0 & 0x80)
		expand(&data, &r, MAX_DATA);
	else
		ga_buf_put(&data, p + r.pos, n - r.pos);

	compress_with(&one, &o1, &data, step);
	compress_with(&many, &o2, &data, 65536);
	FUZZ_CHECK(one.len == many.len && !memcmp(one.ptr, many.ptr, one.len));
	check_inflate(&one, &data);
	if (differential > 0)
		compare_with_gzip(&data, o1.level, &one);
	runs++;

	ga_buf_release(&data);
	ga_buf_release(&one);
	ga_buf_release(&many);
	return 0;
}
